/// What one run found: its trace hash (equal runs, equal hash), the checkers' verdicts and the
/// figures of the run.
public struct SimulationReport: Sendable {
    public let config: SimulationConfig
    /// The trace hash (16 hex digits) and how many events it covers.
    public let traceHash: String
    public let events: Int
    /// Every broken promise, by checker; empty: the run passed.
    public let violations: [String]
    /// Figures: simulated seconds, loop steps, faults, actions, deliveries and so on.
    public let figures: [(name: String, value: String)]
    /// The text trace, when kept.
    public let trace: [String]?

    public var passed: Bool { violations.isEmpty }
}
