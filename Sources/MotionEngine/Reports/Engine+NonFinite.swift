import MotionWire

/// A value that is not finite (NaN, ±infinity) written by a plugin is its bug: frames carry it as `null`,
/// which a client may not expect. The engine says which performer wrote it (a `plugin.error` trace event
/// and a warning), once per performer; the value is written all the same.
extension Engine {
    func reportNonFinite(_ handle: UInt32) {
        // A write to a destroyed runtime's property was dropped: nothing to report, and its name may be
        // another runtime's by now.
        guard store.isLive(handle) else { return }
        // The property's animator if it claimed the property, else the plugin being called now.
        let performer = Int(handle) < animators.count ? animators[Int(handle)] : nil
        let label = PluginCallMarker.address.assumingMemoryBound(to: UInt.self)[0]
        let key = performer.map { $0.id } ?? (1 << 63 | UInt64(label))
        guard performer != nil || label != 0, reports.reportedNonFinite.insert(key).inserted else { return }
        if reports.reportedNonFinite.count > 10_000 { reports.reportedNonFinite = [key] }
        let plugin = performer?.pluginID ?? registry.factories.first { UInt(bitPattern: $0.label) == label }?.pluginID ?? "?"
        let name = store.keys[Int(handle)]
        let message = "wrote a value that is not finite (NaN or infinite) to \(name?.property ?? "?"); frames show it as null"
        // The log hears of it at most once a minute per plugin, with how many it did not hear of: a uid's
        // plans that each make one (a Set of 1.7e308 before its bound) wrote 11.6 MB of log in 11 s.
        let now = WorkClock.now()
        var logged = reports.nonFiniteLogged[plugin] ?? (at: 0, unsaid: 0)
        if logged.at == 0 || now &- logged.at >= 60_000_000_000 {
            host.logger.warning("a plugin wrote a value that is not finite", metadata: [
                "plugin": "\(plugin)", "target": "\(name?.target ?? "?")", "property": "\(name?.property ?? "?")",
                "uid": "\(name.flatMap { OwnedName.split($0.runtime).owner }.map { "\($0)" } ?? "daemon")",
                "unsaidSinceLast": "\(logged.unsaid)"])
            logged = (now, 0)
        } else {
            logged.unsaid += 1
        }
        reports.nonFiniteLogged[plugin] = logged
        var fields: [String: JSONValue] = ["plugin": .string(plugin), "message": .string(message)]
        if let performer { fields["performer"] = .number(Double(performer.id)) }
        trace(TraceEvent(kind: "plugin.error", runtime: name?.runtime, target: name?.target, fields: fields))
    }
}
