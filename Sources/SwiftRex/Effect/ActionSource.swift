/// Where an action was created: the call site of the factory or `dispatch` that produced it.
///
/// Logging and debugging tools read it to tell where an action came from; the engine never
/// looks at it.
public struct ActionSource: Sendable, Hashable, CustomStringConvertible {
    public let file: String
    public let function: String
    public let line: UInt

    public init(file: String, function: String, line: UInt) {
        self.file = file
        self.function = function
        self.line = line
    }

    public var description: String { "\(file):\(line) \(function)" }
}

/// An action paired with its call-site provenance.
public struct DispatchedAction<Action: Sendable>: Sendable {
    public let action: Action
    public let source: ActionSource

    public init(_ action: Action, source: ActionSource) {
        self.action = action
        self.source = source
    }

    public init(_ action: Action, file: String = #fileID, function: String = #function, line: UInt = #line) {
        self.init(action, source: ActionSource(file: file, function: function, line: line))
    }

    /// The same provenance around a transformed action.
    public func map<Other: Sendable>(_ transform: (Action) -> Other) -> DispatchedAction<Other> {
        DispatchedAction<Other>(transform(action), source: source)
    }
}
