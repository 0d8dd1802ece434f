public import RexCluster
public import RexControl
public import SwiftRex

/// Chat rooms on a cluster: operators join members to rooms on a node, and every node shows each
/// of its rooms' rosters merged across the cluster.
///
/// Everything the node does on the network is a function of its state, declared in `supervise`:
/// the publisher, the membership, a connection to each live member and, for each room with local
/// members, its roster as a retained value and a follow of every node's roster of that room. A
/// room's last local member leaving ends both (after an empty roster tells the others).
public enum ChatFeature: ClusterFeature {
    public static let identity = FeatureIdentity(name: "chat", version: "1")

    public static func initialState(_ node: NodeStart) -> ChatState {
        ChatState(node: node.id, limits: node.settings.limits)
    }

    /// The journal's joins and leaves (the last per room and member), replayed by the reducer.
    public static func restore(_ accepted: OperatorActionFold<ChatAction, ChatState>, onto initial: ChatState) -> ChatState {
        accepted.actions.reduce(into: initial) { state, action in reduce(action, &state) }
    }

    /// The members by status, for the node's metrics (`rexnode_members`).
    public static func report(_ state: ChatState) -> FeatureReport {
        FeatureReport(peers: Array(state.members.values))
    }

    public static var behavior: Behavior<ChatAction, ChatState, ClusterEnvironment> {
        Behavior<ChatAction, ChatState, ClusterEnvironment>
            .reduce(reduce)
            .produce { action, context in
                switch action {
                case .leave(let room, _) where context.state.local[room] == nil:
                    // Nobody left here: the retained roster goes with its channel, and an empty
                    // one tells the nodes that follow the room to drop this node's.
                    return ClusterChannels.publish(topic: Presence.topic(room: room, node: context.state.node), value: "")
                case .membershipTimer:
                    return ClusterChannels.membershipTick()
                default:
                    return .empty
                }
            }
            // Each group is memoised on what it reads: a roster arriving changes none of them.
            .supervise(on: \.node) { _ in
                Supervision { env in
                    let membership = ClusterChannels.membership(env, report: { .memberChanged($0) }, timer: ChatAction.membershipTimer)
                    return [ClusterChannels.publisher(env)] + (membership.map { [$0] } ?? [])
                }
            }
            .supervise(on: \.connectable) { members in
                Supervision { env in
                    members.sorted { $0.key < $1.key }.map {
                        ClusterChannels.peer(id: "peer[\($0.key)]", member: $0.key, endpoint: $0.value, env)
                    }
                }
            }
            .supervise(on: \.local) { local in
                Supervision { env in
                    local.sorted { $0.key < $1.key }.flatMap { room, members in
                        [
                            ClusterChannels.retained(
                                id: "roster[\(room)]", topic: Presence.topic(room: room, node: env.nodeID), value: Presence.value(members),
                                env),
                            // The topic never changes for a room: nothing to settle.
                            ClusterChannels.follow(id: "room[\(room)]", topic: Presence.everyNode(room: room), settles: false, env) {
                                .rosters(room: room, $0)
                            },
                        ]
                    }
                }
            }
    }

    static func reduce(_ action: ChatAction, _ state: inout ChatState) {
        switch action {
        case .join(let room, let member):
            guard operatorActions.hasRoom(for: action, in: state, limits: state.limits),
                state.local[room]?.contains(member) != true
            else { return }
            state.local[room, default: []].append(member)
            state.local[room]!.sort()
        case .leave(let room, let member):
            state.local[room]?.removeAll { $0 == member }
            if state.local[room]?.isEmpty == true {
                state.local[room] = nil
                // No longer followed: what the others said of it would only go stale.
                state.remote[room] = nil
            }
        case .rosters(let room, let messages):
            // A delivery after the room's follow ended is dropped, and so is a roster that is not
            // its sender's own or comes from a node the membership does not hold alive.
            guard state.local[room] != nil else { return }
            for message in messages where message.topic == Presence.topic(room: room, node: message.sender) {
                guard state.connectable[message.sender] != nil, let members = Presence.members(message.value, limits: state.limits)
                else { continue }
                state.remote[room, default: [:]][message.sender] = members.isEmpty ? nil : members
            }
            if state.remote[room]?.isEmpty == true { state.remote[room] = nil }
        case .memberChanged(let report):
            guard report.id != state.node else { return }
            var peer = Peer(endpoint: report.endpoint)
            peer.status = report.status.peerStatus
            peer.membership = report.status
            peer.incarnation = report.incarnation
            state.members[report.id] = peer
            // Dead or left: its rosters go from every room.
            guard peer.status == .gone else { break }
            for room in state.remote.keys {
                state.remote[room]![report.id] = nil
                if state.remote[room]!.isEmpty { state.remote[room] = nil }
            }
        case .membershipTimer:
            break
        }
        state.rooms = merged(state)
    }

    /// Every local room's roster: its own members and the other nodes', as `member@node`, sorted.
    static func merged(_ state: ChatState) -> [String: [String]] {
        state.local.reduce(into: [:]) { rooms, entry in
            let (room, members) = entry
            var roster = members.map { "\($0)@\(state.node)" }
            for (node, remote) in state.remote[room] ?? [:] { roster += remote.map { "\($0)@\(node)" } }
            rooms[room] = roster.sorted()
        }
    }
}
