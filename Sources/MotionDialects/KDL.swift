/// The part of KDL (kdl.dev, version 1 and 2 alike) that niri's config uses: nodes with arguments,
/// `key=value` properties and `{ }` children; strings, numbers, booleans (`true`, `#true`) and `null`;
/// `//`, `/* */` (nested) and `/-` comments; `;` and newlines ending nodes. Anything else is an error
/// naming its line and column.
public enum KDL {
    public enum Value: Equatable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case null

        public var number: Double? { if case .number(let x) = self { x } else { nil } }
        public var string: String? { if case .string(let s) = self { s } else { nil } }
    }

    public struct Node: Equatable {
        public var name: String
        public var arguments: [Value] = []
        public var properties: [String: Value] = [:]
        public var children: [Node] = []
        public var line = 0, column = 0

        public func child(_ name: String) -> Node? { children.first { $0.name == name } }
    }

    public static func parse(_ text: String) throws(DialectError) -> [Node] {
        var parser = Parser(Array(text.unicodeScalars))
        return try parser.nodes(closing: false)
    }

    struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0, line = 1, column = 1

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
        func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

        mutating func advance() {
            if current == "\n" { line += 1; column = 1 } else { column += 1 }
            index += 1
        }

        func error(_ reason: String) -> DialectError { DialectError(line: line, column: column, reason) }

        /// Spaces, tabs, comments and escaped newlines; newlines too when `newlines`.
        mutating func skipSpace(newlines: Bool) throws(DialectError) {
            while let scalar = current {
                if scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\u{FEFF}" || (newlines && scalar == "\n") {
                    advance()
                } else if scalar == "\\" {
                    // A line continuation: spaces and a comment may follow it, then the newline.
                    advance()
                    while let next = current, next == " " || next == "\t" || next == "\r" { advance() }
                    if current == "/", peek(1) == "/" { while let next = current, next != "\n" { _ = next; advance() } }
                    guard current == "\n" || current == nil else { throw error("expected a newline after \\") }
                    if current != nil { advance() }
                } else if scalar == "/", peek(1) == "/" {
                    while let next = current, next != "\n" { _ = next; advance() }
                } else if scalar == "/", peek(1) == "*" {
                    try skipBlockComment()
                } else {
                    return
                }
            }
        }

        mutating func skipBlockComment() throws(DialectError) {
            let (startLine, startColumn) = (line, column)
            var depth = 0
            repeat {
                guard let scalar = current else { throw DialectError(line: startLine, column: startColumn, "a /* comment never ends") }
                if scalar == "/", peek(1) == "*" { depth += 1; advance(); advance() }
                else if scalar == "*", peek(1) == "/" { depth -= 1; advance(); advance() }
                else { advance() }
            } while depth > 0
        }

        /// `openedAt`: where the `{` these nodes are inside of is (an unclosed block is named there).
        /// How deep `{` blocks nest at most (a hostile file does not take the stack).
        static let maximumDepth = 64
        var depth = 0

        mutating func nodes(closing: Bool, openedAt: (Int, Int) = (0, 0)) throws(DialectError) -> [Node] {
            if closing {
                depth += 1
                guard depth <= Self.maximumDepth else {
                    throw DialectError(line: openedAt.0, column: openedAt.1, "blocks nest deeper than \(Self.maximumDepth)")
                }
            }
            defer { if closing { depth -= 1 } }
            var nodes: [Node] = []
            while true {
                try skipSpace(newlines: true)
                while current == ";" { advance(); try skipSpace(newlines: true) }
                guard let scalar = current else {
                    if closing { throw DialectError(line: openedAt.0, column: openedAt.1, "a { block never ends: expected }") }
                    return nodes
                }
                if scalar == "}" {
                    guard closing else { throw error("} without a { before it") }
                    advance()
                    return nodes
                }
                var discarded = false
                if scalar == "/", peek(1) == "-" { advance(); advance(); discarded = true; try skipSpace(newlines: true) }
                let node = try self.node()
                if !discarded { nodes.append(node) }
            }
        }

        mutating func node() throws(DialectError) -> Node {
            var node = Node(name: "", line: line, column: column)
            guard let name = try identifier() else { throw error("expected a node name") }
            node.name = name
            while true {
                try skipSpace(newlines: false)
                guard let scalar = current else { return node }
                if scalar == "\n" || scalar == ";" { advance(); return node }
                if scalar == "}" { return node }
                if scalar == "{" {
                    let opened = (line, column)
                    advance()
                    node.children = try nodes(closing: true, openedAt: opened)
                    return node
                }
                var discarded = false
                if scalar == "/", peek(1) == "-" { advance(); advance(); discarded = true; try skipSpace(newlines: false) }
                if current == "{" {
                    let opened = (line, column)
                    advance()
                    _ = try nodes(closing: true, openedAt: opened)  // slashdashed children
                    continue
                }
                let saved = (index, line, column)
                if let key = try identifier(), current == "=" {
                    advance()
                    let value = try self.value()
                    if !discarded { node.properties[key] = value }
                } else {
                    (index, line, column) = saved
                    let value = try self.value()
                    if !discarded { node.arguments.append(value) }
                }
            }
        }

        static func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
            !" \t\r\n\\/(){}<>;[]=,\"#".unicodeScalars.contains(scalar)
        }

        /// A bare identifier or a quoted string; nil if neither starts here.
        mutating func identifier() throws(DialectError) -> String? {
            if current == "\"" { return try string() }
            if startsRawString { return try rawString() }
            guard let first = current, Self.isIdentifierScalar(first), !("0"..."9").contains(first) else { return nil }
            var text = ""
            while let scalar = current, Self.isIdentifierScalar(scalar) { text.unicodeScalars.append(scalar); advance() }
            return text
        }

        /// A raw string starts here: `r"…"` or `r#"…"#` (KDL 1, as niri's `custom-shader r"…"`), or
        /// `#"…"#` (KDL 2), any number of `#`.
        var startsRawString: Bool {
            var offset = current == "r" ? 1 : 0
            var hashes = 0
            while peek(offset) == "#" { offset += 1; hashes += 1 }
            return peek(offset) == "\"" && (current == "r" || hashes > 0)
        }

        /// A raw string: no escapes, to a quote followed by as many `#` as opened it; it may span lines.
        mutating func rawString() throws(DialectError) -> String {
            let (startLine, startColumn) = (line, column)
            if current == "r" { advance() }
            var hashes = 0
            while current == "#" { hashes += 1; advance() }
            advance()  // the opening quote
            var text = ""
            while let scalar = current {
                if scalar == "\"", (0..<hashes).allSatisfy({ peek($0 + 1) == "#" }) {
                    advance()
                    for _ in 0..<hashes { advance() }
                    return text
                }
                text.unicodeScalars.append(scalar)
                advance()
            }
            throw DialectError(line: startLine, column: startColumn, "a raw string never ends")
        }

        mutating func string() throws(DialectError) -> String {
            let (startLine, startColumn) = (line, column)
            advance()
            var text = ""
            while let scalar = current, scalar != "\"" {
                if scalar == "\\" {
                    advance()
                    switch current {
                    case "n": text += "\n"
                    case "t": text += "\t"
                    case "\"": text += "\""
                    case "\\": text += "\\"
                    case "/": text += "/"
                    default: throw error("an unknown escape in a string")
                    }
                    advance()
                } else {
                    text.unicodeScalars.append(scalar)
                    advance()
                }
            }
            guard current == "\"" else { throw DialectError(line: startLine, column: startColumn, "a string never ends") }
            advance()
            return text
        }

        mutating func value() throws(DialectError) -> Value {
            guard let scalar = current else { throw error("expected a value") }
            if scalar == "\"" { return .string(try string()) }
            if startsRawString { return .string(try rawString()) }
            var text = ""
            while let next = current, Self.isIdentifierScalar(next) || next == "#" { text.unicodeScalars.append(next); advance() }
            switch text {
            case "true", "#true": return .bool(true)
            case "false", "#false": return .bool(false)
            case "null", "#null": return .null
            default: break
            }
            guard let number = Double(String(text.filter { $0 != "_" })), !text.isEmpty else {
                throw error(text.isEmpty ? "expected a value" : "\"\(text)\" is not a value (a string needs quotes)")
            }
            return .number(number)
        }
    }
}
