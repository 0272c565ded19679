/// A display a subscription follows (docs/protocol.md, display-timed frames): a vertical blank every `period`, in phase with `vblank`;
/// values are shown `latency` after a vblank, and the frame for a vblank is sent `lead` before it.
/// Times in nanoseconds on CLOCK_MONOTONIC.
package struct DisplayTiming: Hashable, Sendable {
    package var period: UInt64
    /// Any one vblank of the display (its phase).
    package var vblank: UInt64
    package var latency: UInt64
    package var lead: UInt64

    package static let minimumPeriod: UInt64 = 2_000_000  // 500 Hz
    package static let maximumPeriod: UInt64 = 1_000_000_000  // 1 Hz
    package static let defaultLead: UInt64 = 2_000_000
    /// The largest `latency` and `lead`: the engine's one state runs ahead by the largest lookahead of
    /// any display, and every display's changes then show that much later (one subscriber with a 1 s
    /// latency made every other display subscriber see its own plan.add 1 s late, whatever its uid). A
    /// real pipeline shows a frame within a few vblanks.
    package static let maximumLatency: UInt64 = 100_000_000
    package static let maximumLead: UInt64 = 50_000_000

    /// `latency` defaults to one period, at most `maximumLatency`.
    package init(period: UInt64, vblank: UInt64, latency: UInt64? = nil, lead: UInt64 = Self.defaultLead) {
        self.period = period
        self.vblank = vblank
        self.latency = latency ?? Self.defaultLatency(period: period)
        self.lead = lead
    }

    package static func defaultLatency(period: UInt64) -> UInt64 { min(period, maximumLatency) }

    /// How far ahead of its send time a frame's values are for: `latency + lead`.
    package var lookahead: UInt64 { latency &+ lead }

    /// The first vblank of this display strictly after `time`.
    package func vblank(after time: UInt64) -> UInt64 {
        if time < vblank {
            let back = (vblank - time - 1) / period
            return vblank - back * period
        }
        return vblank + ((time - vblank) / period + 1) * period
    }

    /// The time the frame for `vblank` shows its values at.
    package func present(of vblank: UInt64) -> UInt64 { vblank &+ latency }

    /// When the frame for `vblank` is sent.
    package func sendTime(of vblank: UInt64) -> UInt64 { vblank &- min(lead, vblank) }
}
