/// Properties that went away (their runtime destroyed, their target ended), each handle with the
/// generation it had then, so that shared-memory subscriptions mark the slots they gave them
/// (`SharedFrameChannel.markGone`): a runtime destroyed and created again under its name left its old
/// slots named and holding old values beside the new ones. Recorded only while some subscription has a
/// region; positions count from the first entry ever recorded, so each reader keeps its own.
final class GoneProperties {
    /// Past this many entries the oldest go whatever: a reader left behind looks at all its slots once.
    static let maximumEntries = 1 << 20

    var isRecording = false
    private(set) var handles: [UInt32] = []
    private(set) var generations: [UInt32] = []
    /// The position of `handles[0]`.
    private(set) var base = 0
    var end: Int { base + handles.count }
    var isEmpty: Bool { handles.isEmpty }

    func record(_ handle: UInt32, generation: UInt32) {
        guard isRecording else { return }
        handles.append(handle)
        generations.append(generation)
    }

    /// Forgets the entries before `position` (every reader is past them) and, past `maximumEntries`,
    /// the oldest; in halves at least, so that a trim costs O(1) per entry recorded.
    func trim(before position: Int) {
        let drop = min(max(0, max(position, end - Self.maximumEntries) - base), handles.count)
        guard drop > 0, drop == handles.count || drop >= handles.count / 2 else { return }
        handles.removeFirst(drop)
        generations.removeFirst(drop)
        base += drop
    }
}
