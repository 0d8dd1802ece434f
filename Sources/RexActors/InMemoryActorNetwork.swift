import Synchronization

/// A deterministic network of actor systems in one process, for tests: no sockets, no threads.
///
/// A frame sent on an open link is handed to the receiving system at once, on the sender's thread;
/// a held link queues frames until ``release(to:)``; a cut link drops them. Membership verdicts are
/// told to every other system with ``setStatus(_:_:)``, and any frame can be injected as if a
/// member had sent it (forged or malformed input).
///
/// ```swift
/// let network = InMemoryActorNetwork()
/// let n1 = network.join("n1")
/// let n2 = network.join("n2")     // n1 and n2 are told the other is alive
/// network.hold(to: "n2")          // calls to n2 now stay in flight
/// network.setStatus("n2", .dead)  // … and fail with member-dead
/// ```
public final class InMemoryActorNetwork: Sendable {
    private struct State {
        var systems: [String: ClusterActorSystem] = [:]
        var held: [String: [(frame: [UInt8], from: String)]] = [:]
        var cut: Set<String> = []
        var log: [(from: String, to: String, frame: [UInt8])] = []
        var dropped = 0
    }

    private let state = Mutex(State())

    /// An empty network.
    public init() {}

    /// Creates the system of member `node` on this network and reports it alive to every member
    /// (and every member to it).
    public func join<C: Clock>(
        _ node: String, settings: ClusterActorSystemSettings = .init(), clock: C
    ) -> ClusterActorSystem where C.Duration == Duration {
        let system = ClusterActorSystem(
            node: node, transport: ActorTransport { [weak self] frame, member in self?.send(frame, from: node, to: member) ?? false },
            settings: settings, clock: clock)
        let others = state.withLock { state in
            let others = state.systems.sorted { $0.key < $1.key }.map(\.value)
            state.systems[node] = system
            return others
        }
        for other in others {
            other.memberChanged(node, to: .alive)
            system.memberChanged(other.node, to: .alive)
        }
        return system
    }

    /// ``join(_:settings:clock:)`` on the continuous clock.
    public func join(_ node: String, settings: ClusterActorSystemSettings = .init()) -> ClusterActorSystem {
        join(node, settings: settings, clock: ContinuousClock())
    }

    /// Tells every other member that `node` is now `status`.
    public func setStatus(_ node: String, _ status: ActorMemberStatus) {
        let others = state.withLock { state in state.systems.filter { $0.key != node }.sorted { $0.key < $1.key }.map(\.value) }
        for other in others { other.memberChanged(node, to: status) }
    }

    /// Queues frames to `node` instead of delivering them.
    public func hold(to node: String) {
        state.withLock { state in
            if state.held[node] == nil { state.held[node] = [] }
        }
    }

    /// Delivers the frames queued for `node`, in order, and opens its link again.
    public func release(to node: String) {
        let (frames, system) = state.withLock { state in (state.held.removeValue(forKey: node) ?? [], state.systems[node]) }
        for (frame, from) in frames { system?.receive(frame, from: from) }
    }

    /// Drops every frame to `node` (true) or delivers them again (false).
    public func cut(to node: String, _ isCut: Bool = true) {
        state.withLock { state in
            if isCut { state.cut.insert(node) } else { state.cut.remove(node) }
        }
    }

    /// Hands `frame` to `node`'s system as if `from` had sent it.
    public func inject(_ frame: [UInt8], from: String, to node: String) {
        state.withLock { $0.systems[node] }?.receive(frame, from: from)
    }

    /// The most frames ``sentFrames`` keeps (the oldest go first).
    public static let logCapacity = 4_096

    /// The frames sent so far, in order (held and dropped ones included), at most the last
    /// ``logCapacity``.
    public var sentFrames: [(from: String, to: String, frame: [UInt8])] { state.withLock { $0.log } }

    /// Frames dropped on cut links or to members not on the network.
    public var droppedFrames: Int { state.withLock { $0.dropped } }

    /// Frames waiting on held links.
    public func heldFrames(to node: String) -> Int { state.withLock { $0.held[node]?.count ?? 0 } }

    private func send(_ frame: [UInt8], from: String, to member: String) -> Bool {
        let receiver = state.withLock { state -> ClusterActorSystem? in
            if state.log.count == Self.logCapacity { state.log.removeFirst() }
            state.log.append((from, member, frame))
            guard !state.cut.contains(member), let system = state.systems[member] else {
                state.dropped += 1
                return nil
            }
            if state.held[member] != nil {
                state.held[member]!.append((frame, from))
                return nil
            }
            return system
        }
        receiver?.receive(frame, from: from)
        return true
    }
}
