import Distributed
import RexActors
import Synchronization

/// A remote function's own error, to see it carried back.
struct Refusal: Error, CustomStringConvertible {
    let reason: String
    var description: String { "refused: \(reason)" }
}

struct Point: Codable, Equatable, Sendable {
    var x: Int
    var y: Int
}

/// The actor most tests call.
distributed actor Counter {
    typealias ActorSystem = ClusterActorSystem

    private(set) var total = 0
    private(set) var recorded: [Int] = []
    let gate: Gate?

    init(actorSystem: ClusterActorSystem, gate: Gate? = nil) {
        self.actorSystem = actorSystem
        self.gate = gate
    }

    distributed func add(_ amount: Int) -> Int {
        total += amount
        return total
    }

    distributed func echo(_ bytes: [UInt8]) -> [UInt8] { bytes }

    distributed func mirror(_ point: Point, label: String) -> Point { Point(x: point.y, y: point.x + label.count) }

    distributed func reset() { total = 0 }

    distributed func refuse(_ reason: String) throws -> Int { throw Refusal(reason: reason) }

    distributed func large(_ count: Int) -> [UInt8] { [UInt8](repeating: 7, count: count) }

    /// Waits on the gate (a call that stays running until the test opens it).
    distributed func blocked() async -> Int {
        await gate?.wait()
        return total
    }

    /// Called one-way.
    distributed func record(_ value: Int) throws {
        if value < 0 { throw Refusal(reason: "negative") }
        recorded.append(value)
    }

    distributed func history() -> [Int] { recorded }

    static var callTargets: CallTargets<Counter> {
        CallTargets { targets in
            targets.call("counter.add") { _ = try await $0.add(0) }
            targets.call("counter.echo") { _ = try await $0.echo([]) }
            targets.call("counter.mirror") { _ = try await $0.mirror(Point(x: 0, y: 0), label: "") }
            targets.call("counter.reset") { try await $0.reset() }
            targets.call("counter.refuse") { _ = try await $0.refuse("") }
            targets.call("counter.large") { _ = try await $0.large(0) }
            targets.call("counter.blocked") { _ = try await $0.blocked() }
            targets.oneWay("counter.record") { try await $0.record(0) }
            targets.call("counter.history") { _ = try await $0.history() }
        }
    }
}

/// The same service at a later version: `add` renamed its label, and it is another Swift type.
distributed actor CounterV2 {
    typealias ActorSystem = ClusterActorSystem

    private var total = 100

    distributed func add(by amount: Int) -> Int {
        total += amount
        return total
    }

    static var callTargets: CallTargets<CounterV2> {
        CallTargets { targets in
            targets.call("counter.add") { _ = try await $0.add(by: 0) }
        }
    }
}

/// A version whose `counter.add` takes a string: a signature that no longer matches.
distributed actor CounterV3 {
    typealias ActorSystem = ClusterActorSystem

    distributed func add(_ amount: String) -> Int { amount.count }

    static var callTargets: CallTargets<CounterV3> {
        CallTargets { targets in
            targets.call("counter.add") { _ = try await $0.add("") }
        }
    }
}

/// An actor with a generic distributed function: not supported.
distributed actor Generic {
    typealias ActorSystem = ClusterActorSystem

    distributed func identity<T: Codable & Sendable>(_ value: T) -> T { value }
}

/// A one-shot gate a running call waits on until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>], arrived: Int)>((false, [], 0))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> Bool in
                state.arrived += 1
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
    }

    /// How many calls reached the gate.
    var arrived: Int { state.withLock { $0.arrived } }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Polls `condition` every millisecond of wall time, at most `timeout`: for states reached by tasks
/// the test does not await (a call started in the background reaching the wire).
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// Two members on an in-memory network, n1 calling a `Counter` hosted on n2.
struct Pair {
    let network = InMemoryActorNetwork()
    let clock: TestClockLike
    let n1: ClusterActorSystem
    let n2: ClusterActorSystem
    let counter: Counter
    /// n1's reference to the counter on n2.
    let remote: Counter

    init(client: ClusterActorSystemSettings = .init(), server: ClusterActorSystemSettings = .init(), gate: Gate? = nil) async throws {
        clock = TestClockLike()
        n1 = network.join("n1", settings: client, clock: clock.clock)
        n2 = network.join("n2", settings: server, clock: clock.clock)
        try await n1.register(Counter.callTargets)
        try await n2.register(Counter.callTargets)
        counter = Counter(actorSystem: n2, gate: gate)
        remote = try Counter.resolve(id: counter.id, using: n1)
    }
}
