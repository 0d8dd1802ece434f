/// `$(NAME)` references in `rexnode`'s arguments, expanded from its environment as Kubernetes
/// expands a container's `command` and `args`: `$(NAME)` becomes the value of the variable NAME
/// when it is set, and stays as written when it is not; `$$` is one `$` (so `$$(NAME)` stays
/// `$(NAME)`). Under Kubernetes the kubelet has expanded them already; under a runtime that does
/// not (podman 4.3's `kube play`), the node does it, so one pod spec (`--id $(POD_NAME)`) runs on
/// both. Pure: the environment is given.
enum EnvironmentReferences {
    /// The longest argument expansion may make (a value past it is a usage error, not an
    /// allocation the environment chooses).
    static let maxExpandedBytes = 16 << 10

    /// `arguments` with their references expanded.
    ///
    /// - Throws: `NodeCommand.UsageError` when an argument would grow past ``maxExpandedBytes``.
    static func expand(_ arguments: [String], environment: [String: String]) throws(NodeCommand.UsageError) -> [String] {
        var expanded: [String] = []
        expanded.reserveCapacity(arguments.count)
        for argument in arguments {
            guard argument.contains("$") else {
                expanded.append(argument)
                continue
            }
            expanded.append(try expand(argument, environment: environment))
        }
        return expanded
    }

    private static func expand(_ argument: String, environment: [String: String]) throws(NodeCommand.UsageError) -> String {
        let bytes = Array(argument.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "$"), index + 1 < bytes.count else {
                output.append(byte)
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if next == UInt8(ascii: "$") {
                output.append(byte)
                index += 2
            } else if next == UInt8(ascii: "("), let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: ")")),
                let name = String(validating: bytes[(index + 2)..<close], as: UTF8.self), isName(name), let value = environment[name]
            {
                output += value.utf8
                index = close + 1
            } else {
                output.append(byte)
                index += 1
            }
            guard output.count <= maxExpandedBytes else {
                throw NodeCommand.UsageError(
                    message: "argument '\(argument.prefix(64))' is over \(maxExpandedBytes) bytes once its $(NAME) references are expanded")
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A variable name Kubernetes accepts: letters, digits, `_`, `-` and `.`, not starting with a digit.
    private static func isName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), name.utf8.count <= 256 else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
        }
    }
}
