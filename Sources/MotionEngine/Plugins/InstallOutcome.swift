import MotionWire

/// What happened to one file.
package enum InstallOutcome: Sendable, Equatable {
    case loaded(id: String, version: String)
    /// `stayed`: why each performer that stays on its old build could not move (a state too large, …).
    case swapped(id: String, fromVersion: String, toVersion: String, generation: Int, migrated: Int, remaining: Int,
                 stayed: [String] = [])
    case rejected(reason: String)
    /// The swap is made and its performers are still moving: call `continueInstall(file:)` until
    /// it says `swapped` (the plugin manager does; clients never see this).
    case migrating(id: String)

    package var json: JSONValue {
        switch self {
        case .loaded(let id, let version): ["outcome": "loaded", "id": .string(id), "version": .string(version)]
        case .swapped(let id, let from, let to, let generation, let migrated, let remaining, let stayed):
            ["outcome": "swapped", "id": .string(id), "fromVersion": .string(from), "toVersion": .string(to),
             "generation": .number(Double(generation)), "migrated": .number(Double(migrated)),
             "remaining": .number(Double(remaining)), "stayed": .array(stayed.prefix(16).map { .string($0) })]
        case .rejected(let reason): ["outcome": "rejected", "reason": .string(reason)]
        case .migrating(let id): ["outcome": "migrating", "id": .string(id)]
        }
    }
}

/// A loaded plugin as the manager compares it with the files on disk.
package struct LoadedPlugin: Sendable {
    package var id: String
    package var file: String
    package var hash: String
}
