import MotionEngine
import Foundation
import MotionPluginAPI
#if canImport(Glibc)
import Glibc
#endif

/// Loads plugin files with dlopen and checks them before any plugin code beyond the entry runs.
///
/// Images are opened `RTLD_NOW` (missing symbols fail here, not mid-animation), `RTLD_LOCAL` and
/// `RTLD_NODELETE`, and never closed: unloading a Swift image corrupts the Swift runtime.
package enum PluginLoader {
    /// The `motion_plugin_entry` of a mapped image (an address: images are never unmapped).
    package struct PluginEntry: Sendable {
        let address: UInt
    }

    /// Opens `file`; the descriptor and every error name `label` (the file as the operator knows it,
    /// when `file` is a private copy).
    package static func load(file: String, label: String? = nil, host: HostServices) -> Result<PluginDescriptor, PluginLoadError> {
        open(file: file, label: label).flatMap { load(entry: $0, label: label ?? file, host: host) }
    }

    /// Maps `file` (dlopen: relocation and the image's own constructors) and finds its entry; no function
    /// of the ABI runs. Takes milliseconds for a Swift plugin, so a hot swap does it away from the engine
    /// thread, which then only calls the entry and `init` (`load(entry:label:host:)`).
    package static func open(file: String, label: String? = nil) -> Result<PluginEntry, PluginLoadError> {
        let label = label ?? file
        _ = dlerror()
        guard let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            return .failure(PluginLoadError(file: label, reason: "dlopen: \(dlerror().map { String(cString: $0) } ?? "unknown error")"))
        }
        guard let symbol = dlsym(handle, MOTION_PLUGIN_ENTRY_SYMBOL) else {
            return .failure(PluginLoadError(file: label, reason: "\(MOTION_PLUGIN_ENTRY_SYMBOL): symbol not found (not a motiond plugin)"))
        }
        return .success(PluginEntry(address: UInt(bitPattern: symbol)))
    }

    /// Calls an opened image's entry, checks the descriptor it returns and calls `init` (engine thread).
    /// With the file's `hash` both calls are marked (`PluginCallMarker`): one that never returns is
    /// recorded by the hang watch and the file quarantined at the next start, as for `advance`
    /// (docs/operations.md#a-plugin-that-hangs), so a plugin that hangs only outside the probe cannot
    /// hold every start.
    package static func load(entry: PluginEntry, label: String, host: HostServices, hash: String? = nil) -> Result<PluginDescriptor, PluginLoadError> {
        func fail(_ reason: String) -> Result<PluginDescriptor, PluginLoadError> {
            .failure(PluginLoadError(file: label, reason: reason))
        }
        let marker = hash.map { PluginCallMarker.label(file: label, hash: $0) }
        let function = unsafeBitCast(UnsafeRawPointer(bitPattern: entry.address)!, to: motion_plugin_entry_fn.self)
        guard let raw = PluginCallMarker.calling(marker, "motion_plugin_entry", { function() }) else {
            return fail("\(MOTION_PLUGIN_ENTRY_SYMBOL): returned NULL")
        }
        let checked = DescriptorCheck.check(UnsafeRawPointer(raw), file: label)
        guard case .success(let descriptor) = checked else { return checked }
        if let initialize = descriptor.pointer.pointee.`init` {
            host.initMessages = []
            let status = PluginCallMarker.calling(marker, "init") { initialize(host.pointer) }
            let said = host.initMessages?.last
            host.initMessages = nil
            if status != MOTION_OK { return fail("init: the plugin reported a failure" + (said.map { ": " + $0 } ?? "")) }
        }
        return .success(descriptor)
    }

    /// The plugin files of `directory` in byte order of their names: every `*.so`, or with
    /// `shippedOnly` only the `lib*Plugin.so` files a package build puts next to its executables.
    package static func pluginFiles(in directory: String, shippedOnly: Bool) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { name in
            guard name.hasSuffix(".so") else { return false }
            return !shippedOnly || (name.hasPrefix("lib") && name.hasSuffix("Plugin.so"))
        }
        .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        .map { directory + "/" + $0 }
    }

    /// The directory holding the running executable, where a package build puts the shipped plugins.
    package static var executableDirectory: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return (path as NSString).deletingLastPathComponent
    }

    /// Loads every plugin of `directories` in order and freezes the registry. Each directory is
    /// (path, shippedOnly). Files that fail are listed in `rejected`, never fatal.
    package static func buildRegistry(directories: [(path: String, shippedOnly: Bool)],
                                     host: HostServices) -> PluginRegistry {
        var builder = PluginRegistryBuilder()
        loadNewFiles(in: directories, into: &builder, host: host)
        return builder.freeze()
    }

    /// Loads the files of `directories` that `builder` has not loaded yet; files rejected before are
    /// tried again (they may have been fixed). Returns the ids of the plugins added.
    @discardableResult
    package static func loadNewFiles(in directories: [(path: String, shippedOnly: Bool)],
                                    into builder: inout PluginRegistryBuilder, host: HostServices) -> [String] {
        let loaded = Set(builder.freeze().plugins.map(\.plugin.file))
        var added: [String] = []
        for directory in directories {
            for file in pluginFiles(in: directory.path, shippedOnly: directory.shippedOnly) where !loaded.contains(file) {
                builder.forgetRejection(of: file)
                switch load(file: file, host: host) {
                case .success(let descriptor):
                    let before = builder.freeze().plugins.count
                    builder.add(descriptor)
                    if builder.freeze().plugins.count > before { added.append(descriptor.id) }
                case .failure(let error): builder.reject(error)
                }
            }
        }
        return added
    }
}
