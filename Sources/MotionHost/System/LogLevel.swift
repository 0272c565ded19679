import Logging
import Synchronization

/// The daemon's log level, shared by every logger so SIGHUP can change it at run time.
package final class LogLevelSetting: Sendable {
    private let raw = Atomic<Int>(0)

    package init(_ level: Logger.Level) {
        set(level)
    }

    package var level: Logger.Level {
        Logger.Level.allCases[raw.load(ordering: .relaxed)]
    }

    package func set(_ level: Logger.Level) {
        raw.store(Logger.Level.allCases.firstIndex(of: level)!, ordering: .relaxed)
    }
}
