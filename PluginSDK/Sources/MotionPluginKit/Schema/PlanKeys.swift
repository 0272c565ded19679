extension PlanSchema {
    /// A closed schema with the top-level keys that decoding `Plan` asks for, each of any type: enough
    /// for the host to refuse a misspelt key in plans of a performer that declares no schema. Nil when
    /// the keys cannot be found this way (a custom `init(from:)` that refuses the probe's empty values
    /// before it has asked for every key): refusing a key the plan does use would be worse.
    ///
    /// The type is decoded twice, once as if every optional key were absent and once as if every key were
    /// present, so both branches of a custom `init(from:)` that looks before it reads are seen. A type that
    /// asks for `allKeys` (dynamic keys) gets no schema.
    public static func keys<Plan: Decodable>(of type: Plan.Type) -> PlanSchema? {
        let recorder = KeyRecorder()
        for present in [false, true] {
            recorder.present = present
            do {
                _ = try Plan(from: KeyProbe(recorder: recorder, depth: 0))
            } catch {
                return nil
            }
        }
        guard !recorder.keys.isEmpty, !recorder.readsAllKeys else { return nil }
        return .plan(Dictionary(uniqueKeysWithValues: recorder.keys.sorted().map { ($0, PlanSchema.any) }))
    }
}

/// The keys a `Decodable` type reads, found by decoding it from a probe that answers every question
/// with an empty or zero value.
private final class KeyRecorder {
    var keys: Set<String> = []
    /// This pass answers "present" to `contains` and decodes optional keys.
    var present = false
    var readsAllKeys = false
}

private struct ProbeStop: Error {}

private struct KeyProbe: Decoder {
    let recorder: KeyRecorder
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedProbe<Key>(recorder: recorder, depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { EmptyProbe() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { ValueProbe(recorder: recorder, depth: depth) }
}

private struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: KeyRecorder
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] {
        if depth == 0 { recorder.readsAllKeys = true }
        return []
    }

    private func record(_ key: Key) { if depth == 0 { recorder.keys.insert(key.stringValue) } }

    func contains(_ key: Key) -> Bool {
        record(key)
        return recorder.present
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        record(key)
        return !recorder.present
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        record(key)
        guard depth < 8 else { throw ProbeStop() }
        return try T(from: KeyProbe(recorder: recorder, depth: depth + 1))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        record(key)
        guard recorder.present, depth < 8 else { return nil }
        return try? T(from: KeyProbe(recorder: recorder, depth: depth + 1))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        record(key)
        return KeyedDecodingContainer(KeyedProbe<NestedKey>(recorder: recorder, depth: depth + 1))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        record(key)
        return EmptyProbe()
    }

    func superDecoder() throws -> any Decoder { KeyProbe(recorder: recorder, depth: depth) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        record(key)
        return KeyProbe(recorder: recorder, depth: depth + 1)
    }
}

private struct EmptyProbe: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    mutating func decodeNil() throws -> Bool { true }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw ProbeStop() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> { throw ProbeStop() }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ProbeStop() }
    mutating func superDecoder() throws -> any Decoder { throw ProbeStop() }
}

private struct ValueProbe: SingleValueDecodingContainer {
    let recorder: KeyRecorder
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { false }
    func decode(_ type: String.Type) throws -> String { "" }
    func decode(_ type: Double.Type) throws -> Double { 0 }
    func decode(_ type: Float.Type) throws -> Float { 0 }
    func decode(_ type: Int.Type) throws -> Int { 0 }
    func decode(_ type: Int8.Type) throws -> Int8 { 0 }
    func decode(_ type: Int16.Type) throws -> Int16 { 0 }
    func decode(_ type: Int32.Type) throws -> Int32 { 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { 0 }
    func decode(_ type: UInt.Type) throws -> UInt { 0 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard depth < 8 else { throw ProbeStop() }
        return try T(from: KeyProbe(recorder: recorder, depth: depth + 1))
    }
}
