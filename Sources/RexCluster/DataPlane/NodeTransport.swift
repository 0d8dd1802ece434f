/// The data plane as the node's behavior sees it: what its channels ask of the network, as a
/// struct of closures (a dependency, in the sense of TCA's) so the domain runs without sockets.
///
/// The ZeroMQ runtime provides the live value (`NodeIO.transport`, every closure running on the
/// reactor thread that owns the sockets); tests provide an in-memory one. Routes deliver the
/// messages one read of the network brought, oldest first, on the caller's executor.
package struct NodeTransport: Sendable {
    /// Sends one message on the node's publisher.
    package var publish: @Sendable (_ topic: String, _ value: String) -> Void
    /// Sends a feed's value and keeps it, to answer late joiners' snapshot requests.
    package var publishRetained: @Sendable (_ topic: String, _ value: String) -> Void
    /// Stops answering snapshots of a feed.
    package var forgetRetained: @Sendable (_ topic: String) -> Void
    /// Delivers messages matching a pattern from every connected peer; with `snapshot`, asks each
    /// peer for its retained values of the pattern too.
    package var addRoute:
        @Sendable (_ pattern: TopicPattern, _ snapshot: Bool, _ deliver: @escaping @Sendable ([Received]) -> Void) -> RouteID
    package var removeRoute: @Sendable (RouteID) -> Void
    /// Connects to a peer's publisher (counted: a second connect of the same endpoint only counts).
    package var connect: @Sendable (_ endpoint: String) throws -> Void
    package var disconnect: @Sendable (_ endpoint: String) -> Void
    /// Delivers messages matching a pattern from one peer only, over a connection of its own,
    /// with a snapshot of the pattern first.
    package var openDedicated:
        @Sendable (
            _ endpoint: String, _ pattern: TopicPattern, _ deliver: @escaping @Sendable ([Received]) -> Void
        ) throws -> RouteID
    package var closeDedicated: @Sendable (RouteID) -> Void

    // The membership path (a node with a membership endpoint; see `MembershipHost`).
    /// Sends membership bytes point to point to member `id` (nil: a seed) at `endpoint`, best
    /// effort: dropped, never waited for, when the peer's queue is full.
    package var membershipSend: @Sendable (_ id: String?, _ endpoint: String, _ bytes: [UInt8]) -> Void = { _, _, _ in }
    /// Delivers every membership message that arrives, with the member id the transport
    /// authenticated (nil: a plain node, the sender's claim stands); a second call replaces it.
    /// The live transport delivers on the reactor thread, where its sends may be called.
    package var membershipReceive: @Sendable (_ deliver: @escaping @Sendable ([UInt8], String?) -> Void) -> Void = { _ in }
    /// Stops delivering membership messages.
    package var membershipStop: @Sendable () -> Void = {}
    /// Drops the membership connection to a member declared dead or left.
    package var membershipForget: @Sendable (_ id: String) -> Void = { _ in }
    /// Arms the membership's one timer (replacing the previous one) to call `fire` after `delay`
    /// on the thread where the transport runs, with no store cycle. Nil: the host sleeps on the
    /// store's clock in a task and dispatches `membershipTimer` (an in-memory transport on a
    /// `TestClock`).
    package var membershipArm: (@Sendable (_ delay: Duration, _ fire: @escaping @Sendable () -> Void) -> Void)? = nil
    /// Hands the transport what changes the ids the membership admits (a secured node whose
    /// authority admitted or revoked a member): the transport calls it, on the thread where it
    /// runs, with the ids admitted from then on. A second call replaces it.
    package var membershipAdmissions: @Sendable (_ admit: @escaping @Sendable (Set<String>) -> Void) -> Void = { _ in }
    /// A member is alive or suspect at this publisher endpoint (what a secured transport needs
    /// to know which key to expect there).
    package var membershipLearned: @Sendable (_ id: String, _ pub: String) -> Void = { _, _ in }

    /// The data plane from its operations (every one a closure; the membership path's default
    /// to doing nothing, for a transport without one).
    package init(
        publish: @escaping @Sendable (_ topic: String, _ value: String) -> Void,
        publishRetained: @escaping @Sendable (_ topic: String, _ value: String) -> Void,
        forgetRetained: @escaping @Sendable (_ topic: String) -> Void,
        addRoute:
            @escaping @Sendable (_ pattern: TopicPattern, _ snapshot: Bool, _ deliver: @escaping @Sendable ([Received]) -> Void) ->
            RouteID,
        removeRoute: @escaping @Sendable (RouteID) -> Void,
        connect: @escaping @Sendable (_ endpoint: String) throws -> Void,
        disconnect: @escaping @Sendable (_ endpoint: String) -> Void,
        openDedicated:
            @escaping @Sendable (
                _ endpoint: String, _ pattern: TopicPattern, _ deliver: @escaping @Sendable ([Received]) -> Void
            ) throws -> RouteID,
        closeDedicated: @escaping @Sendable (RouteID) -> Void,
        membershipSend: @escaping @Sendable (_ id: String?, _ endpoint: String, _ bytes: [UInt8]) -> Void = { _, _, _ in },
        membershipReceive: @escaping @Sendable (_ deliver: @escaping @Sendable ([UInt8], String?) -> Void) -> Void = { _ in },
        membershipStop: @escaping @Sendable () -> Void = {},
        membershipForget: @escaping @Sendable (_ id: String) -> Void = { _ in },
        membershipArm: (@Sendable (_ delay: Duration, _ fire: @escaping @Sendable () -> Void) -> Void)? = nil,
        membershipAdmissions: @escaping @Sendable (_ admit: @escaping @Sendable (Set<String>) -> Void) -> Void = { _ in },
        membershipLearned: @escaping @Sendable (_ id: String, _ pub: String) -> Void = { _, _ in }
    ) {
        self.publish = publish
        self.publishRetained = publishRetained
        self.forgetRetained = forgetRetained
        self.addRoute = addRoute
        self.removeRoute = removeRoute
        self.connect = connect
        self.disconnect = disconnect
        self.openDedicated = openDedicated
        self.closeDedicated = closeDedicated
        self.membershipSend = membershipSend
        self.membershipReceive = membershipReceive
        self.membershipStop = membershipStop
        self.membershipForget = membershipForget
        self.membershipArm = membershipArm
        self.membershipAdmissions = membershipAdmissions
        self.membershipLearned = membershipLearned
    }
}
