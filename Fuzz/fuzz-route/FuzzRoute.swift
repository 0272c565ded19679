import MotionFuzzing

#if FUZZING
/// libFuzzer's entry (built by scripts/fuzz with `--sanitize fuzzer -Xswiftc -DFUZZING`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoute(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzTargets.route(bytes)
    FuzzTargets.routeWalk(bytes)
    return 0
}
#else
/// Without libFuzzer: replays the files named on the command line (a crash reproducer, or a corpus).
@main
enum Replay {
    static func main() {
        replay(CommandLine.arguments.dropFirst()) { bytes in
            FuzzTargets.route(bytes)
            FuzzTargets.routeWalk(bytes)
        }
    }
}
#endif
