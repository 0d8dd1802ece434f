import RexCluster
import RexControl
import RexFeeds
import Testing

@testable import rexctl

/// Golden help pages: `rexctl --help` and every subcommand's `--help`, in full.
/// (Help is generated from the command table, so these also pin the table itself.)
@Suite struct HelpTextTests {
    @Test func rootHelp() async {
        let result = await cli(["--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Operate a SwiftRex cluster: send actions to nodes and inspect their keep sets.

                Every node answers the JSON control protocol on its control endpoint (docs/protocol.md).
                Nodes come from the cluster file written by deploy/ or from --node ID=ENDPOINT.

                EXIT CODES: 0 ok, 1 condition not met, 2 node unreachable or error reply, 64 usage error.

                USAGE: rexctl <subcommand> [<arguments>] [<global options>]

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
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  nodes                   List every node: endpoints, reachable, status as seen
                                          by peers, live channels, uptime.
                  send                    Send an action to a node (friendly form or raw
                                          --json); --count repeats it.
                  keep                    Show a node's keep set: every live or settling channel
                                          with its counters.
                  state                   Show a node's state: settings, feeds, follows and
                                          peers (or any feature's document).
                  metrics                 Show a node's counters: reconcile, channels, messages,
                                          mailbox, sockets, process.
                  top                     A live table of every node: cycles/s, messages in/out
                                          per second, channels, mailbox, RSS, members.
                  describe                Show one channel of a node's keep set in full, with
                                          its recent history.
                  wait                    Wait until a condition holds on a node: exit 0 when it
                                          does, 1 on timeout.
                  load                    Load-test every node of the cluster: churn follow
                                          topics and check for leaks.
                  keygen                  Make a CURVE key pair: FILE (secret, mode 0600) and
                                          its public half beside it.
                  authority               Make the cluster authority's key; sign, verify and
                                          send statements admitting or revoking keys.
                  admit                   Admit a member's key on every node: a statement the
                                          cluster authority signs.
                  revoke                  Revoke a key on every node, for good: a statement the
                                          cluster authority signs.
                  operators               Add an operator, change its role or remove it on every
                                          node: statements the authority signs.

                  See 'rexctl help <subcommand>' for detailed help.
                """# + "\n")
        #expect(await cli(["-h"]).stdout == result.stdout)
        #expect(await cli(["help"]).stdout == result.stdout)
    }

    @Test func nodesHelp() async {
        let result = await cli(["nodes", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: List every node: endpoints, reachable, status as seen by peers, live channels, uptime.

                Pings every node at once, then asks the reachable ones for their state (to learn how
                each node sees its peers) and metrics (live channels). STATUS is how the other nodes
                see this one, as their SWIM membership reports it: alive, suspect, dead (crashed) or
                left (stopped), or unknown before it reported on it; mixed views are counted
                (alive:1,dead:1). INCARNATION is the highest the membership reported for it (it rises
                when the node refutes a suspicion or restarts). Exits 2 if any node did not answer.

                USAGE: rexctl nodes [<global options>]

                OPTIONS:
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
        #expect(await cli(["help", "nodes"]).stdout == result.stdout)
    }

    @Test func sendHelp() async {
        let result = await cli(["send", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Send an action to a node (friendly form or raw --json); --count repeats it.

                ACTIONS:
                  follow NAME TOPIC [--from PEER]  subscribe under NAME (a TOPIC ending in * is a prefix)
                  unfollow NAME                    end the follow NAME
                  set TOPIC VALUE                  the feed TOPIC holds VALUE (published)
                  unset TOPIC                      the feed TOPIC stops existing
                  publish TOPIC PAYLOAD            send one message now (not deduplicated)
                  add-peer ID ENDPOINT             connect to a peer's PUB endpoint
                  remove-peer ID                   disconnect from peer ID
                  --json '{"type": ...}'           any action object, sent as is

                Prints what the node accepted and, for a node with a data directory, its
                durability (batch: committed to its journal first; none: not waited for). With
                --count N the action is sent N times, one request at a time, at most --rate R per
                second; '{i}' in an argument (or in the --json text) becomes the repetition number
                1...N. Progress and the achieved rate are printed as it goes.

                USAGE: rexctl send <node> [<action>] [<args> ...] [--json <action>]
                                   [--from <peer>] [--count <n>] [--rate <per-second>]
                                   [<global options>]

                ARGUMENTS:
                  <node>                  The node id (from the cluster file or --node).
                  <action>                follow, unfollow, set, unset, publish, add-peer or
                                          remove-peer.
                  <args> ...              The action's arguments, as listed above.

                OPTIONS:
                  --json <action>         A raw action object, e.g.
                                          '{"type":"set","topic":"a","value":"1"}'.
                  --from <peer>           With follow: accept the topic only from this peer.
                  --count <n>             Send the action n times (default: 1).
                  --rate <per-second>     With --count: at most this many actions per second,
                                          e.g. 100 or 100/s.
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
        #expect(await cli(["help", "send"]).stdout == result.stdout)
    }

    @Test func keepHelp() async {
        let result = await cli(["keep", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Show a node's keep set: every live or settling channel with its counters.

                Columns: ID, LIFETIME (permanent, or ephemeral with its reset key), SETTLE, DELIVERY,
                STATE (live or settling), AGE, OPENS, RECREATES, DELIVERED, DROPPED. With --all a
                NODE column comes first. With --watch the nodes push every change (a watch, no
                polling) and the table is redrawn whenever it changes (AGE aside) until --timeout,
                if given, or Ctrl-C; -o json then prints each new keep set as one document.

                USAGE: rexctl keep [<node>] [--all] [--watch] [<global options>]

                ARGUMENTS:
                  <node>                  The node id (from the cluster file or --node).

                OPTIONS:
                  --all                   Show the keep set of every node.
                  --watch                 Redraw when the keep set changes, until --timeout or
                                          Ctrl-C.
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
        #expect(await cli(["help", "keep"]).stdout == result.stdout)
    }

    @Test func stateHelp() async {
        let result = await cli(["state", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Show a node's state: settings, feeds, follows and peers (or any feature's document).

                For the feeds feature the table view shows the parts an operator reads most; a node
                running another feature shows its state document as indented JSON. -o json prints
                the whole state document on one line, e.g. for 'jq .follows.prices.lastValue'.

                USAGE: rexctl state <node> [<global options>]

                ARGUMENTS:
                  <node>                  The node id (from the cluster file or --node).

                OPTIONS:
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
        #expect(await cli(["help", "state"]).stdout == result.stdout)
    }

    @Test func metricsHelp() async {
        let result = await cli(["metrics", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Show a node's counters: reconcile, channels, messages, mailbox, sockets, process.

                The table lists every counter by its dotted path (reconcile.cycles, mailbox.depth, ...);
                -o json prints the node's metrics document.

                USAGE: rexctl metrics <node> [<global options>]

                ARGUMENTS:
                  <node>                  The node id (from the cluster file or --node).

                OPTIONS:
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
        #expect(await cli(["help", "metrics"]).stdout == result.stdout)
    }

    @Test func describeHelp() async {
        let result = await cli(["describe", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Show one channel of a node's keep set in full, with its recent history.

                History lines: opened, settling, recreated (the reset key changed from A to B),
                delivered, dropped and cancelled (with their reason), stamped with the time since
                the node started. Exits 1 if the channel is not in the keep set.

                USAGE: rexctl describe <node> <channel> [<global options>]

                ARGUMENTS:
                  <node>                  The node id (from the cluster file or --node).
                  <channel>               The channel id, e.g. follow[prices] (see 'rexctl keep
                                          NODE').

                OPTIONS:
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
        #expect(await cli(["help", "describe"]).stdout == result.stdout)
    }

    @Test func waitHelp() async {
        let result = await cli(["wait", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Wait until a condition holds on a node: exit 0 when it does, 1 on timeout.

                CONDITIONS:
                  keep=ID           channel ID is in the keep set and live
                  gone=ID           the node sees peer ID as gone
                  state=PATH=VALUE  the state value at the dotted PATH equals VALUE,
                                    e.g. follows.prices.lastValue=42 (keys may contain dots)

                Watches the node (it pushes every change; no polling). Here --timeout bounds the
                whole wait (default: 30s); the node must answer within 2s of it, or the watch
                starts over. With several --for, all must hold at once. Exits 2 if the node
                answers with an error, or did not answer at all when time runs out.

                USAGE: rexctl wait <node> --for <condition> ... [<global options>]

                ARGUMENTS:
                  <node>                  The node id (from the cluster file or --node).

                OPTIONS:
                  --for <condition>       keep=ID, gone=ID or state=PATH=VALUE (repeatable).
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
        #expect(await cli(["help", "wait"]).stdout == result.stdout)
    }

    @Test func loadHelp() async {
        let result = await cli(["load", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Load-test every node of the cluster: churn follow topics and check for leaks.

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

                USAGE: rexctl load <scenario> [--follows <count>] [--rate <per-second>]
                                   [--duration <duration>] [--feeds <count>]
                                   [--in-flight <count>] [--from-peers] [--result <file>]
                                   [--sweep <rates>] [--sweep-duration <duration>]
                                   [--svg <file>] [<global options>]

                ARGUMENTS:
                  <scenario>              The load scenario: churn.

                OPTIONS:
                  --follows <count>       Follows per node (default: 100).
                  --rate <per-second>     Target topic changes per second, all nodes together
                                          (default: 2000).
                  --duration <duration>   How long the churn lasts (default: 60s).
                  --feeds <count>         Feeds each node publishes (default: 4).
                  --in-flight <count>     Requests in flight per node (default: 32).
                  --from-peers            Follow from the publishing peer: one dedicated SUB
                                          socket per follow.
                  --result <file>         Write the result as JSON (per node and total, samples
                                          included).
                  --sweep <rates>         Also run at each of these rates first, e.g.
                                          250,500,1000,2000.
                  --sweep-duration <duration>
                                          How long each sweep run lasts (default: 15s).
                  --svg <file>            With --sweep: write the latency-vs-churn-rate chart as
                                          SVG.
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
        #expect(await cli(["help", "load"]).stdout == result.stdout)
    }

    @Test func authorityHelp() async {
        let result = await cli(["authority", "--help"])
        #expect(result.code == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Make the cluster authority's key; sign, verify and send statements admitting or revoking keys.

                FORMS:
                  init --out DIR                  DIR/authority.key (the signing key, mode 0600: keep
                                                  it offline) and DIR/authority.pub (every node's)
                  sign admit ID --key FILE        member ID has the CURVE key in FILE (its .pub)
                  sign operator NAME --key FILE --role ROLE
                                                  operator NAME has that key and ROLE (admin, viewer)
                  sign revoke KEY|ID              the key (40 Z85 characters, or the key the cluster
                                                  file or operators file gives node or operator ID)
                                                  is revoked, for good
                  verify FILE                     whether the authority signed the statement FILE
                  send FILE                       give the statement FILE to every node of the
                                                  cluster (the signing key stays offline)

                sign needs --serial N and writes the statement to --out (default, in the current
                directory: admit-ID-N.statement, operator-NAME-N.statement, revoke-ID-N.statement or
                revoke-key-N.statement), signed with --authority. A node keeps, per key, the
                statement with the highest serial, and a revocation for good: give every statement
                a serial higher than the last one signed. verify exits 0 when the authority signed
                the file, 1 when it did not (unsigned, another signer, changed, not a statement).
                send prints each node's answer and "accepted on N of M nodes", and exits 0 when
                every node holds the statement (admit, revoke and operators sign and send at once).

                USAGE: rexctl authority <verb> [<args> ...] [--out <path>] [--authority <file>]
                                        [--key <file>] [--role <role>] [--serial <n>] [--force]
                                        [<global options>]

                ARGUMENTS:
                  <verb>                  init, sign, verify or send.
                  <args> ...              sign: admit ID, operator NAME or revoke KEY|ID; verify
                                          and send: FILE.

                OPTIONS:
                  --out <path>            init: the folder for the key pair; sign: the statement
                                          file to write.
                  --authority <file>      The authority's key file: authority.key to sign,
                                          authority.pub (or .key) to verify (default:
                                          $REXCTL_AUTHORITY).
                  --key <file>            sign admit and operator: the key file (.pub) of the
                                          member or operator admitted.
                  --role <role>           sign operator: admin or viewer.
                  --serial <n>            sign: the statement's serial number, from 1 to
                                          18446744073709551615.
                  --force                 Replace files that exist.
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
        #expect(await cli(["help", "authority"]).stdout == result.stdout)
    }
}
