import Foundation
import MotionClient
import MotionWire
import Testing

/// Issue #4 over the real socket: the pure queries against every reference case, performing transitions
/// (busy, enqueue, container animations), errors that change nothing, and state that survives `kill -9`.
@Suite("Routers over the socket")
struct RouterTests {
    static let fade: JSONValue = ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.3]
    /// Long enough that a loaded CI machine cannot finish the transition before the next request arrives.
    static let slowFade: JSONValue = ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 3]

    static func reference(_ name: String) throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("MotionHostTests/Fixtures/\(name)")
        return try JSONValue.parse(Array(try Data(contentsOf: url)))
    }

    private func code(_ body: () async throws -> JSONValue) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch {
            return (error as? MotionClientError)?.code
        }
    }

    @Test func routeDiffAndResolveMatchEveryReferenceCase() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        for reference in try Self.reference("navigator_url_diff.json")["cases"]?.arrayValue ?? [] {
            let result = try await client.call("route.diff", ["scheme": "navigator", "from": reference["from"]!, "to": reference["to"]!])
            let updates = (result["updates"]?.arrayValue ?? []).map { update -> String in
                let op = update["op"]?.stringValue ?? "?", key = update["key"]?.stringValue ?? "?"
                switch op {
                case "show", "hide": return "\(op) \(key) \(update["options"]?.intValue ?? -1)"
                case "pop": return "pop \(key) \(update["depth"]?.intValue ?? -1)"
                default: return "\(op) \(key) \(update["data"]?.stringValue ?? "-")"
                }
            }
            let expected = (reference["updates"]?.arrayValue ?? []).map { update -> String in
                let key = update["key"]?.stringValue ?? "?"
                switch update["type"]?.stringValue {
                case "animation": return "\(update["visible"]?.boolValue == true ? "show" : "hide") \(key) \(update["options"]?.intValue ?? -1)"
                case "pop": return "pop \(key) \((update["pops_to_index"]?.intValue ?? -2) + 1)"
                case let type: return "\(type ?? "?") \(key) \(update["data"]?.stringValue ?? "-")"
                }
            }
            #expect(updates == expected, "\(reference["from"]!) → \(reference["to"]!)")
        }
        let paths = try Self.reference("deeptransition_paths.json")
        for reference in paths["relative_to_cases"]?.arrayValue ?? [] {
            let from = "dt://" + Self.canonical(reference["current_path"]?.stringValue ?? "")
            let result = try await client.call("route.resolve", ["scheme": "dt", "path": reference["transition"]!, "from": .string(from)])
            #expect(result["url"]?.stringValue == "dt://" + Self.canonical(reference["result_path"]?.stringValue ?? ""),
                    "\(from) + \(reference["transition"]!)")
            let segues = (result["components"]?.arrayValue ?? []).map { $0["segue"]?.stringValue ?? "?" }
            let expected = (reference["result_components"]?.arrayValue ?? []).map {
                ["Show": "push", "Modal": "modal", "Tab": "tab"][$0["segue"]?.stringValue ?? ""] ?? "?"
            }
            #expect(segues == expected)
        }
        for reference in try Self.reference("navigator_url_parse.json")["cases"]?.arrayValue ?? [] {
            let url = try #require(reference["url"]?.stringValue)
            let scheme = url.components(separatedBy: "://").first.flatMap { $0.isEmpty ? nil : $0 } ?? "navigator"
            let params: JSONValue = ["scheme": .string(scheme), "from": .string(scheme + "://"), "to": .string(url)]
            if reference["expected"]?["error"] != nil {
                #expect(await code { try await client.call("route.diff", params) } == "route.malformed", "\(url)")
            } else {
                #expect(try await client.call("route.diff", params)["to"] == reference["expected"]?["serialized"], "\(url)")
            }
        }
        await client.close()
    }

    @Test func startWhileBusyIsRefusedAndEnqueueLandsOnTheCombinedDestination() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["routes", "frames"], "runtime": "motiond.route.app"])
        _ = try await client.call("router.configure", [
            "scheme": "app",
            "routes": ["a": ["kind": "stack", "transition": Self.fade], "b": ["kind": "stack", "transition": Self.slowFade],
                       "c": ["kind": "stack", "transition": ["push": Self.fade]], "sheet": ["kind": "modal"]],
        ])
        let first = Task { try await client.call("route.go", ["scheme": "app", "to": "app://a/b"]) }
        _ = try await events.waitFor { $0["event"] == "route.transition.start" }
        #expect(await code { try await client.call("route.go", ["scheme": "app", "to": "c"]) } == "router.busy")
        let during = try await client.call("route.state", ["scheme": "app"])
        #expect(during["transitioning"] == true)
        #expect(during["to"] == "app://a/b")
        let queued = Task { try await client.call("route.go", ["scheme": "app", "to": "../c", "mode": "enqueue"]) }
        // Two Tasks may send in either order: let the first reach the queue before the second is sent.
        for _ in 0..<400 {
            let state = try await client.call("route.state", ["scheme": "app"])
            if state["queued"] == 1 || state["to"] == "app://a/c" { break }
            try await Task.sleep(for: .milliseconds(5))  // polls until the first enqueue is queued
        }
        let presented = Task { try await client.call("route.go", ["scheme": "app", "to": "sheet", "mode": "enqueue"]) }
        #expect(try await first.value["url"] == "app://a/b")
        #expect(try await queued.value["url"] == "app://a/c", "resolved against a/b, the state when it ran")
        let last = try await presented.value
        #expect(last["url"] == "app://a/c!sheet", "a modal route is presented where the path leaves the segue open")
        #expect(try await client.call("route.state", ["scheme": "app"])["url"] == "app://a/c!sheet")

        let seen = try await events.waitFor { $0["event"] == "route.transition.end" && $0["url"] == "app://a/c!sheet" }
        let routeEvents = seen.filter { $0["event"] != "frame" }.map { event -> String in
            let name = event["event"]?.stringValue ?? "?"
            return name == "route.update" ? "update \(event["update"]?["op"]?.stringValue ?? "?") \(event["update"]?["key"]?.stringValue ?? "?")" : name
        }
        #expect(routeEvents == [
            "route.transition.start", "update replace a", "update push b", "route.transition.end",
            "route.transition.start", "update pop b", "update push c", "route.transition.end",
            "route.transition.start", "update present sheet", "route.transition.end",
        ])
        // Each update waited for its screen's fade: the push of b ends after b's opacity reached 1.
        let pushB = try #require(seen.firstIndex { $0["update"]?["key"] == "b" })
        let bFrames = seen[..<pushB].flatMap { ($0["updates"]?.arrayValue ?? []).filter { $0["target"] == "screen:a/b" } }
        #expect(bFrames.count >= 5)
        #expect(bFrames.last?["value"] == [1])
        await client.close()
    }

    @Test func containerAnimationRunsItsPhasesInOrder() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames", "routes"]])
        _ = try await client.call("router.configure", [
            "scheme": "shop", "routes": ["list": ["kind": "stack"], "detail": ["kind": "stack"]],
            "transitions": [["from": "list", "to": "detail", "animation": "removePreviousThenAppear"]],
        ])
        _ = try await client.call("route.go", ["scheme": "shop", "to": "list", "animated": false])
        let result = try await client.call("route.go", ["scheme": "shop", "to": "detail"])
        #expect(result["url"] == "shop://list/detail")
        let seen = try await events.waitFor { $0["event"] == "route.transition.end" && $0["url"] == "shop://list/detail" }
        let frames = seen.filter { $0["event"] == "frame" }.flatMap { $0["updates"]?.arrayValue ?? [] }
        let listFrames = frames.indices.filter { frames[$0]["target"] == "screen:list" }
        let detailFrames = frames.indices.filter { frames[$0]["target"] == "screen:list/detail" }
        #expect(listFrames.count >= 3 && detailFrames.count >= 3, "both screens animate")
        #expect(frames[listFrames.last!]["value"] == [0], "the previous screen is removed (faded out)")
        #expect(listFrames.last! < detailFrames.first!, "remove previous, then appear")
        #expect(frames[detailFrames.last!]["value"] == [1])
        await client.close()
    }

    @Test func errorsNameTheProblemAndChangeNothing() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        #expect(await code { try await client.call("route.go", ["scheme": "tv", "to": "home"]) } == "router.not_found")
        #expect(await code { try await client.call("router.configure", ["scheme": "tv", "routes": ["home": ["kind": "page"]]]) } == "request.invalid")
        #expect(await code { try await client.call("router.configure", ["scheme": "tv", "routes": ["home": ["kind": "stack", "transition": ["type": "Wobble"]]]]) } == "plan.unknown_type")
        #expect(await code { try await client.call("router.configure", ["scheme": "1tv", "routes": ["home": ["kind": "stack"]]]) } == "request.invalid")
        _ = try await client.call("router.configure", ["scheme": "tv", "routes": ["home": ["kind": "stack"], "menu": ["kind": "overlay"]]])
        _ = try await client.call("route.go", ["scheme": "tv", "to": "tv://home?menu=v"])
        let cases: [(JSONValue, String)] = [
            ("tv://home/nowhere", "router.no_route"), ("tv://home?ghost=v", "router.no_route"), ("menu", "router.no_route"),
            ("tv://home::1::2", "route.malformed"), ("home(x=1", "route.malformed"), ("radio://home", "route.scheme_mismatch"),
            ("up(n=5)", "route.out_of_range"), (5, "request.invalid"),
        ]
        for (to, expected) in cases {
            #expect(await code { try await client.call("route.go", ["scheme": "tv", "to": to]) } == expected, "\(to)")
        }
        #expect(try await client.call("route.state", ["scheme": "tv"])["url"] == "tv://home?menu=v", "nothing changed")
        #expect(await code { try await client.call("route.go", ["scheme": "tv", "to": "home", "mode": "later"]) } == "request.invalid")
        #expect(await code { try await client.call("runtime.destroy", ["name": "motiond.route.tv"]) } == "runtime.protected")
        #expect(await code { try await client.call("route.diff", ["scheme": "tv", "from": "tv://a", "to": "x://b"]) } == "route.scheme_mismatch")
        let same = try await client.call("route.go", ["scheme": "tv", "to": "tv://home?menu=1"])
        #expect(same["changed"] == false, "going where the router is changes nothing")
        await client.close()
    }

    @Test func acknowledgedStateSurvivesKillMinus9() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path])
        var client = try await first.client()
        _ = try await client.call("router.configure", [
            "scheme": "tv", "routes": ["home": ["kind": "stack", "transition": Self.fade], "show": ["kind": "stack"],
                                       "player": ["kind": "modal"], "menu": ["kind": "overlay"]],
        ])
        let acknowledged = try await client.call("route.go", ["scheme": "tv", "to": "tv://home/show::2!player(autoplay=1)?menu=v"])
        #expect(acknowledged["url"] == "tv://home/show::2!player(autoplay=1)?menu=v")
        #expect(await first.stop(signal: SIGKILL, timeout: 30) == SIGKILL, "killed with no chance to clean up")

        let second = try await DaemonProcess(arguments: ["--state-dir", state.path])
        client = try await second.client()
        let restored = try await client.call("route.state", ["scheme": "tv"])
        #expect(restored["url"] == acknowledged["url"])
        #expect(restored["routes"]?["player"] == "modal", "the configuration came back too")
        let next = try await client.call("route.go", ["scheme": "tv", "to": "..", "animated": false])
        #expect(next["url"] == "tv://home/show::2?menu=v")
        await client.close()
    }

    static func canonical(_ path: String) -> String {
        var text = path.replacingOccurrences(of: "!/", with: "!").replacingOccurrences(of: "#/", with: "#")
        if text.hasPrefix("/") { text.removeFirst() }
        return text
    }
}
