import MotionKernels
import MotionWire

/// Writes frame events straight into one reused buffer: the frame path never goes through a generic
/// JSON encoder, and an update costs a copy of its pre-encoded prefix plus its digits (docs/protocol.md#events).
///
/// Values and velocities are written in fixed point: integers exactly, other numbers below 1e9 in
/// magnitude rounded to nine decimal places (trailing zeros dropped), larger ones in the shortest form
/// that reads back exactly. Formatting a double exactly costs about 100 ns (`Double.description`); the
/// fixed-point digits cost a few, and a nano-unit is far below anything a screen shows.
final class FrameEncoder {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    /// Longest text one number takes (`-2.2250738585072014e-308` is 24 bytes).
    static let maximumNumberLength = 32
    static let fractionDigits = 9
    static let fixedScale = 1e9
    private static let velocityKey = Array(#","velocity":"#.utf8)
    /// The update path's constants, in memory this encoder owns: no lazy-global check or reference
    /// counting per number (they showed in profiles of the frame path).
    private let pairs: UnsafeMutablePointer<UInt8>
    private let velocityKey: UnsafeMutablePointer<UInt8>
    private let velocityKeyLength = FrameEncoder.velocityKey.count

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        pairs = .allocate(capacity: 200)
        pairs.initialize(from: Self.digitPairs, count: 200)
        velocityKey = .allocate(capacity: Self.velocityKey.count)
        velocityKey.initialize(from: Self.velocityKey, count: Self.velocityKey.count)
    }

    deinit {
        storage.deallocate()
        pairs.deallocate()
        velocityKey.deallocate()
    }

    /// The frame written so far (a copy; for tests).
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: count)) }

    /// Lends the frame written so far.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Empties the buffer (for an encoder that holds update lists only).
    func reset() {
        count = 0
    }

    /// Appends bytes written elsewhere (an update list shared by several subscribers).
    func append(raw bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        UnsafeMutableRawPointer(storage + count).copyMemory(from: base, byteCount: bytes.count)
        count += bytes.count
    }

    func begin(subscription: Int, seq: UInt64, time: Double, dropped: Int, present: Double? = nil) {
        count = 0
        append(Self.frameStart)
        appendInteger(UInt64(max(subscription, 0)))
        append(Self.seqKey)
        appendInteger(seq)
        append(Self.timeKey)
        reserve(Self.maximumNumberLength)
        count = Self.writeFixed((time * 1e6).rounded() / 1e6, at: storage + count, pairs: pairs) - storage
        append(Self.droppedKey)
        appendInteger(UInt64(max(dropped, 0)))
        if let present {
            // A display-timed frame: the CLOCK_MONOTONIC time its values are for (docs/protocol.md, display-timed frames).
            append(Self.presentKey)
            reserve(Self.maximumNumberLength)
            count = Self.writeFixed((present * 1e9).rounded() / 1e9, at: storage + count, pairs: pairs) - storage
        }
        append(Self.updatesKey)
    }

    private static let presentKey = Array(#","present":"#.utf8)

    private static let frameStart = Array(#"{"event":"frame","sub":"#.utf8)
    private static let seqKey = Array(#","seq":"#.utf8)
    private static let timeKey = Array(#","t":"#.utf8)
    private static let droppedKey = Array(#","dropped":"#.utf8)
    private static let updatesKey = Array(#","updates":["#.utf8)
    private static let sharedKey = Array(#","shm":"#.utf8)

    private func appendInteger(_ value: UInt64) {
        reserve(20)
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var remaining = value
        var position = storage + count + digits
        repeat {
            position -= 1
            position.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
            remaining /= 10
        } while remaining > 0
        count += digits
    }

    /// Appends one update; `prefix` is the property's pre-encoded `{"runtime":…,"value":` text. With
    /// `owner` (another uid's runtime, seen by an admin or through sharing) the runtime is written
    /// `"<owner>/<name>"`, as that viewer names it.
    func appendUpdate(isFirst: Bool, prefix: UnsafeBufferPointer<UInt8>, values: UnsafeBufferPointer<Double>,
                      velocities: UnsafeBufferPointer<Double>, owner: UInt32? = nil) {
        let keyLength = velocityKeyLength
        reserve(prefix.count + keyLength + 20 + (values.count + velocities.count) * (Self.maximumNumberLength + 1))
        if let owner {
            if !isFirst { count = put(UInt8(ascii: ","), at: storage + count) - storage }
            let opening = PropertyStore.runtimeOpening.count
            append(raw: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(prefix)[..<opening]))
            appendInteger(UInt64(owner))
            count = put(UInt8(ascii: "/"), at: storage + count) - storage
            let rest = UnsafeBufferPointer(rebasing: prefix[opening...])
            appendUpdate(isFirst: true, prefix: rest, values: values, velocities: velocities)
            return
        }
        var cursor = storage + count
        if !isFirst { cursor = put(UInt8(ascii: ","), at: cursor) }
        cursor.update(from: prefix.baseAddress!, count: prefix.count)
        cursor += prefix.count
        cursor = Self.writeVector(values, at: cursor, pairs: pairs)
        cursor.update(from: velocityKey, count: keyLength)
        cursor += keyLength
        cursor = Self.writeVector(velocities, at: cursor, pairs: pairs)
        cursor = put(UInt8(ascii: "}"), at: cursor)
        count = cursor - storage
    }

    /// Appends the update of `handle` as `store` holds it, by this encoder's own number formatting.
    func appendUpdate(of handle: UInt32, in store: PropertyStore, isFirst: Bool, owner: UInt32?, velocityScale: Double = 1) {
        let stored = store.slot(handle), count = Int(store.counts[Int(handle)])
        var scaled = (0.0, 0.0, 0.0, 0.0)
        withUnsafeMutableBytes(of: &scaled) { raw in
            let velocities = raw.baseAddress!.assumingMemoryBound(to: Double.self)
            for component in 0..<count { velocities[component] = stored[PropertyStore.width + component] * velocityScale }
            store.prefix(handle).withUnsafeBufferPointer { prefix in
                appendUpdate(isFirst: isFirst, prefix: prefix, values: UnsafeBufferPointer(start: stored, count: count),
                             velocities: UnsafeBufferPointer(start: velocities, count: count), owner: owner)
            }
        }
    }

    /// `motion_frame_write_updates`'s type (tests pass the loop built for each target).
    typealias UpdateLoop = @convention(c) (UnsafePointer<motion_frame_source>?, UnsafePointer<UInt32>?, Int,
                                           UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?,
                                           UnsafeMutablePointer<Int32>?) -> Int

    /// Appends the updates of `handles` from `source` (those whose count is 0 skipped) with the C loop,
    /// handing it the updates it leaves (a number outside the fixed format) to `special`; returns whether
    /// any was written. `first`: no comma before the first.
    func appendUpdates(_ handles: UnsafeBufferPointer<UInt32>, from source: inout motion_frame_source, first: Bool,
                       loop: UpdateLoop = motion_frame_write_updates,
                       special: (UInt32, _ isFirst: Bool) -> Void) -> Bool {
        guard let base = handles.baseAddress else { return !first }
        var isFirst: Int32 = first ? 1 : 0
        var index = 0
        while index < handles.count {
            // Room for about a hundred more updates of this size, then the loop says when it needs more.
            reserve(64 * 1024)
            var used = count
            index += loop(&source, base + index, handles.count - index, storage, capacity, &used,
                                                &isFirst)
            count = used
            guard index < handles.count else { break }
            let handle = handles[index]
            let room = source.prefix_lengths[Int(handle)] + Int(MOTION_FRAME_UPDATE_ROOM)
            if capacity - count < room {
                reserve(room)
                continue
            }
            special(handle, isFirst != 0)
            isFirst = 0
            index += 1
        }
        return isFirst == 0
    }

    /// Ends a frame whose values are in shared memory: `"shm":<frame>` instead of the updates list.
    func endShared(frame: UInt64) {
        count -= Self.updatesKey.count
        append(Self.sharedKey)
        appendInteger(frame)
        reserve(2)
        var cursor = put(UInt8(ascii: "}"), at: storage + count)
        cursor = put(UInt8(ascii: "\n"), at: cursor)
        count = cursor - storage
    }

    func end() {
        reserve(3)
        var cursor = put(UInt8(ascii: "]"), at: storage + count)
        cursor = put(UInt8(ascii: "}"), at: cursor)
        cursor = put(UInt8(ascii: "\n"), at: cursor)
        count = cursor - storage
    }

    /// `number` in fixed point with at most nine decimals (see the type's comment).
    static func appendFixed(_ number: Double, into bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumNumberLength) { buffer in
            digitPairs.withUnsafeBufferPointer { pairs in
                let end = writeFixed(number, at: buffer.baseAddress!, pairs: pairs.baseAddress!)
                bytes.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: end - buffer.baseAddress!))
            }
        }
    }

    /// Writes `number` at `cursor` (room for `maximumNumberLength` bytes) and returns the end.
    @inline(__always)
    static func writeFixed(_ number: Double, at cursor: UnsafeMutablePointer<UInt8>,
                           pairs: UnsafePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let magnitude = abs(number)
        // Below 999,999,999 the integer part keeps to nine digits even after rounding up.
        guard magnitude < fixedScale - 1 else { return writeExact(number, at: cursor) }
        // Below 1e9 the scaled magnitude stays below 1e18, inside UInt64 and exact to the rounding.
        let fixed = UInt64(magnitude * fixedScale + 0.5)
        var cursor = cursor
        guard fixed != 0 else { return put(UInt8(ascii: "0"), at: cursor) }
        if number < 0 { cursor = put(UInt8(ascii: "-"), at: cursor) }
        // Both halves fit 32 bits: integer < 1e9, fraction < 1e9.
        var integer = UInt32(truncatingIfNeeded: fixed / 1_000_000_000)
        var fraction = UInt32(truncatingIfNeeded: fixed % 1_000_000_000)
        var digits = 1
        var scale: UInt32 = 10
        while integer >= scale, digits < 9 {
            digits += 1
            scale &*= 10
        }
        cursor += digits
        writeDigits(&integer, count: digits, endingAt: cursor, pairs: pairs)
        guard fraction != 0 else { return cursor }
        var fractionLength = fractionDigits
        while fraction % 100 == 0 {
            fraction /= 100
            fractionLength -= 2
        }
        if fraction % 10 == 0 {
            fraction /= 10
            fractionLength -= 1
        }
        cursor = put(UInt8(ascii: "."), at: cursor)
        cursor += fractionLength
        writeDigits(&fraction, count: fractionLength, endingAt: cursor, pairs: pairs)
        return cursor
    }

    /// Writes the last `count` decimal digits of `value` (zero-padded) ending just before `end`, two at a time.
    @inline(__always)
    private static func writeDigits(_ value: inout UInt32, count: Int, endingAt end: UnsafeMutablePointer<UInt8>,
                                    pairs: UnsafePointer<UInt8>) {
        var position = end
        var remaining = count
        while remaining >= 2 {
            let pair = Int(value % 100) &* 2
            value /= 100
            position -= 2
            position[0] = pairs[pair]
            position[1] = pairs[pair &+ 1]
            remaining -= 2
        }
        if remaining == 1 {
            position -= 1
            position.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
        }
    }

    /// "00", "01", … "99".
    private static let digitPairs: [UInt8] = (0..<100).flatMap { [UInt8(ascii: "0") + UInt8($0 / 10), UInt8(ascii: "0") + UInt8($0 % 10)] }

    private static func writeExact(_ number: Double, at cursor: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var text: [UInt8] = []
        JSONWriter.writeNumber(number, into: &text)  // NaN and infinities become null
        let length = min(text.count, maximumNumberLength)
        text.withUnsafeBufferPointer { cursor.update(from: $0.baseAddress!, count: length) }
        return cursor + length
    }

    @inline(__always)
    private static func writeVector(_ vector: UnsafeBufferPointer<Double>, at cursor: UnsafeMutablePointer<UInt8>,
                                    pairs: UnsafePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var cursor = put(UInt8(ascii: "["), at: cursor)
        for index in vector.indices {
            if index > 0 { cursor = put(UInt8(ascii: ","), at: cursor) }
            cursor = writeFixed(vector[index], at: cursor, pairs: pairs)
        }
        return put(UInt8(ascii: "]"), at: cursor)
    }

    private func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(raw: $0) }
    }

    private func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(capacity * 2, count + extra)
        let replacement = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        replacement.update(from: storage, count: count)
        storage.deallocate()
        storage = replacement
        capacity = grown
    }
}

@inline(__always)
private func put(_ byte: UInt8, at cursor: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    cursor.pointee = byte
    return cursor + 1
}
