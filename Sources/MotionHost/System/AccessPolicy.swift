import Foundation
import MotionEngine

package struct AccessPolicy: Sendable {
    package struct UnknownGroup: Error, CustomStringConvertible {
        package let name: String
        package var description: String { "adminGroup: there is no group named \"\(name)\"" }
    }

    let adminGroup: UInt32?
    /// The groups a user belongs to; injectable so the policy is testable without real accounts.
    let groupsOfUser: @Sendable (UInt32, UInt32) -> [UInt32]

    package init(adminGroupName: String?) throws {
        if let adminGroupName {
            guard let group = getgrnam(adminGroupName) else { throw UnknownGroup(name: adminGroupName) }
            adminGroup = group.pointee.gr_gid
        } else {
            adminGroup = nil
        }
        groupsOfUser = AccessPolicy.supplementaryGroups
    }

    init(adminGroup: UInt32?, groupsOfUser: @escaping @Sendable (UInt32, UInt32) -> [UInt32]) {
        self.adminGroup = adminGroup
        self.groupsOfUser = groupsOfUser
    }

    package func role(of peer: PeerCredentials?) -> Role {
        guard let peer else { return .client }
        if peer.uid == 0 { return .admin }
        guard let adminGroup else { return .client }
        if peer.gid == adminGroup || groupsOfUser(peer.uid, peer.gid).contains(adminGroup) { return .admin }
        return .client
    }

    /// The user's groups from the group database (getgrouplist), as they were when it connected.
    static func supplementaryGroups(uid: UInt32, gid: UInt32) -> [UInt32] {
        guard let user = getpwuid(uid), let name = user.pointee.pw_name else { return [gid] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, gid, &groups, &count) >= 0 else { return [gid] }
        }
        return Array(groups.prefix(Int(count)))
    }
}
