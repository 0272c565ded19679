import MotionWire

/// Writes frame events byte by byte into a reused buffer: the frame path never goes through a generic
/// JSON encoder (SPEC §5 frame shape).
///
/// Values and velocities are written in fixed point: integers exactly, other numbers below 1e9 in
/// magnitude rounded to nine decimal places (trailing zeros dropped), larger ones in the shortest form
/// that reads back exactly. Formatting a double exactly costs about 100 ns (`Double.description`); the
/// fixed-point digits cost a few, and a nano-unit is far below anything a screen shows.
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
    mutating func appendUpdate(isFirst: Bool, prefix: UnsafeBufferPointer<UInt8>, values: UnsafeBufferPointer<Double>,
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
            Self.appendFixed(component, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    static let fractionDigits = 9
    static let fixedScale = 1e9

    /// `number` in fixed point with at most nine decimals (see the type's comment).
    static func appendFixed(_ number: Double, into bytes: inout [UInt8]) {
        let magnitude = abs(number)
        guard magnitude < fixedScale else {
            JSONWriter.writeNumber(number, into: &bytes)  // also writes NaN and infinities as null
            return
        }
        // Below 1e9 the scaled magnitude stays below 1e18, inside UInt64 and exact to the rounding.
        let fixed = UInt64((magnitude * fixedScale).rounded())
        guard fixed != 0 else { return bytes.append(UInt8(ascii: "0")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var end = 24
            var fraction = fixed % 1_000_000_000, integer = fixed / 1_000_000_000
            if fraction != 0 {
                var digits = fractionDigits
                while fraction % 10 == 0 {
                    fraction /= 10
                    digits -= 1
                }
                for _ in 0..<digits {
                    end -= 1
                    buffer[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
                    fraction /= 10
                }
                end -= 1
                buffer[end] = UInt8(ascii: ".")
            }
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: integer % 10)
                integer /= 10
            } while integer != 0
            if number < 0 {
                end -= 1
                buffer[end] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[end..<24]))
        }
    }

    private mutating func appendInteger(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }
}
