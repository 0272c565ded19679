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

    /// After an idle spell (nothing to send for a while), the next frames keep the interval: no two come
    /// one tick apart at maxRate 10.
    @Test func anIdleSpellStartsANewScheduleWithoutABurst() {
        var limit = RateLimit(interval: 0.1)
        var sent: [Double] = []
        for tick in 0..<360 {
            let time = Double(tick) / 120
            // Something to send in the first and the last second only.
            guard time < 1 || time >= 2, limit.isDue(at: time) else { continue }
            limit.sent(at: time)
            sent.append(time)
        }
        let late = sent.filter { $0 >= 2 }
        #expect(late.count <= 11, "\(late)")
        #expect(zip(late, late.dropFirst()).allSatisfy { $1 - $0 >= 0.075 - 1e-9 }, "\(late)")
    }

    @Test(arguments: [(1000.0, 240...240), (121, 240...240), (120, 238...240), (119, 226...238), (90, 178...181),
                      (60, 119...121), (30, 59...61)])
    func aSubscriberGetsTheRateItAskedFor(maxRate: Double, expected: ClosedRange<Int>) {
        let sent = Self.frames(maxRate: maxRate)
        #expect(expected.contains(sent), "maxRate \(maxRate): \(sent) frames in 2 s")
    }
}
