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
    /// How many payloads ``deliver(_:)`` took so far.
    distributed func delivered() -> Int
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
