/// The seam between the actor system and whatever carries its frames: one closure out; frames and
/// membership come in through ``ClusterActorSystem/receive(_:from:)`` and
/// ``ClusterActorSystem/memberChanged(_:to:)``.
///
/// ## Implementation requirements
/// - `send` is called from any thread, never while the system holds a lock, and must not block:
///   queue the frame for the member (at most one frame's copy) and return, or return `false` when
///   the queue is full or the member has no route (the call then fails with
///   ``ActorCallError/Code-swift.struct/transportBusy``). Frames to one member arrive in the order
///   sent, or not at all.
/// - A frame to the system's own member (a reference resolved to a local actor through another
///   type) may be handed straight back to ``ClusterActorSystem/receive(_:from:)``.
/// - `receive(_:from:)` must name the member the frame came from as the transport authenticated it
///   (the CURVE/ZAP identity on a secured cluster): every reply and check-in is checked against it.
/// - `memberChanged(_:to:)` reports the membership's verdicts: `.alive` when a member joins or comes
///   back, `.dead`/`.left` when it goes. A member never reported is called optimistically.
///
/// ```swift
/// let system = ClusterActorSystem(node: "n1", transport: ActorTransport { frame, member in
///     reactor.enqueue(frame, to: member)   // returns false when full
/// })
/// reactor.onFrame = { frame, member in system.receive(frame, from: member) }
/// ```
public struct ActorTransport: Sendable {
    /// Queues `frame` for `member`; `false` when it cannot take it now.
    public var send: @Sendable (_ frame: [UInt8], _ member: String) -> Bool

    /// A transport that sends through `send`.
    public init(send: @escaping @Sendable (_ frame: [UInt8], _ member: String) -> Bool) {
        self.send = send
    }
}
