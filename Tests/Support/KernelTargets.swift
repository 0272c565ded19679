import Foundation

/// The x86-64 levels the kernels are compiled for (`target_clones` in Sources/MotionKernels) that this CPU
/// runs, for tests that build each target's loop alone and compare it with this process's own.
public enum KernelTargets {
    /// `-march` names, each with the /proc/cpuinfo flags it needs.
    static let levels: [(march: String, needs: [String])] = [
        ("x86-64", []),
        ("x86-64-v2", ["sse4_1", "sse4_2", "ssse3", "popcnt", "cx16"]),
        ("x86-64-v3", ["avx2", "fma", "bmi2", "movbe", "f16c"]),
        ("x86-64-v4", ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]),
    ]

    /// The levels whose flags this CPU has, lowest first.
    public static func runnable() throws -> [String] {
        let flags = Set((try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))
            .split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        return levels.filter { $0.needs.allSatisfy(flags.contains) }.map(\.march)
    }

    /// The clang on PATH (the toolchain's, as the package builds C with), else `cc`.
    public static var compiler: String {
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .map { "\($0)/clang" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "cc"
    }
}
