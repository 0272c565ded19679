import MotionWire

/// `plugins.list`: what is loaded, what claims conflict, what was rejected.
extension MethodTable {
    func pluginList() -> JSONValue {
        let registry = engine.registry
        let current = Set(registry.current.map { "\($0.plugin.id)#\($0.generation)" })
        let plugins = registry.plugins.map { entry -> JSONValue in
            let owned = entry.plugin.factories.map { JSONValue.string($0.planType) }
            return [
                "id": .string(entry.plugin.id), "version": .string(entry.plugin.version),
                "generation": .number(Double(entry.generation)), "file": .string(entry.plugin.file),
                "hash": .string(entry.hash), "current": .bool(current.contains("\(entry.plugin.id)#\(entry.generation)")),
                "buildTag": .string(entry.plugin.buildTag), "planTypes": .array(owned),
                "schemas": .object(Dictionary(entry.plugin.factories.map { ($0.planType, $0.schema?.json ?? .null) },
                                              uniquingKeysWith: { first, _ in first })),
                "functions": .array(entry.plugin.functions.map { ["name": .string($0.name), "signature": .string($0.signature)] }),
            ]
        }
        let conflicts = registry.conflicts.map { conflict -> JSONValue in
            ["planType": .string(conflict.planType),
             "kept": ["plugin": .string(conflict.keptPlugin), "file": .string(conflict.keptFile)],
             "ignored": ["plugin": .string(conflict.ignoredPlugin), "file": .string(conflict.ignoredFile)]]
        }
        let rejected = registry.rejected.map { JSONValue.object(["file": .string($0.file), "reason": .string($0.reason)]) }
        return ["plugins": .array(plugins), "conflicts": .array(conflicts), "rejected": .array(rejected),
                "hostKeys": Self.hostKeys, "builtInSchemas": Self.builtInSchemas]
    }

    /// Keys the host takes from any plan before its plugin's schema is checked (docs/vocabulary.md).
    static let hostKeys: JSONValue = [
        "essential": ["type": "boolean", "description": "Animates even under reduce motion (every other plan then completes at once)."],
    ]

    /// The schemas of the plan types built into the engine (`Sequence`, `Group`), as `plugins.list` shows them.
    static var builtInSchemas: JSONValue {
        func composite(_ list: String, _ what: String) -> JSONValue {
            ["type": "object", "required": ["type", .string(list)], "properties": [
                "type": ["type": "string"],
                list: ["type": "array", "minItems": 1, "items": ["type": "object"], "description": .string(what)],
                "delay": ["type": "number", "minimum": 0, "maximum": 3600, "description": "Seconds before it starts."],
                "essential": ["type": "boolean", "description": "Animates even under reduce motion."],
            ]]
        }
        return ["Sequence": composite("steps", "Plans run one after another, each when the previous ends finished; they nest."),
                "Group": composite("plans", "Plans started together; it ends when all have ended; they nest.")]
    }
}
