/// Where an action was created: the call site of the factory or `dispatch` that produced it.
///
/// Logging and debugging tools read it to tell where an action came from; the engine never
/// looks at it.
public struct ActionSource: Sendable, Hashable, CustomStringConvertible {
    /// The file (`#fileID`) of the call site.
    public let file: String
    /// The function of the call site.
    public let function: String
    /// The line of the call site.
    public let line: UInt

    /// A source at `file`, `function` and `line`.
    @inlinable
    public init(file: String, function: String, line: UInt) {
        self.file = file
        self.function = function
        self.line = line
    }

    public var description: String { "\(file):\(line) \(function)" }
}

/// An action paired with its call-site provenance.
public struct DispatchedAction<Action: Sendable>: Sendable {
    /// The action itself.
    public let action: Action
    /// Where it was created.
    public let source: ActionSource

    /// Pairs `action` with a known `source`.
    @inlinable
    public init(_ action: Action, source: ActionSource) {
        self.action = action
        self.source = source
    }

    /// Pairs `action` with the caller's location.
    @inlinable
    public init(_ action: Action, file: String = #fileID, function: String = #function, line: UInt = #line) {
        self.init(action, source: ActionSource(file: file, function: function, line: line))
    }

    /// The same provenance around a transformed action.
    public func map<Other: Sendable>(_ transform: (Action) -> Other) -> DispatchedAction<Other> {
        DispatchedAction<Other>(transform(action), source: source)
    }
}
