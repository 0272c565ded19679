import ArgumentParser
import Foundation
import MotionClient
import MotionWire

/// BENCHMARKS.md "connected clients held with frames flowing": N clients each subscribed to the frames of a
/// few moving springs, read by one poll loop. Reports how many clients receive frames and at what rate.
struct ClientsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients", abstract: "Measure N connected clients, each receiving the frames of a few moving springs.")

    @Option(help: "Use a running daemon on this socket; by default a motiond from this build is started.")
    var socket: String?
    @Option(help: "Number of subscribed clients.") var clients = 1000
    @Option(help: "Number of moving springs (every client subscribes to all).") var springs = 10
    @Option(help: "Seconds to measure after every client subscribed.") var seconds = 5.0
    @Flag(help: "Print one JSON object instead of text.") var json = false

    func run() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let daemon = try BenchDaemon(socket: socket, name: "clients", rate: 120)
        defer { daemon.stop() }
        let path = daemon.path
        let control = try await connect(path)
        try await control.hello(client: "motion-bench")
        for index in 0..<springs {
            _ = try await control.call("plan.add", [
                "target": .string("s\(index)"),
                "plan": ["type": "Spring", "property": "position", "to": [1000, 1000], "damping": 0.05, "threshold": 1e-9],
            ])
        }
        var readers: [RawFrameReader] = []
        for index in 0..<clients {
            let reader = try RawFrameReader(path: path)
            reader.send(#"{"id":1,"method":"hello","params":{"protocol":1,"client":"bench-\#(index)"}}"#)
            reader.send(#"{"id":2,"method":"subscribe","params":{"streams":["frames"]}}"#)
            _ = fcntl(reader.descriptor, F_SETFL, fcntl(reader.descriptor, F_GETFL) | O_NONBLOCK)
            readers.append(reader)
        }
        // Warm up (replies and first frames), then count lines: all that arrives now is frames.
        _ = Self.pump(readers, for: 1.0)
        let lines = Self.pump(readers, for: seconds)
        let status = try await control.call("status")
        await control.close()
        for reader in readers { reader.close() }
        let rates = lines.map { Double($0) / seconds }.sorted()
        let result: JSONValue = [
            "clients": .number(Double(clients)), "springs": .number(Double(springs)), "seconds": .number(seconds),
            "clientsReceivingFrames": .number(Double(lines.filter { $0 > 0 }.count)),
            "framesPerSecondPerClientMin": .number((rates.first ?? 0).rounded()),
            "framesPerSecondPerClientMedian": .number(rates.isEmpty ? 0 : rates[rates.count / 2].rounded()),
            "updatesPerSecond": .number((rates.reduce(0, +) * Double(springs)).rounded()),
            "daemonClients": status["clients"] ?? .null, "daemonTick": status["tick"] ?? .null,
        ]
        if json { return print(JSONWriter.string(result)) }
        print("\(clients) clients × \(springs) springs: \(result["clientsReceivingFrames"]!.doubleValue!) receiving frames, "
              + "frames/s per client min \(result["framesPerSecondPerClientMin"]!.doubleValue!) median \(result["framesPerSecondPerClientMedian"]!.doubleValue!)")
        print("daemon clients \(status["clients"] ?? .null), tick \(JSONWriter.string(status["tick"] ?? .null))")
    }

    /// Reads every client for `seconds` with poll(2); returns the lines (frames) each received.
    static func pump(_ readers: [RawFrameReader], for seconds: Double) -> [Int] {
        var lines = [Int](repeating: 0, count: readers.count)
        var descriptors = readers.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            guard poll(&descriptors, nfds_t(descriptors.count), 50) > 0 else { continue }
            for index in descriptors.indices where descriptors[index].revents & Int16(POLLIN) != 0 {
                while true {
                    let count = read(descriptors[index].fd, buffer.baseAddress, buffer.count)
                    guard count > 0 else { break }
                    lines[index] += RawFrameReader.countNewlines(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                }
            }
        }
        return lines
    }
}
