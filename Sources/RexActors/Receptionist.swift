public import Distributed

/// Finds actors across the cluster: an actor checks in under a ``ReceptionKey``; any member lists
/// the key's actors as an async sequence that follows check-ins, check-outs, joins and deaths.
///
/// Check-ins travel over the system's transport to every member reported alive, and to a member
/// when it becomes alive; a member declared dead or gone takes its actors out of every listing, and
/// a released actor checks out by itself.
///
/// ```swift
/// system.receptionist.checkIn(greeter, as: .greeters)
/// for await greeters in system.receptionist.listing(of: ReceptionKey<$Greeter>.greeters) {
///     print(greeters.map(\.id))
/// }
/// ```
public struct Receptionist: Sendable {
    let system: ClusterActorSystem

    /// Lists local actor `actor` under `key` here and on every member alive.
    public func checkIn<Act>(_ actor: Act, as key: ReceptionKey<Act>) {
        precondition(actor.id.node == system.node, "only a local actor checks in")
        system.localReception(checkIn: true, key: key.name, id: actor.id)
    }

    /// Removes `actor` from `key` here and on every member alive.
    public func checkOut<Act>(_ actor: Act, from key: ReceptionKey<Act>) {
        precondition(actor.id.node == system.node, "only a local actor checks out")
        system.localReception(checkIn: false, key: key.name, id: actor.id)
    }

    /// The actors under `key`, sorted by id: the current set first, then the set after each change.
    /// Only the newest set waits for a slow reader; the sequence ends when the system shuts down.
    public func listing<Act>(of key: ReceptionKey<Act>) -> ReceptionListing<Act> {
        ReceptionListing(system: system, ids: system.subscribe(to: key.name))
    }
}

/// The actors under one key, as successive snapshots (see ``Receptionist/listing(of:)``).
public struct ReceptionListing<Act: DistributedActor>: AsyncSequence, Sendable where Act.ActorSystem == ClusterActorSystem {
    public typealias Element = [Act]
    let system: ClusterActorSystem
    let ids: AsyncStream<Set<ClusterActorID>>

    /// Iterates the snapshots, resolving ids to references as each arrives.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let system: ClusterActorSystem
        var ids: AsyncStream<Set<ClusterActorID>>.Iterator

        public mutating func next() async -> [Act]? {
            guard let set = await ids.next() else { return nil }
            return set.sorted().compactMap { try? Act.resolve(id: $0, using: system) }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(system: system, ids: ids.makeAsyncIterator())
    }
}

extension ClusterActorSystem {
    /// The receptionist of this system.
    public var receptionist: Receptionist { Receptionist(system: self) }

    func localReception(checkIn: Bool, key: String, id: ClusterActorID) {
        let outcome = state.withLock { state in
            checkIn ? state.reception.checkIn(key, id) : state.reception.checkOut(key, id)
        }
        guard outcome == .changed else { return }
        broadcast(ActorFrame.encodeReception(checkIn: checkIn, key: key, actor: id.number))
        publishListings([key])
    }

    func receiveReception(checkIn: Bool, key: String, id: ClusterActorID) {
        guard id.node != node else {
            count(\.malformedFrames)  // a member speaks only for its own actors: ours never come back
            return
        }
        let outcome = state.withLock { state in
            let outcome = checkIn ? state.reception.checkIn(key, id) : state.reception.checkOut(key, id)
            if outcome == .full { state.metrics.receptionRefused += 1 }
            return outcome
        }
        if outcome == .changed { publishListings([key]) }
    }

    /// Sends `frame` to every member reported alive.
    func broadcast(_ frame: [UInt8]) {
        let members = state.withLock { state in state.calls.statuses.filter { $0.value == .alive }.map(\.key).sorted() }
        for member in members { send(frame, to: member) }
    }

    /// Yields the current set of each key in `keys` to its listings (under the lock, so sets
    /// reach a listing in the order they were made).
    func publishListings(_ keys: [String]) {
        guard !keys.isEmpty else { return }
        state.withLock { state in
            for key in keys {
                let set = state.reception.listings[key] ?? []
                for subscriber in (state.subscribers[key] ?? [:]).values { subscriber.yield(set) }
            }
        }
    }

    func subscribe(to key: String) -> AsyncStream<Set<ClusterActorID>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Set<ClusterActorID>.self, bufferingPolicy: .bufferingNewest(1))
        let subscribed = state.withLock { state -> UInt64? in
            guard !state.isShutDown else { return nil }
            let number = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[key, default: [:]][number] = continuation
            continuation.yield(state.reception.listings[key] ?? [])
            return number
        }
        guard let subscribed else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.subscribers[key]?[subscribed] = nil
                if state.subscribers[key]?.isEmpty == true { state.subscribers[key] = nil }
            }
        }
        return stream
    }
}
