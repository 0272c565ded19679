import MotionWire

extension Engine {
    /// A performer takes an is-active token; the runtime turns active when its first token is taken.
    func generateToken(for performerID: UInt64) -> UInt64 {
        guard let performer = performer(calling: performerID), performer.instance != nil else { return 0 }
        let token = ledger.nextToken
        ledger.nextToken += 1
        performer.tokens.insert(token)
        performer.runtime.activeTokens += 1
        if performer.isContinuous { startAdvancing(performer) }
        if performer.isShadow { return token }
        trace(TraceEvent(kind: "token.activated", runtime: performer.runtime.name, target: performer.target.name,
                         fields: ["performer": .number(Double(performer.id)), "token": .number(Double(token))]))
        if performer.runtime.activeTokens == 1 {
            trace(TraceEvent(kind: "runtime.active", runtime: performer.runtime.name))
        }
        return token
    }

    /// Releases a token; the runtime turns idle when its last token is released. A token released twice
    /// (or never taken) is the plugin's error, reported in the trace and otherwise ignored.
    func terminateToken(_ token: UInt64, for performerID: UInt64) {
        guard let performer = performer(calling: performerID) else { return }
        guard performer.tokens.remove(token) != nil else {
            trace(TraceEvent(kind: "plugin.error", runtime: performer.runtime.name, target: performer.target.name,
                             fields: ["performer": .number(Double(performer.id)), "plugin": .string(performer.pluginID),
                                      "message": .string("token \(token) terminated but not held (terminated twice?)")]))
            return
        }
        performer.runtime.activeTokens -= 1
        if performer.isShadow {
            if performer.tokens.isEmpty { stopAdvancing(performer) }
            return
        }
        trace(TraceEvent(kind: "token.terminated", runtime: performer.runtime.name, target: performer.target.name,
                         fields: ["performer": .number(Double(performer.id)), "token": .number(Double(token))]))
        if performer.tokens.isEmpty {
            stopAdvancing(performer)
            releaseCharges(of: performer)
            if !composition.waits.isEmpty { composites.leafPerformerIdle(performer) }
        }
        if performer.runtime.activeTokens == 0 {
            trace(TraceEvent(kind: "runtime.idle", runtime: performer.runtime.name))
        }
    }
}
