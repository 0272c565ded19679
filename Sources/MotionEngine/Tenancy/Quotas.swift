/// What one uid may hold at once (SPEC §13), from the config file's `quotas`. Past one, the request that
/// would go beyond it is refused with `quota.exceeded` naming it; nothing else is disturbed.
public struct Quotas: Sendable, Equatable {
    public var performers = 100_000
    public var runtimes = 256
    public var routers = 64
    public var gestures = 64
    /// Bytes of router state (configurations and URLs, as saved).
    public var stateBytes = 16 << 20

    public init() {}

    /// The config file's names, in the order `status` lists them.
    public static let names = ["performers", "runtimes", "routers", "gestures", "stateBytes"]

    public subscript(name: String) -> Int? {
        get {
            switch name {
            case "performers": performers
            case "runtimes": runtimes
            case "routers": routers
            case "gestures": gestures
            case "stateBytes": stateBytes
            default: nil
            }
        }
        set {
            guard let newValue else { return }
            switch name {
            case "performers": performers = newValue
            case "runtimes": runtimes = newValue
            case "routers": routers = newValue
            case "gestures": gestures = newValue
            case "stateBytes": stateBytes = newValue
            default: break
            }
        }
    }
}
