/// Builders for the three kinds of line in protocol v1: replies, error replies and events.
public enum WireMessage {
    public static func result(id: JSONValue, _ result: JSONValue) -> JSONValue {
        ["id": id, "result": result]
    }

    public static func error(id: JSONValue, code: ErrorCode, message: String) -> JSONValue {
        error(id: id, code: code.rawValue, message: message)
    }

    public static func error(id: JSONValue, code: String, message: String) -> JSONValue {
        ["id": id, "error": ["code": .string(code), "message": .string(message)]]
    }

    /// The last line a connection receives before the server closes it (docs/protocol.md, Messages):
    /// an `error` event, not a reply.
    public static func closing(code: ErrorCode, message: String) -> [UInt8] {
        line(["event": "error", "error": ["code": .string(code.rawValue), "message": .string(message)]])
    }

    /// One line on the wire: compact JSON and a newline.
    public static func line(_ message: JSONValue) -> [UInt8] {
        var bytes = JSONWriter.bytes(message)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

/// Constants of protocol v1.
public enum WireProtocol {
    public static let version = 1
    /// motiond's release, as `hello` and `status` report it and `--version` prints it.
    public static let softwareVersion = "0.1.0"
    public static let defaultMaximumLineLength = 1 << 20
}

extension WireProtocol {
    /// docs/protocol.md: `$RUNTIME_DIRECTORY/motiond.sock`, else `$XDG_RUNTIME_DIR/motiond.sock`, else
    /// `/run/motiond/motiond.sock`.
    public static func defaultSocketPath(environment: [String: String]) -> String {
        // MOTIOND_SOCKET names the socket outright, for the daemon and every client alike.
        if let socket = environment["MOTIOND_SOCKET"], !socket.isEmpty { return socket }
        if let directory = environment["RUNTIME_DIRECTORY"], !directory.isEmpty {
            // systemd may pass several directories separated by ':'; the first is motiond's.
            return String(directory.split(separator: ":").first ?? Substring(directory)) + "/motiond.sock"
        }
        if let directory = environment["XDG_RUNTIME_DIR"], !directory.isEmpty { return directory + "/motiond.sock" }
        return "/run/motiond/motiond.sock"
    }
}
