import MotionRoutes
import Testing

/// The pinned canonical grammar (docs/routes.md): examples, round trips of random states, and errors.
@Suite("Route grammar")
struct RouteGrammarTests {
    @Test func specExampleIsCanonical() throws {
        let text = "television://home/show::2!player(autoplay=1)#chapters?menu=v"
        let url = try RouteURL(parsing: text)
        #expect(url.string == text)
        #expect(url.state.components.map(\.segue) == [.push, .push, .modal, .tab])
        #expect(url.state.components[2].params == ["autoplay": "1"])
        #expect(try RouteURL(parsing: "television://home/show::2?video=v").state.overlays["video"] == .visible,
                "docs/routes.md: v is visible (Navigator read it as hidden)")
    }

    @Test func bothSyntaxesMeetInOneCanonicalForm() throws {
        #expect(try RouteURL(parsing: "app:///top!/friend#/list").string == "app://top!friend#list")
        #expect(try RouteURL(parsing: "app://a?m=9&z=3&b=0").string == "app://a?m=vm&z=vu", "letters in v u a m order, hidden dropped")
        #expect(try RouteURL(parsing: "app://a?m=mv").state.overlays["m"] == [.visible, .modal])
        #expect(try RouteURL(parsing: "app://show(url=http://x.org/a?b=1#c,id=9)").string == "app://show(id=9,url=http://x.org/a?b=1#c)",
                "parameter values keep / ? # = :, keys sorted")
        #expect(try RouteURL(parsing: "app://!modal").string == "app://!modal", "a presented root keeps its !")
        #expect(try RouteURL(parsing: "app://a::") != RouteURL(parsing: "app://a"), "empty data is written key::")
    }

    @Test func malformedInputNamesTheProblem() {
        let cases: [(String, String)] = [
            ("", "no scheme"), ("home/show", "no scheme"), ("1x://a", "scheme"), ("a://b://c", "single ':'"),
            ("x://a::1::2", "only one data string"), ("x://a(b=1", "never closed"), ("x://a(b)", "needs key=value"),
            ("x://a!", "must be followed by a key"), ("x://a!#b", "no key between"), ("x://a?m", "expected key=options"),
            ("x://a?m=q", "expected letters"), ("x://a?m=99", "0 to 15"), ("x://a(b=1)c", "unexpected 'c'"),
            ("x://a b", "spaces"),
        ]
        for (text, problem) in cases {
            do {
                _ = try RouteURL(parsing: text)
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.code == .malformed, "\(text)")
                #expect(error.message.contains(problem), "\(text): \(error.message)")
            }
        }
    }

    @Test func pathErrors() throws {
        let state = try RouteURL(parsing: "x://a/b").state
        #expect(throws: RouteError(.outOfRange, "up(n=3): the route is only 2 levels deep")) {
            try RoutePath.resolve("up(n=3)", from: state)
        }
        #expect(try RoutePath.resolve("up(n=2)", from: state).components.isEmpty)
        #expect(try RoutePath.resolve("up()", from: state).canonicalPath == "a")
        #expect(throws: RouteError.self) { try RoutePath.resolve("..x", from: state) }
        #expect(try RoutePath.resolve("?menu=v", from: state).canonicalPath == "a/b?menu=v", "a query alone sets overlays")
        #expect(try RoutePath.resolve("..?menu=1", from: state).canonicalPath == "a?menu=v")
        #expect(try RoutePath.resolve("^c", from: state).canonicalPath == "c")
        #expect(try RoutePath.resolve("show(id=9,offset=50)", from: state).canonicalPath == "a/b/show(id=9,offset=50)")
    }

    @Test func randomStatesRoundTrip() throws {
        var random = SplitMix64(seed: 0x5EED)
        let keys = ["home", "show", "player", "a", "b-2", "x.y", "ünï"]
        let values = ["1", "", "http://h.org/a?b=c#d", "x=y", "a!b#c"]
        for _ in 0..<2_000 {
            var state = RouteState()
            for _ in 0..<random.next(below: 6) {
                var component = RouteComponent(key: keys[random.next(below: keys.count)],
                                               segue: Segue.allCases[random.next(below: 3)])
                if random.next(below: 3) == 0 { component.data = ["", "2", "a:b", "x y"][random.next(below: 4)] }
                for _ in 0..<random.next(below: 3) {
                    component.params[keys[random.next(below: keys.count)]] = values[random.next(below: values.count)]
                }
                state.components.append(component)
            }
            for _ in 0..<random.next(below: 3) {
                state.overlays[keys[random.next(below: keys.count)]] = OverlayOptions(rawValue: random.next(below: 16))
            }
            let url = state.url(scheme: "app")
            let parsed = try RouteURL(parsing: url)
            #expect(parsed.state == state, "\(url)")
            #expect(parsed.string == url)
            #expect(parsed.state.components == state.components, "\(url): components survive exactly")
            #expect(RouteDiff.updates(from: state, to: parsed.state).isEmpty)
        }
    }
}

/// A small deterministic generator, so a failing random case is the same case on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
