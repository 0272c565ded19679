import MotionWire

/// Work too large for one command (SPEC §5: bounded work per tick): a dry run of many times, a timeline
/// replay. It runs in slices of at most `sliceNanos` on the engine thread; between slices the clock
/// ticks and other clients' requests are answered. The requesting connection's later requests wait
/// until it is answered, so its replies keep their order.
protocol SlicedWork: AnyObject {
    /// Works until the monotonic clock passes `deadline` (checked every few steps) or the work is done;
    /// true when done. Runs with events muted: only dry-run runtimes may change here.
    func work(in context: EngineContext, until deadline: UInt64) throws(EngineError) -> Bool
    /// The answer, once done (it may change what clients see: events are not muted here).
    func finish(in context: EngineContext) throws(EngineError) -> JSONValue
    /// Frees what it holds; called once, when finished, failed or abandoned (events muted).
    func end(in context: EngineContext)
}
