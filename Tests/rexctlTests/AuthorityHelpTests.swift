import Testing

@testable import rexctl

/// The help of the commands that give every node a statement of the cluster authority, as
/// golden text (generated from the same specs the parser reads).
@Suite struct AuthorityHelpTests {
    @Test func admitHelp() async {
        let result = await cli(["admit", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Admit a member's key on every node: a statement the cluster authority signs.

                Signs "member ID has the CURVE key in FILE" with the authority's key (--authority, or
                $REXCTL_AUTHORITY) at one above the highest serial any node holds (or --serial N),
                and gives it to every node at once; each takes it at once and passes it on to its
                peers. Then start the member, joining through a running one (deploy/cluster.sh add
                does both). Prints each node's answer and "accepted on N of M nodes"; exits 0 when
                every node holds the statement, 2 when one did not answer or refused it.

                USAGE: rexctl admit <id> --key <file> [--serial <n>] [--authority <file>]
                                    [<global options>]

                ARGUMENTS:
                  <id>                    The member's id (1 to 64 letters, digits, '-', '_',
                                          '.', '@').

                OPTIONS:
                  --key <file>            The member's public key file (rexctl keygen's .pub).
                  --serial <n>            The statement's serial (default: one above the highest
                                          serial any node holds).
                  --authority <file>      The authority's signing key, authority.key (default:
                                          $REXCTL_AUTHORITY).
                  -h, --help              Show help information.

                GLOBAL OPTIONS:
                  --cluster <file>        The cluster file (default: $REXCTL_CLUSTER, else
                                          .deploy/cluster.json in the current directory).
                  --node <id=endpoint>    Address a node directly by its control endpoint, e.g.
                                          n1=tcp://127.0.0.1:7201 (repeatable). Without
                                          --cluster, only these nodes are used.
                  -o, --output <format>   Output format: table or json (default: table).
                  --timeout <duration>    How long to wait for each reply: 500ms, 2s, 1m
                                          (default: 2s).
                  --key <file>            Your CURVE key file for secured nodes (default:
                                          $REXCTL_KEY, else keys/operator.key beside the cluster
                                          file).
                """# + "\n")
        #expect(await cli(["help", "admit"]).stdout == result.stdout)
    }

    @Test func revokeHelp() async {
        let result = await cli(["revoke", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Revoke a key on every node, for good: a statement the cluster authority signs.

                Signs "key K is revoked" with the authority's key (--authority, or $REXCTL_AUTHORITY)
                at one above the highest serial any node holds (or --serial N), and gives it to
                every node at once. Each node refuses the key from then on: a member holding it is
                declared left and its connections are dropped, an operator holding it is refused its
                next request. Nothing admits a revoked key again. KEY is the key's 40 Z85 characters
                (after '--' when it starts with '-': rexctl revoke -- KEY); ID names the node
                (cluster file) or operator (operators.json beside it) whose key it is. Prints each node's answer and "accepted on N of M nodes"; exits 0 when every
                node holds the statement, 2 when one did not answer or refused it.

                USAGE: rexctl revoke <key-or-id> [--serial <n>] [--authority <file>]
                                     [<global options>]

                ARGUMENTS:
                  <key-or-id>             The key (40 Z85 characters), or a node's or operator's
                                          id.

                OPTIONS:
                  --serial <n>            The statement's serial (default: one above the highest
                                          serial any node holds).
                  --authority <file>      The authority's signing key, authority.key (default:
                                          $REXCTL_AUTHORITY).
                  -h, --help              Show help information.

                GLOBAL OPTIONS:
                  --cluster <file>        The cluster file (default: $REXCTL_CLUSTER, else
                                          .deploy/cluster.json in the current directory).
                  --node <id=endpoint>    Address a node directly by its control endpoint, e.g.
                                          n1=tcp://127.0.0.1:7201 (repeatable). Without
                                          --cluster, only these nodes are used.
                  -o, --output <format>   Output format: table or json (default: table).
                  --timeout <duration>    How long to wait for each reply: 500ms, 2s, 1m
                                          (default: 2s).
                  --key <file>            Your CURVE key file for secured nodes (default:
                                          $REXCTL_KEY, else keys/operator.key beside the cluster
                                          file).
                """# + "\n")
        #expect(await cli(["help", "revoke"]).stdout == result.stdout)
    }

    @Test func operatorsHelp() async {
        let result = await cli(["operators", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Add an operator, change its role or remove it on every node: statements the authority signs.

                FORMS:
                  add NAME --key FILE --role ROLE operator NAME has the key in FILE (its .pub) and
                                                  ROLE (admin or viewer)
                  role NAME ROLE                  operator NAME keeps its key and has ROLE now
                  remove NAME|KEY                 the operator's key is revoked, for good (a KEY
                                                  starting with '-' after '--': remove -- KEY)

                NAME's key comes from --key FILE, else from operators.json beside the cluster file.
                Each statement is signed with the authority's key (--authority, or
                $REXCTL_AUTHORITY) at one above the highest serial any node holds (or --serial N)
                and given to every node at once. A role takes effect on the operator's next request;
                a removed operator's next request is refused. Prints each node's answer and
                "accepted on N of M nodes"; exits 0 when every node holds the statement, 2 when one
                did not answer or refused it.

                USAGE: rexctl operators <verb> [<args> ...] [--key <file>] [--role <role>]
                                        [--serial <n>] [--authority <file>] [<global options>]

                ARGUMENTS:
                  <verb>                  add, role or remove.
                  <args> ...              add: NAME; role: NAME ROLE; remove: NAME or KEY.

                OPTIONS:
                  --key <file>            add (and role, for an operator not in operators.json):
                                          the operator's .pub.
                  --role <role>           add: admin or viewer.
                  --serial <n>            The statement's serial (default: one above the highest
                                          serial any node holds).
                  --authority <file>      The authority's signing key, authority.key (default:
                                          $REXCTL_AUTHORITY).
                  -h, --help              Show help information.

                GLOBAL OPTIONS:
                  --cluster <file>        The cluster file (default: $REXCTL_CLUSTER, else
                                          .deploy/cluster.json in the current directory).
                  --node <id=endpoint>    Address a node directly by its control endpoint, e.g.
                                          n1=tcp://127.0.0.1:7201 (repeatable). Without
                                          --cluster, only these nodes are used.
                  -o, --output <format>   Output format: table or json (default: table).
                  --timeout <duration>    How long to wait for each reply: 500ms, 2s, 1m
                                          (default: 2s).
                  --key <file>            Your CURVE key file for secured nodes (default:
                                          $REXCTL_KEY, else keys/operator.key beside the cluster
                                          file).
                """# + "\n")
        #expect(await cli(["help", "operators"]).stdout == result.stdout)
    }
}
