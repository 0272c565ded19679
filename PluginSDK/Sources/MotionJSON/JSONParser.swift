/// Why a text is not JSON, with the byte offset where it went wrong.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not JSON's grammar.
        case syntax
        /// Invalid UTF-8, a lone surrogate.
        case encoding
        /// Nesting deeper than `JSONValue.maximumDepth`.
        case depth
        /// A number beyond Double's range.
        case range
    }

    public var offset: Int
    public var reason: String
    public var kind = Kind.syntax
    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 parser straight into `JSONValue`: every request line goes through it, and
/// Foundation's `JSONDecoder` spent most of an event-loop thread on them (BENCHMARKS.md).
///
/// One value, surrounded by optional whitespace; an object with a repeated key is refused (two readers
/// could otherwise disagree on which one counts: RFC 8259 §4, RFC 7493 §2.3); numbers are
/// doubles and must be finite; strings must be valid UTF-8 with valid escapes (surrogates in pairs);
/// nesting deeper than `JSONValue.maximumDepth` is refused.
struct JSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    /// The members of the objects open at `position`, outermost first (`object`), each with the offset
    /// of its value (where a repeated key is reported).
    private var pending: [(key: String, value: JSONValue, offset: Int)] = []

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private func error(_ reason: String, _ kind: JSONParseError.Kind = .syntax) -> JSONParseError {
        JSONParseError(offset: position, reason: reason, kind: kind)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of text") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count,
            (0..<length).allSatisfy({ bytes[position + $0] == word.utf8Start[$0] })
        else { throw error("unexpected character") }
        position += length
        return value
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw error("nesting deeper than \(JSONValue.maximumDepth)", .depth) }
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object([:])
        }
        // Members wait on the parser's stack and go into a dictionary made at its final size: inserted
        // one by one, a member was hashed twice (the repeat check, the insert) and again at each of the
        // table's growths (half a journal record's parse was hashing, BENCHMARKS.md).
        let first = pending.count
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            let offset = position
            pending.append((key, try value(depth: depth), offset))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: position += 1
            case UInt8(ascii: "}")?:
                position += 1
                var members = [String: JSONValue](minimumCapacity: pending.count - first)
                for index in first..<pending.count {
                    let (key, value, offset) = pending[index]
                    guard members.updateValue(value, forKey: key) == nil else {
                        throw JSONParseError(offset: offset, reason: "duplicate key \"\(key.prefix(64))\"")
                    }
                }
                pending.removeSubrange(first...)
                return .object(members)
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw error("nesting deeper than \(JSONValue.maximumDepth)", .depth) }
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: position += 1
            case UInt8(ascii: "]")?:
                position += 1
                return .array(items)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    /// A string at `position` (its opening quote).
    private mutating func string() throws(JSONParseError) -> String {
        position += 1
        let start = position
        // Most strings have no escapes: find the closing quote, validate once. Most are ASCII too, which
        // needs no validation: `String(validating:)` looks up generic metadata at each call (a fifth of a
        // journal record's parse, BENCHMARKS.md "The journal's replay").
        var ascii = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                let text: String
                if ascii {
                    text = String(decoding: run, as: UTF8.self)
                } else {
                    guard let valid = String(validating: run, as: UTF8.self) else {
                        throw JSONParseError(offset: start, reason: "invalid UTF-8 in a string", kind: .encoding)
                    }
                    text = valid
                }
                position += 1
                return text
            }
            ascii = ascii && byte < 0x80
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("control character in a string") }
            position += 1
        }
        var text = ""
        var run = start
        func flush(_ end: Int) throws(JSONParseError) {
            guard run < end else { return }
            guard let part = String(validating: UnsafeRawBufferPointer(rebasing: bytes[run..<end]), as: UTF8.self) else {
                throw JSONParseError(offset: run, reason: "invalid UTF-8 in a string", kind: .encoding)
            }
            text += part
        }
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                try flush(position)
                position += 1
                return text
            case UInt8(ascii: "\\"):
                try flush(position)
                position += 1
                guard let escape = current else { throw error("unexpected end of text") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""): text += "\""
                case UInt8(ascii: "\\"): text += "\\"
                case UInt8(ascii: "/"): text += "/"
                case UInt8(ascii: "b"): text += "\u{8}"
                case UInt8(ascii: "f"): text += "\u{C}"
                case UInt8(ascii: "n"): text += "\n"
                case UInt8(ascii: "r"): text += "\r"
                case UInt8(ascii: "t"): text += "\t"
                case UInt8(ascii: "u"):
                    let unit = try hex4()
                    var scalar: Unicode.Scalar?
                    if (0xD800..<0xDC00).contains(unit) {
                        guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in a string", .encoding)
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in a string", .encoding) }
                        scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                    } else {
                        scalar = Unicode.Scalar(unit)
                    }
                    guard let scalar else { throw error("unpaired surrogate in a string", .encoding) }
                    text.unicodeScalars.append(scalar)
                default: throw error("invalid escape in a string")
                }
                run = position
            case 0..<0x20:
                throw error("control character in a string")
            default:
                position += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("unexpected end of text") }
        var unit: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            unit = unit << 4 | UInt32(digit)
            position += 1
        }
        return unit
    }

    /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    private mutating func number() throws(JSONParseError) -> Double {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        var integer: UInt64 = 0
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            integer = integer &* 10 &+ UInt64(byte - UInt8(ascii: "0"))
            position += 1
        }
        let integerDigits = position - integerStart
        guard integerDigits > 0 else { throw error("expected a digit") }
        guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw JSONParseError(offset: integerStart, reason: "leading zero in a number") }
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard try digits() > 0 else { throw error("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard try digits() > 0 else { throw error("expected a digit in the exponent") }
        }
        // Up to 15 digits an integer is exact as a double: no text conversion.
        if isInteger, integerDigits <= 15 {
            let value = Double(integer)
            return bytes[start] == UInt8(ascii: "-") ? -value : value
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(offset: start, reason: "number out of range (beyond ±1.8e308)", kind: .range)
        }
        return value
    }

    private mutating func digits() throws(JSONParseError) -> Int {
        let start = position
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects a parsed text may have.
    public static let maximumDepth = 512

    /// Parses one JSON text (see `JSONParser`).
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONParseError) -> JSONValue {
        if let result = bytes.withContiguousStorageIfAvailable({ buffer in
            Result(catching: { () throws(JSONParseError) in try JSONParser.parse(UnsafeRawBufferPointer(buffer)) })
        }) {
            return try result.get()
        }
        let copy = Array(bytes)
        let result = copy.withUnsafeBytes { buffer in
            Result(catching: { () throws(JSONParseError) in try JSONParser.parse(buffer) })
        }
        return try result.get()
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}
