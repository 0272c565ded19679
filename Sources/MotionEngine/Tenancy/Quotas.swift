/// What one uid may hold at once (docs/protocol.md#ownership-and-quotas), from the config file's `quotas`. Past one, the request that
/// would go beyond it is refused with `quota.exceeded` naming it; nothing else is disturbed.
package struct Quotas: Sendable, Equatable {
    package var performers = 100_000
    /// Animations running or waiting for their delay (each holds an is-active token), over all its
    /// runtimes: what a tick steps for it. Performers alone did not bound it (one performer on one
    /// target animated 200,000 properties).
    package var animations = 250_000
    package var runtimes = 256
    package var routers = 64
    package var gestures = 64
    /// Bytes of router state (configurations and URLs, as saved).
    package var stateBytes = 16 << 20
    /// Bytes of journal lines kept for its lasting runtimes (the newest changes of each; past it the
    /// oldest of its largest runtime are dropped, as past 1,000 records a runtime: a restart then replays
    /// from the newest). Not refused: a bound on what the journal, and a restart's replay, cost.
    package var journalBytes = 16 << 20
    /// Target names its subscriptions filter on, together (each subscription ≤ 4,096): a filter's names
    /// are interned and indexed, ~0.5 KB each (64 subscriptions × 4,096 names of 250 bytes on 40
    /// connections took 4.5 GB, and their teardown froze the frames for seconds).
    package var filterTargets = 65_536
    /// Properties of its runtimes, live together (~450 bytes each): a `Set` of a new property ends at
    /// once, so neither performers nor animations bounded them (150,000 in 8 s, +69 MB, and counting).
    package var properties = 500_000
    /// Slots of its shared-memory subscriptions, live together (each up to 2,097,152; 262,144 by
    /// default): a region's pages are the daemon's memory (~100 bytes a slot written), and 64
    /// connections × 64 subscriptions of 2,097,152 slots were bounded by nothing but the machine.
    package var shmSlots = 4_194_304
    /// Subscriptions of its connections, together (each connection ≤ `maxSubscriptions`): 1,024
    /// connections × 64 subscriptions of one uid cost every frame a look at 65,536 filters.
    package var subscriptions = 1_024
    /// Shared-memory regions of its subscriptions, together: each is a memfd and a mapping of the
    /// daemon's, and 65,536 regions of one uid took the daemon to `vm.max_map_count`, where its next
    /// allocation crashed it.
    package var shmRegions = 64
    /// Bytes of unfinished request lines its connections hold together (a line is read whole before it
    /// is parsed): 1,024 connections each holding most of a 1 MiB line, a byte every 5 s, held 1.1 GB.
    /// Past it the connection whose line grew is refused and closed. Sixteen lines of the longest kind.
    package var inputBytes = 16 << 20
    /// Bytes written to its connections and not yet taken by their readers, together: 1,024 stopped
    /// readers of 16 subscriptions each held 1.0–1.67 GB. Past it its connections that are behind get no
    /// frames or trace events (as one past its own high-water mark) until they catch up, and are cut
    /// off after the same 10 s. Every subscriber of a uid may be 1 MiB of frames behind 64 times over.
    package var outputBytes = 64 << 20
    /// Tokens of its theme overlay (`theme.set {scope: "user"}`, docs/themes.md): kept in the state
    /// directory and looked up for every plan of its runtimes.
    package var themeTokens = 256
    /// Percent of every frame interval the engine thread may spend on its requests and the work they
    /// start (dry-run slices, journal writes), measured in time, over all its connections: past it they
    /// wait for the next interval's share (not refused). A flood no longer keeps the realtime engine
    /// thread from ever blocking (RLIMIT_RTTIME took its priority away) nor a core from the threads
    /// that write frames. All uids together: `EngineBudget.allUIDsPercent`.
    package var enginePercent = 50
    /// Bytes its running plans hold in the daemon beyond a small plan's (`PlanCharge`): a `Keyframes` of
    /// 1,000 values costs ~170 KB in its plugin and the engine, measured, for 9 KB of JSON, and 10,000 of
    /// them took 3 GB that the `animations` quota (250,000) would have let grow to 40 GB.
    package var planBytes = 256 << 20

    package init() {}

    /// The config file's names, in the order `status` lists them.
    package static let names = ["performers", "animations", "runtimes", "routers", "gestures", "stateBytes", "journalBytes", "filterTargets", "properties", "shmSlots",
                                "subscriptions", "shmRegions", "inputBytes", "outputBytes", "themeTokens", "enginePercent", "planBytes"]

    package subscript(name: String) -> Int? {
        get {
            switch name {
            case "performers": performers
            case "animations": animations
            case "runtimes": runtimes
            case "routers": routers
            case "gestures": gestures
            case "stateBytes": stateBytes
            case "journalBytes": journalBytes
            case "filterTargets": filterTargets
            case "properties": properties
            case "shmSlots": shmSlots
            case "subscriptions": subscriptions
            case "shmRegions": shmRegions
            case "inputBytes": inputBytes
            case "outputBytes": outputBytes
            case "themeTokens": themeTokens
            case "enginePercent": enginePercent
            case "planBytes": planBytes
            default: nil
            }
        }
        set {
            guard let newValue else { return }
            switch name {
            case "performers": performers = newValue
            case "animations": animations = newValue
            case "runtimes": runtimes = newValue
            case "routers": routers = newValue
            case "gestures": gestures = newValue
            case "stateBytes": stateBytes = newValue
            case "journalBytes": journalBytes = newValue
            case "filterTargets": filterTargets = newValue
            case "properties": properties = newValue
            case "shmSlots": shmSlots = newValue
            case "subscriptions": subscriptions = newValue
            case "shmRegions": shmRegions = newValue
            case "inputBytes": inputBytes = newValue
            case "outputBytes": outputBytes = newValue
            case "themeTokens": themeTokens = newValue
            case "enginePercent": enginePercent = newValue
            case "planBytes": planBytes = newValue
            default: break
            }
        }
    }
}
