import RexControl
import Foundation

/// Parses the actions an operator may dispatch from their JSON form (see docs/protocol.md).
enum OperatorAction {
    static let types = ["set", "unset", "follow", "unfollow", "publish", "addPeer", "removePeer"]

    static func parse(_ object: Any?, limits: NodeLimits = NodeLimits()) throws(ControlError) -> NodeAction {
        guard let fields = object as? [String: Any] else {
            throw ControlError(.badRequest, "'action' must be a JSON object with a 'type'")
        }
        guard let type = fields["type"] as? String else {
            throw ControlError(.badAction, "action: field 'type' must be a string (one of \(types.joined(separator: ", ")))")
        }
        let reader = FieldReader(action: type, fields: fields, limits: limits)
        switch type {
        case "set": return .set(topic: try reader.ownTopic("topic"), value: try reader.value("value"))
        case "unset": return .unset(topic: try reader.topic("topic"))
        case "follow":
            return .follow(name: try reader.name("name"), topic: try reader.topic("topic"), from: try reader.optionalName("from"))
        case "unfollow": return .unfollow(name: try reader.name("name"))
        case "publish": return .publish(topic: try reader.ownTopic("topic"), payload: try reader.value("payload"))
        case "addPeer": return .addPeer(id: try reader.name("id"), endpoint: try reader.endpoint("endpoint"))
        case "removePeer": return .removePeer(id: try reader.name("id"))
        default:
            throw ControlError(.unknownAction, "unknown action type '\(type)' (expected one of \(types.joined(separator: ", ")))")
        }
    }

    /// The JSON form of an operator action (echoed in dispatch replies).
    static func json(_ action: NodeAction) -> [String: Any] {
        switch action {
        case .set(let topic, let value): ["type": "set", "topic": topic, "value": value]
        case .unset(let topic): ["type": "unset", "topic": topic]
        case .follow(let name, let topic, let from):
            from.map { ["type": "follow", "name": name, "topic": topic, "from": $0] } ?? ["type": "follow", "name": name, "topic": topic]
        case .unfollow(let name): ["type": "unfollow", "name": name]
        case .publish(let topic, let payload): ["type": "publish", "topic": topic, "payload": payload]
        case .addPeer(let id, let endpoint): ["type": "addPeer", "id": id, "endpoint": endpoint]
        case .removePeer(let id): ["type": "removePeer", "id": id]
        case .received, .heartbeat, .tick: ["type": "internal"]
        }
    }

    private struct FieldReader {
        let action: String
        let fields: [String: Any]
        let limits: NodeLimits

        func string(_ key: String) throws(ControlError) -> String {
            guard let value = fields[key] else {
                throw ControlError(.badAction, "action '\(action)': missing field '\(key)'")
            }
            guard let text = value as? String else {
                throw ControlError(.badAction, "action '\(action)': field '\(key)' must be a string")
            }
            return text
        }

        func optionalName(_ key: String) throws(ControlError) -> String? {
            guard let value = fields[key], !(value is NSNull) else { return nil }
            guard let text = value as? String else {
                throw ControlError(.badAction, "action '\(action)': field '\(key)' must be a string")
            }
            return text.isEmpty ? nil : try bounded(key, text)
        }

        /// A name, topic or endpoint: non-empty and at most `maxNameBytes`.
        func name(_ key: String) throws(ControlError) -> String {
            let text = try string(key)
            guard !text.isEmpty else { throw ControlError(.badAction, "action '\(action)': field '\(key)' must not be empty") }
            return try bounded(key, text)
        }

        private func bounded(_ key: String, _ text: String) throws(ControlError) -> String {
            guard text.utf8.count <= limits.maxNameBytes else {
                throw ControlError(.tooLarge, "action '\(action)': field '\(key)' has \(text.utf8.count) bytes; at most \(limits.maxNameBytes) are accepted (--max-name-bytes)")
            }
            return text
        }

        /// A value or payload: at most `maxValueBytes`.
        func value(_ key: String) throws(ControlError) -> String {
            let text = try string(key)
            guard text.utf8.count <= limits.maxValueBytes else {
                throw ControlError(.tooLarge, "action '\(action)': field '\(key)' has \(text.utf8.count) bytes; at most \(limits.maxValueBytes) are accepted (--max-value-bytes)")
            }
            return text
        }

        /// A topic this node may publish: not one of the node's own (`$…`).
        func ownTopic(_ key: String) throws(ControlError) -> String {
            let text = try topic(key)
            guard !text.hasPrefix(WireMessage.reservedPrefix) else {
                throw ControlError(.badAction, "action '\(action)': topics starting with '\(WireMessage.reservedPrefix)' are reserved for the nodes (heartbeats, snapshots)")
            }
            return text
        }

        func topic(_ key: String) throws(ControlError) -> String {
            let text = try name(key)
            guard !text.utf8.contains(0) else { throw ControlError(.badAction, "action '\(action)': a topic cannot contain NUL") }
            return text
        }

        func endpoint(_ key: String) throws(ControlError) -> String {
            let text = try name(key)
            guard ["tcp://", "ipc://", "inproc://"].contains(where: { text.hasPrefix($0) }) else {
                throw ControlError(.badAction, "action '\(action)': field '\(key)' must be a ZeroMQ endpoint such as tcp://127.0.0.1:7102")
            }
            return text
        }
    }
}
