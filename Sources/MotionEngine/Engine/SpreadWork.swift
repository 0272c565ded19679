/// Work the engine carries on between frames rather than at once (docs/architecture.md, "Time is a
/// parameter"), and what one slice of it may spend of the engine thread.
struct SpreadWork {
    /// Destroyed runtimes still being freed (`Engine+Teardown`).
    var teardowns = TeardownQueue()
    /// Swaps whose performers are still moving (`HotSwaps.beginSwap`).
    var swapJobs: [HotSwaps.SwapJob] = []
    /// What a uid's composites may spend starting their next steps in one drain (`drainCompositeEnds`).
    var compositeNanosPerUID = Composites.defaultCompositeNanosPerUID
    /// Work time after which a `runtime.state` page ends (`state(ofRuntime:)`).
    var statePageNanos = Engine.defaultStatePageNanos
}
