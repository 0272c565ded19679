/// A linear pre-check of a JSON text that names what is wrong before a parser gives a generic error:
/// invalid UTF-8, nesting deeper than the limit, numbers out of Double's range (each with its byte
/// offset). It does not validate JSON.
public enum JSONTextCheck {
    public static let maximumDepth = 512

    /// A description of the first problem, or nil.
    public static func problem<Bytes: Collection<UInt8>>(in bytes: Bytes) -> String? {
        var depth = 0
        var inString = false
        var escaped = false
        var offset = 0
        var continuation = 0  // UTF-8 continuation bytes still expected
        var number: [UInt8] = []
        var numberStart = 0
        func numberProblem() -> String? {
            defer { number.removeAll(keepingCapacity: true) }
            guard number.count > 0, let value = Double(String(decoding: number, as: UTF8.self)), !value.isFinite else { return nil }
            let text = String(decoding: number.prefix(24), as: UTF8.self) + (number.count > 24 ? "…" : "")
            return "number \(text) at byte \(numberStart) is out of range (beyond ±1.8e308)"
        }
        for byte in bytes {
            defer { offset += 1 }
            if continuation > 0 {
                guard byte & 0xC0 == 0x80 else { return "invalid UTF-8 at byte \(offset)" }
                continuation -= 1
                continue
            }
            switch byte {
            case 0x00..<0x80: break
            case 0xC2...0xDF: continuation = 1; continue
            case 0xE0...0xEF: continuation = 2; continue
            case 0xF0...0xF4: continuation = 3; continue
            default: return "invalid UTF-8 at byte \(offset)"
            }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if !number.isEmpty || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") {
                if "0123456789+-.eE".utf8.contains(byte) {
                    if number.isEmpty { numberStart = offset }
                    number.append(byte)
                    continue
                }
                if let problem = numberProblem() { return problem }
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumDepth { return "nesting deeper than \(maximumDepth) levels at byte \(offset)" }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        if let problem = numberProblem() { return problem }
        return continuation > 0 ? "invalid UTF-8 at byte \(offset) (truncated sequence)" : nil
    }
}
