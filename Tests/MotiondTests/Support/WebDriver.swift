import Foundation
import MotionWire

/// Debian's chromium, headless, driven by its chromedriver over the W3C WebDriver protocol (the
/// inspector's browser tests, docs/inspector.md).
final class WebDriver: @unchecked Sendable {
    // @unchecked: the process and session id are set once in `start`; requests are independent.
    static let chromedriver = "/usr/bin/chromedriver"
    static let chromium = "/usr/bin/chromium"
    let process: Process
    let base: URL
    private(set) var session = ""

    private init(process: Process, port: Int) {
        self.process = process
        base = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts chromedriver on a free port and a headless chromium session of `width`×`height`.
    static func start(width: Int = 1400, height: Int = 900) async throws -> WebDriver {
        let port = Int.random(in: 20_000...60_000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromedriver)
        process.arguments = ["--port=\(port)", "--log-level=OFF"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        let driver = WebDriver(process: process, port: port)
        // Waits for chromedriver to answer (it listens after a moment).
        var ready = false, last = ""
        for _ in 0..<200 where !ready {
            do {
                let status = try await driver.request("GET", "status")
                ready = status["value"]?["ready"] == true
                last = "\(status)"
            } catch {
                last = "\(error)"
            }
            if !ready { try await Task.sleep(for: .milliseconds(50)) }  // polls for chromedriver
        }
        guard ready else { throw Failure("chromedriver did not answer on port \(port): \(last)") }
        let capabilities: JSONValue = ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": [
            "binary": .string(chromium),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                     .string("--window-size=\(width),\(height)")],
        ]]]]
        let created = try await driver.request("POST", "session", capabilities)
        guard let id = created["value"]?["sessionId"]?.stringValue else { throw Failure("no session: \(created)") }
        driver.session = id
        return driver
    }

    /// One WebDriver call through curl (Foundation's URLSession on Linux fails on chromedriver's replies:
    /// "Failed writing header").
    @discardableResult
    func request(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var arguments = ["-s", "--max-time", "60", "-X", method, base.appendingPathComponent(path).absoluteString]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", JSONWriter.string(body)] }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        // Read while it runs: a screenshot is larger than a pipe's buffer.
        let data = try await Task.detached { try output.fileHandleForReading.readToEnd() ?? Data() }.value
        _ = await process.exitStatus(timeout: 90)
        return try JSONValue.parse(Array(data))
    }

    func open(_ url: String) async throws {
        try await request("POST", "session/\(session)/url", ["url": .string(url)])
    }

    /// Runs `script` (a function body: `return …`) in the page and returns its value.
    func run(_ script: String) async throws -> JSONValue {
        try await request("POST", "session/\(session)/execute/sync", ["script": .string(script), "args": []])["value"] ?? .null
    }

    /// Polls `script` until it returns true, for up to `timeout` seconds.
    func waitFor(_ script: String, timeout: Double = 20) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await run(script) == true { return }
            try await Task.sleep(for: .milliseconds(100))  // polls the page
        }
        throw Failure("the page never satisfied: \(script)")
    }

    /// Drags with the mouse inside the element `selector` (W3C actions: real pointer events) from `start` to
    /// `end`, points from its top-left corner, in `steps` moves.
    func drag(in selector: String, from start: (Double, Double), to end: (Double, Double), steps: Int = 8) async throws {
        let found = try await request("POST", "session/\(session)/element", ["using": "css selector", "value": .string(selector)])
        guard let element = found["value"]?.objectValue?.values.first?.stringValue else { throw Failure("no element \(selector): \(found)") }
        // Pointer actions reach only what is in the viewport.
        _ = try await run("document.querySelector('\(selector)').scrollIntoView({block: 'center'}); return true")
        let size = try await request("GET", "session/\(session)/element/\(element)/rect")["value"] ?? .null
        let (width, height) = (size["width"]?.doubleValue ?? 0, size["height"]?.doubleValue ?? 0)
        // Offsets are from the element's centre, in whole pixels.
        func move(_ x: Double, _ y: Double) -> JSONValue {
            ["type": "pointerMove", "duration": 16, "origin": ["element-6066-11e4-a52e-4f735466cecf": .string(element)],
             "x": .number((x - width / 2).rounded()), "y": .number((y - height / 2).rounded())]
        }
        var actions: [JSONValue] = [move(start.0, start.1), ["type": "pointerDown", "button": 0]]
        for step in 1...steps {
            let f = Double(step) / Double(steps)
            actions.append(move(start.0 + (end.0 - start.0) * f, start.1 + (end.1 - start.1) * f))
        }
        actions.append(["type": "pointerUp", "button": 0])
        let body: JSONValue = ["actions": [["type": "pointer", "id": "mouse", "parameters": ["pointerType": "mouse"], "actions": .array(actions)]]]
        let reply = try await request("POST", "session/\(session)/actions", body)
        if let error = reply["value"]?["error"] { throw Failure("actions: \(error) \(reply)") }
    }

    /// Saves a PNG of the window to `path`.
    func screenshot(to path: String) async throws {
        let shot = try await request("GET", "session/\(session)/screenshot")
        guard let base64 = shot["value"]?.stringValue, let data = Data(base64Encoded: base64) else { throw Failure("no screenshot") }
        try data.write(to: URL(fileURLWithPath: path))
    }

    func quit() async {
        _ = try? await request("DELETE", "session/\(session)")
        process.terminate()
        _ = await process.exitStatus(timeout: 20)
    }
}
