/// One simulation run: how many nodes, for how long, under which faults, from which seed.
public struct SimulationConfig: Sendable, Equatable {
    /// Everything random in the run follows from it.
    public var seed: UInt64
    public var nodes: Int
    /// Simulated time of workload and faults.
    public var duration: Duration
    /// Simulated time after every fault healed and every node restarted, before the final checks.
    public var settle: Duration
    /// Inject faults (the nemesis); off: a clean run.
    public var faults: Bool
    /// Mean time between two operator actions, cluster-wide.
    public var actionGap: Duration
    /// Between two keep-set samples of each node.
    public var sampleEvery: Duration
    /// Keep the text trace (for `--trace`).
    public var keepTrace: Bool

    public init(
        seed: UInt64, nodes: Int = 5, duration: Duration = .seconds(60), settle: Duration = .seconds(20), faults: Bool = true,
        actionGap: Duration = .milliseconds(100), sampleEvery: Duration = .seconds(1), keepTrace: Bool = false
    ) {
        self.seed = seed
        self.nodes = nodes
        self.duration = duration
        self.settle = settle
        self.faults = faults
        self.actionGap = actionGap
        self.sampleEvery = sampleEvery
        self.keepTrace = keepTrace
    }

    /// The `rexsim` flags that give this run.
    public var commandLine: String {
        var words = ["swift run rexsim --seed \(seed) --nodes \(nodes) --seconds \(seconds(duration))"]
        if settle != .seconds(20) { words.append("--settle \(seconds(settle))") }
        if !faults { words.append("--no-faults") }
        return words.joined(separator: " ")
    }

    private func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        return fraction == 0 ? "\(whole)" : "\(Double(whole) + Double(fraction) * 1e-18)"
    }
}
