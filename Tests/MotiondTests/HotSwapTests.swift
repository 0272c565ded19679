import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// Issue #5 over the real daemon: plugins probed in a child, swapped by generation, state migrated.
@Suite("Hot swap")
struct HotSwapTests {
    /// Builds `Fixtures/ramp.c` at `rate` into `directory` as `name`, replacing any file there by
    /// write-temp-then-rename, as an installer must.
    static func installRamp(rate: Double, version: String, in directory: URL, name: String = "libramp.so",
                            defines: [String] = []) async throws {
        let temporary = try await CCompiler.sharedLibrary(
            ["Tests/MotiondTests/Fixtures/ramp.c"], name: ".\(name).tmp", in: directory,
            defines: ["RAMP_RATE=\(rate)", "RAMP_VERSION=\"\(version)\""] + defines)
        guard rename(temporary, directory.appendingPathComponent(name).path) == 0 else { throw Failure("rename failed") }
    }

    /// A daemon whose only plugin directory is `plugins`, holding Ramp 1.0.0 at 10/s, and a client of it.
    static func rampDaemon(in plugins: URL) async throws -> (DaemonProcess, MotionClient) {
        try await installRamp(rate: 10, version: "1.0.0", in: plugins)
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path])
        return (daemon, try await daemon.client())
    }

    static func frames(_ events: [JSONValue], target: String) -> [(t: Double, x: Double, seq: Int)] {
        events.filter { $0["event"] == "frame" }.flatMap { frame in
            (frame["updates"]?.arrayValue ?? []).filter { $0["target"]?.stringValue == target }.compactMap { update in
                guard let x = update["value"]?.arrayValue?.first?.doubleValue else { return nil }
                return (frame["t"]?.doubleValue ?? 0, x, frame["seq"]?.intValue ?? 0)
            }
        }
    }

    /// Waits (up to 10 s) until `count` frames for `target` arrived after the first event matching `after`.
    static func waitForFrames(_ events: EventCollector, target: String, count: Int,
                              after: @escaping @Sendable (JSONValue) -> Bool) async throws {
        for _ in 0..<400 {
            let all = await events.events
            if let start = all.firstIndex(where: after), frames(Array(all[start...]), target: target).count >= count { return }
            try await Task.sleep(for: .milliseconds(25))  // polls the collected frames
        }
    }

    /// Per-subscription sequence numbers are consecutive: nothing was lost.
    static func hasNoGap(_ events: [JSONValue]) -> Bool {
        let seqs = events.compactMap { $0["seq"]?.intValue }
        return zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }
    }

    /// With no `plugins.reload`: a new build renamed into the directory is seen by the watcher (inotify,
    /// waited on, not polled) and swapped once, after the directory has been quiet.
    @Test func theDirectoryWatcherAloneSwapsARenamedInPlugin() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plugins) }
        let (daemon, client) = try await Self.rampDaemon(in: plugins)
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["trace"]])
        try await Self.installRamp(rate: 100, version: "2.0.0", in: plugins)
        let swapped = try #require(try await events.waitFor(isTrace("plugin.swapped")).last)
        #expect(swapped["fromVersion"] == "1.0.0" && swapped["toVersion"] == "2.0.0")
        // Real time on purpose: the watcher must not swap again while 0.6 s pass (an absence has no condition).
        try await Task.sleep(for: .milliseconds(600))
        #expect(await events.events.filter(isTrace("plugin.swapped")).count == 1)
    }

    /// A new build that crashes on the state of a running performer is refused by its probe, which
    /// imports the running build's states in a child first: the daemon stays up and the old build runs on
    /// (the swap itself would have crashed motiond, and after the restart the animations would be gone).
    @Test func aBuildThatCrashesOnARunningStateIsRefusedBeforeTheSwap() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plugins) }
        let (daemon, client) = try await Self.rampDaemon(in: plugins)
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["trace"]])
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Ramp"]])
        let loadedBuild = plugins.appendingPathComponent(".libramp.so.kept")
        try FileManager.default.copyItem(at: plugins.appendingPathComponent("libramp.so"), to: loadedBuild)
        try await Self.installRamp(rate: 100, version: "2.0.0", in: plugins, defines: ["RAMP_CRASH_ON_IMPORT"])
        let rejected = try #require(try await events.waitFor(isTrace("plugin.rejected")).last)
        let reason = rejected["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("probe: crashed in import_state of a running Ramp's state (signal 11"), "\(reason)")
        let x = { () async throws -> Double in
            try await client.call("runtime.state")["targets"]?["card"]?["properties"]?["x"]?["value"]?.arrayValue?.first?.doubleValue ?? -1
        }
        let (before, since) = (try await x(), Date())
        // Real time on purpose: the rate of the running build is measured over half a second of the clock.
        try await Task.sleep(for: .milliseconds(500))
        let (after, elapsed) = (try await x(), Date().timeIntervalSince(since))
        let rate = (after - before) / elapsed
        #expect(rate > 5 && rate < 30, "still on 1.0.0 at 10/s (2.0.0 would be 100/s): \(before) → \(after) in \(elapsed) s")
        let list = try await client.call("plugins.list")
        #expect(list["plugins"]?.arrayValue?.first { $0["id"] == "test.ramp" }?["version"] == "1.0.0", "\(list)")
        #expect(list["rejected"]?.arrayValue?.count == 1, "\(list)")
        // The loaded build back in the file: it is no longer listed as refused.
        guard rename(loadedBuild.path, plugins.appendingPathComponent("libramp.so").path) == 0 else { throw Failure("rename failed") }
        _ = try await client.call("plugins.reload")
        let relisted = try await client.call("plugins.list")
        #expect(relisted["rejected"]?.arrayValue?.isEmpty != false, "\(relisted)")
        #expect(daemon.process.isRunning)
        await client.close()
    }

    /// Every reload probes the changed file in a child process; none leaves a descriptor behind (each
    /// probe used to leave its two pipes' read ends open).
    @Test func reloadsLeaveNoDescriptorsBehind() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plugins) }
        let (daemon, client) = try await Self.rampDaemon(in: plugins)
        _ = try await client.call("status")
        let before = daemon.ownDescriptorKinds
        let file = plugins.appendingPathComponent("libramp.so"), temporary = plugins.appendingPathComponent(".libramp.so.tmp")
        for round in 0..<8 {
            var image = try Data(contentsOf: file)
            image.append(contentsOf: Array("rebuild \(round)".utf8))  // another hash: probed and swapped again
            try image.write(to: temporary)
            guard rename(temporary.path, file.path) == 0 else { throw Failure("rename failed") }
            _ = try await client.call("plugins.reload", ["id": "test.ramp"])
        }
        // The watcher may still be probing the last one (a probe in flight holds its pipes): wait for the
        // count to come back, up to 10 s; a leak (two per probe) never does.
        var after = daemon.ownDescriptorKinds
        for _ in 0..<100 where after.count > before.count {
            try await Task.sleep(for: .milliseconds(100))  // polls /proc for the daemon's descriptors
            after = daemon.ownDescriptorKinds
        }
        #expect(after.count <= before.count,
                "descriptors: \(before.count) before 8 reloads, \(after.count) after; new: \(ReliabilityTests.added(after, to: before))")
    }

    @Test func aCPluginBuiltTwiceSwitchesBehaviourWithoutADiscontinuity() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plugins) }
        let (daemon, client) = try await Self.rampDaemon(in: plugins)
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames", "trace"], "targets": ["box"]])
        _ = try await client.call("plan.add", ["target": "box", "plan": ["type": "Ramp"]])
        try await Self.waitForFrames(events, target: "box", count: 10) { _ in true }  // moving before the swap

        try await Self.installRamp(rate: 100, version: "2.0.0", in: plugins)
        // The directory watcher may see the rename first; either way the swap happens exactly once.
        let reply = try await client.call("plugins.reload", ["id": "test.ramp"])
        let results = reply["results"]?.arrayValue ?? []
        #expect(results.isEmpty || results.map { $0["outcome"] } == ["swapped"], "\(reply)")
        let swapped = try #require(try await events.waitFor(isTrace("plugin.swapped")).last)
        #expect(swapped["fromVersion"] == "1.0.0" && swapped["toVersion"] == "2.0.0")
        #expect(swapped["generation"] == 2)
        #expect(swapped["migrated"] == 1)
        try await Self.waitForFrames(events, target: "box", count: 20, after: isTrace("plugin.swapped"))

        let all = await events.events
        let swapIndex = try #require(all.firstIndex(where: isTrace("plugin.swapped")))
        let before = Self.frames(Array(all[..<swapIndex]), target: "box")
        let after = Self.frames(Array(all[swapIndex...]), target: "box")
        #expect(before.count > 10 && after.count > 10)
        func rate(_ frames: ArraySlice<(t: Double, x: Double, seq: Int)>) -> Double {
            (frames.last!.x - frames.first!.x) / (frames.last!.t - frames.first!.t)
        }
        #expect(abs(rate(before.suffix(10)) - 10) < 1.5, "v1 moved at 10/s")
        #expect(abs(rate(after.suffix(10)) - 100) < 15, "the same performer now moves at 100/s")
        // No jump: across the swap the value goes on from where it was, as far as v2 moves in the time between
        // the two frames (at least a tick's; on a loaded machine a tick may come late).
        let step = after.first!.x - before.last!.x
        let elapsed = max(after.first!.t - before.last!.t, 1.0 / 120)
        #expect(step > 0 && step < 100 * elapsed * 1.5 + 0.5, "value at the swap: \(before.last!.x) then \(after.first!.x)")
        #expect(Self.hasNoGap(all), "no event lost")

        let list = try await client.call("plugins.list")
        let ramps = (list["plugins"]?.arrayValue ?? []).filter { $0["id"] == "test.ramp" }
        #expect(ramps.map { $0["generation"]?.intValue ?? 0 } == [1, 2])
        #expect(ramps.map { $0["current"] } == [false, true])
        #expect(ramps.last?["version"] == "2.0.0")
        #expect(ramps.last?["hash"]?.stringValue?.count == 64)
        let unchanged = try await client.call("plugins.reload")
        #expect(unchanged["results"]?.arrayValue?.isEmpty == true, "same content: nothing to do")
        await client.close()
    }

    @Test func shippedPluginsSwapUnderARunningSpring() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plugins) }
        let shipped = ["libSpringPlugin.so", "libTweenPlugin.so", "libDecayPlugin.so", "libSetPlugin.so", "libCurvesPlugin.so"]
        for name in shipped {
            try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent(name),
                                             to: plugins.appendingPathComponent(name))
        }
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path, "--no-shipped-plugins"])
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames", "trace"], "targets": ["card"]])
        // A slow, barely damped spring: still moving long after the swap.
        _ = try await client.call("plan.add", ["target": "card", "plan": [
            "type": "Spring", "property": "x", "from": [0], "to": [100], "tension": 20, "damping": 0.5]])
        try await Self.waitForFrames(events, target: "card", count: 10) { _ in true }  // moving before the swap
        // A "new build" of every plugin: the same image with bytes appended (a different file, same code),
        // written beside the old one and renamed over it.
        for name in shipped {
            var data = try Data(contentsOf: plugins.appendingPathComponent(name))
            data.append(contentsOf: Array("motiond-test-rebuild".utf8))
            try data.write(to: plugins.appendingPathComponent(".\(name).tmp"))
            guard rename(plugins.appendingPathComponent(".\(name).tmp").path, plugins.appendingPathComponent(name).path) == 0 else {
                throw Failure("rename")
            }
        }
        let reply = try await client.call("plugins.reload")
        let outcomes = (reply["results"]?.arrayValue ?? []).map { $0["outcome"]?.stringValue ?? "?" }
        #expect(outcomes.allSatisfy { $0 == "swapped" }, "\(reply)")  // the watcher may have taken some
        for _ in 0..<200 where await events.events.filter(isTrace("plugin.swapped")).count < shipped.count {
            try await Task.sleep(for: .milliseconds(25))  // polls for every plugin's swap trace
        }
        #expect(await events.events.filter(isTrace("plugin.swapped")).count == shipped.count, "each plugin swapped once")
        try await Self.waitForFrames(events, target: "card", count: 20) { isTrace("plugin.swapped")($0) && $0["id"] == "org.motiond.spring" }

        let all = await events.events
        let swap = try #require(all.firstIndex { isTrace("plugin.swapped")($0) && $0["id"] == "org.motiond.spring" })
        #expect(all.contains { isTrace("performer.migrated")($0) && $0["planType"] == "Spring" })
        let frames = Self.frames(all, target: "card")
        let before = Self.frames(Array(all[..<swap]), target: "card")
        #expect(before.count > 10 && frames.count > before.count + 10, "the spring kept moving after the swap")
        // No jump: every step stays within what the spring's speed allows (|v| ≤ ~√20·100 ≈ 450/s).
        for (previous, next) in zip(frames, frames.dropFirst()) {
            // `t` is when a frame was sent, not the instant its values are for: on a loaded 2-core machine a
            // late frame is followed by one sent soon after that still carries a whole tick's step, so the
            // step allowed is at least one tick's (+ 1.5). A jump from a lost state is tens of units.
            let elapsed = max(next.t - previous.t, 1.0 / 120)
            #expect(abs(next.x - previous.x) <= 450 * elapsed + 1.5, "jump at t=\(next.t): \(previous.x) → \(next.x)")
        }
        #expect(Self.hasNoGap(all), "no frame sequence gap")
        let list = try await client.call("plugins.list")
        #expect((list["plugins"]?.arrayValue ?? []).filter { $0["current"] == true }.allSatisfy { $0["generation"] == 2 })
        await client.close()
    }

    @Test func brokenFilesAreRefusedAndTheDaemonGoesOn() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plugins) }
        try await Self.installRamp(rate: 10, version: "1.0.0", in: plugins)
        _ = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/abort.c"], name: "libabort.so", in: plugins)
        try await Self.installRamp(rate: 10, version: "1.0.0", in: plugins, name: "libloose.so")
        chmod(plugins.appendingPathComponent("libloose.so").path, 0o666)
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path, "--no-shipped-plugins"])
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["trace"]])
        var list = try await client.call("plugins.list")
        #expect((list["plugins"]?.arrayValue ?? []).map { $0["id"] } == ["test.ramp"], "the good plugin loaded")
        var reasons: [String: String] = [:]
        for entry in list["rejected"]?.arrayValue ?? [] {
            reasons[((entry["file"]?.stringValue ?? "") as NSString).lastPathComponent] = entry["reason"]?.stringValue
        }
        #expect(reasons["libabort.so"]?.contains("crashed while loading") == true, "\(reasons)")
        #expect(reasons["libloose.so"]?.contains("writable by every user") == true, "\(reasons)")

        // A corrupt file dropped in while running (write-temp-then-rename) is probed and refused.
        try Data("not an ELF file".utf8).write(to: plugins.appendingPathComponent(".libcorrupt.tmp"))
        rename(plugins.appendingPathComponent(".libcorrupt.tmp").path, plugins.appendingPathComponent("libcorrupt.so").path)
        let rejected = try await events.waitFor { isTrace("plugin.rejected")($0) && ($0["file"]?.stringValue ?? "").hasSuffix("libcorrupt.so") }
        #expect(rejected.last?["reason"]?.stringValue?.contains("dlopen") == true)
        list = try await client.call("plugins.list")
        #expect((list["rejected"]?.arrayValue ?? []).count == 3)
        _ = try await client.call("plan.add", ["target": "box", "plan": ["type": "Ramp"]])
        #expect(try await client.call("status")["plugins"] == 1, "still serving")

        // A new build dropped in the same way is picked up without a reload request.
        try await Self.installRamp(rate: 50, version: "1.1.0", in: plugins)
        let swapped = try await events.waitFor(isTrace("plugin.swapped"))
        #expect(swapped.last?["toVersion"] == "1.1.0")
        await client.close()
    }
}

/// docs/plugins.md's C plugin, exactly as printed there, is examples/c_plugin/wobble.c: its Makefile builds
/// it (warnings are errors) and it runs.
@Suite("Plugin guide")
struct PluginGuideTests {
    @Test func theGuidesCPluginIsTheExampleAndBuildsWithItsMakefileAndAnimates() async throws {
        let guide = try String(contentsOf: CCompiler.repository.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "```c\n"))
        let end = try #require(guide.range(of: "```", range: start.upperBound..<guide.endIndex))
        let example = CCompiler.repository.appendingPathComponent("examples/c_plugin")
        let source = try String(contentsOf: example.appendingPathComponent("wobble.c"), encoding: .utf8)
        #expect(String(guide[start.upperBound..<end.lowerBound]) == source, "docs/plugins.md and examples/c_plugin/wobble.c differ")
        let directory = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plugins = directory.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let make = try await TestProcess.run("/usr/bin/make", ["-C", example.path, "O=\(plugins.path)"], timeout: 60)
        #expect(make.status == 0, "\(make.output)")
        #expect(FileManager.default.fileExists(atPath: plugins.appendingPathComponent("libwobble.so").path), "\(make.output)")
        try copyShippedSet(into: plugins)

        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path, "--no-shipped-plugins"])
        let client = try await daemon.client()
        let events = EventCollector(client)
        #expect(Set((try await client.call("plugins.list")["plugins"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
                == ["org.example.wobble", "org.motiond.set"])
        try await expectTheWobbleSwings(client, events)
        try await expectABadAmplitudeIsRefused(client)
        try await expectASetStopsTheWobble(client, events)
        await client.close()
    }

    /// Subscribes to box and adds a Wobble of amplitude 20: x swings past 10.
    private func expectTheWobbleSwings(_ client: MotionClient, _ events: EventCollector) async throws {
        _ = try await client.call("subscribe", ["streams": ["frames", "trace"], "targets": ["box"]])
        _ = try await client.call("plan.add", ["target": "box", "plan": ["type": "Wobble", "amplitude": 20]])
        let seen = try await events.waitFor { event in
            (event["updates"]?.arrayValue ?? []).contains { abs($0["value"]?.arrayValue?.first?.doubleValue ?? 0) > 10 }
        }
        #expect(!seen.isEmpty)
    }

    /// A string amplitude is refused with `plan.invalid`, the message naming the field.
    private func expectABadAmplitudeIsRefused(_ client: MotionClient) async throws {
        do {
            _ = try await client.call("plan.add", ["target": "box", "plan": ["type": "Wobble", "amplitude": "big"]])
            Issue.record("a string amplitude was accepted")
        } catch let error as MotionClientError {
            guard case .server(let code, let message) = error else { throw error }
            #expect(code == "plan.invalid" && message.contains("amplitude"), "\(code): \(message)")
        }
    }

    /// The shipped Set beside the guide's plugin, to see the wobble let go of a property Set claims.
    private func copyShippedSet(into plugins: URL) throws {
        try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent("libSetPlugin.so"),
                                         to: plugins.appendingPathComponent("libSetPlugin.so"))
    }

    /// A value set on x stops the wobble there ("motion.claim/1" from Set, "motion.yield/1" in the guide's
    /// plugin): its animation ends `interrupted` and x keeps the set value.
    private func expectASetStopsTheWobble(_ client: MotionClient, _ events: EventCollector) async throws {
        _ = try await client.call("plan.add", ["target": "box", "plan": ["type": "Set", "property": "x", "value": [3]]])
        let ended = try await events.waitFor(isTrace("runtime.idle"))
        #expect(ended.contains { $0["kind"] == "animation.ended" && $0["reason"] == "interrupted" && $0["planType"] == "Wobble" })
        #expect(try await client.call("runtime.state")["targets"]?["box"]?["properties"]?["x"]?["value"] == [3])
    }

    /// The guide's Swift plugin is examples/WobblePlugin, which the package builds: it loads and animates.
    @Test func theGuidesSwiftPluginIsTheBuiltExampleAndAnimates() async throws {
        let guide = try String(contentsOf: CCompiler.repository.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "```swift\nimport Foundation  // sin, cos\n"))
        let end = try #require(guide.range(of: "```", range: start.upperBound..<guide.endIndex))
        let example = try String(contentsOf: CCompiler.repository.appendingPathComponent("examples/WobblePlugin/WobblePlugin.swift"),
                                 encoding: .utf8)
        #expect("import Foundation  // sin, cos\n" + guide[start.upperBound..<end.lowerBound] == example,
                "docs/plugins.md and examples/WobblePlugin/WobblePlugin.swift differ")

        let directory = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plugins = directory.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent("libWobbleExample.so"),
                                         to: plugins.appendingPathComponent("libWobbleExample.so"))
        try copyShippedSet(into: plugins)
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path, "--no-shipped-plugins"])
        let client = try await daemon.client()
        let events = EventCollector(client)
        #expect(Set((try await client.call("plugins.list")["plugins"]?.arrayValue ?? []).compactMap { $0["planTypes"]?.arrayValue?.first?.stringValue })
                == ["Wobble", "Set"])
        try await expectTheWobbleSwings(client, events)
        try await expectABadAmplitudeIsRefused(client)
        try await expectASetStopsTheWobble(client, events)
        await client.close()
    }
}
