import Foundation
import MotionTestSupport
import Testing

/// `motiond --validate FILE…`: the plugin conformance suite, run as a plugin author would.
@Suite("motiond --validate")
struct ValidateTests {
    static func validate(_ files: [String], in directory: URL? = nil) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.currentDirectoryURL = directory
        process.executableURL = DaemonProcess.buildDirectory.appendingPathComponent("motiond")
        process.arguments = ["--validate"] + files
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        // Read on a thread of its own: a validation takes seconds on a loaded machine, and a blocked
        // cooperative thread held up other tests' clients past the daemon's 5 s hello deadline.
        let reader = output.fileHandleForReading
        let text = try await onOwnThread { reader.readDataToEndOfFile() }
        let status = await process.exitStatus()
        return (status, String(decoding: text, as: UTF8.self))
    }

    @Test func everyShippedPluginPasses() async throws {
        let shipped = ["Spring", "Tween", "Decay", "Set", "Curves", "Interactions"].map {
            DaemonProcess.buildDirectory.appendingPathComponent("lib\($0)Plugin.so").path
        }
        let (status, output) = try await Self.validate(shipped)
        #expect(status == 0, "\(output)")
        #expect(output.components(separatedBy: "result: PASS").count - 1 == shipped.count, "\(output)")
        #expect(output.contains("WARN  Spring: accepts a full valid plan: refused every declared key at once"), "the spring's forms exclude each other")
        #expect(!output.contains("FAIL"))
        for check in ["Spring: unknown keys are refused", "Spring: migration round trip", "Tween: yields a claimed property",
                      "Set: accepts a minimal valid plan", "Spring: values it keeps",
                      "Decay: values it keeps", "Draggable: unknown keys are refused", "Tossable: accepts a minimal valid plan",
                      "Spring: plans its schema refuses are refused", "Tween: plans its schema refuses are refused"] {
            #expect(output.contains("PASS  " + check), "\(check)\n\(output)")
        }
        // Passed, or warned of allocations (a debug build of a Swift plugin allocates; its release does not).
        #expect(output.contains("PASS  Decay: advance: settled after") || output.contains("WARN  Decay: advance: settled after"), "\(output)")
    }

    /// An advance that allocates is a warning naming the count (libmotion-malloc-count.so is preloaded into
    /// the validator's child); a performer that keeps its token when its value no longer changes fails; a
    /// file named without a directory is the one in the current directory, not one on the linker's path.
    @Test func allocationsAndTokensHeldAtRestAreNamed() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let source = ["Tests/MotiondTests/Fixtures/careless_advance.c"]
        _ = try await CCompiler.sharedLibrary(source, name: "libcareful.so", in: directory)
        let (passed, clean) = try await Self.validate(["libcareful.so"], in: directory)
        #expect(passed == 0, "\(clean)")
        #expect(clean.contains("PASS  Careless: advance: settled after 30 ticks (0.25 s), values finite, no allocation in 26 advances"), "\(clean)")
        #expect(clean.contains("PASS  Careless: plans its schema refuses are refused: 3 refused with plan.invalid naming the field: 1 a required key left out, 1 a wrong type, 1 not in an enum"), "\(clean)")

        _ = try await CCompiler.sharedLibrary(source, name: "libmalloc.so", in: directory, defines: ["ALLOCATE=1"])
        let (warnedStatus, warned) = try await Self.validate(["libmalloc.so"], in: directory)
        #expect(warnedStatus == 0, "\(warned)")
        #expect(warned.contains("WARN  Careless: advance: settled after 30 ticks; allocated on 26 of 26 advances (26 allocations)"), "\(warned)")

        _ = try await CCompiler.sharedLibrary(source, name: "libhold.so", in: directory, defines: ["HOLD=1"])
        let (failed, held) = try await Self.validate(["libhold.so"], in: directory)
        #expect(failed == 1, "\(held)")
        #expect(held.contains("FAIL  Careless: advance: holds its token at rest: still active after 60 s with its value unchanged"), "\(held)")
    }

    @Test func aPluginThatCrashesFailsNamingTheCheck() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/crash_in_advance.c"], name: "libcrashy.so", in: directory)
        let (status, output) = try await Self.validate([file])
        #expect(status == 1)
        #expect(output.contains("PASS  probe: loads in a child process"), "\(output)")
        #expect(output.contains("FAIL  Crashy: advance: crashed motiond's validator (signal 11, Segmentation fault)"), "\(output)")
        #expect(output.contains("result: FAIL"))
    }

    /// An advance that takes longer than a frame interval fails (every client's frames would wait for it);
    /// one of a millisecond is a warning saying how many such performers fill a frame.
    @Test func aPluginWhoseAdvanceStallsTheFramesFails() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let stalling = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/slow_advance.c"], name: "libstall.so", in: directory,
                                                         defines: ["MINIMUM_MS=20"])
        let (status, output) = try await Self.validate([stalling])
        #expect(status == 1, "\(output)")
        #expect(output.contains("FAIL  Slow: advance: one advance of one performer took 2"), "\(output)")
        #expect(output.contains("more than a frame interval (8.33 ms at 120 Hz)"), "\(output)")
        let slow = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/slow_advance.c"], name: "libslow.so", in: directory)
        let (passed, warned) = try await Self.validate([slow])
        #expect(passed == 0, "\(warned)")
        // 1 ms of CPU, under a frame: a warning (its figure is the wall clock's: more on a busy machine).
        #expect(warned.contains("WARN  Slow: advance: an advance of one performer takes "), "\(warned)")
    }

    @Test func aPluginBuiltWithoutASchemaPassesWithAWarning() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let file = try await CCompiler.sharedLibrary(["Tests/MotionHostTests/Fixtures/c/abi11_pair.c"], name: "libold.so", in: directory,
                                                     includes: ["Tests/MotionHostTests/Fixtures/abi-1.1"])
        let (status, output) = try await Self.validate([file])
        #expect(status == 0, "\(output)")
        #expect(output.contains("WARN  First: schema: no plan_schema"), "\(output)")
    }

    /// A C plugin that keeps values no one reads ("motion.kept/1", written from the header alone) passes;
    /// the same plugin whose write_kept forgets them fails, naming what it gave and what it writes.
    @Test func aPluginThatKeepsValuesIsHeldToWhatItWrites() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let good = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/kept_ramp.c"], name: "libkept.so", in: directory)
        let (status, output) = try await Self.validate([good])
        #expect(status == 0, "\(output)")
        #expect(output.contains("PASS  KeptRamp: values it keeps: asked for what it kept, all of it or one property, it gave what it writes"), "\(output)")
        let forgetful = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/kept_ramp.c"], name: "libforgets.so", in: directory,
                                                          defines: ["KEPT_FORGETS"])
        let (failed, report) = try await Self.validate([forgetful])
        #expect(failed == 1, "\(report)")
        #expect(report.contains("FAIL  KeptRamp: values it keeps: after 7 ticks, asked for what it kept it gave value"), "\(report)")
    }

    @Test func aFileThatIsNotAPluginFails() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let file = directory.appendingPathComponent("libnothing.so").path
        try Data("not an ELF file".utf8).write(to: URL(fileURLWithPath: file))
        let (status, output) = try await Self.validate([file])
        #expect(status == 1)
        #expect(output.contains("FAIL  probe: dlopen:"), "\(output)")
    }

    /// A plugin the daemon would refuse (world-writable) fails here too, naming why (issue #43: it passed
    /// `--validate`, then the daemon refused it).
    @Test func aPluginTheDaemonWouldRefuseFails() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let file = directory.appendingPathComponent("libSetPlugin.so")
        try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent("libSetPlugin.so"), to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file.path)
        let (status, output) = try await Self.validate([file.path])
        #expect(status == 1)
        #expect(output.contains("FAIL  file: motiond refuses to load it: the file is writable by every user (mode 0666); chmod o-w"), "\(output)")
    }
}
