@testable import MotionEngine
@testable import MotionHost
import Testing

@Suite("Access policy")
struct AccessPolicyTests {
    let policy = AccessPolicy(adminGroup: 500) { uid, gid in uid == 1001 ? [gid, 500] : [gid] }

    @Test func rootIsAlwaysAdmin() {
        #expect(policy.role(of: PeerCredentials(uid: 0, gid: 0, pid: 1)) == .admin)
        #expect(AccessPolicy(adminGroup: nil) { _, gid in [gid] }.role(of: PeerCredentials(uid: 0, gid: 0, pid: 1)) == .admin)
    }

    @Test func membersOfTheAdminGroupAreAdmins() {
        #expect(policy.role(of: PeerCredentials(uid: 1000, gid: 500, pid: 1)) == .admin)
        #expect(policy.role(of: PeerCredentials(uid: 1001, gid: 100, pid: 1)) == .admin)
    }

    @Test func everyoneElseIsAClient() {
        #expect(policy.role(of: PeerCredentials(uid: 1002, gid: 100, pid: 1)) == .client)
        #expect(AccessPolicy(adminGroup: nil) { _, gid in [gid] }.role(of: PeerCredentials(uid: 1000, gid: 500, pid: 1)) == .client)
        #expect(policy.role(of: nil) == .client)
    }

    @Test func anUnknownGroupNameIsRefused() {
        #expect(throws: AccessPolicy.UnknownGroup.self) { try AccessPolicy(adminGroupName: "no-such-group-motiond") }
    }
}
