/// Who is on the other end of a connection, from SO_PEERCRED at accept time.
package struct PeerCredentials: Sendable, Equatable {
    package var uid: UInt32
    package var gid: UInt32
    package var pid: Int32

    package init(uid: UInt32, gid: UInt32, pid: Int32) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
    }
}

/// A connection's role (docs/protocol.md): admins are root or members of the configured admin group; everyone
/// else who can open the socket (mode 0660) is a client. Admin-only methods check this role.
package enum Role: String, Sendable {
    case admin
    case client
}
