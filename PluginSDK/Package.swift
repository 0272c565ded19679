// swift-tools-version: 6.0
import PackageDescription

/// What a motiond plugin author needs, and nothing else: the C ABI, the Swift kit, the JSON core the kit
/// decodes plans with, the plan-schema checker the daemon uses, and an in-process harness to unit-test a
/// plugin without a daemon or a socket. No package dependencies: an out-of-tree plugin that depends on
/// this package resolves nothing else.
let package = Package(
    name: "PluginSDK",
    products: [
        .library(name: "MotionPluginAPI", targets: ["MotionPluginAPI"]),
        .library(name: "MotionPluginKit", targets: ["MotionPluginKit"]),
        .library(name: "MotionTesting", targets: ["MotionTesting"]),
        .library(name: "MotionJSON", targets: ["MotionJSON"]),
        .library(name: "MotionSchema", targets: ["MotionSchema"]),
        .library(name: "MotionHostABI", targets: ["MotionHostABI"]),
    ],
    targets: [
        // The C ABI: the only contract between motiond and its plugins (motion_plugin.h, motion/ext/*.h).
        .target(name: "MotionPluginAPI"),
        // JSON values, a parser and a writer: the one JSON core of motiond, its clients and its plugins.
        .target(name: "MotionJSON"),
        // The JSON Schema subset plans are checked against (by the daemon, and by MotionTesting).
        .target(name: "MotionSchema", dependencies: ["MotionJSON"]),
        // What every host of plugins does alike (motiond and MotionTesting): read a descriptor's factories
        // whatever minor version built them, and serve "motion.plan/1".
        .target(name: "MotionHostABI", dependencies: ["MotionPluginAPI", "MotionJSON", "MotionSchema"]),
        // Swift plugin authors conform to `Performer` and write one entry line.
        .target(
            name: "MotionPluginKit", dependencies: ["MotionPluginAPI", "MotionJSON"],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        // An in-process host for a plugin's unit tests: add plans, advance time, read values and trace.
        .target(name: "MotionTesting", dependencies: ["MotionPluginAPI", "MotionPluginKit", "MotionJSON", "MotionSchema", "MotionHostABI"]),
    ],
    swiftLanguageModes: [.v6]
)
