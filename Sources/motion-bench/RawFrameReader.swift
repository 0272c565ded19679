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

    /// Reads until a frame stamped after `end`; counts frames stamped in [start, end].
    func read(from start: Double, to end: Double) -> Result {
        var result = Result()
        var buffer = [UInt8](repeating: 0, count: 4 << 20)
        var pending: [UInt8] = []
        var lastSeq: Double?
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return result }
            pending.append(contentsOf: buffer[0..<count])
            var lineStart = 0
            while let newline = pending[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[lineStart..<newline]
                lineStart = newline + 1
                guard line.starts(with: Self.framePrefix), let t = Self.number(after: Self.timeKey, in: line) else { continue }
                if t > end { return result }
                if t < start { continue }
                result.frames += 1
                result.bytes += line.count + 1
                result.updates += line.reduce(0) { $0 + ($1 == UInt8(ascii: "{") ? 1 : 0) } - 1
                result.dropped += Int(Self.number(after: Self.droppedKey, in: line) ?? 0)
                result.times.append(t)
                if let seq = Self.number(after: Self.seqKey, in: line) {
                    if let last = lastSeq, seq != last + 1 { result.seqGaps += 1 }
                    lastSeq = seq
                }
            }
            pending.removeFirst(lineStart)
        }
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
