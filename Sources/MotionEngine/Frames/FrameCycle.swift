import MotionPluginAPI

/// The frame clock's side of the engine (docs/architecture.md): the continuous performers advanced each
/// tick, grouped by factory; what a frame defers until it is over (a plugin may start, stop or claim
/// while the engine loops over the groups, which must not change under it); and the engine's own time.
struct FrameCycle {
    enum Phase { case control, frame }

    var phase = Phase.control
    /// How deep plans emitted from inside plugin calls are nested (`Engine.maximumEmitDepth`).
    var emitDepth = 0
    /// Seconds advanced so far (the sum of every tick's dt).
    var time = 0.0
    /// Continuous performers holding a token, advanced every tick, grouped by factory (indexed like
    /// `registry.factories`) so that a factory with "motion.batch/1" is advanced with one call.
    var advanceGroups: [AdvanceGroup] = []
    var advancingCount = 0
    /// Runtimes at a speed of their own (`runtime.speed`), advanced apart from the groups.
    var slowedRuntimes: [RuntimeScope] = []
    /// Performers that took their first token during a frame: advanced from the next tick on.
    var startsAfterFrame: [PerformerRecord] = []
    /// Performers whose last token went during a frame: stopped when it is over.
    var stopsAfterFrame: [PerformerRecord] = []
    /// Claims made during a frame ("motion.claim/1"), carried out when it is over.
    var claimsAfterFrame: [(property: UInt32, performer: UInt64)] = []

    struct AdvanceGroup {
        let factory: UnsafePointer<motion_factory>
        let label: UnsafePointer<CChar>?
        /// Nil only for factories that are not continuous, whose performers never join a group.
        let advance: (@convention(c) (UnsafeMutableRawPointer?, Double) -> Void)?
        let batch: (@convention(c) (UnsafePointer<motion_factory>?, UnsafePointer<UnsafeMutableRawPointer?>?, Int, Double) -> Void)?
        /// "motion.kept/1": the factory's batches may keep values that no one reads.
        let kept: UnsafePointer<motion_kept>?
        /// Parallel arrays: the tick loop reads only `instances`, free of reference counting.
        var instances: ContiguousArray<UnsafeMutableRawPointer?> = []
        var records: [PerformerRecord] = []
    }
}
