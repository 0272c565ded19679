/// Per-tick timing over the last few seconds, for `status.tick`.
package struct TickStatistics {
    private var work: [UInt64]
    private var lateness: [UInt64]
    private var overran: [Bool]
    private var next = 0
    private(set) var filled = 0
    private(set) var totalTicks: UInt64 = 0
    private(set) var totalOverruns: UInt64 = 0

    init(window: Int) {
        work = Array(repeating: 0, count: window)
        lateness = Array(repeating: 0, count: window)
        overran = Array(repeating: false, count: window)
    }

    /// `workNanos`: time spent in the tick; `latenessNanos`: how late it started; `overrun`: it missed
    /// at least one whole frame interval.
    package mutating func record(workNanos: UInt64, latenessNanos: UInt64, overrun: Bool) {
        work[next] = workNanos
        lateness[next] = latenessNanos
        overran[next] = overrun
        next = (next + 1) % work.count
        filled = min(filled + 1, work.count)
        totalTicks += 1
        if overrun { totalOverruns += 1 }
    }

    /// The work time at `percentile` of the last (up to) 120 ticks, in nanoseconds; 0 before any.
    func recentWorkNanos(percentile: Double) -> UInt64 {
        let recent = min(filled, 120)
        guard recent > 0 else { return 0 }
        var last: [UInt64] = []
        last.reserveCapacity(recent)
        for back in 1...recent { last.append(work[(next - back + work.count) % work.count]) }
        last.sort()
        return last[min(recent - 1, Int((Double(recent) * percentile).rounded(.up)) - 1)]
    }

    struct Summary {
        var ticks: Int
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double
        var lateP99Milliseconds: Double
        var overruns: Int
    }

    var summary: Summary {
        let works = Array(work.prefix(filled)).sorted()
        let lates = Array(lateness.prefix(filled)).sorted()
        return Summary(
            ticks: filled,
            p50Milliseconds: Self.percentile(works, 0.50), p99Milliseconds: Self.percentile(works, 0.99),
            maxMilliseconds: works.last.map { Double($0) / 1e6 } ?? 0,
            lateP99Milliseconds: Self.percentile(lates, 0.99),
            overruns: overran.prefix(filled).filter { $0 }.count)
    }

    private static func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
        return Double(sorted[max(0, index)]) / 1e6
    }
}
