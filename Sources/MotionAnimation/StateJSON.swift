/// A small JSON reader and writer for hot-swap states. Foundation's coders cost tens of microseconds per
/// performer, and a swap moves every running performer at one tick boundary; this costs a few.
///
/// It reads any JSON text (states from other builds, written by Foundation's encoder, included) and
/// writes numbers in their shortest exact form, so a state moves bit for bit.
enum StateJSON: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([StateJSON])
    case object([String: StateJSON])

    subscript(key: String) -> StateJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// Four numbers (a SIMD4 as Codable writes it).
    var vector: SIMD4<Double>? {
        guard case .array(let items) = self, items.count == 4 else { return nil }
        var result = SIMD4<Double>()
        for index in 0..<4 {
            guard let component = items[index].number else { return nil }
            result[index] = component
        }
        return result
    }

    static let maximumDepth = 64

    /// Parses one JSON text; nil if it is not valid JSON (or nests deeper than `maximumDepth`).
    static func parse(_ bytes: UnsafeRawBufferPointer) -> StateJSON? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.position == bytes.count ? value : nil
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) -> StateJSON? {
            guard depth < StateJSON.maximumDepth else { return nil }
            skipSpace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(StateJSON.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        private mutating func object(depth: Int) -> StateJSON? {
            position += 1
            var members: [String: StateJSON] = [:]
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                guard let member = value(depth: depth + 1) else { return nil }
                members[key] = member
                guard let more = next(closing: UInt8(ascii: "}")) else { return nil }
                if !more { return .object(members) }
            }
        }

        private mutating func array(depth: Int) -> StateJSON? {
            position += 1
            var items: [StateJSON] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                guard let item = value(depth: depth + 1) else { return nil }
                items.append(item)
                guard let more = next(closing: UInt8(ascii: "]")) else { return nil }
                if !more { return .array(items) }
            }
        }

        /// After a member or an item: true at a comma, false at `closer`, nil at anything else.
        private mutating func next(closing closer: UInt8) -> Bool? {
            skipSpace()
            guard position < bytes.count else { return nil }
            position += 1
            switch bytes[position - 1] {
            case UInt8(ascii: ","): return true
            case closer: return false
            default: return nil
            }
        }

        /// A string at `position` (its opening quote). Escapes are decoded; invalid UTF-8 is refused.
        private mutating func string() -> String? {
            position += 1
            // Most strings (keys, property names) have no escapes: one validation, no scalar by scalar.
            var end = position
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[position..<end]), as: UTF8.self) else {
                    return nil
                }
                position = end + 1
                return text
            }
            var scalars = String.UnicodeScalarView()
            var run = position
            func flush(to end: Int) -> Bool {
                guard run < end else { return true }
                guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[run..<end]), as: UTF8.self) else {
                    return false
                }
                scalars.append(contentsOf: text.unicodeScalars)
                return true
            }
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    guard flush(to: position) else { return nil }
                    position += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    guard flush(to: position), position + 1 < bytes.count else { return nil }
                    let escape = bytes[position + 1]
                    position += 2
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let unit = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(unit) {
                            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                                bytes[position + 1] == UInt8(ascii: "u")
                            else { return nil }
                            position += 2
                            guard let low = hex4(), (0xDC00..<0xE000).contains(low),
                                let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                            else { return nil }
                            scalars.append(scalar)
                        } else {
                            guard let scalar = Unicode.Scalar(unit) else { return nil }
                            scalars.append(scalar)
                        }
                    default: return nil
                    }
                    run = position
                case 0..<0x20:
                    return nil
                default:
                    position += 1
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var unit: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = UInt8(exactly: bytes[position]).flatMap({ Int(String(UnicodeScalar($0)), radix: 16) }) else {
                    return nil
                }
                unit = unit << 4 | UInt32(digit)
                position += 1
            }
            return unit
        }

        private mutating func number() -> StateJSON? {
            let start = position
            while position < bytes.count, Self.numberBytes.contains(bytes[position]) { position += 1 }
            guard position > start,
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self),
                let value = Double(text), value.isFinite
            else { return nil }
            return .number(value)
        }

        private static let numberBytes = Set(Array("+-0123456789.eE".utf8))

        private mutating func literal(_ word: StaticString, _ value: StateJSON) -> StateJSON? {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { return nil }
            for index in 0..<count where bytes[position + index] != word.utf8Start[index] { return nil }
            position += count
            return value
        }
    }
}

/// Writes a state's JSON text.
struct StateWriter {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The shortest text that reads back to exactly `number` (which is finite in any state).
    mutating func number(_ number: Double) {
        bytes.append(contentsOf: number.description.utf8)
    }

    mutating func integer(_ number: Int) {
        bytes.append(contentsOf: String(number).utf8)
    }

    mutating func vector(_ vector: SIMD4<Double>) {
        raw("[")
        for index in 0..<4 {
            if index > 0 { raw(",") }
            number(vector[index])
        }
        raw("]")
    }

    mutating func string(_ text: String) {
        raw("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": raw("\\\"")
            case "\\": raw("\\\\")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                bytes.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        raw("\"")
    }
}
