/// The limits and defaults of a ``ClusterActorSystem``; every one bounds memory or time.
public struct ClusterActorSystemSettings: Sendable {
    /// How long a call waits for its reply unless the caller says otherwise (see
    /// ``ClusterActorSystem/withDeadline(_:operation:)``).
    public var defaultDeadline: Duration = .seconds(5)
    /// Calls awaiting a reply from one member at a time; one more fails with
    /// ``ActorCallError/Code-swift.struct/tooManyInFlight``.
    public var maxOutboundCallsPerMember = 1024
    /// Calls from one member executing here at a time (one-way calls queued included); past it a
    /// call is answered with ``ActorCallError/Code-swift.struct/tooManyInFlight`` and a one-way
    /// call is dropped and counted.
    public var maxInboundCallsPerMember = 4096
    /// The largest encoded argument or result.
    public var maxArgumentBytes = 1 << 20
    /// The largest frame sent or accepted (larger received frames are counted and dropped).
    public var maxFrameBytes = 4 << 20
    /// The most arguments of one call.
    public var maxArguments = 32

    /// The defaults: 5 s deadline, 1024 calls out and 4096 in per member, 1 MiB arguments,
    /// 4 MiB frames, 32 arguments.
    public init() {}
}
