import MotionWire

/// Work too large for one command (docs/protocol.md: bounded work per tick): a dry run of many times, a timeline
/// replay. It runs in slices of at most `sliceNanos` on the engine thread; between slices the clock
/// ticks and other clients' requests are answered. The requesting connection's later requests wait
/// until it is answered, so its replies keep their order.
protocol SlicedWork: AnyObject {
    /// Works until the monotonic clock passes `deadline` (checked every few steps) or the work is done;
    /// true when done. Runs with events muted (unless `isLive`): only dry-run runtimes may change here.
    func work(in context: EngineContext, until deadline: UInt64) throws(EngineError) -> Bool
    /// The answer, once done (it may change what clients see: events are not muted here): a result, or
    /// a result already encoded as JSON text in slices (a large one is not written in one go).
    func finish(in context: EngineContext) throws(EngineError) -> SlicedAnswer
    /// Frees what it holds; called once, when finished, failed or abandoned (events muted).
    func end(in context: EngineContext)
    /// A change to live runtimes (a staggered `plan.add`), not a dry run: its slices are not muted and
    /// change what clients see.
    var isLive: Bool { get }
}

extension SlicedWork {
    var isLive: Bool { false }
}

enum SlicedAnswer {
    case result(JSONValue)
    /// The result object's JSON text.
    case encoded([UInt8])

    /// The reply line to request `id`.
    func line(id: JSONValue) -> [UInt8] {
        switch self {
        case .result(let result): return WireMessage.line(WireMessage.result(id: id, result))
        case .encoded(let result):
            var line = Array(#"{"id":"#.utf8)
            JSONWriter.write(id, into: &line)
            line += #","result":"#.utf8
            line += result
            line += "}\n".utf8
            return line
        }
    }
}
