import ArgumentParser
import Foundation
import MotionClient
import MotionInspector

/// `motionctl inspect` (docs/inspector.md): the inspector's web app on loopback, for the user who runs it.
struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "See every runtime's motion in a browser: live values and graphs, trace, pause, slow motion, scrubbing, a spring editor.",
        discussion: "Listens on loopback only and prints the page's address with its random token (every request without it is refused, 403). The page is a client of motiond as you: it sees what your uid may see. Ends on Ctrl-C.")
    @Option(help: "Where to listen: 127.0.0.1:PORT or [::1]:PORT (0: a free port).") var listen = "127.0.0.1:0"
    @Flag(help: "Open the page in the desktop's browser (xdg-open).") var open = false
    @OptionGroup var connection: Connection

    func run() async throws {
        // The daemon answers first: a wrong socket is said here, not as a page that never connects.
        try await connection.run { _ in }
        let server: InspectorServer
        do {
            server = try InspectorServer(socket: connection.path, listen: listen)
        } catch let refused as InspectorServer.RefusedAddress {
            throw ValidationError(refused.description)
        }
        let open = self.open
        try await server.run { address in
            FileHandle.standardOutput.write(Data("motionctl inspect: \(address)\n".utf8))
            if open { Self.openInBrowser(address) }
        }
    }

    static func openInBrowser(_ address: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", address]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { printError("could not open a browser (xdg-open): open \(address) yourself") }
    }
}
