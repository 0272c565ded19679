import Foundation  // sin, cos
import MotionPluginKit

final class WobblePerformer: Performer {
    struct Plan: Decodable { var amplitude: Double? }   // decoding errors name the field
    static let planType = "Wobble"
    static let isContinuous = true

    private let context: PerformerContext
    private var x: PropertyHandle?
    private var token: ActiveToken?
    private var amplitude = 10.0, time = 0.0

    init(context: PerformerContext, target: String) { self.context = context }

    func add(_ plan: Plan) throws {
        if let amplitude = plan.amplitude {
            guard amplitude.isFinite else { throw PlanError("amplitude: expected a finite number") }
            self.amplitude = amplitude
        }
        x = x ?? context.property("x")
        if token == nil { token = context.generateToken() }
        if let x { context.claim(x) }    // a newer plan of another type on x will make us yield
    }

    func yield(_ property: PropertyHandle) {
        guard property == x, let token else { return }
        context.animationEnded(property: "x", reason: "interrupted")
        context.terminate(token)
        self.token = nil
    }

    func advance(by dt: Double) {
        guard token != nil, let x else { return }
        time += dt
        context.write(x, value: SIMD4(amplitude * sin(2 * .pi * time), 0, 0, 0),
                      velocity: SIMD4(amplitude * 2 * .pi * cos(2 * .pi * time), 0, 0, 0), count: 1)
    }
}

enum WobblePlugin: MotionPlugin {
    static let id = "org.example.wobble"
    static let version = "1.0.0"
    static var performers: [any Performer.Type] { [WobblePerformer.self] }
}

@_cdecl("motion_plugin_entry")
public func motionPluginEntry() -> UnsafeRawPointer { PluginEntry.descriptor(for: WobblePlugin.self) }
