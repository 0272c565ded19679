import MotionKernels
import MotionWire

/// What frames are encoded from (BENCHMARKS.md): each property's update begins with a pre-encoded prefix,
/// `{"runtime":"…","target":…,"property":…,"value":`, kept beside its slot.
extension PropertyStore {
    static let runtimeOpening = Array(##"{"runtime":""##.utf8)

    /// The pre-encoded start of `handle`'s updates.
    func prefix(_ handle: UInt32) -> ArraySlice<UInt8> { prefixes[handle] }

    /// Lends the columns a frame's updates are encoded from (`motion_frame_write_updates`); with
    /// `namesOthers` another uid's properties are named `<uid>/<runtime>` for `viewer`.
    /// `velocityScale`: the speed (frames show velocities per wall-clock second, docs/vocabulary.md#speed-and-reduce-motion).
    func withFrameSource<Result>(viewer: UInt32, namesOthers: Bool, velocityScale: Double = 1,
                                 _ body: (inout motion_frame_source) -> Result) -> Result {
        owners.withUnsafeBufferPointer { owners in
            prefixes.bytes.withUnsafeBufferPointer { prefixes in
                self.prefixes.starts.withUnsafeBufferPointer { starts in
                    self.prefixes.lengths.withUnsafeBufferPointer { lengths in
                        var source = motion_frame_source(
                            slots: slots, counts: counts, owners: owners.baseAddress, prefixes: prefixes.baseAddress,
                            prefix_starts: starts.baseAddress, prefix_lengths: lengths.baseAddress,
                            names_others: namesOthers ? 1 : 0, viewer: viewer, daemon: Self.daemon,
                            runtime_opening: Self.runtimeOpening.count, velocity_scale: velocityScale)
                        return body(&source)
                    }
                }
            }
        }
    }

    /// Starts with `runtimeOpening`; the runtime's name as its owner writes it (another uid's view puts
    /// `<uid>/` in front, see `FrameEncoder.appendUpdate`).
    static func prefix(for key: Key, runtime: Substring) -> [UInt8] {
        var bytes = Array(runtimeOpening.dropLast())  // the string's own quote opens it
        JSONWriter.writeString(String(runtime), into: &bytes)
        bytes.append(contentsOf: ",\"target\":".utf8)
        JSONWriter.writeString(key.target, into: &bytes)
        bytes.append(contentsOf: ",\"property\":".utf8)
        JSONWriter.writeString(key.property, into: &bytes)
        bytes.append(contentsOf: ",\"value\":".utf8)
        return bytes
    }
}
