import Testing

@testable import rexctl

/// Exit codes and error lines that need no running node.
@Suite struct ExitCodeTests {
    /// A node that is down: exit 2 at the timeout given (not the 2 s default), one line on stderr
    /// that says what to do.
    @Test(arguments: [
        ["state", "n1"], ["metrics", "n1"], ["keep", "n1"], ["describe", "n1", "pub"],
        ["send", "n1", "set", "a", "1"], ["keep", "--all"], ["nodes"],
    ])
    func nodeDownExits2WithinTheTimeout(arguments: [String]) async throws {
        let endpoint = try unusedLoopbackEndpoint()
        let result = await cli(arguments + ["--node", "n1=\(endpoint)", "--timeout", "300ms"])
        #expect(result.code == 2, "\(result)")
        expectEndedAtDeadline(result, .milliseconds(300), before: GlobalOptions.defaultTimeout)
        let expected =
            arguments == ["nodes"]
            ? "Error: node n1 at \(endpoint) did not answer within 300ms — is it running?\n"
            : "Error: node n1 at \(endpoint) did not answer within 300ms — is it running? Try 'rexctl nodes'.\n"
        #expect(result.stderr == expected)
    }

    @Test func nodesListsTheUnreachableOnesAndExits2() async throws {
        let first = try unusedLoopbackEndpoint()
        let second = try unusedLoopbackEndpoint()
        let result = await cli(["nodes", "--node", "a=\(first)", "--node", "b=\(second)", "--timeout", "200ms"])
        #expect(result.code == 2)
        #expect(result.stdout.contains("a   \(first)"))
        #expect(result.stderr == "Error: 2 of 2 nodes did not answer within 200ms: a (\(first)), b (\(second)) — are they running?\n")
    }

    /// The pings share one deadline: twenty dead nodes cost one timeout, not twenty.
    @Test func deadNodesShareOneTimeout() async throws {
        let endpoints = try (0..<20).map { _ in try unusedLoopbackEndpoint() }
        let nodes = endpoints.enumerated().flatMap { ["--node", "n\($0.offset)=\($0.element)"] }
        let result = await cli(["nodes", "--timeout", "200ms"] + nodes)
        #expect(result.code == 2)
        #expect(result.stderr.hasPrefix("Error: 20 of 20 nodes did not answer within 200ms: "), "\(result.stderr)")
        expectEndedAtDeadline(result, .milliseconds(200), before: .milliseconds(200) * 20)
    }

    @Test func waitOnADownNodeExits2AtTheDeadline() async throws {
        let endpoint = try unusedLoopbackEndpoint()
        let result = await cli(["wait", "n1", "--for", "keep=pub", "--timeout", "400ms", "--node", "n1=\(endpoint)"])
        #expect(result.code == 2, "\(result)")
        expectEndedAtDeadline(result, .milliseconds(400), before: .milliseconds(400) + GlobalOptions.defaultTimeout)
    }

    @Test func keepWatchOnADownNodeStopsAtTheTimeout() async throws {
        let endpoint = try unusedLoopbackEndpoint()
        let result = await cli(["keep", "n1", "--watch", "--timeout", "600ms", "--node", "n1=\(endpoint)"])
        #expect(result.code == 0, "\(result)")
        expectEndedAtDeadline(result, .milliseconds(600), before: .milliseconds(600) + GlobalOptions.defaultTimeout)
        // The failure is reported once, not at every poll.
        #expect(result.stderr == "Error: node n1 at \(endpoint) did not answer within 600ms — is it running? Try 'rexctl nodes'.\n")
    }

    /// Malformed --json: exit 64 and not one byte reaches the node.
    @Test func malformedJSONSendsNothing() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        for json in ["{bad", #"{"type": "set", "topic": }"#, "[]", #"{"topic": "a"}"#] {
            let result = await cli(["send", "n1", "--json", json, "--node", "n1=\(listener.endpoint)"])
            #expect(result.code == 64, "\(result)")
            #expect(result.stderr.hasPrefix("Error: --json "))
        }
        let usage = await cli(["send", "n1", "set", "only-topic", "--node", "n1=\(listener.endpoint)"])
        #expect(usage.code == 64)
        #expect(try listener.received(within: .milliseconds(300)) == [])

        // The listener does see a well-formed request (so the check above is meaningful).
        let sent = await cli([
            "send", "n1", "--json", #"{"type":"unset","topic":"a"}"#, "--node", "n1=\(listener.endpoint)", "--timeout", "200ms",
        ])
        #expect(sent.code == 2)
        let received = try listener.received(within: .milliseconds(500))
        #expect(received.count == 1)
        #expect(received.first?.hasPrefix(#"{"action":{"topic":"a","type":"unset"},"id":"rexctl-"#) == true, "\(received)")
        #expect(received.first?.hasSuffix(#"","op":"dispatch","v":1}"#) == true, "\(received)")
    }
}
