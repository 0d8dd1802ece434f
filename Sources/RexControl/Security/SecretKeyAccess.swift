#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Who may read a file holding a secret key, as the process reading it sees the file: the rule
/// `KeyFile.read` applies, with no I/O (tested on its own).
///
/// Trusted: a file of the reader's own (or any, when the reader is root) that neither group nor
/// others may access (mode 0600 or 0400, as ssh wants a private key); or a file that root owns,
/// that others may not access and the group only read, and that the reader reads through that
/// group — a Kubernetes Secret mounted for a non-root pod (owner root, group the pod's
/// `fsGroup`, mode 0440). Refused: anything others may access, a group that may write, a file
/// another user owns.
struct SecretKeyAccess: Equatable {
    /// The file's permission bits, owner and group (`fstat` of the opened file).
    var mode: UInt32
    var owner: UInt32
    var group: UInt32
    /// The reader: its effective uid, and its effective and supplementary groups.
    var uid: UInt32
    var groups: Set<UInt32>

    /// The reading process's identity, with the file's mode and ownership.
    static func reader(mode: UInt32, owner: UInt32, group: UInt32) -> SecretKeyAccess {
        var groups: Set<UInt32> = [UInt32(getegid())]
        var list = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(list.count), &list)
        if count > 0 { groups.formUnion(list.prefix(Int(count)).map { UInt32($0) }) }
        return SecretKeyAccess(mode: mode, owner: owner, group: group, uid: UInt32(geteuid()), groups: groups)
    }

    /// Why the file may not be trusted with a secret (what to fix, in one clause), or nil.
    var problem: String? {
        let mode = KeyFile.octal(self.mode & 0o7777)
        if self.mode & 0o007 != 0 { return "group or others may access it (mode \(mode))" }
        if owner == uid || uid == 0 {
            return self.mode & 0o070 != 0 ? "group or others may access it (mode \(mode))" : nil
        }
        guard owner == 0 else { return "belongs to uid \(owner), not to you (uid \(uid))" }
        // Root's file, read through its group: a Secret mounted with the pod's fsGroup.
        if self.mode & 0o030 != 0 {
            return "its group may change it (mode \(mode)); a secret owned by root may be group-readable only (0440)"
        }
        guard self.mode & 0o040 != 0, groups.contains(group) else {
            return "belongs to root and is not readable through a group of yours (group \(group), mode \(mode))"
        }
        return nil
    }
}
