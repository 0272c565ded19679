import Foundation
import MotionWire

/// Reference cases copied from `shared/conformance/` (the original libraries' own tests).
enum Conformance {
    static func load(_ name: String) throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name)
        return try JSONValue.parse(Array(try Data(contentsOf: url)))
    }
}
