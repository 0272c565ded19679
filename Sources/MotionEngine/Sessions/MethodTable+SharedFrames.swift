import MotionWire

extension MethodTable {
    /// Reads `transport` (`"json"`, the default, or `"shm"`) and `slots` of `subscribe`; for `"shm"`
    /// creates the subscription's region (docs/clients.md).
    func sharedFrameChannel(_ params: Params, streams: [String], display: DisplayTiming?,
                            session: Session) throws(EngineError) -> SharedFrameChannel? {
        let transport = try params.optionalString("transport") ?? "json"
        let slots = try params.optionalNumber("slots")
        guard transport == "shm" else {
            guard transport == "json" else {
                throw EngineError(.invalidRequest, "transport: expected \"json\" or \"shm\", got \"\(transport)\"")
            }
            if slots != nil { throw EngineError(.invalidRequest, "slots: only a transport \"shm\" subscription has slots") }
            return nil
        }
        guard streams == ["frames"] else {
            throw EngineError(.invalidRequest, "transport: \"shm\" carries the \"frames\" stream alone; subscribe to trace and routes separately")
        }
        guard display == nil else {
            throw EngineError(.invalidRequest, "transport: \"shm\" holds the latest values, not frames timed for a display; use display with transport \"json\"")
        }
        guard session.output.canPassDescriptors else {
            throw EngineError(.invalidRequest, "transport: \"shm\" needs a Unix socket connection (the region is passed as a file descriptor)")
        }
        let capacity = try slots.map { slots throws(EngineError) -> Int in
            guard let count = Int(exactly: slots), count >= 1 else {
                throw EngineError(.invalidRequest, "slots: expected a positive integer")
            }
            guard count <= SharedFrameChannel.maximumSlots else {
                throw EngineError(.limitExceeded, "slots: \(count); a shared-memory subscription holds at most \(SharedFrameChannel.maximumSlots) slots")
            }
            return count
        } ?? SharedFrameChannel.defaultSlots
        guard sharedSlots(of: session.uid) + capacity <= settings.quotas.shmSlots else {
            throw context.quotaExceeded("shmSlots", session.uid)
        }
        guard sharedRegions(of: session.uid) < settings.quotas.shmRegions else {
            throw context.quotaExceeded("shmRegions", session.uid)
        }
        guard sharedRegions(of: nil) < settings.maximumSharedRegions else {
            throw EngineError(.limitExceeded, "transport: the daemon holds \(settings.maximumSharedRegions) shared-memory regions, its bound (a share of vm.max_map_count); subscribe with transport \"json\", or later")
        }
        return try SharedFrameChannel(capacity: capacity)
    }

    /// Shared-memory regions of `uid`'s subscriptions (nil: of everyone's).
    func sharedRegions(of uid: UInt32?) -> Int {
        sessions.values.reduce(0) { total, session in
            uid != nil && session.uid != uid ? total : session.subscriptions.values.reduce(total) { $0 + ($1.sharedFrames == nil ? 0 : 1) }
        }
    }

    /// Slots of the shared-memory subscriptions of `uid`'s connections, together (the `shmSlots` quota).
    func sharedSlots(of uid: UInt32) -> Int {
        sessions.values.reduce(0) { total, session in
            session.uid != uid ? total : session.subscriptions.values.reduce(total) { $0 + ($1.sharedFrames?.capacity ?? 0) }
        }
    }
}
