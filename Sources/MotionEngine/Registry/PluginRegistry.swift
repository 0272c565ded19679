/// The frozen registry the engine works from: plan type → factory, built once by `PluginRegistryBuilder`.
package struct PluginRegistry: Sendable {
    package struct Entry: Sendable {
        package let plugin: PluginDescriptor
        /// 1 for the build loaded first; each hot swap of the same id adds one.
        package let generation: Int
        /// SHA-256 of the file's content when it was loaded (hex), empty for in-process plugins.
        package var hash: String = ""
    }

    /// A plan type claimed by a second plugin; the first one (in load order) keeps it.
    package struct Conflict: Sendable, Equatable {
        package let planType: String
        package let keptPlugin: String
        package let keptFile: String
        package let ignoredPlugin: String
        package let ignoredFile: String
    }

    package let plugins: [Entry]
    package let conflicts: [Conflict]
    package let rejected: [PluginLoadError]
    /// Factories in registration order; a performer's factory index points in here.
    let factories: [RegisteredFactory]
    let factoryIndex: [String: Int]

    package var planTypes: [String] { factoryIndex.keys.sorted() }

    /// The newest generation of each plugin, in load order.
    package var current: [Entry] {
        plugins.filter { entry in !plugins.contains { $0.plugin.id == entry.plugin.id && $0.generation > entry.generation } }
    }

    package func current(id: String) -> Entry? { current.first { $0.plugin.id == id } }

    func factory(forPlanType planType: String) -> Int? { factoryIndex[planType] }
}

struct RegisteredFactory: @unchecked Sendable {
    // @unchecked: `label` is an immutable C string kept for the process lifetime (PluginCallMarker).
    let descriptor: FactoryDescriptor
    let pluginID: String
    var generation = 1
    /// "file\nhash" of the plugin, for the crash marker.
    var label: UnsafePointer<CChar>? = nil
}

/// Collects plugins in a deterministic order and freezes them into a `PluginRegistry`.
///
/// Duplicates never win silently: a plan type already claimed stays with the plugin registered first (the
/// earlier directory, then the file name in byte order) and the later claim is listed as a conflict.
package struct PluginRegistryBuilder {
    private var plugins: [PluginRegistry.Entry] = []
    private var conflicts: [PluginRegistry.Conflict] = []
    private var rejected: [PluginLoadError] = []
    private var factories: [RegisteredFactory] = []
    private var factoryIndex: [String: Int] = [:]

    package init() {}

    /// Continues a frozen registry: what it holds keeps its place (performers refer to factories by
    /// index), and later additions follow the same first-wins rule.
    package init(extending registry: PluginRegistry) {
        plugins = registry.plugins
        conflicts = registry.conflicts
        rejected = registry.rejected
        factories = registry.factories
        factoryIndex = registry.factoryIndex
    }

    /// Generations a plugin may have before a swap needs a restart: each one is an image that stays mapped.
    package static let maximumGenerations = 8

    /// Files this registry has seen, loaded or rejected.
    package var knownFiles: Set<String> { Set(plugins.map(\.plugin.file) + rejected.map(\.file)) }

    /// Forgets an earlier rejection of `file`, before it is tried again.
    package mutating func forgetRejection(of file: String) {
        rejected.removeAll { $0.file == file }
    }

    /// A new build of a loaded plugin (same id) becomes its next generation: the plan types the plugin
    /// held now point at the new build's factories; the old build's factories stay for the performers that
    /// still use them. Returns the new generation, or an error (the registry is then unchanged).
    package mutating func replace(with plugin: PluginDescriptor, hash: String) -> Result<Int, PluginLoadError> {
        let generations = plugins.filter { $0.plugin.id == plugin.id }
        guard let newest = generations.max(by: { $0.generation < $1.generation }) else {
            return .failure(PluginLoadError(file: plugin.file, reason: "id: \"\(plugin.id)\" is not loaded, nothing to replace"))
        }
        guard generations.count < Self.maximumGenerations else {
            return .failure(PluginLoadError(
                file: plugin.file,
                reason: "\(plugin.id) already has \(Self.maximumGenerations) generations loaded; restart required"))
        }
        let generation = newest.generation + 1
        register(PluginRegistry.Entry(plugin: plugin, generation: generation, hash: hash))
        return .success(generation)
    }

    package mutating func add(_ plugin: PluginDescriptor, hash: String = "") {
        if let existing = plugins.first(where: { $0.plugin.id == plugin.id }) {
            rejected.append(
                PluginLoadError(
                    file: plugin.file,
                    reason: "id: \"\(plugin.id)\" is already loaded from \(existing.plugin.file)"))
            return
        }
        register(PluginRegistry.Entry(plugin: plugin, generation: 1, hash: hash))
    }

    /// Adds an entry and claims its plan types: a type held by another plugin stays with it (a
    /// conflict); a type held by an older generation of this plugin moves to this one.
    private mutating func register(_ entry: PluginRegistry.Entry) {
        let plugin = entry.plugin
        plugins.append(entry)
        let label = PluginCallMarker.label(file: plugin.file, hash: entry.hash)
        for factory in plugin.factories {
            // The engine's own composites are not a plugin's to take (its plans never reached it).
            if Composite.Kind(rawValue: factory.planType) != nil {
                conflicts.append(PluginRegistry.Conflict(planType: factory.planType, keptPlugin: "motiond", keptFile: "built in",
                                                         ignoredPlugin: plugin.id, ignoredFile: plugin.file))
                continue
            }
            if let held = factoryIndex[factory.planType], factories[held].pluginID != plugin.id {
                let owner = plugins.first { $0.plugin.id == factories[held].pluginID }!.plugin
                conflicts.append(
                    PluginRegistry.Conflict(
                        planType: factory.planType, keptPlugin: owner.id, keptFile: owner.file,
                        ignoredPlugin: plugin.id, ignoredFile: plugin.file))
                continue
            }
            factoryIndex[factory.planType] = factories.count
            factories.append(RegisteredFactory(descriptor: factory, pluginID: plugin.id, generation: entry.generation, label: label))
        }
    }

    package mutating func reject(_ error: PluginLoadError) {
        rejected.append(error)
    }

    package func freeze() -> PluginRegistry {
        PluginRegistry(
            plugins: plugins, conflicts: conflicts, rejected: rejected, factories: factories,
            factoryIndex: factoryIndex)
    }
}
