import Foundation
import MotionClientC

/// A shared-memory subscriber (docs/clients.md) through libmotion-client, reading every changed value of every
/// announced frame: frames and updates counted in a window of server time, and the reader's own cost
/// per update (the time spent in motion_frames_reader_read, divided by the values it returned).
struct SharedFrameReader {
    struct Result {
        var frames = 0
        var updates = 0
        var times: [Double] = []
        var readNanoseconds = 0.0
        var checksum = 0.0
        var regionBytes = 0
    }

    /// Connects, subscribes with `transport: "shm"`, then reads frames stamped in [start, end].
    static func run(path: String, slots: Int, from start: Double, to end: Double) throws -> Result {
        var error = [CChar](repeating: 0, count: 256)
        guard let client = motion_client_connect(path, &error, error.count) else {
            throw BenchError("shm reader: \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        defer { motion_client_close(client) }
        var sub: Int32 = 0
        var reader: OpaquePointer?
        guard motion_client_subscribe_shm(client, #"{"streams":["frames"],"slots":\#(slots)}"#, &sub, &reader) == 0,
              let reader else { throw BenchError("shm reader: subscribe failed") }
        var result = Result()
        result.regionBytes = Int(motion_frames_reader_header(reader).pointee.total_size)
        // As examples/c_shm_reader.c: 256 values (20 KB) stay in the first-level cache between the copy
        // out and the use (4,096 took 8.3–9.4 ns per update at 40,000 springs, 256 6.9–7.4; BENCHMARKS.md).
        let capacity = 256
        let values = UnsafeMutablePointer<motion_frames_value>.allocate(capacity: capacity)
        defer { values.deallocate() }
        var event = motion_event()
        while motion_client_next_event(client, 5000, &event) == 1 {
            guard event.kind == Int32(MOTION_EVENT_FRAME.rawValue), event.sub == sub else { continue }
            if event.t > end { break }
            var updates = 0, sum = 0.0
            let began = DispatchTime.now().uptimeNanoseconds
            while true {
                let count = motion_frames_reader_read(reader, values, capacity)
                for index in 0..<count { sum += values[index].value.0 }
                updates += count
                if count < capacity { break }
            }
            let spent = Double(DispatchTime.now().uptimeNanoseconds - began)
            guard event.t >= start else { continue }
            result.frames += 1
            result.updates += updates
            result.readNanoseconds += spent
            result.checksum += sum
            result.times.append(event.t)
        }
        return result
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
