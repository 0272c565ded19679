/// A pointer's release velocity by the LSQ2 strategy Android and Flutter use (docs/vocabulary.md#interactions, pinned): the last
/// 20 `began`/`moved` samples; walking from the newest back, stop at one more than 100 ms older than the
/// newest, or more than 40 ms older than the sample after it; fewer than 3 samples give 0; else x(τ) and
/// y(τ) are fitted separately by unweighted least squares with a degree-2 polynomial in τ = t − newest t,
/// and the velocity is the linear coefficient.
package struct VelocityTracker: Sendable, Equatable {
    package struct Sample: Sendable, Equatable {
        package var time: Double
        package var position: [Double]

        package init(time: Double, position: [Double]) {
            self.time = time
            self.position = position
        }
    }

    package static let capacity = 20
    package static let horizon = 0.100
    package static let maximumGap = 0.040
    package static let minimumSamples = 3

    /// The newest samples, oldest first (at most `capacity`).
    package private(set) var samples: [Sample] = []

    package init() {}

    package mutating func add(_ sample: Sample) {
        samples.append(sample)
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
    }

    package mutating func reset() { samples.removeAll(keepingCapacity: true) }

    /// The samples the estimate uses, newest last.
    package var window: ArraySlice<Sample> {
        guard let newest = samples.last else { return [] }
        var start = samples.count - 1
        while start > 0 {
            let candidate = samples[start - 1]
            if newest.time - candidate.time > Self.horizon || samples[start].time - candidate.time > Self.maximumGap { break }
            start -= 1
        }
        return samples[start...]
    }

    /// Units per second on each axis of the newest sample; zeros with fewer than 3 samples in the window.
    /// `dimension`: the axes to answer in when there are no samples (a lone release: at rest).
    package func velocity(dimension: Int? = nil) -> (velocity: [Double], used: Int) {
        let window = self.window
        let axes = samples.last?.position.count ?? dimension ?? 0
        guard window.count >= Self.minimumSamples, let newest = window.last else {
            return (Array(repeating: 0, count: axes), window.count)
        }
        let times = window.map { $0.time - newest.time }
        let velocity = (0..<axes).map { axis in
            Self.linearCoefficient(times: times, values: window.map { axis < $0.position.count ? $0.position[axis] : 0 })
        }
        return (velocity, window.count)
    }

    /// b of the least-squares fit v ≈ a + b·τ + c·τ² (solved from the normal equations; with times that
    /// cannot determine a parabola, the fit of a line, else 0).
    static func linearCoefficient(times: [Double], values: [Double]) -> Double {
        var s = [Double](repeating: 0, count: 5)   // Σ τ^k, k = 0…4
        var r = [Double](repeating: 0, count: 3)   // Σ v·τ^k, k = 0…2
        for (tau, value) in zip(times, values) {
            var power = 1.0
            for k in 0..<5 {
                s[k] += power
                if k < 3 { r[k] += value * power }
                power *= tau
            }
        }
        // [s0 s1 s2; s1 s2 s3; s2 s3 s4] · [a b c] = r, by Cramer's rule for b.
        let determinant = s[0] * (s[2] * s[4] - s[3] * s[3]) - s[1] * (s[1] * s[4] - s[3] * s[2]) + s[2] * (s[1] * s[3] - s[2] * s[2])
        let scale = max(s[0] * s[2] * s[4], 1e-300)
        if abs(determinant) > 1e-12 * scale {
            let numerator = s[0] * (r[1] * s[4] - s[3] * r[2]) - r[0] * (s[1] * s[4] - s[3] * s[2]) + s[2] * (s[1] * r[2] - r[1] * s[2])
            return numerator / determinant
        }
        let lineDeterminant = s[0] * s[2] - s[1] * s[1]
        guard abs(lineDeterminant) > 1e-12 * max(s[0] * s[2], 1e-300) else { return 0 }
        return (s[0] * r[1] - s[1] * r[0]) / lineDeterminant
    }
}

/// One client-named pointer stream in a runtime (docs/vocabulary.md#interactions).
package struct Gesture: Sendable {
    package enum Phase: String, Sendable {
        case began, moved, ended, cancelled
    }

    package var phase: Phase = .ended
    package var position: [Double] = []
    /// Where it was at `began`.
    package var origin: [Double] = []
    package var tracker = VelocityTracker()
    /// The release velocity, set at `ended` (zeros at `cancelled`).
    package var releaseVelocity: [Double] = []
    package var lastTime = -Double.infinity
    /// Counts `began`s: a new number is a new gesture.
    package var generation: UInt64 = 0

    package var isActive: Bool { phase == .began || phase == .moved }
}

/// One pointer sample as a client pushed it.
package struct GestureSample: Sendable {
    package var sample: VelocityTracker.Sample
    /// Nil: continues the gesture (or begins it).
    package var phase: Gesture.Phase?

    package init(sample: VelocityTracker.Sample, phase: Gesture.Phase?) {
        self.sample = sample
        self.phase = phase
    }
}
