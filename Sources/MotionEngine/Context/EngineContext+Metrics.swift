/// What the engine holds now, as metric gauges (names and labels per Prometheus' conventions, base
/// units; docs/operations.md#metrics): the host's `DaemonMetrics` renders them with its histograms.
extension EngineContext {
    package struct MetricName: Hashable {
        package var name: String
        package var labels: [(String, String)]

        package static func == (a: Self, b: Self) -> Bool { a.name == b.name && a.labels.elementsEqual(b.labels, by: ==) }
        package func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            for (key, value) in labels { hasher.combine(key); hasher.combine(value) }
        }
    }

    /// Counts since the start (the host's counters follow them): frames sent and updates dropped by
    /// transport, seconds in each plugin's calls.
    package func metricCounters() -> [(MetricName, Double)] {
        var counters: [(MetricName, Double)] = []
        for (transport, frames) in hub.framesSent.sorted(by: { $0.key < $1.key }) {
            counters.append((MetricName(name: "motiond_frames_sent_total", labels: [("transport", transport)]), Double(frames)))
        }
        for (transport, dropped) in hub.updatesDropped.sorted(by: { $0.key < $1.key }) {
            counters.append((MetricName(name: "motiond_updates_dropped_total", labels: [("transport", transport)]), Double(dropped)))
        }
        var byPlugin: [String: UInt64] = [:]
        for (label, nanos) in engine.reports.slowCalls.callNanos {
            let plugin = engine.registry.factories.first { UInt(bitPattern: $0.label) == label }?.pluginID ?? "unknown"
            byPlugin[plugin, default: 0] &+= nanos
        }
        for (plugin, nanos) in byPlugin.sorted(by: { $0.key < $1.key }) {
            counters.append((MetricName(name: "motiond_plugin_call_seconds_total", labels: [("plugin", plugin)]), Double(nanos) / 1e9))
        }
        for (uid, nanos) in ticks.shares.sorted(by: { $0.key < $1.key }) {
            counters.append((MetricName(name: "motiond_uid_tick_seconds_total", labels: [("uid", String(uid))]), Double(nanos) / 1e9))
        }
        return counters
    }

    package func metricGauges() -> [(MetricName, Double)] {
        func gauge(_ name: String, _ value: Int, _ labels: [(String, String)] = []) -> (MetricName, Double) {
            (MetricName(name: name, labels: labels), Double(value))
        }
        var gauges = [
            gauge("motiond_connections", sessions.count),
            gauge("motiond_runtimes", engine.runtimes.count),
            gauge("motiond_performers", engine.performerCount),
            gauge("motiond_animations", engine.activeTokenCount),
            gauge("motiond_plugins_loaded", engine.registry.current.count),
        ]
        var byTransport: [String: Int] = ["json": 0, "shm": 0]
        for subscription in hub.subscriptions { byTransport[subscription.sharedFrames == nil ? "json" : "shm", default: 0] += 1 }
        for (transport, count) in byTransport.sorted(by: { $0.key < $1.key }) {
            gauges.append(gauge("motiond_subscriptions", count, [("transport", transport)]))
        }
        var uids = Set(engine.usage.keys).union(journal.kept.ownerBytes.keys)
        for session in sessions.values { uids.insert(session.uid) }
        for uid in uids.sorted() {
            let labels = [("uid", String(uid))], usage = engine.usage[uid] ?? Engine.Usage()
            gauges.append(gauge("motiond_uid_connections", sessions.values.reduce(0) { $0 + ($1.uid == uid ? 1 : 0) }, labels))
            gauges.append(gauge("motiond_uid_runtimes", usage.runtimes, labels))
            gauges.append(gauge("motiond_uid_performers", usage.performers, labels))
            gauges.append(gauge("motiond_uid_animations", engine.animations(of: uid), labels))
            gauges.append(gauge("motiond_uid_properties", engine.store.liveByOwner[uid] ?? 0, labels))
            gauges.append(gauge("motiond_uid_journal_bytes", journal.kept.ownerBytes[uid] ?? 0, labels))
            gauges.append(gauge("motiond_uid_plan_bytes", engine.usage[uid]?.planBytes ?? 0, labels))
        }
        return gauges
    }
}
