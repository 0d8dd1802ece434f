public import Distributed

/// The stable names of an actor type's distributed functions: the wire carries these names, not
/// Swift's mangled ones, so a rebuild, a moved file or a renamed parameter label leaves the wire
/// unchanged, and a node that lacks a name answers ``ActorCallError/Code-swift.struct/unknownTarget``.
///
/// Each entry names one function and calls it once on a placeholder reference (its arguments are
/// never sent): the system records which function that was. Declare the table once, generic over
/// the actor type, so the caller (often a `@Resolvable` protocol's `$Stub`) and the implementation
/// register the same names:
///
/// ```swift
/// @Resolvable
/// protocol Greeter: DistributedActor where ActorSystem == ClusterActorSystem {
///     distributed func greet(name: String) -> String
/// }
///
/// extension Greeter {
///     static var callTargets: CallTargets<Self> {
///         CallTargets { targets in
///             targets.call("greeter.greet") { try await $0.greet(name: "") }
///         }
///     }
/// }
///
/// try await system.register($Greeter.callTargets)      // a client
/// try await system.register(GreeterImpl.callTargets)   // the node hosting the implementation
/// ```
///
/// A name is at most 255 UTF-8 bytes. Generic distributed functions are not supported.
public struct CallTargets<Act: DistributedActor>: Sendable where Act.ActorSystem == ClusterActorSystem {
    struct Entry: Sendable {
        let name: String
        let oneWay: Bool
        let probe: @Sendable (Act) async throws -> Void
    }

    var entries: [Entry] = []

    /// An empty table.
    public init() {}

    /// A table filled by `build`.
    public init(_ build: (inout CallTargets) -> Void) {
        build(&self)
    }

    /// Names the distributed function that `probe` calls (once) on the reference it is given.
    public mutating func call(_ name: String, _ probe: @escaping @Sendable (Act) async throws -> Void) {
        entries.append(Entry(name: name, oneWay: false, probe: probe))
    }

    /// Names a `Void` distributed function called one-way: the caller's `await` ends once the
    /// transport took the call, no reply travels back, and what the function throws is counted on
    /// the callee (``ActorSystemMetrics/oneWayFailures``). One-way calls from one member run one
    /// at a time, in the order they arrived.
    public mutating func oneWay(_ name: String, _ probe: @escaping @Sendable (Act) async throws -> Void) {
        entries.append(Entry(name: name, oneWay: true, probe: probe))
    }
}

/// A registered name as the caller side looks it up (by the mangled target identifier).
struct OutboundTarget: Sendable {
    let name: String
    let oneWay: Bool
}

/// A registered name as the callee side looks it up (by name and the actor's concrete type).
struct InboundTarget: Sendable {
    let identifier: String
    let substitutesSelf: Bool
    let argumentCount: Int
    let oneWay: Bool
}

/// Both directions of every registered name.
struct TargetTable: Sendable {
    var outbound: [String: OutboundTarget] = [:]
    var inbound: [String: [ObjectIdentifier: InboundTarget]] = [:]

    /// Adds one probed function; a name or function already registered differently is an error.
    mutating func add(name: String, actorType: ObjectIdentifier, probed: ProbeRecord, oneWay: Bool) throws(ActorCallError) {
        if let existing = outbound[probed.identifier], existing.name != name {
            throw ActorCallError(.unsupported, "\(probed.identifier) is already registered as \(existing.name)")
        }
        if let existing = inbound[name]?[actorType], existing.identifier != probed.identifier {
            throw ActorCallError(.unsupported, "\(name) already names another function of this actor type")
        }
        outbound[probed.identifier] = OutboundTarget(name: name, oneWay: oneWay)
        inbound[name, default: [:]][actorType] = InboundTarget(
            identifier: probed.identifier, substitutesSelf: probed.substitutesSelf, argumentCount: probed.argumentCount,
            oneWay: oneWay)
    }
}

/// What a probe call recorded: the function and the shape of its invocation.
struct ProbeRecord: Sendable {
    let identifier: String
    let substitutesSelf: Bool
    let argumentCount: Int
    let returnsValue: Bool
}
