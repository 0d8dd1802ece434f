public import RexControl
public import SwiftRex

/// A feature the cluster's runtime hosts: a SwiftRex behavior, the operator actions it takes
/// (each described once), and who it is.
///
/// The runtime reaches the feature only through this. It builds the feature's store on the
/// node's reactor from ``initialState(_:)`` (with what the journal kept folded back in by
/// ``restore(_:onto:)``) and ``environment(_:)``; it reads, checks, journals and answers
/// operator actions by ``operatorActions``; it says ``identity`` in `ping` and the metrics. The
/// feature speaks to the cluster the SwiftRex way: it declares ``ClusterChannels`` in its
/// `supervise` — a publisher, retained values, follows, connections to members, the membership,
/// whose reports arrive as the feature's own actions.
///
/// ```swift
/// enum Chat: ClusterFeature {
///     static let identity = FeatureIdentity(name: "chat", version: "1")
///     static var behavior: Behavior<ChatAction, ChatState, ClusterEnvironment> { … }
///     static let operatorActions = OperatorActionCatalog<ChatAction, ChatState>([…], resources: […])
///     static func initialState(_ node: NodeStart) -> ChatState { ChatState(node: node.id) }
///     static func restore(_ accepted: OperatorActionFold<ChatAction, ChatState>, onto initial: ChatState) -> ChatState { … }
/// }
/// ```
public protocol ClusterFeature: SendableMetatype {
    /// What can happen to the feature: operator actions and what its channels report.
    associatedtype Action: Sendable & Equatable
    /// Everything the feature knows: `state` replies and watches show it as JSON.
    associatedtype State: Codable & Sendable & Equatable
    /// What its behavior's `produce` and `supervise` are given (the node's environment by default).
    associatedtype Environment: Sendable = ClusterEnvironment

    /// The feature's name and version, as `ping` and the metrics say them.
    static var identity: FeatureIdentity { get }
    /// The whole behavior: reducer, effects and the channels the state implies.
    static var behavior: Behavior<Action, State, Environment> { get }
    /// Every action an operator may send, described once.
    static var operatorActions: OperatorActionCatalog<Action, State> { get }

    /// The state of a node starting with nothing recovered: its id, settings and configured
    /// members.
    static func initialState(_ node: NodeStart) -> State
    /// The environment the behavior runs in, from what the node gives every feature.
    static func environment(_ cluster: ClusterEnvironment) -> Environment
    /// The state a restarted node starts from: `initial` with the operator actions its journal
    /// kept (`accepted`: the last per key) applied, within the limits in force now.
    static func restore(_ accepted: OperatorActionFold<Action, State>, onto initial: State) -> State
    /// The state as a `state` reply or watch push shows it `nowMs` after the node started (by
    /// default, unchanged: a feature whose state carries a clock sets it here).
    static func stamped(_ state: State, nowMs: Int) -> State
    /// What the node's metrics read from the state (by default, nothing).
    static func report(_ state: State) -> FeatureReport
    /// The kinds of the feature's channels, for the metrics' per-kind counts (by default none:
    /// only totals).
    static var channelClassifier: ChannelClassifier? { get }

    /// The feature's store. Keep the default: it is compiled where the feature conforms, so the
    /// store's loop is specialised for the feature's types while the runtime stays generic.
    static func makeStore(
        initial: State, environment: Environment, clock: any Clock<Duration>, executor: StoreExecutor, options: StoreOptions
    ) -> Store<Action, State, Environment>
}

extension ClusterFeature where Environment == ClusterEnvironment {
    /// The node's environment as it is.
    public static func environment(_ cluster: ClusterEnvironment) -> ClusterEnvironment { cluster }
}

extension ClusterFeature {
    public static func stamped(_ state: State, nowMs: Int) -> State { state }
    public static func report(_ state: State) -> FeatureReport { FeatureReport() }
    public static var channelClassifier: ChannelClassifier? { nil }

    @inlinable
    public static func makeStore(
        initial: State, environment: Environment, clock: any Clock<Duration>, executor: StoreExecutor, options: StoreOptions
    ) -> Store<Action, State, Environment> {
        Store(initial: initial, behavior: behavior, environment: environment, clock: clock, executor: executor, options: options)
    }
}

/// What a node starting tells its feature's ``ClusterFeature/initialState(_:)``.
public struct NodeStart: Sendable {
    /// The node's id.
    public let id: String
    /// Its settings (limits, feed interval, follow settle).
    public let settings: NodeSettings
    /// The members it was configured with (a cluster file or `--peer`): id → publisher endpoint.
    public let peers: [String: String]

    /// A node's start (tests build one by hand).
    public init(id: String, settings: NodeSettings, peers: [String: String] = [:]) {
        self.id = id
        self.settings = settings
        self.peers = peers
    }
}
