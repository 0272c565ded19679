import MotionHostABI
import MotionJSON
import MotionPluginAPI
import MotionPluginKit
import MotionSchema

/// An in-process host for a plugin's unit tests: no daemon, no socket, no dlopen. It hands plans to the
/// plugin as motiond does (checked against the factory's schema first, one performer per target and plan
/// type), advances time, and records values, tokens and trace events.
///
/// ```swift
/// let harness = try PluginHarness(WobblePlugin.self)
/// try harness.add(#"{"type":"Wobble","amplitude":20}"#, to: "card")
/// harness.run(for: 0.5)
/// #expect(harness.value(of: "x", on: "card")!.first! > 10)
/// ```
///
/// Like motiond it calls the plugin from one thread; use one harness per test.
public final class PluginHarness: PlanNodesOwner {
    public struct Event: Sendable, Equatable {
        public var kind: String
        public var target: String
        public var fields: [String: JSONValue]
    }

    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// A motiond error code: `plugin.rejected`, `plan.unknown_type` or `plan.invalid`.
        public var code: String
        public var message: String
        public var description: String { "\(code): \(message)" }

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    typealias Factory = FactoryTables.Factory

    final class Performer {
        let id: UInt64
        let factory: Factory
        let target: String
        var instance: UnsafeMutableRawPointer?
        var tokens: Set<UInt64> = []
        init(id: UInt64, factory: Factory, target: String) {
            self.id = id
            self.factory = factory
            self.target = target
        }
    }

    public private(set) var events: [Event] = []
    public private(set) var logLines: [String] = []
    public var planTypes: [String] { factories.map(\.planType) }
    /// True while some performer holds an is-active token.
    public var isActive: Bool { performers.values.contains { !$0.tokens.isEmpty } }

    let plugin: UnsafePointer<motion_plugin>
    var factories: [Factory] = []
    var performers: [UInt64: Performer] = [:]
    var byTarget: [String: [String: UInt64]] = [:]
    var properties: [String: UInt32] = [:]
    var propertyOwners: [UInt32: String] = [:]
    var values: [[Double]] = []
    var velocities: [[Double]] = []
    var animators: [UInt32: UInt64] = [:]
    var nextID: UInt64 = 1
    var nextToken: UInt64 = 1
    var inFrame = false
    public let plans = PlanNodes()
    let host: UnsafeMutablePointer<motion_host> = .allocate(capacity: 1)
    let planReader = PlanReaderTable.make()
    let claims: UnsafeMutablePointer<motion_claim> = .allocate(capacity: 1)

    /// A Swift plugin built with the kit.
    public convenience init<Plugin: MotionPlugin>(_ plugin: Plugin.Type) throws {
        try self.init(entry: PluginEntry.descriptor(for: plugin))
    }

    /// Any plugin, given what its `motion_plugin_entry` returns.
    public init(entry: UnsafeRawPointer) throws {
        plugin = entry.assumingMemoryBound(to: motion_plugin.self)
        HostTables.install(self)
        try check()
        if let initialize = plugin.pointee.`init`, initialize(host) != MOTION_OK {
            throw Failure(code: "plugin.rejected", message: "init: the plugin reported a failure")
        }
    }

    deinit {
        for performer in performers.values { destroy(performer) }
        for table in [UnsafeMutableRawPointer(host), UnsafeMutableRawPointer(planReader), UnsafeMutableRawPointer(claims)] {
            table.deallocate()
        }
        // Padded copies of an older plugin's factories are the harness's to free (nothing calls them now).
        for factory in factories where factory.table != factory.pointer { UnsafeMutableRawPointer(mutating: factory.table).deallocate() }
    }

    private func check() throws {
        func fail(_ message: String) -> Failure { Failure(code: "plugin.rejected", message: message) }
        let raw = plugin.pointee
        guard raw.magic == MOTION_PLUGIN_MAGIC else { throw fail("magic: not a motiond plugin") }
        guard raw.abi_major == MOTION_ABI_MAJOR, raw.abi_minor <= MOTION_ABI_MINOR else {
            throw fail("abi: plugin is built for \(raw.abi_major).\(raw.abi_minor), this SDK provides \(MOTION_ABI_MAJOR).\(MOTION_ABI_MINOR)")
        }
        // Read as motiond reads them: with the plugin's own struct size, newer members zero.
        do throws(FactoryTables.Failure) {
            factories = try FactoryTables.read(plugin)
        } catch {
            throw fail(error.reason)
        }
    }

    // MARK: Plans

    /// Adds a plan (JSON text with a "type") to `target`, as `plan.add` does.
    public func add(_ plan: String, to target: String = "target", named name: String? = nil) throws {
        let json: JSONValue
        do {
            json = try JSONValue.parse(plan)
        } catch {
            throw Failure(code: "request.invalid", message: "plan: not valid JSON")
        }
        try add(json, to: target, named: name)
    }

    public func add(_ plan: JSONValue, to target: String = "target", named name: String? = nil) throws {
        guard let type = plan["type"]?.stringValue else { throw Failure(code: "request.invalid", message: "plan.type: expected a string") }
        guard let factory = factories.first(where: { $0.planType == type }) else {
            throw Failure(code: "plan.unknown_type", message: "plan.type: \"\(type)\" is not registered; known types: \(planTypes.joined(separator: ", "))")
        }
        if let schema = factory.schema {
            do throws(JSONSchema.Violation) { try schema.validate(plan: plan) } catch {
                throw Failure(code: "plan.invalid", message: error.message)
            }
        }
        let performer = try performer(for: factory, on: target)
        if let name, let remove = factory.table.pointee.remove_named_plan { remove(performer.instance, name) }
        var text = JSONWriter.bytes(plan)
        let length = text.count
        text.append(0)
        var message = [CChar](repeating: 0, count: 1024)
        plans.begin(plan)
        defer { plans.end() }
        let status: Int32 = text.withUnsafeBufferPointer { bytes in
            let chars = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            if let name, let addNamed = factory.table.pointee.add_named_plan {
                return addNamed(performer.instance, name, chars, length, &message, message.count)
            }
            return factory.table.pointee.add_plan(performer.instance, chars, length, &message, message.count)
        }
        guard status == MOTION_OK else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw Failure(code: "plan.invalid", message: reason.isEmpty ? "\(type): plan refused" : reason)
        }
    }

    public func removePlan(named name: String, from target: String = "target") {
        for id in byTarget[target, default: [:]].values {
            guard let performer = performers[id], let remove = performer.factory.table.pointee.remove_named_plan else { continue }
            remove(performer.instance, name)
        }
    }

    private func performer(for factory: Factory, on target: String) throws -> Performer {
        if let id = byTarget[target]?[factory.planType], let existing = performers[id] { return existing }
        let performer = Performer(id: nextID, factory: factory, target: target)
        nextID += 1
        performers[performer.id] = performer
        guard let instance = factory.table.pointee.create(factory.pointer, host, performer.id, target) else {
            performers[performer.id] = nil
            throw Failure(code: "plan.invalid", message: "the plugin could not create a \(factory.planType) performer")
        }
        performer.instance = instance
        byTarget[target, default: [:]][factory.planType] = performer.id
        return performer
    }

    private func destroy(_ performer: Performer) {
        guard let instance = performer.instance else { return }
        performer.instance = nil
        performer.factory.table.pointee.destroy(instance)
    }

    // MARK: Time

    /// One tick: every continuous performer holding a token advances by `dt`.
    public func advance(by dt: Double) {
        let moving = performers.values.filter { $0.factory.isContinuous && !$0.tokens.isEmpty }.sorted { $0.id < $1.id }
        inFrame = true
        for performer in moving {
            if let instance = performer.instance, let advance = performer.factory.table.pointee.advance { advance(instance, dt) }
        }
        inFrame = false
    }

    /// Ticks at `rate` Hz for `seconds`.
    public func run(for seconds: Double, rate: Double = 120) {
        for _ in 0..<Int((seconds * rate).rounded()) { advance(by: 1 / rate) }
    }

    /// Ticks until nothing holds a token (at most `limit` seconds); returns the seconds it took.
    @discardableResult
    public func runUntilIdle(limit: Double = 60, rate: Double = 120) -> Double {
        var ticks = 0
        while isActive, Double(ticks) / rate < limit {
            advance(by: 1 / rate)
            ticks += 1
        }
        return Double(ticks) / rate
    }

    // MARK: Values

    public func value(of property: String, on target: String = "target") -> [Double]? {
        properties[target + "\u{0}" + property].map { values[Int($0)] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func velocity(of property: String, on target: String = "target") -> [Double]? {
        properties[target + "\u{0}" + property].map { velocities[Int($0)] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Trace events of `kind`, in order.
    public func events(_ kind: String) -> [Event] { events.filter { $0.kind == kind } }

    // MARK: Host services (called by HostTables)

    func intern(_ name: String, for id: UInt64) -> UInt32 {
        guard !name.isEmpty, let performer = performers[id] else { return MOTION_INVALID_PROPERTY }
        let key = performer.target + "\u{0}" + name
        if let handle = properties[key] { return handle }
        let handle = UInt32(values.count)
        properties[key] = handle
        propertyOwners[handle] = performer.target
        values.append([])
        velocities.append([])
        return handle
    }

    func write(_ handle: UInt32, _ value: UnsafePointer<Double>, _ velocity: UnsafePointer<Double>?, _ count: Int) {
        guard Int(handle) < values.count, (1...Int(MOTION_MAX_COMPONENTS)).contains(count) else { return }
        values[Int(handle)] = Array(UnsafeBufferPointer(start: value, count: count))
        velocities[Int(handle)] = velocity.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? Array(repeating: 0, count: count)
    }

    func read(_ handle: UInt32, _ value: UnsafeMutablePointer<Double>?, _ velocity: UnsafeMutablePointer<Double>?, _ capacity: Int) -> UInt32 {
        guard Int(handle) < values.count else { return 0 }
        let current = values[Int(handle)], speed = velocities[Int(handle)]
        for index in 0..<min(capacity, current.count) {
            value?[index] = current[index]
            velocity?[index] = speed[index]
        }
        return UInt32(current.count)
    }

    func token(for id: UInt64) -> UInt64 {
        guard let performer = performers[id] else { return 0 }
        defer { nextToken += 1 }
        performer.tokens.insert(nextToken)
        return nextToken
    }

    func terminate(_ token: UInt64, for id: UInt64) {
        guard let performer = performers[id] else { return }
        if performer.tokens.remove(token) == nil {
            events.append(Event(kind: "plugin.error", target: performer.target, fields: ["message": .string("token \(token) terminated twice")]))
        }
    }

    func trace(_ kind: String, _ fields: String?, from id: UInt64) {
        guard let performer = performers[id] else { return }
        let parsed = fields.flatMap { try? JSONValue.parse($0) }?.objectValue ?? [:]
        events.append(Event(kind: kind, target: performer.target, fields: parsed))
    }

    func log(_ message: String) { logLines.append(message) }

    func emit(_ json: UnsafeRawBufferPointer, from id: UInt64) -> Bool {
        guard !inFrame, let performer = performers[id], let plan = try? JSONValue.parse(json) else { return false }
        return (try? add(plan, to: performer.target)) != nil
    }

    func claim(_ handle: UInt32, for id: UInt64) {
        guard !inFrame, let claimant = performers[id], propertyOwners[handle] == claimant.target else { return }
        let previous = animators[handle]
        animators[handle] = id
        guard let previous, previous != id, let old = performers[previous], let instance = old.instance,
              let lookup = plugin.pointee.get_extension, let table = lookup(MOTION_YIELD_EXTENSION)
        else { return }
        table.assumingMemoryBound(to: motion_yield.self).pointee.yield_property(old.factory.pointer, instance, handle)
    }
}
