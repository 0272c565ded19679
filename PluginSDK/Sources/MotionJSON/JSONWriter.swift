/// Serialises JSON values compactly with object keys sorted, so equal values give equal bytes.
public enum JSONWriter {
    public static func string(_ value: JSONValue) -> String {
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)  // a plan's size: one allocation, not a growth per doubling
        write(value, into: &bytes)
        return bytes
    }

    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): writeNumber(number, into: &out)
        case .string(let text): writeString(text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Sorted as pairs: looking each key up again cost a hash per member.
            var first = true
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// JSON has no NaN or infinity; they are written as `null`.
    public static func writeNumber(_ number: Double, into out: inout [UInt8]) {
        guard number.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        if number.rounded() == number, abs(number) < 9.0e15 {
            out.append(contentsOf: String(Int64(number)).utf8)
        } else {
            out.append(contentsOf: number.description.utf8)
        }
    }

    public static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (keys, names, plan types) need no escape: copied whole.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
