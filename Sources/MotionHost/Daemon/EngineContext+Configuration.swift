import Logging
import MotionEngine

extension EngineContext {
    /// An engine context set up as the daemon's configuration says.
    package convenience init(engine: Engine, configuration: DaemonConfiguration, logger: Logger) {
        self.init(engine: engine, settings: configuration.engineSettings, logger: logger)
    }
}
