import MotionEngine
import Prometheus
import Synchronization

/// The daemon's Prometheus metrics (docs/operations.md#metrics), kept in a swift-prometheus
/// registry (the package that implements swift-metrics' handlers for Prometheus; its registry is used
/// directly so that every metric carries its help text, which `promtool check metrics` asks for): the
/// tick's duration and lateness as histograms and its overruns, recorded by the engine thread as it
/// ticks (`EngineLoop.tickObserver`: a lock and a bucket, no allocation); the rest (connections,
/// subscriptions, per-uid holdings, journal bytes, plugins, quarantines) as gauges read from the
/// engine when the text is asked for (`metrics`, `--metrics-file`).
package final class DaemonMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let tickDuration: DurationHistogram
    let tickLateness: DurationHistogram
    let overruns: Counter
    let ticks: Counter
    /// Plugins quarantined at this start (a crash or a hang in an earlier run).
    let quarantined: Int
    /// Engine time spent on each uid's requests (`motiond_uid_engine_seconds_total`).
    private let work = Mutex<[UInt32?: Counter]>([:])
    /// Each engine counter's value at the last render (the registry's counters only go up: each render
    /// adds what the engine counted since).
    private let counted = Mutex<[EngineContext.MetricName: Double]>([:])
    static let counterHelp: [String: String] = [
        "motiond_frames_sent_total": "Frames sent to subscribers, by transport.",
        "motiond_updates_dropped_total": "Property updates conflated for subscribers that read too slowly, by transport.",
        "motiond_plugin_call_seconds_total": "Time spent in each plugin's calls.",
        "motiond_uid_tick_seconds_total": "Frame tick time shared out among uids by the animations they hold.",
    ]
    /// The gauges set at the last render: one no longer there (a uid gone) is set to 0.
    private let lastGauges = Mutex<[EngineContext.MetricName]>([])

    /// Each gauge's help text (`EngineContext.metricGauges` names them).
    static let help: [String: String] = [
        "motiond_connections": "Client connections open.",
        "motiond_runtimes": "Runtimes, the daemon's own included.",
        "motiond_performers": "Performers (one per runtime, target and plan type).",
        "motiond_animations": "Animations running or waiting for their delay.",
        "motiond_plugins_loaded": "Plugins loaded.",
        "motiond_subscriptions": "Subscriptions, by transport.",
        "motiond_uid_connections": "Connections of a uid.",
        "motiond_uid_runtimes": "Runtimes of a uid.",
        "motiond_uid_performers": "Performers of a uid.",
        "motiond_uid_animations": "Animations of a uid (its quota's measure).",
        "motiond_uid_properties": "Properties of a uid's runtimes.",
        "motiond_uid_journal_bytes": "Bytes of journal kept for a uid's lasting runtimes.",
        "motiond_uid_plan_bytes": "Bytes a uid's running plans are charged (its planBytes quota's measure).",
        "motiond_plugins_quarantined": "Plugins kept out at this start for a crash or a hang in an earlier run.",
    ]

    package init(quarantined: Int = 0) {
        // A 120 Hz frame is 8.3 ms: the buckets resolve the tick within it and show what passes it.
        let buckets: [Duration] = [50, 100, 250, 500, 1000, 2000, 4000, 8333, 16667, 50000].map { .microseconds($0) }
        tickDuration = registry.makeDurationHistogram(name: "motiond_tick_duration_seconds", buckets: buckets,
                                                      help: "Engine work per frame tick.")
        tickLateness = registry.makeDurationHistogram(name: "motiond_tick_lateness_seconds", buckets: buckets,
                                                      help: "How late each tick began after its deadline.")
        overruns = registry.makeCounter(name: "motiond_tick_overruns_total", help: "Ticks that ended past the next one's deadline.")
        ticks = registry.makeCounter(name: "motiond_ticks_total", help: "Frame ticks.")
        self.quarantined = quarantined
    }

    /// On the engine thread, after each command of a uid's connection.
    package func recordWork(uid: UInt32?, nanos: UInt64) {
        work.withLock { counters in
            let counter = counters[uid] ?? {
                let made = registry.makeCounter(name: "motiond_uid_engine_seconds_total", labels: [("uid", uid.map(String.init) ?? "unknown")],
                                                help: "Engine time spent on a uid's requests.")
                counters[uid] = made
                return made
            }()
            counter.increment(by: Double(nanos) / 1e9)
        }
    }

    /// On the engine thread, after each tick.
    package func recordTick(work: UInt64, lateness: UInt64, overrun: Bool) {
        tickDuration.record(.nanoseconds(Int64(clamping: work)))
        tickLateness.record(.nanoseconds(Int64(clamping: lateness)))
        ticks.increment()
        if overrun { overruns.increment() }
    }

    /// The text (Prometheus exposition format), on the engine thread: gauges set from what the engine
    /// holds now, then every metric; `uid`: that uid's series only (a client's view).
    package func text(_ context: EngineContext, uid: UInt32? = nil) -> String {
        let counters = context.metricCounters()
        counted.withLock { last in
            for (name, value) in counters where value > last[name] ?? 0 {
                registry.makeCounter(name: name.name, labels: name.labels, help: Self.counterHelp[name.name] ?? "")
                    .increment(by: value - (last[name] ?? 0))
                last[name] = value
            }
        }
        let gauges = context.metricGauges()
        for (name, value) in gauges {
            registry.makeGauge(name: name.name, labels: name.labels, help: Self.help[name.name] ?? "").set(value)
        }
        let now = Set(gauges.map(\.0))
        lastGauges.withLock { last in
            for name in last where !now.contains(name) {
                registry.makeGauge(name: name.name, labels: name.labels, help: Self.help[name.name] ?? "").set(0.0)
            }
            last = gauges.map(\.0)
        }
        registry.makeGauge(name: "motiond_plugins_quarantined", help: Self.help["motiond_plugins_quarantined"]!).set(Double(quarantined))
        let text = registry.emitToString()
        guard let uid else { return text }
        // A client sees its own uid's series and the daemon's own health (its ticks, its plugins), nothing
        // that counts what other uids hold or do, not even as totals (docs/protocol.md#ownership-and-quotas).
        let own = "uid=\"\(uid)\""
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            let family = line.hasPrefix("# ") ? line.split(separator: " ").dropFirst(2).first.map(String.init) ?? ""
                : String(line.prefix { $0 != "{" && $0 != " " })
            return !Self.everyUids.contains(family) && (!line.contains("uid=\"") || line.contains(own))
        }.joined(separator: "\n")
    }

    /// Series that sum every uid's holdings or work: an admin's only.
    static let everyUids: Set<String> = [
        "motiond_connections", "motiond_runtimes", "motiond_performers", "motiond_animations", "motiond_subscriptions",
        "motiond_frames_sent_total", "motiond_updates_dropped_total", "motiond_plugin_call_seconds_total",
    ]
}
