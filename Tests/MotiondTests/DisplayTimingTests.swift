import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/protocol.md, display-timed frames live: a 60 Hz and a 144 Hz display-timed subscriber on one connection to a running daemon.
@Suite("Display-timed frames over the socket")
struct DisplayTimingTests {
    @Test func a60HzAndA144HzSubscriberEachGetOneFramePerVblankExactAtPresent() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let hello = try await client.hello()
        let now = try #require(hello["now"]?.doubleValue)
        let sixty = try await client.call("subscribe", ["streams": ["frames"], "display": ["period": .number(1.0 / 60), "vblank": .number(now)]])
        let fast = try await client.call("subscribe", ["streams": ["frames"], "display": ["period": .number(1.0 / 144), "vblank": .number(now + 0.003)]])
        // 10 units per second, for longer than the test: value − 10·present is the same in every frame.
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [100],
                                                                          "duration": 10, "timing": "linear"]])
        var presents: [Int: [(present: Double, value: Double)]] = [:]
        // Until both have frames past the window (their frames come lead before each vblank; a loaded
        // machine may deliver them late, which this test does not judge), at most 20 s.
        let deadline = Date().addingTimeInterval(20)
        var firstPresent: Double?
        for await event in client.events {
            if Date() > deadline { break }
            guard event["event"] == "frame", let sub = event["sub"]?.intValue, let present = event["present"]?.doubleValue,
                  let value = event["updates"]?.arrayValue?.first?["value"]?.arrayValue?.first?.doubleValue else { continue }
            presents[sub, default: []].append((present, value))
            firstPresent = firstPresent ?? present
            if let firstPresent, presents.count == 2, presents.values.allSatisfy({ ($0.last?.present ?? 0) > firstPresent + 2.4 }) { break }
        }
        for (reply, rate) in [(sixty, 60.0), (fast, 144.0)] {
            let frames = presents[reply["sub"]?.intValue ?? -1] ?? []
            let first = try #require(frames.first?.present)
            let window = frames.filter { $0.present >= first + 0.25 && $0.present < first + 2.25 }
            // Never more than one frame per vblank; a starved machine may skip vblanks (a frame for one already
            // past is useless), so the count is judged loosely and the grid exactly.
            #expect(Double(window.count) / 2 <= rate * 1.02 && Double(window.count) / 2 >= rate * 0.6,
                    "\(window.count) frames in 2 s at \(rate) Hz")
            for (previous, frame) in zip(window, window.dropFirst()) {
                let periods = (frame.present - previous.present) * rate
                #expect(periods >= 0.999 && abs(periods - periods.rounded()) < 1e-3, "presents on the vblank grid: \(periods) periods apart")
            }
            let offsets = frames.map { $0.value - 10 * $0.present }
            #expect(offsets.allSatisfy { abs($0 - offsets[0]) < 1e-6 }, "values exact at present: \(offsets.prefix(5))")
            for (previous, frame) in zip(frames, frames.dropFirst()) {
                #expect(frame.present > previous.present && frame.value > previous.value, "one frame per vblank, never a repeat")
            }
        }
        await client.close()
    }
}
