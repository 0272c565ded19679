extension Engine {
    /// Advances the animating performers of one target of a lasting runtime by `dt`, leaving every other
    /// target where it is: the journal's replay moves each target on its own clock, from one change to the
    /// next (docs/operations.md#animations-survive-a-restart). Motion is exact for any `dt` (a spring's
    /// closed form, a tween's phase), so one call covers a stretch however long.
    func advance(runtime name: String, target: String, by dt: Double) {
        guard dt > 0, let scope = runtimes[name], let targetScope = scope.targets[target] else { return }
        let active = targetScope.performers.values.filter { $0.isContinuous && !$0.tokens.isEmpty }.sorted { $0.id < $1.id }
        guard !active.isEmpty else { return }
        cycle.phase = .frame
        for performer in active {
            if let instance = performer.instance, let advance = performer.table.pointee.advance {
                calling(performer.label, "advance") { advance(instance, dt) }
            }
        }
        finishFrame()
    }

    /// Whether any performer of `target` in runtime `name` is animating (holds a token and is advanced).
    func isAnimating(runtime name: String, target: String) -> Bool {
        guard let targetScope = runtimes[name]?.targets[target] else { return false }
        return targetScope.performers.values.contains { $0.isContinuous && !$0.tokens.isEmpty }
    }
}
