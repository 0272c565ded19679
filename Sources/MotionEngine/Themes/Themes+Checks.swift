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

    /// The `@name` references inside each motion token of `theme` (a motion is a partial plan that may
    /// name springs, timings and durations): each must be a token of `theme`, or for a uid's overlay of
    /// the system theme beneath it. A reference to nothing is `theme.invalid` naming the motion, as docs/themes.md
    /// says, not an error at every plan that names the motion. A motion's plan type is not checked: its
    /// plugin may come later.
    func checkReferences(of theme: Theme, overlaying: Bool) throws(EngineError) {
        for name in theme.names(.motions) {
            let engine = self.engine
            var resolution = TokenResolution(
                lookup: { [unowned self] kind, token in theme[kind, token] ?? (overlaying ? self.token(kind, token, for: nil)?.value : nil) },
                known: { [unowned self] kind in Array(Set(theme.names(kind) + (overlaying ? system.names(kind) : []))) },
                takesKey: { type, key in engine.planType(type, takes: key) })
            do throws(EngineError) {
                _ = try resolution.resolve(["motion": .string("@" + name)])
            } catch {
                throw EngineError(.themeInvalid, "theme.motions.\(name): \(error.message)")
            }
        }
    }

    /// `body`, whose `plan.invalid` for a plan that used tokens (`used`: `kind.name`) says which filled it in:
    /// its keys may be ones the client never wrote (a `@spring` token's form beside the plan's `duration`).
    @discardableResult
    static func namingTokens<Value>(_ used: Set<String>, _ body: () throws(EngineError) -> Value) throws(EngineError) -> Value {
        do throws(EngineError) {
            return try body()
        } catch {
            guard !used.isEmpty, error.code == .invalidPlan else { throw error }
            let names = used.sorted().map { "@" + ($0.split(separator: ".", maxSplits: 1).last.map(String.init) ?? $0) }
            throw EngineError(error.code, "\(error.message) (the plan as filled in from \(names.joined(separator: ", ")))")
        }
    }
}
