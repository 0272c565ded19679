@testable import MotionEngine
import Testing

/// `maxRate` on a jittering 120 Hz clock: a subscriber gets the rate it asked for (or the clock's, if
/// that is lower), never more.
@Suite("maxRate")
struct RateLimitTests {
    /// Frames sent in 2 s of 120 Hz ticks that come up to 0.4 ms early or late.
    static func frames(maxRate: Double) -> Int {
        var limit = RateLimit(interval: 1 / maxRate)
        var generator = SplitMix64(seed: 7)
        var sent = 0
        for tick in 0..<240 {
            let jitter = (Double(generator.next() % 801) - 400) * 1e-6
            let time = Double(tick) / 120 + jitter
            if limit.isDue(at: time) {
                limit.sent(at: time)
                sent += 1
            }
        }
        return sent
    }

    @Test(arguments: [(1000.0, 240...240), (121, 240...240), (120, 238...240), (119, 226...238), (90, 178...181),
                      (60, 119...121), (30, 59...61)])
    func aSubscriberGetsTheRateItAskedFor(maxRate: Double, expected: ClosedRange<Int>) {
        let sent = Self.frames(maxRate: maxRate)
        #expect(expected.contains(sent), "maxRate \(maxRate): \(sent) frames in 2 s")
    }
}
