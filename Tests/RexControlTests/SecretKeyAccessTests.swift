import Foundation
import Testing

@testable import RexControl

/// Who may hold a secret key file: the reader's own file that nobody else may access, or a
/// Kubernetes Secret (root's, mode 0440, read through the pod's fsGroup); never one that others
/// may read.
@Suite struct SecretKeyAccessTests {
    /// The node of the image: uid 65532, in group 65532 (its own) and the pod's fsGroup 2000.
    func pod(mode: UInt32, owner: UInt32, group: UInt32) -> SecretKeyAccess {
        SecretKeyAccess(mode: mode, owner: owner, group: group, uid: 65532, groups: [65532, 2000])
    }

    @Test func ownPrivateFilesAreTrustedAndOpenOnesAreNot() {
        for mode: UInt32 in [0o600, 0o400, 0o700] { #expect(pod(mode: mode, owner: 65532, group: 65532).problem == nil, "\(mode)") }
        for mode: UInt32 in [0o640, 0o604, 0o660, 0o644, 0o440, 0o610] {
            #expect(pod(mode: mode, owner: 65532, group: 65532).problem?.hasPrefix("group or others may access it") == true, "\(mode)")
        }
        #expect(pod(mode: 0o600, owner: 1000, group: 1000).problem == "belongs to uid 1000, not to you (uid 65532)")
    }

    @Test func aSecretMountedWithTheFsGroupIsTrusted() {
        #expect(pod(mode: 0o440, owner: 0, group: 2000).problem == nil, "root:fsGroup 0440, what the kubelet mounts")
        #expect(pod(mode: 0o040, owner: 0, group: 65532).problem == nil, "group-read only")
        #expect(pod(mode: 0o444, owner: 0, group: 2000).problem?.hasPrefix("group or others may access it (mode 0444)") == true)
        #expect(pod(mode: 0o644, owner: 0, group: 2000).problem?.hasPrefix("group or others may access it") == true, "Secret's default")
        #expect(pod(mode: 0o460, owner: 0, group: 2000).problem?.hasPrefix("its group may change it") == true)
        #expect(pod(mode: 0o440, owner: 0, group: 3000).problem?.hasPrefix("belongs to root and is not readable through a group") == true)
        #expect(pod(mode: 0o400, owner: 0, group: 2000).problem?.hasPrefix("belongs to root and is not readable through a group") == true)
        #expect(pod(mode: 0o440, owner: 1000, group: 2000).problem == "belongs to uid 1000, not to you (uid 65532)", "only root's")
    }

    /// Root reads any file as its owner would: the group bits never serve it, so a root-owned
    /// 0440 or 0640 key is as open as it looks (0400 or 0600 is what root's own key should be).
    @Test func rootReadsAsTheOwner() {
        let root = { (mode: UInt32, owner: UInt32) in
            SecretKeyAccess(mode: mode, owner: owner, group: 0, uid: 0, groups: [0]).problem
        }
        #expect(root(0o400, 0) == nil && root(0o600, 0) == nil && root(0o600, 65532) == nil)
        #expect(root(0o440, 0)?.hasPrefix("group or others may access it (mode 0440)") == true)
        #expect(root(0o640, 0)?.hasPrefix("group or others may access it") == true)
    }

    @Test func theReaderIsThisProcess() {
        let me = SecretKeyAccess.reader(mode: 0o600, owner: 1, group: 2)
        #expect(me.uid == UInt32(geteuid()) && me.groups.contains(UInt32(getegid())))
    }
}
