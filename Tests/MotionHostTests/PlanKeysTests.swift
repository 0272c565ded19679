import MotionJSON
@testable import MotionPluginKit
import Testing

/// The kit's inferred plan schema: the keys a Plan's decoding reads, so misspelt keys are refused for a
/// Swift plugin that declares no schema, without refusing a key the plan does use.
@Suite("Inferred plan keys")
struct PlanKeysTests {
    struct Simple: Decodable {
        var property: String
        var to: [Double]
        var speed: Double?
    }

    /// A custom decoder that reads `legacyName` only when `name` is absent.
    struct Renamed: Decodable {
        var name: String
        enum Keys: String, CodingKey { case name, legacyName, options }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            if container.contains(.name) {
                name = try container.decode(String.self, forKey: .name)
                _ = try container.decodeIfPresent([String: Double].self, forKey: .options)
            } else {
                name = try container.decode(String.self, forKey: .legacyName)
            }
        }
    }

    struct Dynamic: Decodable {
        init(from decoder: any Decoder) throws {
            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            _ = try decoder.container(keyedBy: Key.self).allKeys
        }
    }

    func keys(_ schema: PlanSchema?) -> [String]? {
        guard let json = schema?.json, let parsed = try? JSONValue.parse(json) else { return nil }
        return parsed["properties"]?.objectValue?.keys.sorted()
    }

    @Test func everyDeclaredKeyIsFound() {
        #expect(keys(PlanSchema.keys(of: Simple.self)) == ["property", "speed", "to"])
    }

    @Test func bothBranchesOfACustomDecoderAreFound() {
        #expect(keys(PlanSchema.keys(of: Renamed.self)) == ["legacyName", "name", "options"])
    }

    @Test func aPlanWithDynamicKeysGetsNoSchema() {
        #expect(PlanSchema.keys(of: Dynamic.self) == nil)
    }
}
