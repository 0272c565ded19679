import Foundation

/// Lets only a few daemons start at once. Swift Testing runs every suite in parallel: ~80 motiond
/// starts, each probing its six plugins in child processes, landed together on a two-core CI machine
/// and none listened within 20 s. Starting is the expensive part; running daemons are cheap, so only
/// the start waits here, and its deadline counts from when it is let through.
actor StartupGate {
    static let shared = StartupGate(slots: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(slots: Int) { free = slots }

    func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
