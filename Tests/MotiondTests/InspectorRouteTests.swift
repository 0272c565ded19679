import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/inspector.md with a router (docs/routes.md): a route transition of the page's uid, paused from
/// the page, scrubbed back and forth on its router's runtime (the same offset shows the same value), and
/// let go, all in Debian's headless chromium.
@Suite("Inspector: a route transition")
struct InspectorRouteTests {
    /// uid 65534's program: a router whose push is a slow spring (ω = 0.5: still under way after ten
    /// seconds), and a `route.go` to it once the router is configured; ends once the transition has
    /// started, or prints the error that stopped it.
    static let routeScript = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
        def send(i, m, p): f.write(json.dumps({"id": i, "method": m, "params": p}) + "\\n"); f.flush()
        push = {"type": "Spring", "property": "offset", "from": [400], "to": [0], "stiffness": 0.25, "dampingRatio": 1}
        send(0, "hello", {"protocol": 1})
        send(1, "subscribe", {"streams": ["routes"]})
        send(2, "router.configure", {"scheme": "demo", "routes": {"home": {"kind": "stack"}, "show": {"kind": "stack", "transition": {"push": push}}}})
        # route.go only once the router is configured: sent before, it is answered router.busy.
        while True:
            r = json.loads(f.readline())
            if r.get("id") in (1, 2) and "error" in r: print(json.dumps(r)); sys.exit()
            if r.get("id") == 2: break
        send(3, "route.go", {"scheme": "demo", "to": "demo://home/show"})
        while True:
            r = json.loads(f.readline())
            if r.get("id") == 3 and "error" in r: print(json.dumps(r)); break
            if r.get("event") == "route.transition.start" or r.get("kind") == "route.transition.start": print("started"); break
        """

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func aRouteTransitionIsPausedAndScrubbedFromThePage() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: WebDriver.chromedriver) && FileManager.default.isExecutableFile(atPath: WebDriver.chromium),
                     "scripts/setup installs Debian's chromium and chromium-driver")
        let daemon = try await DaemonProcess()
        try ThemeDaemonTests.openToOthers(daemon)
        let (inspector, address) = try await InspectorTests.inspect(daemon)
        defer { inspector.terminate() }
        let browser = try await WebDriver.start()
        try FileManager.default.createDirectory(at: InspectorTests.screenshots, withIntermediateDirectories: true)
        do {
            try await browser.open(address)
            try await browser.waitFor("return typeof window.inspector === 'object'")
            let started = try await AccessTests.runAsNobody(Self.routeScript, daemon.socket)
            #expect(started == ["started"], "\(started)")
            let key = "motiond.route.demo/screen:home/show/offset"
            let read = "Number((window.inspector.props.get('\(key)') || {value: [NaN]}).value[0])", value = "return " + read
            try await browser.waitFor("return window.inspector.props.has('\(key)')")
            try await browser.waitFor("const row = document.querySelector('.property[data-key=\"\(key)\"]'); if (row) row.click(); return window.inspector.chosen === '\(key)'")
            // Far enough along that half a second back is clearly further out (370 of 400: 0.84 s in).
            try await browser.waitFor("\(value) < 370")

            /// The page's value once two reads a fifth of a second apart agree (the frame with the state the
            /// pause or scrub asked for has come).
            func settled() async throws -> Double {
                var last = try await browser.run(value).doubleValue ?? .nan
                for _ in 0..<50 {
                    try await Task.sleep(for: .milliseconds(200))  // polls until two reads agree
                    let next = try await browser.run(value).doubleValue ?? .nan
                    if abs(next - last) < 1e-6 { return next }
                    last = next
                }
                throw Failure("the value never held still: \(last)")
            }
            func scrub(to offset: Double) async throws {
                _ = try await browser.run("const s = document.getElementById('scrub'); s.value = \(offset); s.oninput(); return true")
                try await browser.waitFor("return Math.abs(window.inspector.speed.clock - \(offset)) < 0.0005")
            }

            // Pause: the router's runtime is attached to its timeline and the screen holds still.
            _ = try await browser.run("document.getElementById('pause').click(); return true")
            try await browser.waitFor("return window.inspector.speed.attached && window.inspector.speed.runtime === 'motiond.route.demo'")
            let paused = try await settled()
            #expect(paused > 1 && paused < 370, "paused under way: \(paused)")
            // At an offset the slider can show (its step is a millisecond), then half a second back: the
            // screen is further out; then forward to the same offset: the same value again.
            let clock = try await browser.run("return window.inspector.speed.clock").doubleValue ?? .nan
            let offset = (clock * 1000).rounded(.down) / 1000
            try await scrub(to: offset)
            let here = try await settled()
            try await scrub(to: offset - 0.5)
            try await browser.waitFor("\(value) > \(here + 1)")
            try await browser.screenshot(to: InspectorTests.screenshots.appendingPathComponent("route-scrubbed.png").path)
            try await scrub(to: offset)
            try await browser.waitFor("return Math.abs(\(read) - \(here)) < 0.001")

            // Live again: the transition goes on towards 0.
            _ = try await browser.run("document.getElementById('live').click(); return true")
            try await browser.waitFor("return !window.inspector.speed.attached")
            try await browser.waitFor("\(value) < \(here - 1)")
        } catch {
            try? await browser.screenshot(to: InspectorTests.screenshots.appendingPathComponent("route-failure.png").path)
            await browser.quit()
            throw error
        }
        await browser.quit()
        inspector.terminate()
        _ = await inspector.exitStatus(timeout: 20)
        #expect(await daemon.stop() == 0)
    }
}
