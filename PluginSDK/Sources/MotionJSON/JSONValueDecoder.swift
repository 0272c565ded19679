/// Decodes a `Decodable` from a `JSONValue`, without Foundation: the plugin kit reads plans and hot-swap
/// states with it. Errors are the standard library's `DecodingError`, with the coding path of the field.
public struct JSONValueDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(Keyed<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return Unkeyed(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    if value == .null {
        return .valueNotFound(type, .init(codingPath: path, debugDescription: "found null"))
    }
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "found \(kind(of: value))"))
}

/// What a mismatched value is, named without writing it out: a `try?` that tries one type and then
/// another (a `repeat` of `"forever"` read as a number first) pays for its error on every plan.
private func kind(of value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
}

/// Primitive reads shared by the three containers. The common types are recognised by comparing
/// metatypes (a pointer comparison) before anything that needs a dynamic cast: plans are mostly doubles,
/// arrays of doubles and strings. The coding path is built only for an error or a nested value (an array
/// per field was most of a plan's decoding).
@inline(__always)
private func primitive<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
    if T.self == Double.self {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, path()) }
        return unsafeBitCast(number, to: T.self)
    }
    if T.self == String.self {
        guard case .string(let text) = value else { throw mismatch(String.self, value, path()) }
        return unsafeBitCast(text, to: T.self)
    }
    if T.self == [Double].self {
        guard case .array(let elements) = value else { throw mismatch([Double].self, value, path()) }
        var numbers: [Double] = []
        numbers.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .number(let number) = element else { throw mismatch(Double.self, element, path() + [AnyKey(intValue: index)]) }
            numbers.append(number)
        }
        return unsafeBitCast(numbers, to: T.self)
    }
    return try slowPrimitive(type, value, path)
}

private func slowPrimitive<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: () -> [any CodingKey]) throws -> T {
    func integer<I: FixedWidthInteger>(_: I.Type) throws -> I {
        guard case .number(let number) = value, number.rounded() == number, let exact = I(exactly: number) else {
            throw mismatch(I.self, value, path())
        }
        return exact
    }
    switch type {
    case is Double.Type:
        guard case .number(let number) = value else { throw mismatch(Double.self, value, path()) }
        return number as! T
    case is Float.Type:
        guard case .number(let number) = value else { throw mismatch(Float.self, value, path()) }
        return Float(number) as! T
    case is String.Type:
        guard case .string(let text) = value else { throw mismatch(String.self, value, path()) }
        return text as! T
    case is Bool.Type:
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, value, path()) }
        return flag as! T
    case is Int.Type: return try integer(Int.self) as! T
    case is Int64.Type: return try integer(Int64.self) as! T
    case is Int32.Type: return try integer(Int32.self) as! T
    case is Int16.Type: return try integer(Int16.self) as! T
    case is Int8.Type: return try integer(Int8.self) as! T
    case is UInt.Type: return try integer(UInt.self) as! T
    case is UInt64.Type: return try integer(UInt64.self) as! T
    case is UInt32.Type: return try integer(UInt32.self) as! T
    case is UInt16.Type: return try integer(UInt16.self) as! T
    case is UInt8.Type: return try integer(UInt8.self) as! T
    case is JSONValue.Type: return value as! T
    default: return try T(from: ValueDecoder(value: value, codingPath: path()))
    }
}

private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try primitive(type, try member(key), codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        return try primitive(type, value, codingPath + [key])
    }

    // The scalar overloads look the key up once (the protocol's own ask `contains`, `decodeNil` and
    // `decode` in turn: three lookups for each optional field of each plan).
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        return try primitive(type, value, codingPath + [key])
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, value, codingPath + [key]) }
        return flag
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        return try primitive(type, value, codingPath + [key])
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        return try slowPrimitive(type, value, { codingPath + [key] })
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    /// Where a subclass's `super.encode(to: encoder.superEncoder())` wrote (Foundation's key, "super").
    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath + [AnyKey(stringValue: "super")])
    }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct Unkeyed: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else { throw ended(type) }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [AnyKey(intValue: currentIndex)])
    }

    private func ended(_ type: Any.Type) -> DecodingError {
        .valueNotFound(type, .init(codingPath: codingPath + [AnyKey(intValue: currentIndex)], debugDescription: "the array ends here"))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else { throw ended(type) }
        let index = currentIndex
        currentIndex += 1
        return try primitive(type, elements[index], codingPath + [AnyKey(intValue: index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: JSONValue].self)
        return try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([JSONValue].self)
        return try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(JSONValue.self)
        return ValueDecoder(value: value, codingPath: path)
    }
}

private struct Single: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try primitive(type, value, codingPath) }
}
