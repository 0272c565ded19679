import Foundation

/// Reads frame events from a plain socket without parsing their JSON: it finds `"t":` and `"dropped":`
/// and counts update objects, so the reader keeps up and the figures are the daemon's, not a parser's.
struct RawFrameReader {
    struct Result {
        var frames = 0
        var updates = 0
        var dropped = 0
        var bytes = 0
        var times: [Double] = []
        /// Frames whose `seq` was not the previous one's + 1 (only meaningful for a frames-only subscription).
        var seqGaps = 0
    }

    let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard status == 0 else { throw CocoaError(.fileReadUnknown) }
    }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Ends a `read` running on another thread (it returns what it counted so far).
    func stop() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Reads until a frame stamped after `end` (or `stop()`); counts frames stamped in [start, end].
    ///
    /// Bytes are scanned once, in place: `memchr` finds line ends, a plain loop counts the `{` that open
    /// updates, and only the first bytes of each line (its header: seq, t, dropped) are kept.
    func read(from start: Double, to end: Double) -> Result {
        var result = Result()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var header: [UInt8] = []
        var braces = 0, lineBytes = 0
        var lastSeq: Double?
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            guard count > 0 else { return result }
            var offset = 0
            while offset < count {
                let rest = UnsafeRawBufferPointer(rebasing: buffer[offset..<count])
                let newline = memchr(rest.baseAddress!, Int32(UInt8(ascii: "\n")), rest.count)
                let length = newline.map { UnsafeRawPointer($0) - rest.baseAddress! } ?? rest.count
                let piece = UnsafeRawBufferPointer(rebasing: rest[0..<length])
                if header.count < Self.headerLength { header.append(contentsOf: piece.prefix(Self.headerLength - header.count)) }
                braces += Self.countBraces(piece)
                lineBytes += length
                offset += length
                guard newline != nil else { break }
                offset += 1
                defer {
                    header.removeAll(keepingCapacity: true)
                    braces = 0
                    lineBytes = 0
                }
                let line = header[...]
                guard line.starts(with: Self.framePrefix), let t = Self.number(after: Self.timeKey, in: line) else { continue }
                if t > end { return result }
                if t < start { continue }
                result.frames += 1
                result.bytes += lineBytes + 1
                result.updates += braces - 1
                result.dropped += Int(Self.number(after: Self.droppedKey, in: line) ?? 0)
                result.times.append(t)
                if let seq = Self.number(after: Self.seqKey, in: line) {
                    if let last = lastSeq, seq != last + 1 { result.seqGaps += 1 }
                    lastSeq = seq
                }
            }
        }
    }

    static let headerLength = 160

    static func countNewlines(_ bytes: UnsafeRawBufferPointer) -> Int {
        var count = 0
        for byte in bytes { count &+= byte == UInt8(ascii: "\n") ? 1 : 0 }
        return count
    }

    /// Eight bytes at a time (a byte equal to `{` becomes a zero byte, found exactly without carries
    /// between bytes): the reader takes the core the daemon's event loop would otherwise have.
    static func countBraces(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let braces: UInt64 = 0x7B7B_7B7B_7B7B_7B7B, low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var total = 0, offset = 0
        while offset + 8 <= bytes.count {
            let word = (base + offset).loadUnaligned(as: UInt64.self) ^ braces
            let nonZero = ((word & low) &+ low) | word
            total &+= (~nonZero & ~low).nonzeroBitCount
            offset += 8
        }
        for byte in UnsafeRawBufferPointer(rebasing: bytes[offset...]) where byte == UInt8(ascii: "{") { total += 1 }
        return total
    }

    func close() { Glibc.close(descriptor) }

    static let framePrefix = Array(#"{"event":"frame""#.utf8)
    static let timeKey = Array(#","t":"#.utf8)
    static let droppedKey = Array(#","dropped":"#.utf8)
    static let seqKey = Array(#","seq":"#.utf8)

    static func number(after key: [UInt8], in line: ArraySlice<UInt8>) -> Double? {
        guard let range = line.firstRange(of: key) else { return nil }
        let digits = line[range.upperBound...].prefix { $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "}") }
        return Double(String(decoding: digits, as: UTF8.self))
    }
}
