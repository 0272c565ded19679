import ArgumentParser
import Foundation
import Logging
import MotionEngine
import MotionHost

/// Nanoseconds per timing-function call: through the host's libffi path (what a Tween with
/// `{"function": …}` pays per sample) against a direct call of the same C function.
struct CurvesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curves", abstract: "ns per libffi curve call vs a direct C call.")

    @Option(help: "Calls per measurement.") var calls = 10_000_000
    @Option(help: "Repetitions (the median and min–max are reported).") var runs = 5

    func run() throws {
        let directory = URL(fileURLWithPath: PluginLoader.executableDirectory)
        let host = HostServices(logger: Logger(label: "bench"))
        let plugin = try PluginLoader.load(file: directory.appendingPathComponent("libCurvesPlugin.so").path, host: host).get()
        var builder = PluginRegistryBuilder()
        builder.add(plugin)
        let table = CurveTable()
        table.register(builder.freeze().plugins)
        for (name, arguments) in [("bounceOut", [Double]()), ("elasticOut", [0.3]), ("steps", [4.0])] {
            let function = plugin.functions.first { $0.name == name }!
            let handle = try table.bind(name, arguments: arguments)
            let ffi = measure { t in table.evaluate(handle, at: t) }
            let direct: [Double]
            switch name {
            case "bounceOut":
                let f = unsafeBitCast(function.address, to: (@convention(c) (Double) -> Double).self)
                direct = measure { t in f(t) }
            case "elasticOut":
                let f = unsafeBitCast(function.address, to: (@convention(c) (Double, Double) -> Double).self)
                direct = measure { t in f(t, 0.3) }
            default:
                let f = unsafeBitCast(function.address, to: (@convention(c) (Double, Int32) -> Double).self)
                direct = measure { t in f(t, 4) }
            }
            print("\(name) (\(function.signature)): libffi \(summary(ffi)) ns/call, direct \(summary(direct)) ns/call, ratio \(String(format: "%.1f", median(ffi) / median(direct)))×")
        }
    }

    /// ns per call for each run; the checksum keeps the optimiser from dropping the calls.
    private func measure(_ body: (Double) -> Double) -> [Double] {
        var results: [Double] = []
        var checksum = 0.0
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<calls { checksum += body(Double(index & 1023) / 1023) }
            results.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(calls))
        }
        if checksum == .infinity { print(checksum) }
        return results
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    private func summary(_ values: [Double]) -> String {
        String(format: "%.1f (%.1f–%.1f)", median(values), values.min()!, values.max()!)
    }
}
