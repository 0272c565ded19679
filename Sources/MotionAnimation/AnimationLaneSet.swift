import MotionPluginKit
import Synchronization

/// Where the running animations of one type live for one host, and how a tick steps them: lanes (one per
/// animated property) addressed by an `Int` that the set may change (it tells the owner, `laneMoved`).
///
/// `AnimationPerformer` is the only client. Two kinds exist: `AnimationLanes` keeps each animation as a
/// value and steps it through the protocol (any animation); `SimulationLanes` keeps springs and decays in
/// columns that one vectorised loop steps (BENCHMARKS.md). Used on the host's engine thread only.
package protocol AnimationLaneSet<Animation>: AnyObject {
    associatedtype Animation: PropertyAnimation

    /// Performers that own at least one lane. A batch of that many performers holds every lane.
    var ownerCount: Int { get set }
    /// Performers holding plans that wait for their `delay`: a batch looks for them only while some do.
    var delayingOwners: Int { get set }
    /// Scratch for a batch that does not hold every owner: the lanes of those it holds, gathered for one
    /// `advance(_:by:)`.
    var gathered: [Int] { get set }

    func add(_ animation: Animation, handle: PropertyHandle, owner: AnimationPerformer<Animation>) -> Int
    /// Puts `animation` in place of the lane's; returns the lane it now has (it may move).
    func replace(_ lane: Int, with animation: Animation) -> Int
    func animation(_ lane: Int) -> Animation
    /// Frees `lane`; the set may move another lane into its place (its owner hears `laneMoved`).
    func remove(_ lane: Int)
    /// The named plan was removed: the lane ends `interrupted` at the next tick unless a plan takes over.
    func isRemoved(_ lane: Int) -> Bool
    func setRemoved(_ lane: Int, _ isRemoved: Bool)

    /// Steps every lane (the batch holds every owner); writes may go through `writer` now or at `finishTick`.
    func advanceAll(by dt: Double, writer: PropertyBatchWriter?)
    /// Steps the given lanes only (one performer's, when a batch does not hold every owner).
    func advance(_ selected: [Int], by dt: Double)
    /// Sends this tick's writes, then ends the lanes that finished or were removed (`laneEnded`).
    func finishTick(writer: PropertyBatchWriter?)
    /// Writes the values `advanceAll` kept because no one read them ("motion.kept/1"); nothing if none.
    func writeKept()
    /// The same for the properties `handles` only (writing more is allowed).
    func writeKept(handles: UnsafeBufferPointer<UInt32>)
}

extension AnimationLaneSet {
    /// Sets that always write keep nothing.
    package func writeKept() {}
    package func writeKept(handles: UnsafeBufferPointer<UInt32>) { writeKept() }
}

extension PropertyAnimation {
    /// Any animation: one value per lane, stepped through `advanceAndState`.
    package static func lanes(host: UInt) -> any AnimationLaneSet<Self> { AnimationLanes<Self>.shared(host: host) }
}

extension SimulatedAnimation {
    /// Springs and decays: columns stepped by one vectorised loop.
    package static func lanes(host: UInt) -> any AnimationLaneSet<Self> { SimulationLanes<Self>.shared(host: host) }
}

struct LanesKey: Hashable {
    var type: ObjectIdentifier
    var host: UInt
}

/// One lane set per (lane-set type, host) in this image.
let sharedLanes = Mutex<[LanesKey: AnyObject]>([:])

/// The set of type `Lanes` for `host`, made on first use.
func sharedLaneSet<Lanes: AnyObject>(_ type: Lanes.Type, host: UInt, make: () -> Lanes) -> Lanes {
    sharedLanes.withLock { table in
        let key = LanesKey(type: ObjectIdentifier(Lanes.self), host: host)
        if let lanes = table[key] as? Lanes { return lanes }
        let lanes = make()
        table[key] = lanes
        return lanes
    }
}
