import MotionEngine
import Foundation
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle

/// Listens on the Unix socket and hands each connection to a `ConnectionHandler`.
///
/// With socket activation it serves the inherited listener and never unlinks it (the socket belongs to
/// systemd's socket unit); otherwise it binds the configured path, makes it 0660 and removes it on stop.
package struct SocketServer: Service {
    let configuration: DaemonConfiguration
    let loop: EngineLoop
    let logger: Logger
    let inheritedListener: Int32?
    let onListening: @Sendable (String) -> Void

    package init(configuration: DaemonConfiguration, loop: EngineLoop, logger: Logger, inheritedListener: Int32? = nil,
                onListening: @escaping @Sendable (String) -> Void = { _ in }) {
        self.configuration = configuration
        self.loop = loop
        self.logger = logger
        self.inheritedListener = inheritedListener
        self.onListening = onListening
    }

    /// How long a stop waits for the changes being written and applied to be answered (the stop's
    /// whole deadline is `StopDeadline.seconds`).
    static let answerSeconds: Int64 = 3

    package func run() async throws {
        let maximumLineLength = configuration.maximumLineLength
        let loop = self.loop
        let policy = try AccessPolicy(adminGroupName: configuration.adminGroup)
        let limiter = ConnectionLimiter(.init(total: configuration.maximumConnections,
                                              perUser: configuration.maximumConnectionsPerUser), logger: logger)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            // Room for a burst of clients connecting at once (the kernel caps it at net.core.somaxconn).
            .serverChannelOption(ChannelOptions.backlog, value: 4096)
            // A client that shuts down its sending side (`socat` at the end of its input) is still answered.
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.addConnectionHandlers(to: channel.pipeline.syncOperations, loop: loop, maximumLineLength: maximumLineLength,
                                                   policy: policy, limiter: limiter)
                }
            }
        let channel: any Channel
        let path: String
        if let inheritedListener {
            channel = try await bootstrap.withBoundSocket(inheritedListener).get()
            path = SocketActivation.boundPath(inheritedListener) ?? "fd \(inheritedListener)"
            logger.info("listening on the socket systemd passed", metadata: ["socket": "\(path)"])
        } else {
            path = configuration.socketPath
            try SocketPath.prepare(path)
            do {
                channel = try await SocketPath.bindPrivately(path) { try await bootstrap.bind(unixDomainSocketPath: $0, cleanupExistingSocketFile: false).get() }
            } catch let error as IOError {
                // The system's words ("Permission denied"), not NIO's function signature.
                throw SocketPath.InUse(path: path, reason: "cannot listen there (\(String(cString: strerror(error.errnoCode))))")
            }
            logger.info("listening", metadata: ["socket": "\(path)"])
        }
        onListening(path)
        try? await gracefulShutdown()
        try? await channel.close()
        // Every request applied is answered before its connection closes (docs/protocol.md#a-stop): what
        // is being written or applied finishes, for at most `answerSeconds`; what comes after is refused.
        await loop.performAfterQueued { $0.beginStopping() }
        let answering = ContinuousClock.now + .seconds(Self.answerSeconds)
        while ContinuousClock.now < answering, !(await loop.performAfterQueued { $0.isQuiet }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let closing = await loop.performAfterQueued { $0.closeAllSessions(reason: "motiond is stopping") }
        // The engine thread only queued the last lines and the closes on the event loops; wait until they
        // ran, or the process could exit first and a client would never see why it was disconnected. A
        // client whose socket is full gets a second, not the 5 s of a connection closed while running.
        let outputs = closing.compactMap { $0 as? ChannelOutput }
        for output in outputs {
            output.channel.eventLoop.scheduleTask(in: .seconds(1)) { output.channel.close(promise: nil) }
        }
        for output in outputs {
            try? await output.channel.closeFuture.get()
        }
        if inheritedListener == nil { unlink(path) }
        logger.info("stopped listening", metadata: ["socket": "\(path)"])
    }
}

extension SocketServer {
    /// A connection's pipeline: the line clock and the uid's unfinished bytes, then the decoder (it buffers
    /// at most one line plus its "\r\n"; anything longer is refused before it is parsed), then the handler
    /// that admits the connection (and hands the first one its uid's ledger) and passes requests on.
    static func addConnectionHandlers(to pipeline: ChannelPipeline.SynchronousOperations, loop: EngineLoop, maximumLineLength: Int,
                                      policy: AccessPolicy, limiter: ConnectionLimiter, helloTimeout: TimeAmount = .seconds(5),
                                      lineTimeout: TimeAmount = .seconds(UnfinishedLines.lineSeconds)) throws {
        let slot = UnfinishedLines.Slot()
        try pipeline.addHandler(UnfinishedLines(slot: slot, loop: loop, lineTimeout: lineTimeout))
        try pipeline.addHandler(ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: maximumLineLength + 2))
        try pipeline.addHandler(ConnectionHandler(loop: loop, maximumLineLength: maximumLineLength, policy: policy, limiter: limiter,
                                                  ledgerSlot: slot, helloTimeout: helloTimeout))
    }
}

/// Makes a socket path ready to bind: creates the directory, removes a stale socket, refuses to take
/// over a socket another server still answers on, or a path that is not a socket.
enum SocketPath {
    struct InUse: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "\(path): \(reason)" }
    }

    static func prepare(_ path: String) throws {
        guard path.utf8.count <= 107 else {
            throw InUse(path: path, reason: "the path is \(path.utf8.count) bytes; a Unix socket's path is at most 107 (choose a shorter --socket)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw InUse(path: path, reason: "exists and is not a socket; refusing to replace it")
        }
        switch probe(path) {
        case .answers: throw InUse(path: path, reason: "another server is listening on this socket")
        case .forbidden:
            // Another user's socket (motiond's is 0660): neither ours to connect to nor to replace.
            throw InUse(path: path, reason: "a socket this user may not connect to (another user's server?); choose another --socket")
        case .stale: break
        }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw InUse(path: path, reason: "a stale socket this user cannot remove (\(String(cString: strerror(errno))))")
        }
    }

    /// Binds so that the socket is never reachable by others, not even for an instant and whatever the
    /// umask: it is bound inside a fresh directory only motiond can enter (mode 0700), made 0660 there,
    /// then renamed into place. When that longer path would not fit a socket address, the bind runs with
    /// a umask that already leaves the socket 0660.
    static func bindPrivately<Bound>(_ path: String, bind: (String) async throws -> Bound) async throws -> Bound {
        let directory = (path as NSString).deletingLastPathComponent
        var template = Array(((directory.isEmpty ? "." : directory) + "/.motiond-bind-XXXXXX").utf8CString)
        let privatePath = String(cString: template) + "/s"
        guard privatePath.utf8.count < 104, template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            let previous = umask(0o117)
            defer { umask(previous) }
            let bound = try await bind(path)
            chmod(path, 0o660)
            return bound
        }
        let privateDirectory = String(cString: template)
        defer { rmdir(privateDirectory) }
        let inside = privateDirectory + "/s"
        let bound = try await bind(inside)
        guard chmod(inside, 0o660) == 0, rename(inside, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(inside)
            throw InUse(path: path, reason: "could not move the socket into place: \(reason)")
        }
        return bound
    }

    private enum Probe { case answers, forbidden, stale }

    private static func probe(_ path: String) -> Probe {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return .stale }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .stale }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        return connected ? .answers : (errno == EACCES || errno == EPERM ? .forbidden : .stale)
    }
}
