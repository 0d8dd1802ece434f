import Foundation

/// `rexctl load churn`: a load test of reconcile under follow-topic churn, with leak accounting.
struct LoadCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "load",
        abstract: "Load-test every node of the cluster: churn follow topics and check for leaks.",
        discussion: """
            SCENARIOS:
              churn   Each node follows --follows topics (churn-0, churn-1, ...) of the other
                      nodes' feeds (each node sets --feeds feeds every 100ms) and the follows
                      change topic at --rate changes/s in total for --duration. Requests are
                      pipelined (--in-flight per node) on a deadline schedule.

            Every node's metrics and keep set are sampled twice a second (one progress line
            each). At every sample, channel opens - cancels must equal the live channels of
            the keep set; after the run (every churn follow unfollowed and gone from the keep
            set) fds, open sockets and live channels must return to their starting values
            within 5s. A broken invariant is printed (node, sample, numbers) and exits 1.

            With --sweep the test first runs at each rate for --sweep-duration, then the main
            run; --svg draws reconcile latency against the achieved rate. Here --timeout
            bounds each reply (default: 5s). Exits 0 when every invariant held, 1 when one
            broke, 2 when a node did not answer.
            """,
        arguments: [ArgumentSpec(name: "scenario", help: "The load scenario: churn.")],
        options: [
            .option("--follows", value: "count", help: "Follows per node (default: 100)."),
            .option("--rate", value: "per-second", help: "Target topic changes per second, all nodes together (default: 2000)."),
            .option("--duration", value: "duration", help: "How long the churn lasts (default: 60s)."),
            .option("--feeds", value: "count", help: "Feeds each node publishes (default: 4)."),
            .option("--in-flight", value: "count", help: "Requests in flight per node (default: 32)."),
            .flag("--from-peers", help: "Follow from the publishing peer: one dedicated SUB socket per follow."),
            .option("--result", value: "file", help: "Write the result as JSON (per node and total, samples included)."),
            .option("--sweep", value: "rates", help: "Also run at each of these rates first, e.g. 250,500,1000,2000."),
            .option("--sweep-duration", value: "duration", help: "How long each sweep run lasts (default: 15s)."),
            .option("--svg", value: "file", help: "With --sweep: write the latency-vs-churn-rate chart as SVG."),
        ]
    )

    static let defaultTimeout: Duration = .seconds(5)

    var scenario: String
    var follows = 100
    var rate = 2000.0
    var duration: Duration = .seconds(60)
    var feeds = 4
    var inFlight = 32
    var fromPeers = false
    var resultFile: String?
    var sweep: [Double] = []
    var sweepDuration: Duration = .seconds(15)
    var svgFile: String?

    /// What `--duration` and `--sweep-duration` accept.
    static let durationRange: ClosedRange<Duration> = .milliseconds(1)...(.seconds(3_600))
    /// How many rates `--sweep` may list.
    static let maxSweepRates = 32

    init(_ arguments: ParsedArguments) throws(UsageError) {
        scenario = arguments.argument("scenario") ?? ""
        if let text = arguments.value("--follows") {
            follows = try NumericOption.count(text, option: "--follows", range: 1...10_000)
        }
        if let text = arguments.value("--rate") { rate = try NumericOption.rate(text, option: "--rate") }
        if let text = arguments.value("--duration") {
            duration = try NumericOption.duration(text, option: "--duration", range: LoadCommand.durationRange)
        }
        if let text = arguments.value("--feeds") {
            feeds = try NumericOption.count(text, option: "--feeds", range: 1...1_000)
        }
        if let text = arguments.value("--in-flight") {
            inFlight = try NumericOption.count(text, option: "--in-flight", range: 1...1_000)
        }
        fromPeers = arguments.has("--from-peers")
        resultFile = arguments.value("--result")
        if let text = arguments.value("--sweep") {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count <= LoadCommand.maxSweepRates else {
                throw UsageError("--sweep expects at most \(LoadCommand.maxSweepRates) rates, not \(parts.count)")
            }
            for part in parts { sweep.append(try NumericOption.rate(String(part), option: "--sweep")) }
        }
        if let text = arguments.value("--sweep-duration") {
            sweepDuration = try NumericOption.duration(text, option: "--sweep-duration", range: LoadCommand.durationRange)
        }
        svgFile = arguments.value("--svg")
    }

    func validate(_ globals: GlobalOptions) throws(UsageError) {
        guard scenario == "churn" else { throw UsageError("Unknown load scenario '\(scenario)' (scenarios: churn)") }
        if svgFile != nil && sweep.isEmpty { throw UsageError("--svg needs --sweep (the chart plots the sweep's rates)") }
    }

    func settings(rate: Double, duration: Duration, timeout: Duration) -> ChurnSettings {
        ChurnSettings(
            follows: follows, rate: rate, duration: duration, feeds: feeds, inFlight: inFlight,
            fromPeers: fromPeers, requestTimeout: timeout)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let nodes = try context.clusterNodes().nodes
        guard nodes.count >= 2 else {
            throw UsageError("load churn needs at least 2 nodes (follows subscribe to the other nodes' feeds); found \(nodes.count)")
        }
        if feeds * (nodes.count - 1) < 2 {
            throw UsageError(
                "--feeds \(feeds) with \(nodes.count) nodes leaves one topic to follow: nothing can change (use --feeds 2 or more)")
        }
        let clients = try nodes.map { try context.client(for: $0) }
        let json = context.globals.output == .json
        let progress: any TextOutput = json ? context.stderr : context.stdout
        let timeout = context.globals.timeout ?? LoadCommand.defaultTimeout

        var runs: [(label: String, run: ChurnRunResult)] = []
        let plan =
            sweep.map { (label: "sweep \(ChurnReport.oneDecimal($0))/s", rate: $0, duration: sweepDuration) }
            + [(label: "main", rate: rate, duration: duration)]
        var failed = false
        var last: ChurnDriver?
        for step in plan {
            let settings = settings(rate: step.rate, duration: step.duration, timeout: timeout)
            progress.line(
                "== churn \(step.label): \(nodes.count) nodes × \(follows) follows, target \(ChurnReport.oneDecimal(step.rate)) changes/s "
                    + "for \(DurationParser.format(step.duration))\(fromPeers ? ", follows from peers" : "")")
            let driver = try ChurnDriver(nodes: nodes, clients: clients, settings: settings, progress: progress) { violation in
                context.stderr.escapedLine("FAIL: \(violation)")
            }
            last = driver
            let result = try driver.run()
            runs.append((step.label, result))
            if !json { progress.write("\n" + ChurnReport.tables(result, style: context.style)) }
            if !result.violations.isEmpty {
                failed = true
                break
            }
            progress.line("")
        }
        try? last?.removeFeeds()

        let sweepRuns = runs.filter { $0.label != "main" }.map(\.run)
        let mainRun = runs.first { $0.label == "main" }?.run
        var document: OrderedJSON = [
            "scenario": .encoding("churn"), "nodes": .encoding(nodes.map(\.id)), "ok": .encoding(!failed),
            "violations": .encoding(runs.flatMap { $0.run.violations.map(\.description) }),
        ]
        if !sweep.isEmpty { document.append("sweep", .array(sweepRuns.map { .object(ChurnReport.json($0)) })) }
        if let mainRun { document.append("main", ChurnReport.json(mainRun)) }
        if let resultFile { try LoadCommand.write(document.text + "\n", to: resultFile) }
        if let svgFile, !sweepRuns.isEmpty {
            let points = LoadCommand.chartPoints(sweepRuns)
            let title = "Reconcile latency under churn (\(nodes.count) nodes × \(follows) follows\(fromPeers ? ", from peers" : ""))"
            try LoadCommand.write(LatencyChart.svg(points, title: title, note: LoadCommand.chartNote), to: svgFile)
        }
        if json { context.printJSON(document) }
        if failed {
            throw CommandFailure(
                .failure, "load churn: \(runs.reduce(0) { $0 + $1.run.violations.count }) invariant(s) broken (see FAIL lines above)")
        }
        context.stdout.line("load churn: every invariant held (\(runs.count) run\(runs.count == 1 ? "" : "s"))")
        return .success
    }

    static let chartNote =
        "p50/p99: every node's reconcile cycles during each run (histogram deltas, ≤ 19 % bucket width); "
        + "mean: Δ(build+diff time) / Δcycles."

    static func chartPoints(_ runs: [ChurnRunResult]) -> [LatencyChart.Point] {
        runs.map { run in
            let total = ChurnReport.figures(run).total
            return LatencyChart.Point(rate: total.achieved, p50Ms: total.p50Ms, p99Ms: total.p99Ms, meanMs: total.meanMs)
        }
    }

    static func write(_ text: String, to path: String) throws {
        do {
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw CommandFailure(.failure, "cannot write \(path): \(error.localizedDescription)")
        }
    }
}
