public import RexControl

/// Every operator action of a feature, and the keys they own: what the control endpoint,
/// admission, the reducer's limits, the journal and the durable fold all read.
public struct OperatorActionCatalog<Action: Sendable, State>: Sendable {
    /// The actions, in the order messages list them.
    public let actions: [OperatorActionDescription<Action, State>]
    /// The resources the actions' changes name, in the order a restart rebuilds them (a key of
    /// a later resource may refer to one of an earlier: a follow names a peer).
    public let resources: [OperatorResource<State>]
    /// The resource most keys are expected in (a feeds node's follows): a journal's replay
    /// reserves room there at once.
    public let bulkResource: OperatorResource<State>?
    private let indexByType: [String: Int]
    /// A journal tag's action, and whether its record carries the optional last field.
    package let recordByTag: [UInt8: (action: Int, withOptionalField: Bool)]

    /// - Precondition: types and journal tags are unique; only the last field may be optional; a
    ///   journaled action changes a key (the durable fold keeps actions by key) of a listed
    ///   resource, and one with an optional last field has a tag for it.
    public init(
        _ actions: [OperatorActionDescription<Action, State>], resources: [OperatorResource<State>],
        bulkResource: OperatorResource<State>? = nil
    ) {
        var indexByType: [String: Int] = [:]
        var recordByTag: [UInt8: (action: Int, withOptionalField: Bool)] = [:]
        let nouns = resources.map(\.noun)
        precondition(Set(nouns).count == nouns.count, "two resources named alike")
        for (index, action) in actions.enumerated() {
            precondition(indexByType.updateValue(index, forKey: action.type) == nil, "two actions of type \(action.type)")
            precondition(action.fields.dropLast().allSatisfy { !$0.isOptional }, "\(action.type): only the last field may be optional")
            if let change = action.change {
                precondition(nouns.contains(change.resource.noun), "\(action.type): its resource is not listed")
                precondition(!change.keyFields.isEmpty, "\(action.type): no key field")
                for field in change.keyFields {
                    precondition(action.fields.indices.contains(field), "\(action.type): no key field \(field)")
                    precondition(!action.fields[field].isOptional, "\(action.type): an optional key")
                }
            }
            guard let journal = action.journal else { continue }
            precondition(action.change != nil, "\(action.type): journaled, but it changes no key")
            precondition(recordByTag.updateValue((index, false), forKey: journal.tag) == nil, "journal tag \(journal.tag) reused")
            if action.fields.last?.isOptional == true {
                guard let tag = journal.withOptionalField else { preconditionFailure("\(action.type): no tag for its optional field") }
                precondition(recordByTag.updateValue((index, true), forKey: tag) == nil, "journal tag \(tag) reused")
            }
        }
        self.actions = actions
        self.resources = resources
        self.bulkResource = bulkResource
        self.indexByType = indexByType
        self.recordByTag = recordByTag
    }

    /// `set, unset, …`, for messages.
    public var typeList: String { actions.map(\.type).joined(separator: ", ") }

    // MARK: The JSON form

    /// An action object read for its form: which action, and its fields' values, not yet checked
    /// against a node's limits.
    public struct Reading: Sendable {
        /// The action its `type` names.
        public let description: OperatorActionDescription<Action, State>
        /// Each field's value, in the description's order (nil: an optional field absent).
        public let values: [String?]
    }

    /// Reads an action object: its `type` and each field present and a string (unknown members
    /// are ignored; an optional field absent, `null` or `""` is none).
    ///
    /// - Throws: `ControlError`: `badRequest` when it is not an object, `badAction` when its
    ///   `type` or a field is missing or not a string, `unknownAction` (naming every known type)
    ///   for another `type`.
    public func read(_ object: JSONValue) throws(ControlError) -> Reading {
        guard case .object(let members) = object else {
            throw ControlError(.badRequest, "'action' must be a JSON object with a 'type'")
        }
        guard let type = members["type"]?.stringValue else {
            throw ControlError(.badAction, "action: field 'type' must be a string (one of \(typeList))")
        }
        guard let index = indexByType[type] else {
            throw ControlError(.unknownAction, "unknown action type '\(type)' (expected one of \(typeList))")
        }
        let description = actions[index]
        var values: [String?] = []
        values.reserveCapacity(description.fields.count)
        for field in description.fields {
            switch (members[field.name], field.isOptional) {
            case (nil, true), (.null?, true):
                values.append(nil)
            case (nil, false):
                throw ControlError(.badAction, "action '\(type)': missing field '\(field.name)'")
            case (.string(let text)?, let isOptional):
                values.append(isOptional && text.isEmpty ? nil : text)
            case (_?, _):
                throw ControlError(.badAction, "action '\(type)': field '\(field.name)' must be a string")
            }
        }
        return Reading(description: description, values: values)
    }

    /// The action a reading asks for, once every value is within `limits`.
    ///
    /// - Throws: `ControlError` `badAction` or `tooLarge`, naming the action and the field.
    public func action(_ reading: Reading, within limits: NodeLimits) throws(ControlError) -> Action {
        let description = reading.description
        for (field, value) in zip(description.fields, reading.values) {
            guard let value else { continue }
            try field.check(value, action: description.type, limits: limits)
        }
        return description.make(reading.values)
    }

    /// The description of `action` and its fields' values; nil for an action that is not an
    /// operator's (a channel's event).
    public func describe(_ action: Action) -> (description: OperatorActionDescription<Action, State>, values: [String?])? {
        for description in actions {
            if let values = description.values(action) { return (description, values) }
        }
        return nil
    }

    /// `{"type": …, fields…}`, an optional field left out when none; nil for an action that is
    /// not an operator's.
    public func json(_ action: Action) -> JSONValue? {
        guard let (description, values) = describe(action) else { return nil }
        var members: [String: JSONValue] = ["type": .string(description.type)]
        for (field, value) in zip(description.fields, values) {
            if let value { members[field.name] = .string(value) }
        }
        return .object(members)
    }

    // MARK: Limits

    /// The resource and key `action` would add; nil when it adds none (a removal, or an action
    /// that owns no key).
    package func addition(_ action: Action) -> (resource: OperatorResource<State>, key: String)? {
        guard let (description, values) = describe(action), let change = description.change, change.kind == .put,
            let key = change.key(of: values)
        else { return nil }
        return (change.resource, key)
    }

    /// Whether `state` has room for what `action` adds within `limits` (always, for an action
    /// that adds nothing).
    public func hasRoom(for action: Action, in state: State, limits: NodeLimits) -> Bool {
        guard let (resource, key) = addition(action) else { return true }
        return resource.hasRoom(for: key, in: state, limits: limits)
    }

    /// Refuses an action that would add a key past its resource's limit in `state`.
    ///
    /// - Throws: `ControlError` `limitReached`, naming the node, the limit and its flag.
    public func checkRoom(for action: Action, in state: State, limits: NodeLimits, node: String) throws(ControlError) {
        guard let (resource, key) = addition(action), !resource.hasRoom(for: key, in: state, limits: limits) else { return }
        throw resource.limitReached(node: node, limits: limits)
    }

    /// Whether the journal keeps `action`.
    public func isJournaled(_ action: Action) -> Bool {
        describe(action)?.description.journal != nil
    }
}
