import Foundation
import MotionClient
import MotionWire
import Testing

/// Every bad input gets its stable code, and nothing else is disturbed.
@Suite("Bad input over the socket")
struct BadInputTests {
    private func code(_ body: () async throws -> JSONValue) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as MotionClientError {
            return error.code
        } catch {
            return "\(error)"
        }
    }

    @Test func requestsBeforeHelloAreRefused() async throws {
        let daemon = try await DaemonProcess()
        let client = try await MotionClient.connect(path: daemon.socket)
        #expect(await code { try await client.call("status") } == "protocol.hello_required")
        #expect(await code { try await client.call("hello", ["protocol": 2]) } == "protocol.unsupported_version")
        try await client.hello()
        // The harness's readiness probe is another connection, closed on another event loop: on a loaded
        // machine the daemon may hear of it after this client's first requests.
        var clients = try await client.call("status")["clients"]
        let deadline = ContinuousClock.now + .seconds(10)
        while clients != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))  // polls until the daemon has seen the probe's connection close
            clients = try await client.call("status")["clients"]
        }
        #expect(clients == 1)
        await client.close()
    }

    @Test func eachBadRequestGetsItsCodeAndTheConnectionStaysUsable() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        #expect(await code { try await client.call("no.such.method") } == "protocol.unknown_method")
        #expect(await code { try await client.call("plan.add", ["target": "a", "plan": ["type": "Warp"]]) } == "plan.unknown_type")
        #expect(await code { try await client.call("plan.add", ["target": 5, "plan": ["type": "Spring"]]) } == "request.invalid")
        #expect(await code { try await client.call("plan.add", ["target": "a", "plan": ["type": "Spring", "property": "x"]]) } == "plan.invalid")
        #expect(await code { try await client.call("plan.add", ["runtime": "nope", "target": "a", "plan": ["type": "Spring", "to": [1], "property": "x"]]) } == "runtime.not_found")
        #expect(await code { try await client.call("subscribe", ["streams": ["video"]]) } == "request.invalid")
        #expect(await code { try await client.call("unsubscribe", ["sub": 99]) } == "subscription.not_found")
        #expect(await code { try await client.call("runtime.destroy", ["name": "default"]) } == "runtime.protected")
        do {
            _ = try await client.call("plan.add", ["target": "a", "plan": ["type": "Warp"]])
        } catch let error as MotionClientError {
            guard case .server(_, let message) = error else { throw error }
            #expect(message.contains("Spring") && message.contains("Set"))
        }
        do {
            _ = try await client.call("plan.add", ["target": 5, "plan": ["type": "Spring"]])
        } catch let error as MotionClientError {
            guard case .server(_, let message) = error else { throw error }
            #expect(message.hasPrefix("target:"))
        }
        #expect(try await client.call("sync") == [:])
        await client.close()
    }

    /// A misspelled request key is refused with the keys the method takes, and the request changes
    /// nothing (it was ignored: `"target"` subscribed to everything, `"ephemral"` made a durable runtime).
    @Test func unknownRequestKeysAreRefusedAndChangeNothing() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let before = try await client.call("status")
        for (method, params, hint) in [
            ("subscribe", ["streams": ["frames"], "target": ["only-this"]], "did you mean targets?"),
            ("runtime.create", ["name": "eph1", "ephemral": true], "did you mean ephemeral?"),
            ("plan.add", ["target": "a", "plan": ["type": "Set", "property": "x", "value": [1]], "nmae": "n"], "did you mean name?"),
            ("gesture.push", ["gesture": "g", "samples": [["t": 1, "position": [0, 0]]], "runtme": "zzz"], "did you mean runtime?"),
            ("status", ["client": true], "did you mean clients?"),
            ("metrics", ["verbose": true], "it takes no params"),
        ] as [(String, JSONValue, String)] {
            do {
                _ = try await client.call(method, params)
                Issue.record("\(method) with \(params) was accepted")
            } catch let error as MotionClientError {
                guard case .server(let code, let message) = error else { throw error }
                #expect(code == "request.invalid" && message.contains("unknown key for \(method)") && message.contains(hint), "\(message)")
            }
        }
        let after = try await client.call("status")
        #expect(after["subscriptions"] == before["subscriptions"] && after["runtimes"] == before["runtimes"]
            && after["performers"] == before["performers"], "before \(before), after \(after)")
        await client.close()
    }

    /// A plan that passes its schema but that the plugin refuses (`plan.invalid`) leaves nothing: no
    /// performer (counted, listed or announced) and no target made for it. The next good plan makes
    /// the performer and announces it before its `plan.added`.
    @Test func aPlanThePluginRefusesLeavesNoPerformerOrTarget() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["trace"], "targets": ["fresh"]])
        let before = try await client.call("status")
        for plan: JSONValue in [["type": "Tween", "property": "x", "to": [1], "timing": "bouncy"],
                                ["type": "Spring", "property": "x", "to": [1], "tension": 100, "stiffness": 100]] {
            #expect(await code { try await client.call("plan.add", ["target": "fresh", "plan": plan]) } == "plan.invalid")
        }
        let after = try await client.call("status")
        #expect(after["performers"] == before["performers"], "before \(before), after \(after)")
        let state = try await client.call("runtime.state")
        #expect(state["targets"]?["fresh"] == nil, "\(state)")
        _ = try await client.call("plan.add", ["target": "fresh", "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 0.1]])
        let seen = try await events.waitFor(isTrace("plan.added"))
        let kinds = seen.filter { $0["event"] == "trace" }.compactMap { $0["kind"]?.stringValue }
        #expect(kinds.first == "performer.created" && kinds.filter { $0 == "performer.created" }.count == 1,
                "only the good plan's performer, announced first: \(kinds)")
        // A refused leaf of a composite on a new target ends only its own step: the target (where the
        // composite lives) stays, and the steps after it run.
        let refused: JSONValue = ["type": "Tween", "property": "z", "to": [1], "timing": "bouncy"]
        let step: (String) -> JSONValue = { ["type": "Tween", "property": .string($0), "from": [0], "to": [1], "duration": 0.05] }
        _ = try await client.call("plan.add", ["target": "seq", "plan": ["type": "Sequence", "steps": [["type": "Sequence", "steps": [refused]], step("x"), step("y")]]])
        var properties: JSONValue?
        for _ in 0..<100 where properties?["y"]?["value"] != [1] {
            try await Task.sleep(for: .milliseconds(20))  // polls until the later steps have run
            properties = try await client.call("runtime.state")["targets"]?["seq"]?["properties"]
        }
        #expect(properties?["x"]?["value"] == [1] && properties?["y"]?["value"] == [1], "both later steps ran: \(String(describing: properties))")
        #expect(await code { try await client.call("plan.add", ["target": "a", "plan": step("x"), "stagger": 1]) } == "request.invalid",
                "stagger without targets")
        await client.close()
    }

    @Test func anOversizedLineClosesOnlyItsConnection() async throws {
        let daemon = try await DaemonProcess()
        let bystander = try await daemon.client()
        let bystanderEvents = EventCollector(bystander)
        _ = try await bystander.call("subscribe", ["streams": ["frames"]])

        let offender = try await daemon.client()
        let offenderEvents = EventCollector(offender)
        var line = Array(#"{"id":1,"method":"status","params":{"pad":""#.utf8)
        line += Array(repeating: UInt8(ascii: "x"), count: 2 << 20)
        line += Array("\"}}\n".utf8)
        try? await offender.sendRaw(line)
        let error = try await offenderEvents.waitFor { $0["error"] != nil }.last
        #expect(error?["error"]?["code"] == "protocol.too_large")
        await #expect(throws: MotionClientError.connectionClosed) { _ = try await offender.call("status") }

        _ = try await bystander.call("plan.add", ["target": "b", "plan": ["type": "Set", "property": "x", "value": [1]]])
        _ = try await bystanderEvents.waitFor { $0["event"] == "frame" }
        #expect(try await bystander.call("status")["clients"] == 1)
        await bystander.close()
    }

    @Test func aLineJustUnderTheLimitIsAccepted() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        // Padded with whitespace (an unknown params key would be refused).
        var line = Array(#"{"id":"raw","method":"sync","params":{"#.utf8)
        let closing = Array("}}".utf8)
        line += Array(repeating: UInt8(ascii: " "), count: (1 << 20) - line.count - closing.count)
        line += closing
        #expect(line.count == 1 << 20)
        let events = EventCollector(client)
        try await client.sendRaw(line + [UInt8(ascii: "\n")])
        let reply = try await events.waitFor { $0["id"] == "raw" }.last
        #expect(reply?["result"] == [:])
        #expect(try await client.call("status")["clients"] == 1)
        await client.close()
    }
}
