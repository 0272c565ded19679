import MotionWire

/// Writes frame events byte by byte into a reused buffer: the frame path never goes through a generic
/// JSON encoder (SPEC §5 frame shape).
struct FrameEncoder {
    private(set) var bytes: [UInt8] = []

    mutating func begin(subscription: Int, seq: UInt64, time: Double, dropped: Int) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: #"{"event":"frame","sub":"#.utf8)
        appendInteger(subscription)
        bytes.append(contentsOf: #","seq":"#.utf8)
        appendInteger(Int(seq))
        bytes.append(contentsOf: #","t":"#.utf8)
        JSONWriter.writeNumber((time * 1e6).rounded() / 1e6, into: &bytes)
        bytes.append(contentsOf: #","dropped":"#.utf8)
        appendInteger(dropped)
        bytes.append(contentsOf: #","updates":["#.utf8)
    }

    /// Appends one update; `prefix` is the property's pre-encoded `{"runtime":…,"value":` text.
    mutating func appendUpdate(isFirst: Bool, prefix: [UInt8], values: UnsafeBufferPointer<Double>,
                               velocities: UnsafeBufferPointer<Double>) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: prefix)
        appendVector(values)
        bytes.append(contentsOf: #","velocity":"#.utf8)
        appendVector(velocities)
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func end() {
        bytes.append(contentsOf: "]}\n".utf8)
    }

    private mutating func appendVector(_ vector: UnsafeBufferPointer<Double>) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for component in vector {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.writeNumber(component, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func appendInteger(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }
}
