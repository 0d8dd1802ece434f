# shellcheck shell=bash
# A second application on the node runtime: Examples/Chat's chat-node (built in release by
# deploy/example.sh, or CHAT_NODE_BIN) as a 3-node cluster, secured and durable as cluster.sh runs
# rexnode (up --node-bin), driven by rexctl send --json, state and wait. Members join a room on two
# nodes and both show the roster merged; the catalog refuses an unknown action and a missing
# field; a room's last local member leaves and the others drop it; kill -9 a node: the others
# drop its members once the membership says it is dead, and its restart brings them back from
# its journal. On a cluster of its own (state in .deploy/e2e/chat), stopped whatever happens.

chat_node=${CHAT_NODE_BIN:-$REPO_ROOT/.deploy/examples/chat-node}
if ! [ -x "$chat_node" ]; then
    warn "no chat-node at ${chat_node#"$REPO_ROOT"/}: deploy/example.sh builds it (or set CHAT_NODE_BIN)"
    exit 77
fi

(
    export REX_DEPLOY_DIR="$STATE_DIR/chat"
    set_state_dir "$REX_DEPLOY_DIR"
    trap '"$CLUSTER_SH" down >/dev/null 2>&1 || true' EXIT
    # shellcheck disable=SC2086
    "$CLUSTER_SH" up 3 --node-bin "$chat_node" -- $E2E_NODE_ARGS >&2 || fail "chat: the cluster did not come up"
    set_state_dir "$REX_DEPLOY_DIR" # reads the node binary up recorded
    is_our_node "$(cat "$PID_DIR/n1.pid")" n1 || fail "n1 is not a chat-node of this cluster"
    [ -n "$(node_key n1)" ] || fail "the chat cluster is not secured"
    feature=$(rexctl -o json nodes | py -c 'import json, sys; print(json.loads(sys.stdin.readline())["ping"]["feature"]["name"])')
    assert_eq chat "$feature" "the feature n1 says it runs (ping)"

    # chat NODE TYPE ROOM MEMBER: one join or leave through rexctl send --json; prints the reply.
    chat() { rexctl -o json send "$1" --json "{\"type\": \"$2\", \"room\": \"$3\", \"member\": \"$4\"}"; }
    roster_is() { wait_for "$1" "state=rooms.$2=$3" "${4:-10s}"; }

    step "ann joins lobby on n1, bob on n2: both show the roster merged"
    assert_eq batch "$(chat n1 join lobby ann | json_get durability)" "n1's join reply durability (journaled)"
    chat n2 join lobby bob >/dev/null
    chat n3 join dev cat >/dev/null
    roster_is n1 lobby '["ann@n1","bob@n2"]'
    roster_is n2 lobby '["ann@n1","bob@n2"]'
    roster_is n3 dev '["cat@n3"]'
    ! state_get n3 rooms.lobby >/dev/null || fail "n3 has no member in lobby, yet shows its roster"
    assert_eq '["room[lobby]","roster[lobby]"]' "$(rexctl -o json keep n1 | py -c '
import json, sys
print(json.dumps(sorted(c["id"] for c in json.load(sys.stdin)["channels"] if "lobby" in c["id"]), separators=(",", ":")))')" \
        "n1's channels of lobby"

    step "the catalog refuses an unknown action and a missing field"
    out=$(rexctl send n1 --json '{"type": "shout", "room": "lobby"}' 2>&1) && fail "an unknown action was accepted: $out"
    [[ "$out" == *unknownAction* && "$out" == *"join, leave"* ]] || fail "the refusal does not name join and leave: $out"
    out=$(rexctl send n1 --json '{"type": "join", "room": "lobby"}' 2>&1) && fail "a join without a member was accepted: $out"
    [[ "$out" == *"missing field 'member'"* ]] || fail "the refusal does not name the missing field: $out"

    step "bob, lobby's last member on n2, leaves: n2 stops following it, n1 drops n2's roster"
    chat n2 leave lobby bob >/dev/null
    roster_is n1 lobby '["ann@n1"]'
    wait_for n2 'state=local={}' 5s
    ! state_get n2 rooms.lobby >/dev/null || fail "n2 still shows lobby after its last member left"
    if rexctl -o json keep n2 | grep -q 'lobby'; then fail "n2 still keeps a channel of lobby"; fi

    step "bob joins again; kill -9 n2: n1 drops bob once n2 is dead; n2's restart brings him back"
    chat n2 join lobby bob >/dev/null
    roster_is n1 lobby '["ann@n1","bob@n2"]'
    "$CLUSTER_SH" kill n2 >&2
    wait_for n1 'state=members.n2.membership=dead' 20s
    roster_is n1 lobby '["ann@n1"]' 5s
    "$CLUSTER_SH" restart n2 >&2
    wait_for n2 'state=local.lobby=["bob"]' 5s
    grep -q 'event=recovered' "$LOG_DIR/n2.log" || fail "n2 logged no recovery from its journal"
    step "$(grep 'event=recovered' "$LOG_DIR/n2.log" | tail -1 | cut -c1-200)"
    roster_is n1 lobby '["ann@n1","bob@n2"]'
    roster_is n2 lobby '["ann@n1","bob@n2"]'
)
