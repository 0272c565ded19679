/// Dry runs (`plan.sample`, a timeline's replay): worked in a private runtime, in slices of about a
/// millisecond between ticks (docs/protocol.md: bounded work per tick), their events nobody's business.
package final class DryRuns: ContextPart {
    unowned let context: EngineContext
    /// True while a dry run works in its private runtime: its trace events are dropped.
    var isSampling = false
    /// Numbers dry-run runtimes (several may be worked in slices at once).
    private var count = 0

    init(context: EngineContext) {
        self.context = context
    }

    /// A fresh runtime name for a dry run: `prefix` and a number no other dry run has.
    func nextRuntime(_ prefix: String) -> String {
        count += 1
        return prefix + ".\(count)"
    }
}
