/// The data plane as the node's behavior sees it: what its channels ask of the network, as a
/// struct of closures (a dependency, in the sense of TCA's) so the domain runs without sockets.
///
/// The ZeroMQ runtime provides the live value (`NodeIO.transport`, every closure running on the
/// reactor thread that owns the sockets); tests provide an in-memory one. Routes deliver the
/// messages one read of the network brought, oldest first, on the caller's executor.
struct NodeTransport: Sendable {
    /// Sends one message on the node's publisher.
    var publish: @Sendable (_ topic: String, _ value: String) -> Void
    /// Sends a feed's value and keeps it, to answer late joiners' snapshot requests.
    var publishRetained: @Sendable (_ topic: String, _ value: String) -> Void
    /// Stops answering snapshots of a feed.
    var forgetRetained: @Sendable (_ topic: String) -> Void
    /// Delivers messages matching a pattern from every connected peer; with `snapshot`, asks each
    /// peer for its retained values of the pattern too.
    var addRoute: @Sendable (_ pattern: TopicPattern, _ snapshot: Bool, _ deliver: @escaping @Sendable ([Received]) -> Void) -> RouteID
    var removeRoute: @Sendable (RouteID) -> Void
    /// Connects to a peer's publisher (counted: a second connect of the same endpoint only counts).
    var connect: @Sendable (_ endpoint: String) throws -> Void
    var disconnect: @Sendable (_ endpoint: String) -> Void
    /// Delivers messages matching a pattern from one peer only, over a connection of its own,
    /// with a snapshot of the pattern first.
    var openDedicated:
        @Sendable (
            _ endpoint: String, _ pattern: TopicPattern, _ deliver: @escaping @Sendable ([Received]) -> Void
        ) throws -> RouteID
    var closeDedicated: @Sendable (RouteID) -> Void

    // The membership path (a node with a membership endpoint; see `MembershipHost`).
    /// Sends membership bytes point to point to member `id` (nil: a seed) at `endpoint`, best
    /// effort: dropped, never waited for, when the peer's queue is full.
    var membershipSend: @Sendable (_ id: String?, _ endpoint: String, _ bytes: [UInt8]) -> Void = { _, _, _ in }
    /// Delivers every membership message that arrives, with the member id the transport
    /// authenticated (nil: a plain node, the sender's claim stands); a second call replaces it.
    /// The live transport delivers on the reactor thread, where its sends may be called.
    var membershipReceive: @Sendable (_ deliver: @escaping @Sendable ([UInt8], String?) -> Void) -> Void = { _ in }
    /// Stops delivering membership messages.
    var membershipStop: @Sendable () -> Void = {}
    /// Drops the membership connection to a member declared dead or left.
    var membershipForget: @Sendable (_ id: String) -> Void = { _ in }
    /// Arms the membership's one timer (replacing the previous one) to call `fire` after `delay`
    /// on the thread where the transport runs, with no store cycle. Nil: the host sleeps on the
    /// store's clock in a task and dispatches `membershipTimer` (an in-memory transport on a
    /// `TestClock`).
    var membershipArm: (@Sendable (_ delay: Duration, _ fire: @escaping @Sendable () -> Void) -> Void)? = nil
}
