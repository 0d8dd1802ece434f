/// Why a distributed call failed: a `Codable` description that crosses the wire unchanged.
///
/// A remote function's own thrown error arrives as ``Code-swift.struct/remoteError`` with the
/// error's type name and description; every other code names a failure of the system itself
/// (deadline, membership, limits, hostile or mismatched frames).
///
/// ```swift
/// do { _ = try await greeter.greet(name: "ada") } catch let error as ActorCallError where error.code == .memberDead {
///     // pick another member
/// }
/// ```
public struct ActorCallError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// A failure kind; a struct so kinds can be added without breaking callers' switches.
    public struct Code: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The call's deadline passed before its reply arrived.
        public static let deadlineExceeded = Code(rawValue: "deadline-exceeded")
        /// The membership declared the callee's member dead (before or during the call).
        public static let memberDead = Code(rawValue: "member-dead")
        /// The callee's member left the cluster (before or during the call).
        public static let memberLeft = Code(rawValue: "member-left")
        /// The caller already has the most calls in flight to that member, or the callee does from
        /// that caller.
        public static let tooManyInFlight = Code(rawValue: "too-many-in-flight")
        /// An argument or result is larger than the settings allow.
        public static let argumentTooLarge = Code(rawValue: "argument-too-large")
        /// The whole frame would be larger than the settings allow.
        public static let frameTooLarge = Code(rawValue: "frame-too-large")
        /// The callee has no target under the call's stable name for that actor's type.
        public static let unknownTarget = Code(rawValue: "unknown-target")
        /// The callee hosts no actor with that id (never did, or it was released).
        public static let unknownActor = Code(rawValue: "unknown-actor")
        /// The caller's system has no stable name for the called function: register its
        /// ``CallTargets`` first.
        public static let unregisteredTarget = Code(rawValue: "unregistered-target")
        /// The remote function threw; the message holds its type and description.
        public static let remoteError = Code(rawValue: "remote-error")
        /// Arguments or a result could not be decoded (a signature differs between the two sides).
        public static let decodingFailed = Code(rawValue: "decoding-failed")
        /// The transport refused the frame (its queue is full): try again later.
        public static let transportBusy = Code(rawValue: "transport-busy")
        /// The system was shut down.
        public static let shutDown = Code(rawValue: "shut-down")
        /// The call uses a feature this system does not carry (generic distributed functions).
        public static let unsupported = Code(rawValue: "unsupported")
    }

    /// What failed.
    public let code: Code
    /// A human description: what happened and, where it helps, what to do.
    public let message: String
    /// For ``Code-swift.struct/remoteError``: the thrown error's type, as the callee names it.
    public let errorType: String?

    /// An error of `code` with `message` (and the remote error's type name, if any).
    public init(_ code: Code, _ message: String, errorType: String? = nil) {
        self.code = code
        self.message = message
        self.errorType = errorType
    }

    public var description: String {
        if let errorType { return "\(code): \(errorType): \(message)" }
        return "\(code): \(message)"
    }
}
