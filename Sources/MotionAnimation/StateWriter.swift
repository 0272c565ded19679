import MotionJSON

/// Writes hot-swap states straight to bytes with the JSON core's number and string writers: a swap moves
/// every running performer at one tick boundary, and building a `JSONValue` per performer first would
/// cost more than the maths. States are read back with `JSONValue.parse`.
struct StateWriter {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The shortest text that reads back to exactly `number` (which is finite in any state).
    mutating func number(_ number: Double) { JSONWriter.writeNumber(number, into: &bytes) }

    mutating func integer(_ number: Int) { bytes.append(contentsOf: String(number).utf8) }

    mutating func vector(_ vector: SIMD4<Double>) {
        raw("[")
        for index in 0..<4 {
            if index > 0 { raw(",") }
            number(vector[index])
        }
        raw("]")
    }

    mutating func string(_ text: String) { JSONWriter.writeString(text, into: &bytes) }
}

extension JSONValue {
    /// Four numbers (a SIMD4 as Codable writes it).
    var vector: SIMD4<Double>? {
        guard case .array(let items) = self, items.count == 4 else { return nil }
        var result = SIMD4<Double>()
        for index in 0..<4 {
            guard let component = items[index].doubleValue else { return nil }
            result[index] = component
        }
        return result
    }
}
