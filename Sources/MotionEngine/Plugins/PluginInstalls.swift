import MotionWire

/// Installing plugins on the engine thread (docs/plugins.md, Hot swap): a probed file becomes a new
/// plugin or the next generation of one, performers migrate in slices between ticks, rejections are
/// listed. The daemon maps the images (`MotionHost`'s `PluginManager`); this only registers what it is given.
package final class PluginInstalls: ContextPart {
    package unowned let context: EngineContext
    /// Swaps begun by `install` whose performers are still moving, by plugin file.
    var pendingSwaps: [String: PendingSwap] = [:]

    init(context: EngineContext) {
        self.context = context
    }

    /// Whether `file` is listed as rejected.
    package func isRejected(_ file: String) -> Bool { engine.registry.rejected.contains { $0.file == file } }
}
