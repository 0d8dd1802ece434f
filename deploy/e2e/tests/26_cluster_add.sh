# shellcheck shell=bash
# deploy/cluster.sh add: one more node joins a running SWIM cluster through --join of a running
# member, is recorded in the cluster file, and is seen alive everywhere (rexctl nodes); it sees
# every member alive and its publisher is followed. A named add, then the refusal of a name already
# taken. On a cluster of its own (state in .deploy/e2e/add, plain), stopped whatever happens; the
# add on a secured cluster is 27_secure_authority's.

(
    export REX_DEPLOY_DIR="$STATE_DIR/add" REX_MEMBERSHIP=swim
    set_state_dir "$REX_DEPLOY_DIR"
    trap '"$CLUSTER_SH" down >/dev/null 2>&1 || true' EXIT
    # shellcheck disable=SC2086
    "$CLUSTER_SH" up 3 --insecure -- $E2E_NODE_ARGS >&2 || fail "add: the cluster did not come up"

    step "deploy/cluster.sh add (a generated name)"
    out=$("$CLUSTER_SH" add 2>&1) || fail "add failed: $out"
    printf '%s\n' "$out" | sed 's/^/      /' >&2
    [[ "$out" == *"n4 (pid "*"joined"* ]] || fail "add did not report n4 joined: $out"
    ids=$(py -c 'import json, sys; print(" ".join(n["id"] for n in json.load(open(sys.argv[1]))["nodes"]))' "$CLUSTER_FILE")
    assert_eq "n1 n2 n3 n4" "$ids" "cluster file nodes after add"
    grep -q -- "--join" "/proc/$(cat "$PID_DIR/n4.pid")/cmdline" || fail "n4 was not started with --join"
    for id in n1 n2 n3; do wait_for "$id" "state=peers.n4.status=alive" 5s; done
    for id in n1 n2 n3; do wait_for n4 "state=peers.$id.status=alive" 5s; done
    out=$(rexctl nodes 2>&1) || fail "rexctl nodes failed after add: $out"
    printf '%s\n' "$out" | sed 's/^/      /' >&2
    ready=$(rexctl -o json nodes 2>/dev/null | readiness | awk '$1 == "n4" { print $2 }')
    assert_eq ready "$ready" "n4 in rexctl nodes (answers ping, alive to every other node)"

    step "data follow n4's publisher (learned by gossip, not from n1's cluster file)"
    rexctl send n1 follow added add.t --from n4 >/dev/null
    wait_for n1 'keep=follow[added]' 5s
    v=$(set_until_seen n4 add.t hello n1 added)
    step "n4 set add.t=$v → n1 follows.added.lastValue=$v"

    step "deploy/cluster.sh add edge-1 (a given name)"
    out=$("$CLUSTER_SH" add edge-1 2>&1) || fail "add edge-1 failed: $out"
    for id in n1 n4; do wait_for "$id" "state=peers.edge-1.status=alive" 5s; done
    status=$("$CLUSTER_SH" status 2>&1) || fail "cluster.sh status failed: $status"
    [[ "$status" == *edge-1*running* ]] || fail "cluster.sh status does not show edge-1 running: $status"

    step "add of a name already in the cluster file is refused"
    if out=$("$CLUSTER_SH" add n2 2>&1); then fail "add n2 succeeded: $out"; fi
    [[ "$out" == *"already in the cluster file"* ]] || fail "add n2: unexpected message: $out"
    step "refused: $out"
    "$CLUSTER_SH" down >&2
)

