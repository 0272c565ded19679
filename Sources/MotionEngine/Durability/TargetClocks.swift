/// The journal's replay: for each target of each runtime, the time its motion has been replayed to
/// (`RuntimeJournal.restoreRuntimes`). A target is moved only by its own changes and, at the end, to now.
struct TargetClocks {
    private var times: [String: [String: Double]] = [:]

    func time(of target: String, in runtime: String) -> Double? { times[runtime]?[target] }

    mutating func set(_ target: String, in runtime: String, to time: Double) {
        times[runtime, default: [:]][target] = time
    }

    /// A destroyed runtime's targets are gone (one created again under its name starts afresh).
    mutating func forget(_ runtime: String) { times[runtime] = nil }

    /// Every target replayed, by runtime, in a stable order.
    var all: [(runtime: String, target: String)] {
        times.keys.sorted().flatMap { runtime in times[runtime]!.keys.sorted().map { (runtime, $0) } }
    }
}
