import Foundation
import MotionTestSupport
import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// Real dlopen of real shared objects: the ones this package builds, and C plugins compiled here.
@Suite("Plugin loader")
struct PluginLoaderTests {
    let host = HostServices(logger: Logger(label: "test"))

    /// The package's build directory: the shipped plugins sit next to the test binary.
    static var buildDirectory: String { PluginLoader.executableDirectory }

    @Test func findsTheShippedPluginsNextToTheExecutable() {
        let files = PluginLoader.pluginFiles(in: Self.buildDirectory, shippedOnly: true).map { ($0 as NSString).lastPathComponent }
        #expect(files.contains("libSpringPlugin.so"))
        #expect(files.contains("libSetPlugin.so"))
        #expect(files.allSatisfy { $0.hasPrefix("lib") && $0.hasSuffix("Plugin.so") })
    }

    @Test func loadsTheSwiftSpringPlugin() throws {
        let plugin = try PluginLoader.load(file: Self.buildDirectory + "/libSpringPlugin.so", host: host).get()
        #expect(plugin.id == "org.motiond.spring")
        #expect(plugin.factories.map(\.planType) == ["Spring"])
        #expect(plugin.factories[0].isContinuous)
        #expect(plugin.buildTag == "swift")
    }

    @Test func loadsACPluginBuiltWithWarningsAsErrors() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let file = try await CCompiler.sharedLibrary(["Plugins/SetPlugin/set_plugin.c"], name: "libset.so", in: directory)
        let plugin = try PluginLoader.load(file: file, host: host).get()
        #expect(plugin.id == "org.motiond.set")
        #expect(plugin.buildTag == "c")
        var builder = PluginRegistryBuilder()
        builder.add(plugin)
        let engine = Engine(registry: builder.freeze(), host: host, vocabulary: .none)
        try engine.addPlan(plan(#"{"type":"Set","property":"opacity","value":[0.5, 2]}"#), to: "card")
        #expect(engine.value(of: "opacity", target: "card") == [0.5, 2])
        #expect(throws: EngineError(.invalidPlan, "value: expected an array of 1 to 4 numbers, found a string")) {
            try engine.addPlan(plan(#"{"type":"Set","property":"opacity","value":"high"}"#), to: "card")
        }
    }

    @Test(arguments: [
        ("bad_magic.c", "magic: expected 0x4E544F4D, found 0xDEADBEEF"),
        ("future_abi.c", "abi_major: plugin is built for ABI 2.0, this host speaks 1.2"),
        ("no_entry.c", "motion_plugin_entry: symbol not found (not a motiond plugin)"),
        ("init_fails.c", "init: the plugin reported a failure: no display: cannot open /dev/dri/card0"),
        ("future_minor.c", "abi_minor: plugin needs ABI 1.3, this host provides 1.2"),
        ("bad_schema.c", "factories[0].plan_schema (Odd): properties.x.minimun: unsupported keyword; did you mean minimum?"),
    ])
    func refusesBrokenPlugins(source: String, reason: String) async throws {
        let directory = try CCompiler.temporaryDirectory()
        let file = try await CCompiler.sharedLibrary(["Tests/MotionHostTests/Fixtures/c/\(source)"], name: "lib\(source).so", in: directory)
        #expect(throws: PluginLoadError(file: file, reason: reason)) { try PluginLoader.load(file: file, host: host).get() }
    }

    @Test func refusesAFileThatIsNotASharedObject() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let file = directory.appendingPathComponent("libgarbage.so").path
        try Data("not an ELF file".utf8).write(to: URL(fileURLWithPath: file))
        let error = try #require(throws: PluginLoadError.self) { try PluginLoader.load(file: file, host: host).get() }
        #expect(error.reason.hasPrefix("dlopen: "))
    }

    @Test func aRegistryKeepsTheGoodPluginsAndListsTheRejectedOnes() async throws {
        let directory = try CCompiler.temporaryDirectory()
        _ = try await CCompiler.sharedLibrary(["Plugins/SetPlugin/set_plugin.c"], name: "libset.so", in: directory)
        _ = try await CCompiler.sharedLibrary(["Tests/MotionHostTests/Fixtures/c/bad_magic.c"], name: "libbad.so", in: directory)
        let registry = PluginLoader.buildRegistry(directories: [(directory.path, false)], host: host)
        #expect(registry.planTypes == ["Set"])
        #expect(registry.rejected.map { ($0.file as NSString).lastPathComponent } == ["libbad.so"])
    }
}
