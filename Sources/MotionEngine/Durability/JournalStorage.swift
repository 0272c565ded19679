import MotionWire

/// Where runtimes' changes are journaled (docs/operations.md#animations-survive-a-restart): the engine hands over lines and asks for them back;
/// the daemon supplies the durable file, tests an in-memory one. Calls come in order from the daemon's save
/// queue, and once from the engine thread at a graceful stop: `append` and `rewrite` must be safe to call
/// from two threads.
package protocol JournalStorage: AnyObject, Sendable {
    /// Appends records durably (written and synced before it returns), or throws `state.write_failed`.
    func append(_ lines: [UInt8]) throws(EngineError)
    /// Replaces the whole journal durably with `lines` (compaction).
    func rewrite(_ lines: [UInt8]) throws(EngineError)
    /// Every record, oldest first; lines that do not read are returned as problems.
    func load() -> (records: [JSONValue], problems: [String])
    /// Every record with its line as written ("\n" included), oldest first: a replay keeps the lines
    /// for the compaction without writing each record again.
    func loadLines() -> (records: [(json: JSONValue, line: [UInt8])], problems: [String])
    /// Bytes in the journal now.
    var size: Int { get }
}

extension JournalStorage {
    package func loadLines() -> (records: [(json: JSONValue, line: [UInt8])], problems: [String]) {
        let (records, problems) = load()
        return (records.map { ($0, WireMessage.line($0)) }, problems)
    }
}

/// One journaled change. `t` is wall-clock seconds (CLOCK_REALTIME).
enum JournalRecord {
    case create(runtime: String, shared: Bool, t: Double)
    /// `instant`: the settings it was added under made it complete at once (reduce motion, speed 0): a
    /// replay completes it at once again, whatever the settings are then, and plays one that did not
    /// (docs/vocabulary.md#speed-and-reduce-motion: what ended at once is not brought back).
    case add(runtime: String, target: String, plan: JSONValue, name: String?, t: Double, instant: InstantMotion = .off)
    case remove(runtime: String, target: String, name: String, t: Double)
    case destroy(runtime: String, t: Double)
    /// A resting runtime's values (compaction): what its earlier records led to.
    case values(runtime: String, values: [(target: String, property: String, value: [Double])], t: Double)
    /// `record` (as written, earlier) was refused when it was applied: no start replays it.
    case refused(record: JSONValue, t: Double)

    var runtime: String {
        switch self {
        case .create(let runtime, _, _), .add(let runtime, _, _, _, _, _), .remove(let runtime, _, _, _),
             .destroy(let runtime, _), .values(let runtime, _, _): runtime
        case .refused(let record, _): record["runtime"]?.stringValue ?? ""
        }
    }

    var time: Double {
        switch self {
        case .create(_, _, let t), .add(_, _, _, _, let t, _), .remove(_, _, _, let t), .destroy(_, let t), .values(_, _, let t),
             .refused(_, let t): t
        }
    }

    var json: JSONValue {
        switch self {
        case .create(let runtime, let shared, let t):
            return ["op": "create", "runtime": .string(runtime), "shared": .bool(shared), "t": .number(t)]
        case .add(let runtime, let target, let plan, let name, let t, let instant):
            var members: [String: JSONValue] = ["op": "add", "runtime": .string(runtime), "target": .string(target), "plan": plan, "t": .number(t)]
            if let name { members["name"] = .string(name) }
            if instant != .off { members["instant"] = .string(instant.rawValue) }
            return .object(members)
        case .remove(let runtime, let target, let name, let t):
            return ["op": "remove", "runtime": .string(runtime), "target": .string(target), "name": .string(name), "t": .number(t)]
        case .destroy(let runtime, let t):
            return ["op": "destroy", "runtime": .string(runtime), "t": .number(t)]
        case .values(let runtime, let values, let t):
            return ["op": "values", "runtime": .string(runtime), "t": .number(t),
                    "values": .array(values.map { [.string($0.target), .string($0.property), JSONValue($0.value)] })]
        case .refused(let record, let t):
            return ["op": "refused", "runtime": .string(runtime), "t": .number(t), "record": record]
        }
    }

    /// One line of the journal file.
    var line: [UInt8] { WireMessage.line(json) }

    init?(_ json: JSONValue) {
        guard let runtime = json["runtime"]?.stringValue, let t = json["t"]?.doubleValue else { return nil }
        switch json["op"]?.stringValue {
        case "create": self = .create(runtime: runtime, shared: json["shared"] == true, t: t)
        case "add":
            guard let target = json["target"]?.stringValue, let plan = json["plan"] else { return nil }
            self = .add(runtime: runtime, target: target, plan: plan, name: json["name"]?.stringValue, t: t,
                        instant: json["instant"]?.stringValue.flatMap(InstantMotion.init(rawValue:)) ?? .off)
        case "remove":
            guard let target = json["target"]?.stringValue, let name = json["name"]?.stringValue else { return nil }
            self = .remove(runtime: runtime, target: target, name: name, t: t)
        case "destroy": self = .destroy(runtime: runtime, t: t)
        case "values":
            var values: [(String, String, [Double])] = []
            for entry in json["values"]?.arrayValue ?? [] {
                guard let parts = entry.arrayValue, parts.count == 3, let target = parts[0].stringValue,
                      let property = parts[1].stringValue, let numbers = parts[2].arrayValue else { return nil }
                values.append((target, property, numbers.compactMap(\.doubleValue)))
            }
            self = .values(runtime: runtime, values: values, t: t)
        case "refused":
            guard let record = json["record"], record["runtime"]?.stringValue == runtime else { return nil }
            self = .refused(record: record, t: t)
        default: return nil
        }
    }
}
