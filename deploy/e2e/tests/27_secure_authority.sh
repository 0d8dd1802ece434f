# shellcheck shell=bash
# The cluster authority on a secured cluster that changes while it runs (issue 31), each
# convergence measured from the command that caused it to the last node that shows it:
#   1. deploy/cluster.sh add: n4's key admitted on every node, n4 alive on every member, and its
#      follows (both ways) deliver within 2 s;
#   2. n4's key revoked (given to n1 alone: gossip carries it to the others): left on every other
#      node within 2 s, its data stops, and it cannot come back with the same key;
#   3. an operator added, then removed (given to n1 alone): refused on every node;
#   4. forged statements (another signer, a replay of what was superseded) change nothing and are
#      counted on every node;
#   5. every node stopped and started again from its data directory: the same statements, the
#      revoked keys still refused, the added operator still in.
# A cluster of its own (state in .deploy/e2e/authority), stopped whatever happens. Each measured
# time prints as "converged: … in N ms".

(
    export REX_DEPLOY_DIR="$STATE_DIR/authority"
    set_state_dir "$REX_DEPLOY_DIR"
    trap '"$CLUSTER_SH" down >/dev/null 2>&1 || true; [ -z "${rogue_pid:-}" ] || kill "$rogue_pid" 2>/dev/null || true' EXIT
    # shellcheck disable=SC2086
    "$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >&2 || fail "authority: the secured cluster did not come up"
    [ -f "$STATE_DIR/authority.pub" ] || fail "up made no authority.pub beside the cluster file"
    export REXCTL_AUTHORITY="$AUTHORITY_KEY"
    members=(n1 n2 n3)
    declare -A statements=()

    # converged WHAT STARTED PIDS…: waits for the background `rexctl wait`s (each wrote its
    # finish time to its own file), fails if one failed, prints the time to the last one and
    # leaves it in `took` (ms).
    converged() {
        local what=$1 started=$2 pid last=0 at
        shift 2
        for pid in "$@"; do wait "$pid" || fail "$what: a node did not get there (rexctl wait failed)"; done
        for at in "$STATE_DIR"/at.*; do [ "$(cat "$at")" -gt "$last" ] && last=$(cat "$at"); done
        rm -f "$STATE_DIR"/at.*
        took=$((last - started))
        step "converged: $what in $took ms"
    }
    # only_n1: a cluster file naming n1 alone, so a statement reaches the others by gossip only.
    only_n1() {
        py -c '
import json, sys
doc = json.load(open(sys.argv[1]))
doc["nodes"] = [n for n in doc["nodes"] if n["id"] == "n1"]
json.dump(doc, open(sys.argv[2], "w"))' "$CLUSTER_FILE" "$STATE_DIR/only-n1.json"
        echo "$STATE_DIR/only-n1.json"
    }
    # watch_for NODE COND: a `rexctl wait` in the background that writes when it held.
    watch_for() {
        (rexctl wait "$1" --for "$2" --timeout 10s >/dev/null && now_ms >"$STATE_DIR/at.$1.$RANDOM") &
        waits+=($!)
    }

    step "1. deploy/cluster.sh add on the secured cluster"
    rexctl send n1 set auth.n1 hello >/dev/null
    waits=()
    for id in "${members[@]}"; do watch_for "$id" "state=peers.n4.status=alive"; done
    sleep 0.3 # the watches are set up (each reads the state once)
    started=$(now_ms)
    out=$("$CLUSTER_SH" add 2>&1) || fail "add on a secured cluster failed: $out"
    printf '%s\n' "$out" | sed 's/^/      /' >&2
    [[ "$out" == *"admitted n4's key: accepted on 3 of 3 nodes"* ]] || fail "add did not admit n4 on every node: $out"
    [ -n "$(node_key n4)" ] || fail "n4's entry in the cluster file has no key"
    converged "n4 (added at run time) alive on n1 n2 n3" "$started" "${waits[@]}"
    for id in "${members[@]}"; do wait_for n4 "state=peers.$id.status=alive" 5s; done
    started=$(now_ms)
    rexctl send n4 follow from-n1 auth.n1 >/dev/null
    rexctl send n1 follow from-n4 auth.n4 --from n4 >/dev/null
    rexctl send n4 set auth.n4 v1 >/dev/null
    waits=()
    watch_for n4 "state=follows.from-n1.lastValue=hello"
    watch_for n1 "state=follows.from-n4.lastValue=v1"
    converged "n4's follows deliver (n4 follows n1; n1 follows n4 over a socket of its own)" "$started" "${waits[@]}"
    [ "$took" -le 2000 ] || fail "n4's follows took $took ms (more than 2 s)"

    step "2. n4's key revoked: given to n1 alone, gossip carries it to n2 and n3"
    n4_key=$(node_key n4)
    cp "$CLUSTER_FILE" "$STATE_DIR/cluster-n4.json" # n4's view, to start it again later
    waits=()
    for id in "${members[@]}"; do watch_for "$id" "state=peers.n4.membership=left"; done
    sleep 0.3
    started=$(now_ms)
    out=$(rexctl --cluster "$(only_n1)" revoke -- "$n4_key" 2>&1) || fail "rexctl revoke failed: $out"
    [[ "$out" == *"accepted on 1 of 1 nodes"* ]] || fail "revoke: $out"
    converged "n4 (revoked) declared left on n1 n2 n3" "$started" "${waits[@]}"
    [ "$took" -le 2000 ] || fail "the revocation took $took ms to reach every node (more than 2 s)"
    rexctl send n4 set auth.n4 v2 >/dev/null 2>&1 || true
    sleep 1
    assert_eq v1 "$(state_get n1 follows.from-n4.lastValue)" "n1's follow of n4 a second after n4 set v2 (its data stops)"
    refused_before=$(rexctl -o json metrics n1 | json_get security.handshakesRefused)
    "$CLUSTER_SH" kill n4 >/dev/null
    # n4 again, with the same key, joining through n1: no member lets it in.
    setsid "$REXNODE" --cluster "$STATE_DIR/cluster-n4.json" --id n4 --join "$(node_field n1 membership)" \
        >>"$LOG_DIR/n4.log" 2>&1 </dev/null &
    rogue_pid=$!
    sleep 2
    for id in "${members[@]}"; do
        status=$(state_get "$id" peers.n4.status)
        [ "$status" != alive ] || fail "$id sees the revoked n4 alive again"
    done
    refused_after=$(rexctl -o json metrics n1 | json_get security.handshakesRefused)
    [ "$refused_after" -gt "$refused_before" ] || fail "n1 refused no handshake of the revoked n4 ($refused_before → $refused_after)"
    step "n4 back with its revoked key: not alive anywhere, n1 refused $((refused_after - refused_before)) of its handshakes"
    kill "$rogue_pid" 2>/dev/null || true
    wait "$rogue_pid" 2>/dev/null || true
    rogue_pid=''
    # The operator takes the revoked node out of the cluster file.
    py -c '
import json, sys
doc = json.load(open(sys.argv[1]))
doc["nodes"] = [n for n in doc["nodes"] if n["id"] != "n4"]
json.dump(doc, open(sys.argv[1] + ".tmp", "w"))' "$CLUSTER_FILE"
    mv "$CLUSTER_FILE.tmp" "$CLUSTER_FILE"

    step "3. an operator added, then removed"
    rexctl keygen "$KEY_DIR/carol.key" --force >/dev/null
    rexctl authority sign operator carol --key "$KEY_DIR/carol.pub" --role admin --serial 100 \
        --out "$STATE_DIR/carol-admin.statement" --force >/dev/null
    out=$(rexctl authority send "$STATE_DIR/carol-admin.statement" 2>&1) || fail "carol's admission: $out"
    [[ "$out" == *"accepted on 3 of 3 nodes"* ]] || fail "carol's admission: $out"
    rexctl --key "$KEY_DIR/carol.key" send n2 set auth.carol 1 >/dev/null || fail "carol (admin) could not dispatch"
    carol_key=$(public_key "$KEY_DIR/carol.key")
    started=$(now_ms)
    out=$(rexctl --cluster "$(only_n1)" operators remove -- "$carol_key" 2>&1) || fail "carol's removal: $out"
    sent=$(now_ms)
    # carol's next request, on each node, until refused (a refused key is answered at once).
    for id in "${members[@]}"; do
        until_true 2 sh -c '! "$0" --key "$1" --timeout 500ms state "$2" >/dev/null 2>&1' "$REXCTL" "$KEY_DIR/carol.key" "$id" \
            || fail "$id still answers carol 2 s after her removal"
    done
    step "converged: carol (removed on n1 alone) refused by n1 n2 n3 in $(($(now_ms) - started)) ms ($((sent - started)) ms of it the command)"
    # dave is added for good: he must still be in after the restart below.
    rexctl keygen "$KEY_DIR/dave.key" --force >/dev/null
    out=$(rexctl operators add dave --key "$KEY_DIR/dave.pub" --role viewer 2>&1) || fail "dave's admission: $out"

    step "4. forged statements change nothing"
    rexctl authority init --out "$STATE_DIR/forger" --force >/dev/null
    rexctl keygen "$KEY_DIR/mallory.key" --force >/dev/null
    rexctl authority sign operator mallory --key "$KEY_DIR/mallory.pub" --role admin --serial 1000 \
        --authority "$STATE_DIR/forger/authority.key" --out "$STATE_DIR/mallory.statement" --force >/dev/null
    if out=$(rexctl authority send "$STATE_DIR/mallory.statement" 2>&1); then fail "a forged statement was taken: $out"; fi
    [[ "$out" == *"accepted on 0 of 3 nodes"* && "$out" == *"not the cluster authority"* ]] || fail "forged: $out"
    if out=$(rexctl authority send "$STATE_DIR/carol-admin.statement" 2>&1); then fail "a replay was taken: $out"; fi
    [[ "$out" == *"accepted on 0 of 3 nodes"* && "$out" == *"is revoked"* ]] || fail "replayed: $out"
    for id in "${members[@]}"; do
        if rexctl --key "$KEY_DIR/mallory.key" --timeout 1s state "$id" >/dev/null 2>&1; then fail "$id let mallory in"; fi
        if rexctl --key "$KEY_DIR/carol.key" --timeout 1s state "$id" >/dev/null 2>&1; then fail "$id let carol back in"; fi
        metrics=$(rexctl -o json metrics "$id")
        assert_eq 1 "$(json_get authority.refused.otherSigner <<<"$metrics")" "$id: statements refused as another signer's"
        assert_eq 1 "$(json_get authority.refused.revokedKey <<<"$metrics")" "$id: statements refused for a revoked key"
    done
    for id in "${members[@]}"; do statements[$id]=$(rexctl -o json metrics "$id" | json_get authority.statements); done
    step "statements held: n1 ${statements[n1]}, n2 ${statements[n2]}, n3 ${statements[n3]}"

    step "5. every node stopped, then started from its data directory"
    "$CLUSTER_SH" down >&2
    # shellcheck disable=SC2086
    REX_KEEP_DATA=1 "$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >&2 || fail "the cluster did not come back up"
    for id in "${members[@]}"; do
        assert_eq "${statements[$id]}" "$(rexctl -o json metrics "$id" | json_get authority.statements)" "$id: statements held after the restart"
        if rexctl --key "$KEY_DIR/carol.key" --timeout 1s state "$id" >/dev/null 2>&1; then fail "$id let the removed carol in after the restart"; fi
        rexctl --key "$KEY_DIR/dave.key" state "$id" >/dev/null || fail "$id refused dave (added at run time) after the restart"
    done
    setsid "$REXNODE" --cluster "$STATE_DIR/cluster-n4.json" --id n4 --join "$(node_field n1 membership)" \
        >>"$LOG_DIR/n4.log" 2>&1 </dev/null &
    rogue_pid=$!
    sleep 2
    for id in "${members[@]}"; do
        [ "$(state_get "$id" peers.n4.status 2>/dev/null || true)" != alive ] || fail "$id lets the revoked n4 in after the restart"
    done
    step "after the restart: the same statements, carol and n4 still refused, dave still in"
    [ "$n4_key" != "$(node_key n1)" ] || fail "n4 had n1's key"
)
