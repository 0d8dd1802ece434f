public import Distributed

/// A typed name actors check in under: the name crosses the wire, the type resolves what a
/// listing yields.
///
/// An implementation and the clients of its `@Resolvable` protocol use keys of the same name and
/// their own types:
///
/// ```swift
/// extension ReceptionKey where Act == GreeterImpl { static var greeters: Self { .init("greeters") } }
/// extension ReceptionKey where Act == $Greeter { static var greeters: Self { .init("greeters") } }
/// ```
public struct ReceptionKey<Act: DistributedActor>: Hashable, Sendable where Act.ActorSystem == ClusterActorSystem {
    /// The key's name (1...255 UTF-8 bytes).
    public let name: String

    /// The key `name`.
    public init(_ name: String) {
        precondition(!name.isEmpty && name.utf8.count <= ActorFrame.maxNameBytes, "a reception key is 1...255 UTF-8 bytes")
        self.name = name
    }
}
