import Foundation
@testable import MotionEngine
import MotionKernels
import MotionTestSupport
import MotionWire
import Testing

/// The frame loop in C (`motion_frame_write_updates`) against the encoder's own `appendUpdate`, the
/// reference: byte for byte, for every kind of number, every component count, another uid's runtimes,
/// properties without a value, and a buffer that has to grow on the way; and the loop as each target
/// (baseline x86-64, AVX2, AVX-512) compiles it, the ones this CPU runs.
@Suite("Frame encoder")
struct FrameEncoderTests {
    /// Numbers of every kind the fixed format meets, and the ones it hands back to Swift.
    private static func number(_ generator: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<46, using: &generator) {
        case 0: return Double(Int.random(in: -1_000_000...1_000_000, using: &generator))
        case 1: return Double.random(in: -1e-8...1e-8, using: &generator)
        case 2: return Double.random(in: -999_999_998...999_999_998, using: &generator)
        case 3: return Double.random(in: 999_999_999...1e12, using: &generator) * (Bool.random(using: &generator) ? 1 : -1)
        case 4: return [Double.nan, .infinity, -.infinity, -0.0, 0.5e-9, 999_999_998.9999999999][Int.random(in: 0..<6, using: &generator)]
        case 5...10: return Double(Int.random(in: 0..<100_000, using: &generator)) / 1000
        // Where the division into integer and fraction has to be exact: just below an integer (the
        // rounding carries), near halves of the last decimal, and every magnitude from 1e-12 to 1e9.
        case 11: return Double(Int.random(in: 0..<999_999_998, using: &generator)) + 1 - Double(Int.random(in: 0..<20, using: &generator)) * 1e-10
        case 12: return Double(Int.random(in: 0..<100_000, using: &generator)) + Double(Int.random(in: 0..<1000, using: &generator)) * 1e-3 + 0.5e-9
        case 15, 16: return Double(Int.random(in: 10_000_000..<999_999_999, using: &generator)) + Double(Int.random(in: 0..<3, using: &generator)) * 1e-9
        case 13, 14: return (Bool.random(using: &generator) ? 1 : -1) * Double(sign: .plus, exponent: Int.random(in: -40...29, using: &generator),
                                                                               significand: Double.random(in: 1..<2, using: &generator))
        default: return Double.random(in: -2000...2000, using: &generator)
        }
    }

    @Test func theCLoopWritesWhatAppendUpdateWrites() throws {
        try Self.compare(loop: motion_frame_write_updates, target: "this process's clone")
    }

    /// Each target's loop, built alone (no clones) with the toolchain's clang as the package builds it,
    /// writes the same text: the vectorised arithmetic is exact on every target, not only on the one
    /// this machine picks.
    #if arch(x86_64)
    @Test func everyTargetsLoopWritesTheSame() async throws {
        let directory = try CCompiler.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var compared = 0
        let runnable = try KernelTargets.runnable()
        for march in runnable {
            let library = try await CCompiler.sharedLibrary(
                ["Sources/MotionKernels/frame_encoder.c"], name: "libframes-\(march).so", in: directory,
                defines: ["MOTION_KERNELS_ONE_TARGET"], includes: ["Sources/MotionKernels/include"],
                options: ["-march=\(march)"], compiler: KernelTargets.compiler, background: true)
            let handle = try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL))
            let symbol = try #require(dlsym(handle, "motion_frame_write_updates"))
            try Self.compare(loop: unsafeBitCast(symbol, to: FrameEncoder.UpdateLoop.self), target: march)
            compared += 1
        }
        #expect(compared == runnable.count)
        // Every machine of this project has AVX2: its loop is the one most of them run.
        #expect(runnable.contains("x86-64-v3"), "this CPU has no AVX2: its loop was not compared")
    }
    #endif

    private static func compare(loop: FrameEncoder.UpdateLoop, target: String) throws {
        var generator = SplitMix64(seed: 0xF4A3E)
        let store = PropertyStore()
        var handles: [UInt32] = []
        for index in 0..<6000 {
            let runtime = ["default", "1000/work", "0/mine", "2000/other \"quoted\""][index % 4]
            let handle = store.intern(.init(runtime: runtime, target: "t\(index)", property: index % 3 == 0 ? "position" : "é"))
            handles.append(handle)
            guard index % 50 != 7 else { continue }  // interned, never written: count 0, skipped
            let count = 1 + index % 4
            let values = (0..<count).map { _ in Self.number(&generator) }
            let velocities = (0..<count).map { _ in Self.number(&generator) }
            store.write(handle, value: values, velocity: velocities, count: count)
        }
        for (viewer, namesOthers) in [(UInt32(0), true), (0, false), (1000, true)] {
            func foreign(_ handle: UInt32) -> UInt32? {
                let owner = store.owners[Int(handle)]
                return namesOthers && owner != viewer && owner != PropertyStore.daemon ? owner : nil
            }
            let reference = FrameEncoder(capacity: 16)
            var first = true
            for handle in handles where store.counts[Int(handle)] != 0 {
                reference.appendUpdate(of: handle, in: store, isFirst: first, owner: foreign(handle))
                first = false
            }
            let encoder = FrameEncoder(capacity: 16)
            var special = 0
            let wrote = store.withFrameSource(viewer: viewer, namesOthers: namesOthers) { source in
                handles.withUnsafeBufferPointer { handles in
                    encoder.appendUpdates(handles, from: &source, first: true, loop: loop) { handle, isFirst in
                        special += 1
                        encoder.appendUpdate(of: handle, in: store, isFirst: isFirst, owner: foreign(handle))
                    }
                }
            }
            #expect(wrote)
            #expect(special > 0, "some numbers were outside the fixed format")
            #expect(special < handles.count / 2)
            let (written, expected) = (encoder.bytes, reference.bytes)
            let common = min(written.count, expected.count)
            let differsAt = (0..<common).first { written[$0] != expected[$0] } ?? (written.count == expected.count ? nil : common)
            #expect(differsAt == nil, """
                \(target): viewer \(viewer), namesOthers \(namesOthers), from byte \(differsAt ?? 0):
                \(String(decoding: written.dropFirst(differsAt ?? 0).prefix(160), as: UTF8.self))
                expected
                \(String(decoding: expected.dropFirst(differsAt ?? 0).prefix(160), as: UTF8.self))
                """)
            // And it is JSON: the updates of a frame.
            let parsed = try JSONValue.parse(Array("[".utf8) + encoder.bytes + Array("]".utf8))
            #expect(parsed.arrayValue?.count == handles.filter { store.counts[Int($0)] != 0 }.count)
        }
    }

    @Test func nothingToWriteIsSaidSo() {
        let store = PropertyStore()
        let handle = store.intern(.init(runtime: "default", target: "a", property: "x"))
        let encoder = FrameEncoder()
        let wrote = store.withFrameSource(viewer: 0, namesOthers: false) { source in
            [handle].withUnsafeBufferPointer { encoder.appendUpdates($0, from: &source, first: true) { _, _ in } }
        }
        #expect(!wrote)
        #expect(encoder.count == 0)
    }
}
