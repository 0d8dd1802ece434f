public import Distributed
public import RexActors

/// An echo service known by its interface only: a client resolves `$Echo` and calls it without
/// linking any implementation (actorbench's `EchoActor` implements it).
@Resolvable
public protocol Echo: DistributedActor where ActorSystem == ClusterActorSystem {
    /// Returns `payload` unchanged (the round-trip benchmark's call).
    distributed func echo(_ payload: [UInt8]) -> [UInt8]
    /// Takes `payload` and returns nothing; called one-way (the pipelined benchmark's call).
    distributed func deliver(_ payload: [UInt8])
    /// How many payloads ``deliver(_:)`` took so far, and the time from the first to the last.
    distributed func delivered() -> DeliveryReport
}

/// What an ``Echo`` received one-way: a count and the monotonic time from the first to the last.
public struct DeliveryReport: Codable, Sendable, Equatable {
    /// Payloads taken.
    public var count: Int
    /// Nanoseconds from the first payload to the last (0 for fewer than two).
    public var firstToLastNanoseconds: UInt64

    /// A report of `count` payloads over `firstToLastNanoseconds`.
    public init(count: Int, firstToLastNanoseconds: UInt64) {
        self.count = count
        self.firstToLastNanoseconds = firstToLastNanoseconds
    }
}

extension Echo {
    /// The stable names of ``Echo``'s functions, for the client (`$Echo.callTargets`) and for every
    /// implementation (`EchoActor.callTargets`).
    public static var callTargets: CallTargets<Self> {
        CallTargets { targets in
            targets.call("echo.echo") { _ = try await $0.echo([]) }
            targets.oneWay("echo.deliver") { try await $0.deliver([]) }
            targets.call("echo.delivered") { _ = try await $0.delivered() }
        }
    }
}

extension ReceptionKey {
    /// The key echo services check in under.
    public static var echoes: Self { Self("echo") }
}
