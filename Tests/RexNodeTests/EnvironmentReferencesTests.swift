import Testing

@testable import RexNode

/// `$(NAME)` in rexnode's arguments, as Kubernetes expands a container's args (so the pod spec of
/// the StatefulSet runs unchanged under podman kube play, which does not).
@Suite struct EnvironmentReferencesTests {
    let environment = ["POD_NAME": "rexnode-1", "SUFFIX": ".rexnode", "EMPTY": "", "my.var-1": "x"]

    @Test func referencesExpandAsKubernetesDoes() throws {
        let expand = { (argument: String) in try EnvironmentReferences.expand([argument], environment: environment)[0] }
        #expect(try expand("$(POD_NAME)") == "rexnode-1")
        #expect(try expand("/etc/rexnode/keys/$(POD_NAME).key") == "/etc/rexnode/keys/rexnode-1.key")
        #expect(try expand("$(POD_NAME)$(SUFFIX)") == "rexnode-1.rexnode")
        #expect(try expand("a$(EMPTY)b") == "ab")
        #expect(try expand("$(my.var-1)") == "x")
        #expect(try expand("$(UNSET)") == "$(UNSET)", "an unset variable stays as written")
        #expect(try expand("$$(POD_NAME)") == "$(POD_NAME)", "$$ escapes")
        #expect(try expand("$$") == "$")
        #expect(try expand("cost: $5") == "cost: $5")
        #expect(try expand("$(POD_NAME") == "$(POD_NAME", "unclosed")
        #expect(try expand("$(1X)") == "$(1X)", "not a name")
        #expect(try expand("$( POD_NAME)") == "$( POD_NAME)")
        #expect(try expand("$") == "$")
        #expect(try EnvironmentReferences.expand(["--id", "$(POD_NAME)"], environment: environment) == ["--id", "rexnode-1"])
    }

    @Test func anExpansionPastTheBoundIsAUsageError() {
        let big = String(repeating: "v", count: EnvironmentReferences.maxExpandedBytes)
        #expect(throws: Never.self) { try EnvironmentReferences.expand(["$(BIG)"], environment: ["BIG": big]) }
        #expect(throws: NodeCommand.UsageError.self) { try EnvironmentReferences.expand(["$(BIG)$(BIG)"], environment: ["BIG": big]) }
    }

    /// The real executable reads its environment: --id $(POD_NAME) starts node rexnode-7.
    @Test func theCommandExpandsFromItsEnvironment() throws {
        let result = try NodeCommandTests.run(
            ["--id", "$(REX_TEST_ID)", "--pub", "bad$(REX_TEST_ID)"], environment: ["REX_TEST_ID": "rexnode-7"])
        #expect(result.status == 64)
        #expect(result.error.contains("--pub: 'badrexnode-7' is not a ZeroMQ endpoint"), "\(result.error)")
    }
}
