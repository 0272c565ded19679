import ArgumentParser
import Foundation
import MotionWire

/// `motionctl metrics`: the daemon's Prometheus text (docs/operations.md#metrics), for `promtool` or a
/// quick look; an admin sees every uid's series, a client its own.
struct MetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "metrics", abstract: "Print the daemon's metrics in the Prometheus text format.")
    @OptionGroup var connection: Connection

    func run() async throws {
        try await connection.run { client in
            print(try await client.call("metrics")["text"]?.stringValue ?? "", terminator: "")
        }
    }
}
