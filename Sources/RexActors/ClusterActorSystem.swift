public import Distributed
import Synchronization

/// A `DistributedActorSystem` whose actors live on cluster members and talk over an
/// ``ActorTransport``.
///
/// Ids name the member and the actor (``ClusterActorID``). A call travels as one frame under its
/// function's stable name (``CallTargets``), with `Codable` arguments, and its result or thrown
/// error travels back (``ActorCallError``). Every call has a deadline
/// (``ClusterActorSystemSettings/defaultDeadline``, or ``withDeadline(_:operation:)``) measured
/// on the injected clock; calls to a member the membership declared dead or gone fail at once, and
/// calls in flight to it fail when the membership says so. In-flight calls per member, argument and
/// frame sizes are bounded; malformed and forged frames are counted (``metrics``) and dropped.
///
/// ```swift
/// let system = ClusterActorSystem(node: "n1", transport: transport)
/// try await system.register(Greeter.callTargets)
/// let greeter = Greeter(actorSystem: system)
/// system.receptionist.checkIn(greeter, as: .greeters)
/// ```
public final class ClusterActorSystem: DistributedActorSystem, Sendable {
    public typealias ActorID = ClusterActorID
    public typealias InvocationEncoder = ClusterInvocationEncoder
    public typealias InvocationDecoder = ClusterInvocationDecoder
    public typealias ResultHandler = ClusterResultHandler
    public typealias SerializationRequirement = Codable

    /// This member's id: the node part of every local actor's id.
    public let node: String
    /// The limits in force.
    public let settings: ClusterActorSystemSettings
    let transport: ActorTransport
    let sleep: @Sendable (Duration) async throws -> Void
    let state: Mutex<SystemState>
    let targets = Mutex(TargetTable())

    /// The deadline of calls made in this task (see ``withDeadline(_:operation:)``).
    @TaskLocal static var callDeadline: Duration?

    /// A system for member `node` over `transport`, timing deadlines on `clock`.
    public init<C: Clock>(
        node: String,
        transport: ActorTransport,
        settings: ClusterActorSystemSettings = .init(),
        clock: C
    ) where C.Duration == Duration {
        precondition(!node.isEmpty && node.utf8.count <= ActorFrame.maxNameBytes, "a member id is 1...255 UTF-8 bytes")
        self.node = node
        self.transport = transport
        self.settings = settings
        self.sleep = { try await clock.sleep(for: $0) }
        self.state = Mutex(SystemState(callLimit: settings.maxOutboundCallsPerMember))
    }

    /// A system for member `node` over `transport`, timing deadlines on the continuous clock.
    public convenience init(node: String, transport: ActorTransport, settings: ClusterActorSystemSettings = .init()) {
        self.init(node: node, transport: transport, settings: settings, clock: ContinuousClock())
    }

    /// The counters so far.
    public var metrics: ActorSystemMetrics { state.withLock { $0.metrics } }

    /// Runs `operation` with `deadline` for every call it makes (instead of the default).
    public static func withDeadline<T>(_ deadline: Duration, operation: () async throws -> T) async rethrows -> T {
        try await $callDeadline.withValue(deadline, operation: operation)
    }

    // MARK: names

    /// Registers the stable names of `targets` on this system: calls through `Act` references go
    /// out under them, and calls under them run on local actors of type `Act`.
    ///
    /// - Throws: ``ActorCallError`` when a probe makes no distributed call, a one-way function
    ///   returns a value, a name is too long, or a name or function is already registered differently.
    public func register<Act>(_ targets: CallTargets<Act>) async throws {
        for entry in targets.entries {
            guard !entry.name.isEmpty, entry.name.utf8.count <= ActorFrame.maxNameBytes else {
                throw ActorCallError(.unsupported, "a target name is 1...255 UTF-8 bytes: \(entry.name)")
            }
            let recorder = ProbeRecorder()
            let reference = try Act.resolve(id: .probe, using: self)
            do {
                try await ProbeRecorder.$current.withValue(recorder) { try await entry.probe(reference) }
            } catch is ProbeRecorder.Recorded {}
            guard let probed = recorder.recorded.first, recorder.recorded.count == 1 else {
                throw ActorCallError(.unsupported, "the probe of \(entry.name) must make exactly one distributed call")
            }
            if entry.oneWay && probed.returnsValue {
                throw ActorCallError(.unsupported, "\(entry.name) returns a value: a one-way target returns Void")
            }
            try self.targets.withLock { table throws(ActorCallError) in
                try table.add(name: entry.name, actorType: ObjectIdentifier(Act.self), probed: probed, oneWay: entry.oneWay)
            }
        }
    }

    // MARK: DistributedActorSystem

    public func resolve<Act>(id: ClusterActorID, as actorType: Act.Type) throws -> Act?
    where Act: DistributedActor, Act.ID == ClusterActorID {
        guard id.node == node else { return nil }
        // A local actor of another type (a protocol's stub over it) is reached through a loopback proxy.
        return state.withLock { $0.actors[id.number]?.actor } as? Act
    }

    public func assignID<Act>(_ actorType: Act.Type) -> ClusterActorID
    where Act: DistributedActor, Act.ID == ClusterActorID {
        state.withLock { state in
            defer { state.nextActorNumber += 1 }
            return ClusterActorID(node: node, number: state.nextActorNumber)
        }
    }

    public func actorReady<Act>(_ actor: Act) where Act: DistributedActor, Act.ID == ClusterActorID {
        state.withLock { $0.actors[actor.id.number] = WeakActor(actor: actor) }
    }

    public func resignID(_ id: ClusterActorID) {
        let keys = state.withLock { state -> [String] in
            state.actors[id.number] = nil
            return state.reception.removeActor(id)
        }
        for key in keys { broadcast(ActorFrame.encodeReception(checkIn: false, key: key, actor: id.number)) }
        publishListings(keys)
    }

    public func makeInvocationEncoder() -> ClusterInvocationEncoder {
        ClusterInvocationEncoder(maxArgumentBytes: settings.maxArgumentBytes, maxArguments: settings.maxArguments)
    }

    // MARK: lifecycle

    /// Fails every call waiting for a reply with ``ActorCallError/Code-swift.struct/shutDown``, and
    /// every later call too; listings end.
    public func shutdown() {
        let (waiters, subscribers) = state.withLock { state in
            state.isShutDown = true
            return (state.calls.removeAll(), state.subscribers.values.flatMap(\.values))
        }
        for waiter in waiters { waiter.fail(ActorCallError(.shutDown, "the actor system of \(node) shut down")) }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Adds one to a counter.
    func count(_ counter: WritableKeyPath<ActorSystemMetrics, Int>) {
        state.withLock { $0.metrics[keyPath: counter] += 1 }
    }
}

/// A local actor, held weakly: the system never keeps an actor alive.
struct WeakActor {
    weak var actor: (any DistributedActor)?
}

/// A call waiting for its reply: the suspended caller and its deadline timer.
struct CallWaiter {
    let continuation: UnsafeContinuation<CallReply, any Error>
    var timer: Task<Void, Never>?

    func fail(_ error: ActorCallError) {
        timer?.cancel()
        continuation.resume(throwing: error)
    }

    func succeed(_ reply: CallReply) {
        timer?.cancel()
        continuation.resume(returning: reply)
    }
}

/// A received reply's outcome.
enum CallReply: Sendable {
    case value(ArraySlice<UInt8>)
    case void
}

/// Everything the system changes under its lock.
struct SystemState {
    var nextActorNumber: UInt64 = 1
    var actors: [UInt64: WeakActor] = [:]
    var calls: CallLedger<CallWaiter>
    /// Calls from each member running or queued here.
    var inbound: [String: Int] = [:]
    /// One-way calls from each member waiting to run, in arrival order, and whether a task drains them.
    var oneWay: [String: OneWayQueue] = [:]
    var reception = ReceptionistState()
    var subscribers: [String: [UInt64: AsyncStream<Set<ClusterActorID>>.Continuation]] = [:]
    var nextSubscriber: UInt64 = 0
    var metrics = ActorSystemMetrics()
    var isShutDown = false

    init(callLimit: Int) {
        calls = CallLedger(limit: callLimit)
    }
}

/// The one-way calls of one member, run one at a time by one task.
struct OneWayQueue {
    var jobs: [InboundCall] = []
}

/// A received call ready to run: the local actor, the target and the frame's arguments.
struct InboundCall: Sendable {
    let actor: any DistributedActor
    let target: InboundTarget
    let call: ActorFrame.Call
    let caller: String
}
