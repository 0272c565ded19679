import MotionWire
import NIOCore

/// The bytes of a connection before they are cut into lines: a line must arrive whole within
/// `lineSeconds` of its first byte, and the unfinished lines of one uid's connections together stay
/// within its `quotas.inputBytes` (docs/protocol.md#messages). 1,024 connections each holding most of a
/// 1 MiB line and adding a byte every 5 s held 1.1 GB, for ever.
final class UnfinishedLines: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Set by the connection's handler when it admits the connection: its uid's ledger.
    final class Slot {
        var ledger: UIDLedger?
    }

    static let lineSeconds: Int64 = 10

    private let slot: Slot
    private let loop: EngineLoop
    private let lineTimeout: TimeAmount
    /// Bytes after the last newline read, and when the line they begin started arriving.
    private var unfinished = 0
    private var deadline: Scheduled<Void>?
    private var isRefused = false

    init(slot: Slot, loop: EngineLoop, lineTimeout: TimeAmount = .seconds(lineSeconds)) {
        self.slot = slot
        self.loop = loop
        self.lineTimeout = lineTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isRefused else { return }
        let view = unwrapInboundIn(data).readableBytesView
        let before = unfinished
        if let newline = view.lastIndex(of: UInt8(ascii: "\n")) {
            // A line ended here; what follows its newline begins the next one, on a clock of its own.
            unfinished = view.distance(from: view.index(after: newline), to: view.endIndex)
            deadline?.cancel()
            deadline = nil
        } else {
            unfinished += view.count
        }
        if unfinished > 0, deadline == nil { startClock(context: context) }
        if let ledger = slot.ledger, unfinished != before {
            let held = ledger.unfinishedBytes.add(unfinished - before, ordering: .relaxed).newValue
            let quota = loop.inputBytesQuota.load(ordering: .relaxed)
            if unfinished > before, held > quota {
                return refuse(context: context, code: .quotaExceeded, message:
                    "quota inputBytes: uid \(ledger.uid.map(String.init) ?? "?") holds \(quota) bytes of unfinished request lines "
                    + "(its quota; see the config file's quotas); closing the connection")
            }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    private func release() {
        deadline?.cancel()
        deadline = nil
        if unfinished > 0 { slot.ledger?.unfinishedBytes.subtract(unfinished, ordering: .relaxed) }
        unfinished = 0
    }

    /// Closes the connection if the line begun now is not whole by its deadline. While the daemon is not
    /// reading (backpressure: the rest of the line may be waiting in the socket) the clock waits too.
    private func startClock(context: ChannelHandlerContext, after delay: TimeAmount? = nil) {
        let channel = context.channel
        deadline = channel.eventLoop.assumeIsolated().scheduleTask(in: delay ?? lineTimeout) { [self] in
            deadline = nil
            guard unfinished > 0, channel.isActive else { return }
            if let reading = try? channel.syncOptions?.getOption(ChannelOptions.autoRead), !reading {
                return startClock(context: context, after: .seconds(1))
            }
            refuse(context: context, code: .lineTimeout,
                   message: "a request line unfinished \(lineTimeout.nanoseconds / 1_000_000_000) s after its first byte; closing the connection")
        }
    }

    /// One closing `error` event, then the connection closes (a reader that never takes it is closed anyway).
    private func refuse(context: ChannelHandlerContext, code: ErrorCode, message: String) {
        isRefused = true
        release()
        let bytes = WireMessage.closing(code: code, message: message)
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        context.writeAndFlush(NIOAny(buffer)).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
        ChannelOutput.close(context.channel, after: ChannelOutput.closeGrace)
    }
}
