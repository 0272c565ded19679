import MotionPluginAPI

/// Values no one reads are not written ("motion.unread/1", "motion.kept/1").
///
/// With no frame subscriber the clock sets `writesUnread`: batches of plugins with "motion.kept/1" then
/// step their animations without writing each value to the property store (a cache line per property, most
/// of a tick's cost once the maths is vectorised, BENCHMARKS.md), and the store is marked stale. Anything
/// that reads the store (a request, a frame, a plugin's `read_property`) first calls `refreshIfStale`,
/// which lands here: every such factory writes what it kept, as the last advance left it. A read of one
/// property (`refreshIfStale(_:)`) asks for that one only.
extension Engine {
    func writeKeptValues() {
        // Inside a keeping advance (a read from a batch): "motion.unread/1" answers 0 to what is asked here.
        let keeping = unread.isKeepingWrites
        unread.isKeepingWrites = false
        defer { unread.isKeepingWrites = keeping }
        for group in cycle.advanceGroups {
            guard let kept = group.kept else { continue }
            calling(group.label, "write_kept") { kept.pointee.write_kept(group.factory, host.pointer) }
        }
    }

    /// An advance may have kept values: every read asks for them again.
    func markKept() {
        store.isStale = true
        unread.keptWrittenWhole.removeAll(keepingCapacity: true)
    }

    /// Asks every keeping plugin for all it kept, now, as a read of many properties does (`motiond
    /// --validate` checks this form and the one below).
    package func refreshKeptValues() { store.refreshIfStale() }

    /// The same for a few properties (`PropertyStore.refreshIfStale(_:)`): factories with
    /// `write_kept_some` write those; the others (a table from before it) write everything they kept.
    func writeKeptValues(of handles: UnsafeBufferPointer<UInt32>) {
        let keeping = unread.isKeepingWrites
        unread.isKeepingWrites = false
        defer { unread.isKeepingWrites = keeping }
        for group in cycle.advanceGroups {
            guard let kept = group.kept else { continue }
            if Int(kept.pointee.struct_size) >= MemoryLayout<motion_kept>.size, let some = kept.pointee.write_kept_some {
                calling(group.label, "write_kept_some") {
                    some(group.factory, host.pointer, handles.baseAddress, handles.count)
                }
            } else if unread.keptWrittenWhole.insert(UInt(bitPattern: group.factory)).inserted {
                // Once per advance: after it, that factory holds nothing kept.
                calling(group.label, "write_kept") { kept.pointee.write_kept(group.factory, host.pointer) }
            }
        }
    }
}
