import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing

@testable import rexctl

@Suite struct ArgumentParsingTests {
    let scanner = RexCtl.scanner

    @Test func scansSubcommandArgumentsAndGlobalsInAnyPosition() async {
        let scan = scanner.scan(["-o", "json", "keep", "n1", "--watch", "--timeout=5s", "--node", "n1=tcp://h:1"])
        #expect(scan.error == nil)
        #expect(scan.command?.rawValue == "keep")
        #expect(scan.arguments == ParsedArguments(arguments: ["node": ["n1"]], flags: ["--watch"]))
        #expect(
            scan.globals
                == ParsedArguments(values: [
                    "--output": ["json"], "--timeout": ["5s"], "--node": ["n1=tcp://h:1"],
                ]))
    }

    @Test func variadicArgumentsAndDoubleDash() async {
        let scan = scanner.scan(["send", "n1", "set", "--", "-temp", "-5"])
        #expect(scan.error == nil)
        #expect(scan.arguments.arguments == ["node": ["n1"], "action": ["set"], "args": ["-temp", "-5"]])
    }

    @Test func shortOptionWithAttachedValueAndRepeatedOptions() async {
        let scan = scanner.scan(["wait", "n1", "-ojson", "--for", "keep=pub", "--for", "gone=n2"])
        #expect(scan.error == nil)
        #expect(scan.globals.value("--output") == "json")
        #expect(scan.arguments.all("--for") == ["keep=pub", "gone=n2"])
    }

    @Test func helpWinsOverMistakes() async {
        let scan = scanner.scan(["keep", "--bogus", "--help"])
        #expect(scan.helpRequested)
        #expect(scan.command?.rawValue == "keep")
        #expect(await cli(["keep", "--bogus", "--help"]).stdout == RexCtl.help(for: "keep"))
        #expect(await cli(["help", "wait"]).stdout == RexCtl.help(for: "wait"))
        #expect(await cli(["wait", "-h"]).code == 0)
    }

    @Test func globalOptionsAreConverted() async throws {
        let scan = scanner.scan([
            "state", "n1", "--node", "a=tcp://127.0.0.1:1", "--node", "b=ipc:///tmp/b",
            "--node", "a=tcp://127.0.0.1:2", "--timeout", "500ms", "--cluster", "c.json",
        ])
        let globals = try GlobalOptions(scan.globals)
        #expect(globals.nodes == [NodeAddress(id: "b", control: "ipc:///tmp/b"), NodeAddress(id: "a", control: "tcp://127.0.0.1:2")])
        #expect(globals.timeout == .milliseconds(500))
        #expect(globals.requestTimeout == .milliseconds(500))
        #expect(globals.clusterFile == "c.json")
        #expect(globals.output == .table)
        #expect(GlobalOptions().requestTimeout == .seconds(2))
    }

    /// Every usage error: exit 64, `Error: …` and the usage hint on stderr, nothing on stdout.
    @Test(
        arguments: [
            (
                "",
                "Error: Missing subcommand (one of: nodes, send, keep, state, metrics, top, describe, wait, load, keygen, authority, admit, revoke, operators)",
                nil
            ),
            (
                "frobnicate",
                "Error: Unknown subcommand 'frobnicate' (subcommands: nodes, send, keep, state, metrics, top, describe, wait, load, keygen, authority, admit, revoke, operators)",
                nil
            ),
            (
                "help frobnicate",
                "Error: Unknown subcommand 'frobnicate' (subcommands: nodes, send, keep, state, metrics, top, describe, wait, load, keygen, authority, admit, revoke, operators)",
                nil
            ),
            (
                "frobnicate --help",
                "Error: Unknown subcommand 'frobnicate' (subcommands: nodes, send, keep, state, metrics, top, describe, wait, load, keygen, authority, admit, revoke, operators)",
                nil
            ),
            ("state", "Error: Missing expected argument '<node>'", "state"),
            ("state n1 extra", "Error: Unexpected argument 'extra'", "state"),
            ("describe n1", "Error: Missing expected argument '<channel>'", "describe"),
            ("keep", "Error: Missing expected argument '<node>' (or --all)", "keep"),
            ("keep n1 --all", "Error: give either a node or --all, not both", "keep"),
            ("keep n1 --bogus", "Error: Unknown option '--bogus'", "keep"),
            ("--all keep", "Error: Unknown option '--all'", "keep"),
            ("keep n1 --all=yes", "Error: Option '--all' does not take a value", "keep"),
            ("state n1 --timeout", "Error: Missing value for '--timeout <duration>'", "state"),
            ("state n1 --timeout 2", "Error: --timeout expects a duration from 1ms to 24h, such as 500ms, 2s or 1m, not '2'", "state"),
            ("state n1 --timeout 0s", "Error: --timeout expects a duration from 1ms to 24h, such as 500ms, 2s or 1m, not '0s'", "state"),
            (
                "state n1 --timeout soon", "Error: --timeout expects a duration from 1ms to 24h, such as 500ms, 2s or 1m, not 'soon'",
                "state"
            ),
            ("state n1 -o yaml", "Error: -o expects 'table' or 'json', not 'yaml'", "state"),
            ("state n1 --node n1", "Error: --node expects ID=ENDPOINT, e.g. n1=tcp://127.0.0.1:7201, not 'n1'", "state"),
            (
                "state n1 --node n1=localhost", "Error: --node expects ID=ENDPOINT, e.g. n1=tcp://127.0.0.1:7201, not 'n1=localhost'",
                "state"
            ),
            ("send n1", "Error: Missing expected argument '<action>' (or --json)", "send"),
            (
                "send n1 explode now",
                "Error: unknown action 'explode' — use one of follow, unfollow, set, unset, publish, add-peer, remove-peer, or --json",
                "send"
            ),
            ("send n1 set eu.prices", "Error: 'set' expects TOPIC VALUE (2 arguments, got 1)", "send"),
            ("send n1 unset a b", "Error: 'unset' expects TOPIC (1 argument, got 2)", "send"),
            ("send n1 set a 1 --from n2", "Error: --from goes with 'follow', not with 'set'", "send"),
            ("send n1 set a 1 --count 0", "Error: --count expects a whole number from 1 to 10000000, not '0'", "send"),
            (
                "send n1 set a 1 --count 2 --rate fast",
                "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not 'fast'", "send"
            ),
            ("send n1 set --json {}", "Error: give either an action or --json, not both; nothing was sent", "send"),
            ("wait n1", "Error: Missing expected option '--for <condition>'", "wait"),
            ("wait n1 --for ready", "Error: --for expects keep=ID, gone=ID or state=PATH=VALUE, not 'ready'", "wait"),
            ("wait n1 --for state=a.b", "Error: --for expects keep=ID, gone=ID or state=PATH=VALUE, not 'state=a.b'", "wait"),
            ("wait n1 --for keep=", "Error: --for expects keep=ID, gone=ID or state=PATH=VALUE, not 'keep='", "wait"),
        ] as [(String, String, String?)])
    func usageErrorsExit64(line: String, message: String, command: String?) async {
        let result = await cli(line)
        #expect(result.code == 64, "\(result)")
        #expect(result.stdout == "")
        let hint =
            command.map { name in
                "Usage: \(HelpFormatter.usage(for: RexCtl.commands.first { $0.spec.name == name }!.spec))\n  See 'rexctl \(name) --help' for more information.\n"
            }
            ?? "Usage: rexctl <subcommand> [<arguments>] [<global options>]\n  See 'rexctl --help' for more information.\n"
        #expect(result.stderr == message + "\n" + hint)
    }

    @Test func malformedJSONIsAUsageError() async {
        for json in ["{bad", "[1,2]", #"{"topic":"a"}"#, #""set""#, #"{"type":"set"} x"#] {
            let result = await cli(["send", "n1", "--json", json, "--node", "n1=tcp://127.0.0.1:1"])
            #expect(result.code == 64, "\(json): \(result)")
            #expect(result.stderr.contains("nothing was sent"), "\(json): \(result)")
        }
    }

    @Test func unknownNodeListsTheKnownOnes() async throws {
        let result = await cli("state n9 --node n1=tcp://127.0.0.1:1 --node n2=tcp://127.0.0.1:2")
        #expect(result.code == 64)
        #expect(result.stderr.hasPrefix("Error: unknown node 'n9' — known nodes: n1, n2 (from --node)\nUsage: rexctl state"))

        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try directory.write(
            ".deploy/cluster.json", #"{"nodes": [{"id": "a", "pub": "tcp://127.0.0.1:7101", "control": "tcp://127.0.0.1:7201"}]}"#)
        let environment = RexCtlEnvironment(variables: [:], currentDirectory: directory.path)
        let fromFile = await cli("keep zz", environment: environment)
        #expect(fromFile.code == 64)
        #expect(fromFile.stderr.hasPrefix("Error: unknown node 'zz' — known nodes: a (from \(directory.path)/.deploy/cluster.json)"))
    }

    @Test func missingClusterFileSaysWhatToDo() async {
        let result = await cli("state n1")
        #expect(result.code == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: cannot use cluster file /nonexistent-rexctl-test/.deploy/cluster.json: "
                    + "it does not exist or cannot be read — pass --cluster FILE, set REXCTL_CLUSTER, or address a node with --node ID=ENDPOINT\n"
            ))
    }

    @Test func clusterFileFromEnvironmentFlagAndOverrides() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try directory.write(
            "c.json",
            """
            {"nodes": [{"id": "n1", "pub": "tcp://127.0.0.1:7101", "control": "tcp://127.0.0.1:7201"},
                       {"id": "n2", "control": "tcp://127.0.0.1:7202"}]}
            """)
        try directory.write("bad.json", #"{"nodes": [{"id": "n1"}]}"#)
        func context(_ arguments: [String], _ variables: [String: String] = [:]) throws -> CommandContext {
            let globals = try GlobalOptions(RexCtl.scanner.scan(["nodes"] + arguments).globals)
            return CommandContext(
                globals: globals, stdout: BufferOutput(), stderr: BufferOutput(),
                environment: RexCtlEnvironment(variables: variables, currentDirectory: directory.path))
        }
        let fromEnvironment = try context([], ["REXCTL_CLUSTER": directory.path + "/c.json"]).clusterNodes()
        #expect(fromEnvironment.nodes.map(\.id) == ["n1", "n2"])
        #expect(fromEnvironment.nodes[0].pub == "tcp://127.0.0.1:7101")
        #expect(fromEnvironment.nodes[1].pub == nil)

        let overridden = try context(["--cluster", directory.path + "/c.json", "--node", "n2=tcp://h:9", "--node", "n3=tcp://h:8"])
            .clusterNodes().nodes
        #expect(overridden.map(\.control) == ["tcp://127.0.0.1:7201", "tcp://h:9", "tcp://h:8"])

        let onlyFlags = try context(["--node", "x=tcp://h:1"], ["REXCTL_CLUSTER": directory.path + "/c.json"]).clusterNodes()
        #expect(onlyFlags.nodes.map(\.id) == ["x"])

        #expect(throws: UsageError.self) { try context(["--cluster", directory.path + "/bad.json"]).clusterNodes() }
    }

    /// The cluster file is RexControl's (its parsing is tested there); a bad one is a usage error.
    @Test func badClusterFileSaysWhatIsWrong() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try directory.write("dup.json", #"{"nodes": [{"id": "n1", "control": "tcp://a:1"}, {"id": "n1", "control": "tcp://a:2"}]}"#)
        let result = await cli(["state", "n1", "--cluster", directory.path + "/dup.json"])
        #expect(result.code == 64)
        #expect(
            result.stderr.hasPrefix("Error: cannot use cluster file \(directory.path)/dup.json: node id n1 appears twice — "), "\(result)")
    }

    @Test func sendBuildsActionsFromFriendlyForms() async throws {
        // What the node makes of the object the friendly form builds: the forms agree with the
        // feeds node's descriptions of its actions.
        func action(_ line: String) throws -> NodeAction {
            let scan = RexCtl.scanner.scan(["send", "n1"] + line.split(separator: " ").map(String.init))
            #expect(scan.error == nil)
            let object = try SendCommand(scan.arguments).action(repetition: 7)
            let catalog = NodeFeature.operatorActions
            return try catalog.action(try catalog.read(object), within: NodeLimits())
        }
        #expect(try action("follow prices eu.prices") == .follow(name: "prices", topic: "eu.prices", from: nil))
        #expect(try action("follow prices eu.* --from n2") == .follow(name: "prices", topic: "eu.*", from: "n2"))
        #expect(try action("unfollow prices") == .unfollow(name: "prices"))
        #expect(try action("set eu.prices 42") == .set(topic: "eu.prices", value: "42"))
        #expect(try action("set eu.prices v{i}") == .set(topic: "eu.prices", value: "v7"))
        #expect(try action("unset eu.prices") == .unset(topic: "eu.prices"))
        #expect(try action("publish news hello") == .publish(topic: "news", payload: "hello"))
        #expect(try action("add-peer n2 tcp://127.0.0.1:7102") == .addPeer(id: "n2", endpoint: "tcp://127.0.0.1:7102"))
        #expect(try action("addPeer n2 tcp://127.0.0.1:7102") == .addPeer(id: "n2", endpoint: "tcp://127.0.0.1:7102"))
        #expect(try action("remove-peer n2") == .removePeer(id: "n2"))
        let raw = RexCtl.scanner.scan(["send", "n1", "--json", #"{"type": "set", "topic": "a", "value": "{i}"}"#])
        let fields: [String: JSONValue] = ["type": .string("set"), "topic": .string("a")]
        #expect(try SendCommand(raw.arguments).action(repetition: 3) == (.object(fields.merging(["value": .string("3")]) { $1 })))
        #expect(try SendCommand(raw.arguments).action(repetition: nil) == (.object(fields.merging(["value": .string("{i}")]) { $1 })))
    }

    @Test func sendRateAcceptsPerSecondSuffix() async throws {
        let scan = RexCtl.scanner.scan(["send", "n1", "set", "a", "1", "--count", "5", "--rate", "100/s"])
        let command = try SendCommand(scan.arguments)
        #expect(command.count == 5)
        #expect(command.rate == 100)
    }

    @Test func waitConditions() async throws {
        #expect(try WaitCommand.Condition("keep=follow[prices]") == .keep("follow[prices]"))
        #expect(try WaitCommand.Condition("gone=n2") == .gone("n2"))
        #expect(try WaitCommand.Condition("state=follows.prices.lastValue=4=2") == .state(path: "follows.prices.lastValue", value: "4=2"))
        #expect(try WaitCommand.Condition("state=a=") == .state(path: "a", value: ""))
        #expect(throws: UsageError.self) { try WaitCommand.Condition("state==1") }
        #expect(throws: UsageError.self) { try WaitCommand.Condition("live=pub") }
    }

    @Test func dottedPathsIntoState() async throws {
        let state = try document(
            JSONValue.self,
            """
            {"feeds": {"eu.prices": {"value": "42"}, "eu": {"prices": {"value": "shadow"}}},
             "follows": {"prices": {"lastValue": "42", "count": 3, "from": null}},
             "list": [{"a": true}], "nowMs": 5100}
            """)
        #expect(WaitCommand.lookup("follows.prices.lastValue", in: state) == .string("42"))
        #expect(WaitCommand.lookup("feeds.eu.prices.value", in: state) == .string("42"))
        #expect(WaitCommand.lookup("list.0.a", in: state) == .bool(true))
        #expect(WaitCommand.lookup("list.1.a", in: state) == nil)
        #expect(WaitCommand.lookup("follows.nope", in: state) == nil)
        #expect(WaitCommand.matches(.number(3), "3"))
        #expect(WaitCommand.matches(.number(3), "3.0"))
        #expect(WaitCommand.matches(.null, "null"))
        #expect(!WaitCommand.matches(.string("42"), "43"))
        let condition = WaitCommand.Condition.state(path: "follows.prices.count", value: "4")
        #expect(condition.evaluate(.init(keep: nil, state: nil, stateTree: state)) == (false, "follows.prices.count is 3"))
    }
}

@Suite struct DurationParsingTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("2s", .seconds(2)), ("1m", .seconds(60)), ("1h", .seconds(3600)),
        ("1.5s", .milliseconds(1500)), ("0.25s", .milliseconds(250)), ("10ms", .milliseconds(10)), ("90s", .seconds(90)),
    ])
    func parses(text: String, duration: Duration) async {
        #expect(DurationParser.parse(text) == duration)
    }

    @Test(arguments: ["", "2", "s", "ms", "-1s", "0s", "0ms", "1.s", ".5s", "1..5s", "2 s", "2S", "1e3ms", "infs", "2d", "1m30s"])
    func rejects(text: String) async {
        #expect(DurationParser.parse(text) == nil)
    }

    @Test func formats() async {
        #expect(DurationParser.format(.milliseconds(300)) == "300ms")
        #expect(DurationParser.format(.seconds(2)) == "2s")
        #expect(DurationParser.format(.milliseconds(1500)) == "1.5s")
        #expect(DurationParser.format(.milliseconds(3949)) == "3.9s")
        #expect(DurationParser.format(.seconds(60)) == "1m")
        #expect(DurationParser.format(.seconds(125)) == "2m5s")
        #expect(DurationParser.format(.seconds(7200)) == "2h")
        #expect(DurationParser.format(.seconds(3720)) == "1h2m")
    }
}
