import RexSimulation

/// `rexsim`'s command line: which seeds, and the run each seed gives.
struct Options {
    var seeds: ClosedRange<UInt64> = 1...1
    var config = SimulationConfig(seed: 1)
    var printTrace = false
    var repeats = 1

    static let usage = """
        usage: rexsim [--seed N | --seeds A..B] [--nodes N] [--seconds S] [--settle S] [--no-faults] [--repeat K] [--trace]

        Runs a whole feeds cluster in one deterministic process (the real stores, feature, SWIM
        membership and journal logic over a simulated network, clock and disk), with faults, and
        checks its history. Same seed and commit, same trace hash. Exit 0: every run passed;
        1: a run failed (its replay command is printed); 64: usage.
          --seed N        one run (default 1)
          --seeds A..B    a batch, one run per seed
          --nodes N       nodes (default 5)
          --seconds S     simulated seconds of workload and faults (default 60)
          --settle S      simulated seconds after every fault healed (default 20)
          --no-faults     no nemesis
          --repeat K      run each seed K times and check they give one trace hash
          --trace         print the run's trace
        """

    /// Reads the arguments (without the program name); throws a usage message.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var index = 0
        func value(_ flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(flag) needs a value") }
            return arguments[index]
        }
        func number(_ flag: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), range.contains(number) else {
                throw UsageError("\(flag) takes \(range.lowerBound)...\(range.upperBound), not \(text)")
            }
            return number
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--seed":
                let text = try value("--seed")
                guard let seed = UInt64(text) else { throw UsageError("--seed takes a whole number, not \(text)") }
                options.seeds = seed...seed
            case "--seeds":
                let text = try value("--seeds")
                let parts = text.split(separator: ".", omittingEmptySubsequences: true)
                guard text.contains(".."), parts.count == 2, let low = UInt64(parts[0]), let high = UInt64(parts[1]), low <= high,
                    high - low < 1_000_000
                else { throw UsageError("--seeds takes A..B (A ≤ B, at most a million seeds), not \(text)") }
                options.seeds = low...high
            case "--nodes": options.config.nodes = try number("--nodes", 2...1000)
            case "--seconds": options.config.duration = .seconds(try number("--seconds", 1...86_400))
            case "--settle": options.config.settle = .seconds(try number("--settle", 1...3600))
            case "--no-faults": options.config.faults = false
            case "--repeat": options.repeats = try number("--repeat", 1...1000)
            case "--trace":
                options.printTrace = true
                options.config.keepTrace = true
            case "--help", "-h": throw UsageError(nil)
            default: throw UsageError("unknown argument \(arguments[index])")
            }
            index += 1
        }
        return options
    }
}

struct UsageError: Error {
    /// nil: help was asked for.
    let message: String?

    init(_ message: String?) { self.message = message }
}
