public import RexCluster
public import RexControl

extension ChatFeature {
    /// The room memberships operators make on this node, keyed by room and member. A node holds
    /// at most as many as fit one roster value of the longest names, so that a room's roster
    /// always fits one message (63 with the default limits; raise --max-value-bytes for more).
    static let memberships = OperatorResource<ChatState>(
        noun: "room memberships", verb: "holds", limitFlag: "--max-value-bytes / (--max-name-bytes + 1)",
        limit: { $0.maxValueBytes / ($0.maxNameBytes + 1) }, count: { $0.membershipKeys.count },
        contains: { $0.membershipKeys.contains($1) }, keys: { $0.membershipKeys })

    /// `join` and `leave`, each described once: read, checked, admitted, journaled and folded by
    /// the runtime from this alone. Names are `.topic` fields: bounded, and without NUL (a room
    /// is part of a topic, a member part of a roster value).
    public static let operatorActions = OperatorActionCatalog<ChatAction, ChatState>(
        [
            OperatorActionDescription(
                type: "join", fields: [ActionField("room", .topic), ActionField("member", .topic)], journal: JournalTags(1),
                change: .puts(memberships, keyFields: [0, 1]), make: { .join(room: $0[0]!, member: $0[1]!) },
                values: { if case .join(let room, let member) = $0 { [room, member] } else { nil } }),
            OperatorActionDescription(
                type: "leave", fields: [ActionField("room", .topic), ActionField("member", .topic)], journal: JournalTags(2),
                change: .removes(memberships, keyFields: [0, 1]), make: { .leave(room: $0[0]!, member: $0[1]!) },
                values: { if case .leave(let room, let member) = $0 { [room, member] } else { nil } }),
        ],
        resources: [memberships])
}

extension ChatState {
    /// The key of each local membership, as the catalog's changes spell it.
    var membershipKeys: [String] {
        local.flatMap { room, members in members.map { KeyChange<ChatState>.compositeKey([room, $0]) } }
    }
}
