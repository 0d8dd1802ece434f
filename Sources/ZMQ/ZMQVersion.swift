import CZMQ

/// The version of the libzmq library this process is linked against.
public struct ZMQVersion: Sendable, Equatable, CustomStringConvertible {
    /// The major version (4 for libzmq 4.3.4).
    public let major: Int
    /// The minor version.
    public let minor: Int
    /// The patch level.
    public let patch: Int

    /// Reads the version from the loaded libzmq.
    public static var current: ZMQVersion {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return ZMQVersion(major: Int(major), minor: Int(minor), patch: Int(patch))
    }

    /// `"major.minor.patch"`.
    public var description: String { "\(major).\(minor).\(patch)" }
}
