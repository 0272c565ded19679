/// A file in another program's motion dialect that does not read: refused whole, naming where
/// (docs/themes.md#dialects).
public struct DialectError: Error, CustomStringConvertible, Equatable {
    public let line: Int
    public let column: Int
    public let reason: String

    public init(line: Int, column: Int, _ reason: String) {
        (self.line, self.column, self.reason) = (line, column, reason)
    }

    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// What an import or export made, and what the other side cannot say (listed, never dropped silently).
public struct DialectResult<Output> {
    public var output: Output
    public var unsaid: [String]
}

/// A token name from another program's name: lowercase words joined by `-` (`easeOutQuint` →
/// `ease-out-quint`, `my_curve` → `my-curve`), dots kept.
func tokenName(_ name: String) -> String {
    var result = ""
    var previousWasLower = false
    for character in name {
        if character.isUppercase, previousWasLower { result.append("-") }
        if character == "_" || character == " " {
            if !result.hasSuffix("-") { result.append("-") }
            previousWasLower = false
            continue
        }
        result.append(Character(character.lowercased()))
        previousWasLower = character.isLowercase || character.isNumber
    }
    return result
}

/// A number as short as it reads back exactly (`800`, `0.0001`, `0.15`).
func spelled(_ number: Double) -> String {
    if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
    return "\(number)"
}
