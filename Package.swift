// swift-tools-version: 6.0
import PackageDescription

/// Release builds of the frame path (engine, property store, animation performers, plugin kit, Swift
/// plugins) skip Swift's *dynamic* exclusivity checks, which cost more than the maths on every spring
/// every tick (2.7× per spring; BENCHMARKS.md), and optimise across modules. The compiler's static
/// checks stay, and debug builds — the test suite, the fuzzers — keep the dynamic ones.
let hotPath: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked", "-cross-module-optimization"], .when(configuration: .release)),
]

/// Shipped plugins are dynamic libraries whose product names end in `Plugin`; with no `--plugins`,
/// motiond loads every `lib*Plugin.so` that sits next to its executable.
let package = Package(
    name: "motiond",
    products: [
        .executable(name: "motiond", targets: ["motiond"]),
        .executable(name: "motionctl", targets: ["motionctl"]),
        .library(name: "MotionClient", targets: ["MotionClient"]),
        // libmotion-client (docs/clients.md): C with no Swift, for C, C++, Rust and Go programs; scripts/install
        // installs both with motion_client.h and motion-client.pc.
        .library(name: "motion-client", type: .dynamic, targets: ["MotionClientC"]),
        .library(name: "motion-client-static", type: .static, targets: ["MotionClientC"]),
        // Preloaded to count heap allocations: scripts/bench's allocations per tick, and `motiond
        // --validate`'s check that a plugin's advance allocates nothing.
        .library(name: "motion-malloc-count", type: .dynamic, targets: ["MotionMallocCount"]),
        .library(name: "SpringPlugin", type: .dynamic, targets: ["SpringPlugin"]),
        .library(name: "SetPlugin", type: .dynamic, targets: ["SetPlugin"]),
        .library(name: "TweenPlugin", type: .dynamic, targets: ["TweenPlugin"]),
        .library(name: "DecayPlugin", type: .dynamic, targets: ["DecayPlugin"]),
        .library(name: "InteractionsPlugin", type: .dynamic, targets: ["InteractionsPlugin"]),
        .library(name: "CurvesPlugin", type: .dynamic, targets: ["CurvesPlugin"]),
        // docs/plugins.md's Swift plugin, built as an author would build theirs (not shipped: no "Plugin"
        // at the end of its product name, so motiond does not load it by default).
        .library(name: "WobbleExample", type: .dynamic, targets: ["WobbleExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        // `motionctl inspect`'s web app (docs/inspector.md): HTTP and WebSocket on loopback.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        // The plugin SDK (C ABI, Swift kit, JSON core, schema checker, test harness): a package of its own
        // with no dependencies, so a plugin author's package resolves nothing else.
        .package(path: "PluginSDK"),
    ],
    targets: [
        // The wire envelope and error codes, shared by the daemon and its clients; re-exports the JSON core.
        .target(name: "MotionWire", dependencies: [.product(name: "MotionJSON", package: "PluginSDK")]),
        // Advance's maths (RK4 simulations, Bézier timing, tweens) and the performer the shipped
        // animation plugins share. Pure Swift, linked into each plugin.
        .target(name: "MotionAnimation", dependencies: [.product(name: "MotionPluginKit", package: "PluginSDK"), .product(name: "MotionJSON", package: "PluginSDK"), "MotionKernels", "GrowingMemory", .product(name: "HeapModule", package: "swift-collections")], swiftSettings: hotPath),
        // Arrays that grow in place once large (reserved address space): the lanes' columns and the
        // property store double without copying on the engine thread.
        .target(name: "GrowingMemory", swiftSettings: hotPath),
        // The frame path's inner loops: MotionAnimation's springs and decays, the host's property writes
        // (C: compiled for several instruction sets, the best chosen at load).
        .target(name: "MotionKernels"),
        // The shared-memory frame channel's layout (motion_frames.h, installed for clients) and the
        // daemon's writer of it (docs/clients.md).
        .target(name: "MotionFrames"),
        .target(name: "MotionMallocCount"),
        .target(name: "MotionClientC", dependencies: ["MotionFrames"], path: "clients/c"),
        // Routes as values: both seed URL syntaxes, DeepTransition paths, the diff, Reinstate's stack rule.
        // Pure Swift with no dependencies, so it is tested (and fuzzed) without a daemon.
        .target(name: "MotionRoutes"),
        // Other programs' motion dialects (niri's KDL, Hyprland's lines, CSS, libadwaita) ⇄ theme tokens:
        // `motionctl theme import|export` (docs/themes.md#dialects).
        .target(name: "MotionDialects", dependencies: [.product(name: "MotionJSON", package: "PluginSDK")]),
        // libffi, for timing functions that plugins export as plain C functions.
        .systemLibrary(name: "CFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),
        // The engine: runtimes, performers, the property store, the plugin registry, routers and their
        // transitions, subscriptions and the protocol's dispatch. Pure: no sockets, no dlopen, no threads
        // of its own; whoever owns it calls it from one thread.
        .target(
            name: "MotionEngine",
            dependencies: [
                .product(name: "MotionPluginAPI", package: "PluginSDK"), "MotionWire", "MotionRoutes", "CFFI", "MotionKernels", "MotionFrames", "GrowingMemory",
                .product(name: "MotionSchema", package: "PluginSDK"), .product(name: "MotionHostABI", package: "PluginSDK"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ],
            swiftSettings: hotPath
        ),
        // libc facts Swift cannot reach (the heap in use, for `motiond --validate`).
        .target(name: "CHostSupport"),
        // The daemon around the engine: the socket server, plugin loading (dlopen, the probe, the
        // manager), the engine thread, systemd and the state directory.
        .target(
            name: "MotionHost",
            dependencies: [
                "MotionEngine", .product(name: "MotionPluginAPI", package: "PluginSDK"), "MotionWire", "MotionRoutes", "MotionKernels", "CHostSupport",
                .product(name: "MotionSchema", package: "PluginSDK"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: hotPath
        ),
        .executableTarget(
            name: "motiond",
            dependencies: [
                "MotionHost", "MotionEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "MotionClient",
            dependencies: [
                "MotionWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ]
        ),
        .executableTarget(
            name: "motionctl",
            dependencies: [
                "MotionClient", "MotionWire", "MotionDialects", "MotionInspector",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The inspector (docs/inspector.md): a loopback web app that is a client of the socket for the user
        // who runs it; its page, script and styles are compiled in.
        .target(
            name: "MotionInspector",
            dependencies: [
                "MotionClient", "MotionWire", "MotionDialects",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ]
        ),
        // End-to-end measurements against a live daemon (see BENCHMARKS.md).
        .executableTarget(
            name: "motion-bench",
            dependencies: [
                "MotionClient", "MotionWire", "MotionHost", "MotionEngine", "MotionClientC",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "SpringPlugin", dependencies: ["MotionAnimation", .product(name: "MotionPluginKit", package: "PluginSDK")], path: "Plugins/SpringPlugin",
                swiftSettings: hotPath),
        .target(name: "TweenPlugin", dependencies: ["MotionAnimation", .product(name: "MotionPluginKit", package: "PluginSDK")], path: "Plugins/TweenPlugin",
                swiftSettings: hotPath),
        .target(name: "DecayPlugin", dependencies: ["MotionAnimation", .product(name: "MotionPluginKit", package: "PluginSDK")], path: "Plugins/DecayPlugin",
                swiftSettings: hotPath),
        .target(name: "InteractionsPlugin", dependencies: ["MotionAnimation", .product(name: "MotionPluginKit", package: "PluginSDK"),
                                                           .product(name: "MotionJSON", package: "PluginSDK"),
                                                           .product(name: "MotionPluginAPI", package: "PluginSDK")],
                path: "Plugins/InteractionsPlugin"),
        .target(name: "SetPlugin", dependencies: [.product(name: "MotionPluginAPI", package: "PluginSDK")], path: "Plugins/SetPlugin"),
        .target(name: "CurvesPlugin", dependencies: [.product(name: "MotionPluginAPI", package: "PluginSDK")], path: "Plugins/CurvesPlugin",
                linkerSettings: [.linkedLibrary("m")]),
        .target(name: "WobbleExample", dependencies: [.product(name: "MotionPluginKit", package: "PluginSDK")], path: "examples/WobblePlugin"),
        // Fuzzing: the untrusted-input paths as functions (Fuzz/Targets), and one executable per target:
        // a libFuzzer binary under scripts/fuzz, a corpus replayer otherwise.
        .target(
            name: "MotionFuzzing",
            dependencies: ["MotionHost", "MotionEngine", "MotionRoutes", "MotionAnimation", .product(name: "MotionPluginKit", package: "PluginSDK"), "MotionWire",
                           .product(name: "Logging", package: "swift-log")],
            path: "Fuzz/Targets"),
        .executableTarget(name: "fuzz-route", dependencies: ["MotionFuzzing"], path: "Fuzz/fuzz-route"),
        .executableTarget(name: "fuzz-request", dependencies: ["MotionFuzzing"], path: "Fuzz/fuzz-request"),
        .executableTarget(name: "fuzz-plan", dependencies: ["MotionFuzzing"], path: "Fuzz/fuzz-plan"),
        // Test helpers shared by both test targets (compiling C plugins as a third-party author would).
        .target(name: "MotionTestSupport", path: "Tests/Support"),
        .testTarget(
            name: "MotionHostTests",
            dependencies: ["MotionHost", "MotionEngine", .product(name: "MotionPluginKit", package: "PluginSDK"), "MotionWire", .product(name: "MotionPluginAPI", package: "PluginSDK"), "MotionTestSupport", "MotionAnimation",
                           .product(name: "MotionSchema", package: "PluginSDK"), .product(name: "MotionJSON", package: "PluginSDK"),
                           .product(name: "MotionTesting", package: "PluginSDK"),
                           .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOExtras", package: "swift-nio-extras"),
                           "MotionRoutes", "MotionFuzzing", "MotionFrames", "MotionDialects"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "MotiondTests",
            dependencies: ["MotionClient", "MotionWire", "MotionTestSupport"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
