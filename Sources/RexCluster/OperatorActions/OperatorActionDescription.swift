public import RexControl

/// One operator action of a feature, described once: its JSON form, who may dispatch it, whether
/// and how the journal keeps it, and what it does to the keys operators own (and so the limit it
/// is admitted against).
///
/// The control endpoint reads and checks an action object through it, admission and the
/// reducer apply its limit, the journal encodes it and the durable fold keeps it by it. Adding
/// an action to a feature is adding a case to its action type and one description.
public struct OperatorActionDescription<Action: Sendable, State>: Sendable {
    /// The action object's `type`.
    public let type: String
    /// Its other members, in order (the order of `make`'s and `values`' arrays, and of the
    /// journal record's strings).
    public let fields: [ActionField]
    /// The least role that may dispatch it on a secured node.
    public let role: OperatorRole
    /// How the journal keeps it; nil: not journaled (it leaves nothing behind to recover).
    public let journal: JournalTags?
    /// What it does to the keys operators own; nil: nothing (it needs no room).
    public let change: KeyChange<State>?
    /// The action from its fields' values (nil for an optional field left out). Its only callers,
    /// the catalog's `read` and `decodeRecords`, give one value per field and a value for every
    /// required one (a required field absent or not a string is refused before), so a `make`
    /// may unwrap a required field's value.
    package let make: @Sendable ([String?]) -> Action
    /// The fields' values of an action of this type; nil for an action of another type.
    let values: @Sendable (Action) -> [String?]?

    /// An action: its JSON form (`type` and `fields`), who may send it, whether and under which tags the journal
    /// keeps it, the key it changes, and how to make it from its fields' values and read them back.
    public init(
        type: String, fields: [ActionField], role: OperatorRole = .admin, journal: JournalTags?, change: KeyChange<State>?,
        make: @escaping @Sendable ([String?]) -> Action, values: @escaping @Sendable (Action) -> [String?]?
    ) {
        self.type = type
        self.fields = fields
        self.role = role
        self.journal = journal
        self.change = change
        self.make = make
        self.values = values
    }

    /// The key `action` (of this type) puts or removes, and where.
    func key(of values: [String?]) -> String? {
        change?.key(of: values)
    }
}

/// What an accepted action does to the keys operators own.
public struct KeyChange<State>: Sendable {
    /// Whether the action puts or removes its key.
    public enum Kind: Sendable, Equatable {
        /// Adds the key, or replaces what it holds: needs room when the key is new.
        case put
        /// Removes the key: frees its room.
        case remove
    }

    /// Puts or removes.
    public let kind: Kind
    /// The resource whose key it changes.
    public let resource: OperatorResource<State>
    /// The fields whose values make the key: one field's value is the key itself; several make
    /// one key of them all (``compositeKey(_:)``), for a resource keyed by a pair (a member of a
    /// room).
    public let keyFields: [Int]

    /// Puts the key in field `keyField` of `resource` (within its limit).
    public static func puts(_ resource: OperatorResource<State>, keyField: Int = 0) -> KeyChange {
        KeyChange(kind: .put, resource: resource, keyFields: [keyField])
    }

    /// Removes the key in field `keyField` of `resource`.
    public static func removes(_ resource: OperatorResource<State>, keyField: Int = 0) -> KeyChange {
        KeyChange(kind: .remove, resource: resource, keyFields: [keyField])
    }

    /// Puts the key made of several fields' values (``compositeKey(_:)``).
    public static func puts(_ resource: OperatorResource<State>, keyFields: [Int]) -> KeyChange {
        KeyChange(kind: .put, resource: resource, keyFields: keyFields)
    }

    /// Removes the key made of several fields' values (``compositeKey(_:)``).
    public static func removes(_ resource: OperatorResource<State>, keyFields: [Int]) -> KeyChange {
        KeyChange(kind: .remove, resource: resource, keyFields: keyFields)
    }

    /// The key of an action whose fields hold `values`; nil when a key field holds none.
    func key(of values: [String?]) -> String? {
        if keyFields.count == 1 { return values[keyFields[0]] }
        var parts: [String] = []
        for field in keyFields {
            guard let value = values[field] else { return nil }
            parts.append(value)
        }
        return Self.compositeKey(parts)
    }

    /// One key of several values, as a resource's `keys` and `contains` must spell it for a
    /// change with several key fields: each value's UTF-8 length, `:`, the value — so that no
    /// two lists of values make the same key.
    public static func compositeKey(_ parts: [String]) -> String {
        parts.map { "\($0.utf8.count):\($0)" }.joined()
    }
}

/// The tag bytes of an action's journal record. Stable across versions: a journal written by one
/// build is read by the next, so a tag is never reused for another action.
public struct JournalTags: Sendable, Equatable {
    /// The record's tag, with every field present (an optional last field left out).
    public let tag: UInt8
    /// For an action whose last field is optional: the tag of a record that carries it.
    public let withOptionalField: UInt8?

    /// The record tag, and the tag of the record that carries the optional last field.
    public init(_ tag: UInt8, withOptionalField: UInt8? = nil) {
        self.tag = tag
        self.withOptionalField = withOptionalField
    }
}
