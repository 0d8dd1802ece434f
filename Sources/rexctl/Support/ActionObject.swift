import RexControl

/// An operator action object as the control protocol carries it: `{"type": …, fields…}`, a
/// field with no value left out. The node reads and checks it by its feature's descriptions.
enum ActionObject {
    static func make(_ type: String, _ fields: KeyValuePairs<String, String?>) -> JSONValue {
        var members: [String: JSONValue] = ["type": .string(type)]
        for (name, value) in fields {
            if let value { members[name] = .string(value) }
        }
        return .object(members)
    }

    // The feeds node's actions the load generator sends.
    static func follow(name: String, topic: String, from: String?) -> JSONValue {
        make("follow", ["name": name, "topic": topic, "from": from])
    }

    static func unfollow(name: String) -> JSONValue { make("unfollow", ["name": name]) }
    static func set(topic: String, value: String) -> JSONValue { make("set", ["topic": topic, "value": value]) }
    static func unset(topic: String) -> JSONValue { make("unset", ["topic": topic]) }
}
