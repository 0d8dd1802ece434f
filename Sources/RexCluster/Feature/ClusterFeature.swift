public import RexControl
public import SwiftRex

/// A feature the cluster's runtime hosts: a SwiftRex behavior, the operator actions it takes
/// (each described once), and who it is.
///
/// The runtime reaches the feature only through this: it runs `behavior` in the node's store,
/// reads, checks, journals and answers operator actions by `operatorActions`, and says
/// `identity` in `ping` and the metrics.
public protocol ClusterFeature {
    associatedtype Action: Sendable
    associatedtype State: Codable & Sendable & Equatable
    associatedtype Environment: Sendable

    /// The feature's name and version, as `ping` and the metrics say them.
    static var identity: FeatureIdentity { get }
    /// The whole behavior: reducer, effects and the channels the state implies.
    static var behavior: Behavior<Action, State, Environment> { get }
    /// Every action an operator may send, described once.
    static var operatorActions: OperatorActionCatalog<Action, State> { get }
}
