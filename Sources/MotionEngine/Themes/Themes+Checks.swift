import MotionWire

extension Themes {
    /// Each token of `theme` of a kind the vocabulary has a use for (`PlanVocabulary.tokenUses`: a spring in
    /// a `Spring`, a timing in a `Tween`, for the shipped plugins), performed in that plan in a dry run:
    /// a token no plan could use (a negative stiffness, two spring forms, a timing no plugin knows) is
    /// `theme.invalid` naming it when the theme is set, rather than an error at every plan that names it
    /// and a live retune that silently keeps the old motion. A use whose plan type no loaded plugin
    /// provides checks nothing (its plugin may come later). Nothing a client sees is touched: no trace,
    /// no frame, the dry runtime gone before the answer.
    func checkUses(of theme: Theme) throws(EngineError) {
        let uses = engine.vocabulary.tokenUses
        guard Theme.Kind.allCases.contains(where: { uses[$0.rawValue] != nil && !theme.names($0).isEmpty }) else { return }
        let runtime = "motiond.theme-check"
        try engine.createRuntime(runtime, dryRun: true)
        context.dryRuns.isSampling = true
        defer {
            try? engine.destroyRuntime(runtime)
            context.dryRuns.isSampling = false
            engine.clearFrame()
        }
        for kind in Theme.Kind.allCases {
            guard let use = uses[kind.rawValue] else { continue }
            for name in theme.names(kind) {
                var resolution = TokenResolution(lookup: { $0 == kind && $1 == "token" ? theme[kind, name] : nil }, known: { _ in [] },
                                                 takesKey: { [engine] in engine.planType($0, takes: $1) })
                do throws(EngineError) {
                    let plan = try resolution.resolve(use)
                    guard let type = plan["type"]?.stringValue, engine.registry.factory(forPlanType: type) != nil else { continue }
                    // One target for every token of a kind: each plan takes over from the one before
                    // (a target and a performer per token cost ~160 µs each, 42 ms for an overlay's 256).
                    try engine.addPlan(plan, to: kind.rawValue, in: runtime)
                } catch {
                    throw EngineError(.themeInvalid, "theme.\(kind.rawValue).\(name): \(error.message)")
                }
            }
        }
    }
}
