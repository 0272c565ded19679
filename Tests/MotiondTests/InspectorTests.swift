import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/inspector.md: `motionctl inspect` in a real browser (Debian's headless chromium and its
/// chromedriver): the token on every request, a moving value on the page, pause and slow motion of a
/// runtime, the spring editor applying a token; another uid's motion never reaches the page.
@Suite("Inspector")
struct InspectorTests {
    /// Where the tests' screenshots go (docs/inspector.md shows them).
    static let screenshots = DaemonProcess.buildDirectory.deletingLastPathComponent().appendingPathComponent("inspector-screenshots")

    /// `motionctl inspect` on `daemon` as uid 65534 (a copy of the binary in the daemon's folder, which
    /// that uid can reach), and the address it printed.
    static func inspect(_ daemon: DaemonProcess) async throws -> (Process, String) {
        let copy = daemon.directory.appendingPathComponent("motionctl")
        // Copied by a process of its own: a copy written here left its descriptor open in a child another
        // test forked meanwhile, and running the copy failed with "Text file busy" (ETXTBSY).
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/usr/bin/install")
        install.arguments = ["-m", "755", DaemonProcess.buildDirectory.appendingPathComponent("motionctl").path, copy.path]
        try install.runAlone()
        guard await install.exitStatus() == 0 else { throw Failure("could not copy motionctl to \(copy.path)") }
        let log = daemon.directory.appendingPathComponent("inspect.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path, "inspect", "--socket", daemon.socket]
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.runAlone()
        for _ in 0..<400 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}"#, options: .regularExpression) {
                return (process, String(text[range]))
            }
            if !process.isRunning { throw Failure("motionctl inspect ended: \(text)") }
            try await Task.sleep(for: .milliseconds(50))  // polls for the printed address
        }
        throw Failure("motionctl inspect printed no address")
    }

    static func status(_ url: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(for: URLRequest(url: URL(string: url)!))
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// The status a real WebSocket upgrade request for `url` is answered with (over a raw TCP socket, as a
    /// browser sends it: URLSession would not send the upgrade's headers).
    static func upgradeStatus(_ url: String) async throws -> String {
        let parsed = URL(string: url)!
        let target = parsed.path + (parsed.query.map { "?" + $0 } ?? "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
            s.sendall(("GET %s HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: Upgrade\\r\\nUpgrade: websocket\\r\\n"
                       "Sec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n\\r\\n" % sys.argv[2]).encode())
            print(s.recv(64).split(b" ")[1].decode())
            """, String(parsed.port ?? 80), target]
        let output = Pipe()
        process.standardOutput = output
        try process.runAlone()
        _ = await process.exitStatus()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func theInspectorShowsPausesSlowsAndTunesMotionInABrowser() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: WebDriver.chromedriver) && FileManager.default.isExecutableFile(atPath: WebDriver.chromium),
                     "scripts/setup installs Debian's chromium and chromium-driver")
        let daemon = try await DaemonProcess()
        try ThemeDaemonTests.openToOthers(daemon)
        // The page's user (65534) animates a card; root animates a target of its own, which must never
        // reach that user's page.
        _ = try await AccessTests.runAsNobody("""
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
            for i, (m, p) in enumerate([("hello", {"protocol": 1}), ("plan.add", {"target": "card", "plan": {"type": "Tween", "property": "x", "from": [0], "to": [1000], "duration": 40}}),
                                              ("plan.add", {"target": "curve", "plan": {"type": "Tween", "property": "x", "from": [0], "to": [1000], "duration": 60, "timing": "@standard"}}),
                                              ("plan.add", {"target": "settled", "plan": {"type": "Set", "property": "x", "value": [7]}}),
                                              ("plan.add", {"target": "fast", "name": "fast", "plan": {"type": "Spring", "property": "x", "from": [0], "to": [1000], "spring": "@spatial.fast", "mass": 100000}}),
                                              ("plan.add", {"target": "early", "name": "drift", "plan": {"type": "Spring", "property": "x", "from": [0], "to": [1000], "stiffness": 1, "dampingRatio": 0.05}})]):
                f.write(json.dumps({"id": i, "method": m, "params": p}) + "\\n"); f.flush(); f.readline()
            """, daemon.socket)
        let (inspector, address) = try await Self.inspect(daemon)
        defer { inspector.terminate() }
        let page = address.components(separatedBy: "?")[0]
        #expect(try await Self.status(page) == 403, "no token: 403")
        #expect(try await Self.status(page + "?token=0123456789abcdef0123456789abcdef") == 403, "a wrong token: 403")
        #expect(try await Self.status(page + "ws") == 403, "the WebSocket without the token: 403")
        let token = address.components(separatedBy: "token=").last ?? ""
        #expect(try await Self.upgradeStatus(page + "ws") == "403", "a WebSocket upgrade without the token: 403")
        #expect(try await Self.upgradeStatus(page + "ws?token=0123456789abcdef0123456789abcdef") == "403", "with a wrong token: 403")
        #expect(try await Self.upgradeStatus(page + "ws/") == "403", "at /ws/ (a WebSocket path too): 403")
        #expect(try await Self.upgradeStatus(page + "ws?token=" + token) == "101", "with it: switched")
        #expect(try await Self.status(address) == 200)

        let client = try await daemon.client()
        _ = try await client.call("plan.add", ["target": "theirs", "plan": ["type": "Tween", "property": "x", "to": [500], "duration": 60]])
        let browser = try await WebDriver.start()
        try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
        do {
            try await browser.open(address)
            let value = "return Number((window.inspector.props.get('default/card/x') || {value: [NaN]}).value[0])"
            try await browser.waitFor("return window.inspector.props.has('default/card/x')")
            try await browser.waitFor("return document.querySelector('.property .value').textContent.length > 0")
            // Live: the value moves (25 units a second).
            let first = try await browser.run(value).doubleValue ?? .nan
            try await browser.waitFor("\(value) > \(first + 5)")
            try await browser.screenshot(to: Self.screenshots.appendingPathComponent("live.png").path)
            let keys = try await browser.run("return Array.from(window.inspector.props.keys())")
            #expect(!(keys.arrayValue ?? []).contains { $0.stringValue?.contains("theirs") == true }, "another uid's motion is invisible: \(keys)")

            // Pause: the value holds still (once the frame with the paused state has come).
            _ = try await browser.run("document.getElementById('pause').click(); return true")
            try await browser.waitFor("return window.inspector.speed.attached")
            var paused = try await browser.run(value).doubleValue ?? .nan
            for _ in 0..<50 {
                try await Task.sleep(for: .milliseconds(200))  // polls until two reads agree
                let next = try await browser.run(value).doubleValue ?? .nan
                if abs(next - paused) < 0.01 { break }
                paused = next
            }
            try await Task.sleep(for: .milliseconds(600))  // the negative needs its window: frames would move it 15 units
            let still = try await browser.run(value).doubleValue ?? .nan
            #expect(abs(still - paused) < 0.01, "paused: \(paused) then \(still)")
            try await browser.screenshot(to: Self.screenshots.appendingPathComponent("paused.png").path)

            // Slow motion, 10 %: it moves again, at about 2.5 units a second instead of 25.
            _ = try await browser.run("document.querySelector('[data-speed=\"0.1\"]').click(); return true")
            try await browser.waitFor("return window.inspector.speed.factor === 0.1")
            let slowStart = try await browser.run(value).doubleValue ?? .nan
            try await browser.waitFor("\(value) > \(slowStart + 1)")
            let started = Date()
            let slowFrom = try await browser.run(value).doubleValue ?? .nan
            try await Task.sleep(for: .seconds(1))  // a rate is measured over a stretch of time
            let slowTo = try await browser.run(value).doubleValue ?? .nan
            let rate = (slowTo - slowFrom) / Date().timeIntervalSince(started)
            #expect(rate > 0.5 && rate < 10, "10 % of 25 units a second: \(rate) (\(slowFrom) to \(slowTo))")
            _ = try await browser.run("document.getElementById('live').click(); return true")
            try await browser.waitFor("return !window.inspector.speed.attached")
            let live = try await browser.run(value).doubleValue ?? .nan
            try await browser.waitFor("\(value) > \(live + 5)")

            // What ran before the page opened: a property at rest (no frame since) and a named spring to tune.
            try await browser.waitFor("const p = window.inspector.props.get('default/settled/x'); return !!p && p.value[0] === 7")
            try await browser.waitFor("return window.inspector.namedPlans.has('default · early · drift')")
            // Several properties graphed at once (a ctrl-click adds one), every component of each.
            _ = try await browser.run("""
                document.querySelector('.property[data-key="default/curve/x"]').click();
                document.querySelector('.property[data-key="default/early/x"]').dispatchEvent(new MouseEvent('click', {ctrlKey: true}));
                return true
                """)
            try await browser.waitFor("const s = window.inspector.shown; return s.size === 2 && s.has('default/curve/x') && s.has('default/early/x')")
            try await browser.waitFor("return window.inspector.props.get('default/early/x').history.length > 0 && Array.isArray(window.inspector.props.get('default/early/x').history.at(-1).value)")
            _ = try await browser.run("document.querySelector('.property[data-key=\"default/card/x\"]').click(); return true")
            try await browser.waitFor("return window.inspector.shown.size === 1 && window.inspector.chosen === 'default/card/x'")

            // The editor: a token's stiffness changed and applied to this uid's theme; the uid's spring that
            // uses it (`fast`, heavy enough to be still under way) is carried on with the new stiffness.
            try await browser.waitFor("return document.getElementById('token').options.length > 0")
            let token = try await browser.run("""
                const select = document.getElementById('token'); select.value = 'spatial.fast'; select.onchange();
                const stiffness = document.getElementById('p1-value'); stiffness.value = 321; stiffness.oninput();
                document.getElementById('apply').click(); return select.value
                """).stringValue ?? ""
            try await browser.waitFor("return document.getElementById('applied').textContent.startsWith('applied')")
            try await browser.waitFor("return document.getElementById('export').textContent.length > 0")
            try await browser.screenshot(to: Self.screenshots.appendingPathComponent("editor.png").path)
            // The page's own uid's theme holds it (read back by the page: root's theme is another).
            try await browser.waitFor("const t = window.inspector.tokens['\(token)']; return !!t && t.origin === 'user' && t.value.stiffness === 321")
            let fastPlan = try await AccessTests.runAsNobody("""
                import json, socket, sys, time
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
                f.write(json.dumps({"id": 1, "method": "hello", "params": {"protocol": 1}}) + "\\n"); f.flush(); f.readline()
                for i in range(2, 200):  # the retune is applied between frames: read until it shows (or 199 reads)
                    f.write(json.dumps({"id": i, "method": "runtime.state", "params": {}}) + "\\n"); f.flush()
                    r = json.loads(f.readline())
                    while r.get("id") != i: r = json.loads(f.readline())
                    plan = r["result"]["targets"]["fast"]["namedPlans"]["fast"]["plan"]
                    if plan.get("stiffness") == 321: break
                    time.sleep(0.02)  # polls: the retune is applied in slices between frames
                print(json.dumps(plan))
                """, daemon.socket)
            #expect(fastPlan.joined().contains("\"stiffness\":321") || fastPlan.joined().contains("\"stiffness\": 321"), "the running spring carried on with the token's new stiffness: \(fastPlan)")

            // Tokens in other forms are shown in their own, at their values (no slider clamps them), and
            // what they hold beside the form's keys is kept.
            _ = try await browser.run("""
                applyToken('springs', 'resp', {dampingRatio: 0.5, response: 0.4}, document.getElementById('applied'))
                  .then(() => applyToken('springs', 'crawl', {stiffness: 2, dampingRatio: 1, epsilon: 0.0001}, document.getElementById('applied')));
                return true
                """)
            try await browser.waitFor("return !!window.inspector.tokens['resp'] && !!window.inspector.tokens['crawl']")
            let response = try await browser.run("""
                const select = document.getElementById('token'); select.value = 'resp'; select.onchange();
                return [document.getElementById('form').value, document.getElementById('p1-label').textContent,
                        document.getElementById('p1-value').value, document.getElementById('p2-value').value].join('|')
                """).stringValue
            #expect(response == "response + dampingRatio|response|0.4|0.5", "\(String(describing: response))")
            let crawl = try await browser.run("""
                const select = document.getElementById('token'); select.value = 'crawl'; select.onchange();
                return JSON.stringify(editedSpring())
                """).stringValue
            #expect(crawl == #"{"stiffness":2,"dampingRatio":1,"epsilon":0.0001}"#, "\(String(describing: crawl))")
            let converted = try await browser.run("""
                const form = document.getElementById('form'); form.value = 'response + dampingRatio'; form.onchange();
                return JSON.stringify(editedSpring())
                """).stringValue
            #expect(converted == #"{"response":4.44288,"dampingRatio":1,"epsilon":0.0001}"#, "the same spring said as response: \(String(describing: converted))")

            // A timing token that is not a Bézier is drawn from the daemon's samples of it, and exported.
            _ = try await browser.run("applyToken('timings', 'stepped', 'steps(4)', document.getElementById('timing-applied')); return true")
            try await browser.waitFor("return !!window.inspector.theme.tokens.timings.stepped")
            _ = try await browser.run("const s = document.getElementById('timing-token'); s.value = 'stepped'; s.onchange(); return true")
            try await browser.waitFor("const c = window.inspector.curve; return !c.editable && c.sampled.length === 101 && c.sampled[30][1] === 0.25")
            try await browser.waitFor("return document.getElementById('export').textContent.includes('--motion-stepped: steps(4)')")

            // The curve editor: ease-in-out's second handle dragged with the mouse from (0.58, 1) to (0.1, 1),
            // applied: the running tween that uses the token is carried on with the new curve.
            _ = try await browser.run("const s = document.getElementById('timing-token'); s.value = 'standard'; s.onchange(); return true")
            try await browser.waitFor("return window.inspector.curve.points.join() === '0.42,0,0.58,1'")
            try await browser.drag(in: "#bezier", from: (30 + 0.58 * 240, 60), to: (30 + 0.1 * 240, 60))
            try await browser.waitFor("const p = window.inspector.curve.points; return Math.abs(p[2] - 0.1) < 0.01 && Math.abs(p[3] - 1) < 0.01")
            let before = try await browser.run("return window.inspector.trace.filter((e) => e.kind === 'plan.added' && e.target === 'curve').length").doubleValue ?? 0
            let curveValue = "Number(window.inspector.props.get('default/curve/x').value[0])"
            let atApply = try await browser.run("return \(curveValue)").doubleValue ?? .nan
            let applyTime = try await browser.run("return window.inspector.props.get('default/curve/x').history.at(-1).t").doubleValue ?? .nan
            _ = try await browser.run("document.getElementById('apply-timing').click(); return true")
            try await browser.waitFor("return document.getElementById('timing-applied').textContent === 'applied: timings.standard'")
            try await browser.waitFor("return window.inspector.trace.filter((e) => e.kind === 'plan.added' && e.target === 'curve').length > \(before)")
            // Carried on, it goes on towards 1000 from where it was: never back (a steep curve's launch once
            // sent a running tween far below where it had been).
            try await browser.waitFor("return \(curveValue) > \(atApply + 5)")
            let lowest = try await browser.run("return Math.min(...window.inspector.props.get('default/curve/x').history.filter((h) => h.t > \(applyTime)).map((h) => h.value[0]))").doubleValue ?? .nan
            #expect(lowest >= atApply - 1, "the retuned tween went back to \(lowest) from \(atApply)")
            try await browser.screenshot(to: Self.screenshots.appendingPathComponent("curve-editor.png").path)
            try await browser.waitFor("const t = window.inspector.theme.tokens.timings.standard; return t.origin === 'user' && /^cubic-bezier\\(0.42, 0, 0.1/.test(t.value)")

            // The spring editor applied to a named plan instead: a slow spring of the page's uid (added by an
            // admin while the page watches) is added again under its name with the edited spring.
            _ = try await client.call("plan.add", ["runtime": "65534/default", "target": "spring", "name": "settle", "plan": [
                "type": "Spring", "property": "y", "from": [0], "to": [1000], "stiffness": 1, "dampingRatio": 0.05]])
            try await browser.waitFor("return window.inspector.namedPlans.has('default · spring · settle')")
            _ = try await browser.run("""
                const token = document.getElementById('token'); token.value = 'spatial.fast'; token.onchange();
                const select = document.getElementById('named-plan'); select.value = 'default · spring · settle';
                const stiffness = document.getElementById('p1-value'); stiffness.value = 321; stiffness.oninput();
                document.getElementById('apply-plan').click(); return true
                """)
            try await browser.waitFor("return document.getElementById('plan-applied').textContent === 'applied to settle'")
            try await browser.waitFor("const p = window.inspector.namedPlans.get('default · spring · settle').plan; return p.stiffness === 321 && p.from === undefined")

            // The curve editor applied to a named tween: added again under its name with the edited curve,
            // from where it is (no `from`) for what was left of its minute.
            _ = try await client.call("plan.add", ["runtime": "65534/default", "target": "glide", "name": "glide", "plan": [
                "type": "Tween", "property": "x", "from": [0], "to": [1000], "duration": 60, "timing": "linear"]])
            try await browser.waitFor("return window.inspector.namedTweens.has('default · glide · glide')")
            _ = try await browser.run("""
                const select = document.getElementById('named-tween'); select.value = 'default · glide · glide';
                document.getElementById('apply-tween').click(); return true
                """)
            try await browser.waitFor("return document.getElementById('tween-applied').textContent === 'applied to glide'")
            try await browser.waitFor("""
                const p = window.inspector.namedTweens.get('default · glide · glide').plan;
                return /^cubic-bezier\\(0.42, 0, 0.1/.test(p.timing) && p.from === undefined && p.duration < 60 && p.duration > 30
                """)
        } catch {
            try? await browser.screenshot(to: Self.screenshots.appendingPathComponent("failure.png").path)
            let errors = (try? await browser.run("return JSON.stringify(window.inspector.errors || [])").stringValue) ?? "?"
            print("the page's errors: \(errors)")
            await browser.quit()
            throw error
        }
        await browser.quit()
        await client.close()
        inspector.terminate()
        _ = await inspector.exitStatus(timeout: 20)
        #expect(await daemon.stop() == 0)
    }

    @Test func onlyLoopbackIsServed() async throws {
        let daemon = try await DaemonProcess()
        let process = Process()
        process.executableURL = DaemonProcess.buildDirectory.appendingPathComponent("motionctl")
        process.arguments = ["inspect", "--socket", daemon.socket, "--listen", "0.0.0.0:8080"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.runAlone()
        let status = await process.exitStatus(timeout: 60)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status != 0 && text.contains("0.0.0.0 is not loopback"), "\(status): \(text)")
        #expect(await daemon.stop() == 0)
    }
}
