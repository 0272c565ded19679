/// Encodes an `Encodable` as a `JSONValue`, without Foundation: the plugin kit writes hot-swap states
/// with it. Keys and values come out as Foundation's `JSONEncoder` would write them (default strategies),
/// with two differences a state type should avoid: numbers are doubles (an `Int64` beyond ±2^53 loses
/// precision), and Foundation's own types keep their Codable form (`Data` as an array of bytes, not
/// base64; `URL` and `Decimal` likewise).
public struct JSONValueEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = Node()
        try encodeValue(value, into: root, path: [])
        return root.value
    }
}

/// A value being built; containers write into it, nested ones through their own node.
private final class Node {
    enum Content {
        case value(JSONValue)
        case object([(String, Node)])
        case array([Node])
    }

    var content = Content.value(.null)

    var value: JSONValue {
        switch content {
        case .value(let value): return value
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for (key, node) in members { object[key] = node.value }
            return .object(object)
        case .array(let nodes): return .array(nodes.map(\.value))
        }
    }

    func member(_ key: String) -> Node {
        let node = Node()
        if case .object(var members) = content {
            members.removeAll { $0.0 == key }
            members.append((key, node))
            content = .object(members)
        } else {
            content = .object([(key, node)])
        }
        return node
    }

    func appended() -> Node {
        let node = Node()
        if case .array(var nodes) = content {
            nodes.append(node)
            content = .array(nodes)
        } else {
            content = .array([node])
        }
        return node
    }
}

private func encodeValue<T: Encodable>(_ value: T, into node: Node, path: [any CodingKey]) throws {
    switch value {
    case let number as Double: node.content = .value(try finite(number, path))
    case let number as Float: node.content = .value(try finite(Double(number), path))
    case let number as Int: node.content = .value(.number(Double(number)))
    case let number as Int64: node.content = .value(.number(Double(number)))
    case let number as Int32: node.content = .value(.number(Double(number)))
    case let number as Int16: node.content = .value(.number(Double(number)))
    case let number as Int8: node.content = .value(.number(Double(number)))
    case let number as UInt16: node.content = .value(.number(Double(number)))
    case let number as UInt8: node.content = .value(.number(Double(number)))
    case let number as UInt: node.content = .value(.number(Double(number)))
    case let number as UInt64: node.content = .value(.number(Double(number)))
    case let number as UInt32: node.content = .value(.number(Double(number)))
    case let text as String: node.content = .value(.string(text))
    case let flag as Bool: node.content = .value(.bool(flag))
    case let json as JSONValue: node.content = .value(json)
    default: try value.encode(to: ValueEncoder(node: node, codingPath: path))
    }
}

private func finite(_ number: Double, _ path: [any CodingKey]) throws -> JSONValue {
    guard number.isFinite else {
        throw EncodingError.invalidValue(number, .init(codingPath: path, debugDescription: "JSON has no \(number)"))
    }
    return .number(number)
}

private struct ValueEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedEncoder<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleEncoder(node: node, codingPath: codingPath) }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeValue(value, into: node.member(key.stringValue), path: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { ValueEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let nodes) = node.content { return nodes.count }
        return 0
    }

    private var nextPath: [any CodingKey] { codingPath + [AnyKey(intValue: count)] }

    mutating func encodeNil() throws { node.appended().content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try encodeValue(value, into: node.appended(), path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        return ValueEncoder(node: node.appended(), codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return ValueEncoder(node: node.appended(), codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return ValueEncoder(node: node.appended(), codingPath: path)
    }
}

private struct SingleEncoder: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encodeValue(value, into: node, path: codingPath) }
}
