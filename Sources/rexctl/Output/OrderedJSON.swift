import RexControl

/// A JSON document of rexctl's own (`nodes -o json`, the load generator's results) whose
/// members stay in the order they are added, unlike the protocol's documents (keys sorted).
///
/// Values are encoded by the protocol's codec, so strings and numbers read exactly as in the
/// node's documents; ``text`` goes through ``TerminalJSON`` like every `-o json` line.
///
/// ```swift
/// var document: OrderedJSON = ["id": .encoding("n1"), "reachable": .encoding(true)]
/// document.append("uptimeMs", 5)
/// document.text   // {"id":"n1","reachable":true,"uptimeMs":5}
/// ```
struct OrderedJSON: Sendable, ExpressibleByDictionaryLiteral {
    /// A member's value: JSON text as the codec wrote it, or a nested ordered object or array.
    enum Value: Sendable {
        case encoded([UInt8])
        case object(OrderedJSON)
        case array([Value])

        /// `value` as the codec writes it (`null` should encoding fail, which only a
        /// non-finite number can make it do).
        static func encoding(_ value: some Encodable) -> Value {
            .encoded((try? ControlCodec.encode(value)) ?? Array("null".utf8))
        }

        /// A number written as given (already formatted, e.g. `10.021`).
        static func number(_ text: String) -> Value { .encoded(Array(text.utf8)) }

        static let null = Value.encoded(Array("null".utf8))

        fileprivate func write(to bytes: inout [UInt8]) {
            switch self {
            case .encoded(let text): bytes += text
            case .object(let object): object.write(to: &bytes)
            case .array(let elements):
                bytes.append(UInt8(ascii: "["))
                for (index, element) in elements.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    element.write(to: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
            }
        }
    }

    private(set) var members: [(key: String, value: Value)] = []

    init() {}

    /// The members in the order written (a dictionary literal keeps it).
    init(dictionaryLiteral members: (String, Value)...) {
        self.members = members.map { (key: $0.0, value: $0.1) }
    }

    mutating func append(_ key: String, _ value: Value) { members.append((key, value)) }

    mutating func append(_ key: String, _ value: some Encodable) { members.append((key, .encoding(value))) }

    mutating func append(_ key: String, _ object: OrderedJSON) { members.append((key, .object(object))) }

    /// The document on one line, as `-o json` prints it.
    var text: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return TerminalJSON.text(bytes)
    }

    fileprivate func write(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Value.encoding(member.key).write(to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            member.value.write(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
