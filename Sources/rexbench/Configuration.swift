/// What a run measures, from the command line.
///
/// `rexbench` runs the full set (about 2–3 minutes on 2 cores); `--quick` a reduced one
/// (well under 30 s); `--only dispatch|broadcast|reconcile|memory|wake` one section (for profiling).
struct Configuration {
    var dispatchActions = 1_000_000
    var dispatchRuns = 5
    var reconcileKs = [1_000, 10_000, 100_000]
    var reconcileRuns = 5
    /// Channel-cycles per run: a run at K does max(3, min(200, budget / K)) cycles.
    var channelCycleBudget = 200_000
    var memoryK = 100_000
    var memoryRuns = 5
    var wakeCheckpoints = [0, 10_000, 20_000, 30_000]
    var wakeWindow = 1_000
    var wakeRuns = 2
    var sections: Set<Section> = Set(Section.allCases)
    /// Another rexbench binary (an earlier build) whose memory child runs next to this one's.
    var baseline: String?
    var quick = false

    enum Section: String, CaseIterable { case dispatch, broadcast, reconcile, memory, wake }

    static let usage = """
        usage: rexbench [--quick] [--only dispatch|broadcast|reconcile|memory|wake] [--baseline PATH]
          --baseline PATH   an earlier build of rexbench: the memory section measures it in the same run
        """

    init(arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick":
                quick = true
                dispatchActions = 200_000
                dispatchRuns = 3
                reconcileKs = [1_000, 10_000]
                reconcileRuns = 3
                channelCycleBudget = 50_000
                memoryK = 20_000
                memoryRuns = 3
                wakeCheckpoints = [0, 5_000, 10_000]
                wakeWindow = 500
                wakeRuns = 1
            case "--only":
                guard let name = rest.popFirst(), let section = Section(rawValue: name) else {
                    throw ConfigurationError.bad(Self.usage)
                }
                sections = [section]
            case "--baseline":
                guard let path = rest.popFirst(), !path.isEmpty, path.utf8.count <= 4_096 else {
                    throw ConfigurationError.bad(Self.usage)
                }
                baseline = path
            case "-h", "--help":
                throw ConfigurationError.bad(Self.usage)
            default:
                throw ConfigurationError.bad("unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}

enum ConfigurationError: Error {
    case bad(String)
}
