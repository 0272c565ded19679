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

    /// Through a file only this user can read that redirects to the address, as Jupyter does: the token
    /// in a browser's or xdg-open's arguments would be readable by every uid in /proc/PID/cmdline.
    static func openInBrowser(_ address: String) {
        let folder = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
        let page = URL(fileURLWithPath: folder).appendingPathComponent("motionctl-inspect-\(getpid()).html")
        let html = "<!doctype html><meta http-equiv=\"refresh\" content=\"0; url=\(address)\"><a href=\"\(address)\">motiond inspector</a>\n"
        unlink(page.path)
        let descriptor = Glibc.open(page.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)  // never readable by others
        let bytes = Array(html.utf8)
        guard descriptor >= 0, write(descriptor, bytes, bytes.count) == bytes.count else {
            if descriptor >= 0 { close(descriptor) }
            printError("could not write \(page.path): open the address yourself")
            return
        }
        close(descriptor)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", page.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { printError("could not open a browser (xdg-open): open \(address) yourself") }
    }
}
