# shellcheck shell=bash
# kill -9 one node: the others see it suspect, then gone, within the heartbeat intervals (suspect
# after 2 missed, gone after 5); restart it: it rejoins, is alive again and delivers again. Then
# the same, and a SIGTERM (leave), on a cluster of its own running the SWIM membership.

# watch_gone NODE DIR GONE_TIMEOUT: waits until NODE sees n3 suspect, then gone, and writes the ms
# since killed_at of each to DIR/NODE.suspect.ms and DIR/NODE.gone.ms.
watch_gone() {
    local node=$1 dir=$2 gone_timeout=$3
    rexctl wait "$node" --for state=peers.n3.status=suspect --timeout 3s >"$dir/$node.suspect" 2>&1 || return 1
    echo $(($(now_ms) - killed_at)) >"$dir/$node.suspect.ms"
    rexctl wait "$node" --for gone=n3 --timeout "$gone_timeout" >"$dir/$node.gone" 2>&1 || return 1
    echo $(($(now_ms) - killed_at)) >"$dir/$node.gone.ms"
}

# survivors_see_n3_gone DIR GONE_TIMEOUT: n1 and n2 watched at once (the suspect window is narrow).
survivors_see_n3_gone() {
    local dir=$1 gone_timeout=$2 w1 w2 ok1=0 ok2=0
    watch_gone n1 "$dir" "$gone_timeout" &
    w1=$!
    watch_gone n2 "$dir" "$gone_timeout" &
    w2=$!
    wait "$w1" || ok1=$?
    wait "$w2" || ok2=$?
    cat "$dir"/n1.suspect "$dir"/n1.gone "$dir"/n2.suspect "$dir"/n2.gone 2>/dev/null | sed 's/^/      /' >&2 || true
    [ "$ok1" -eq 0 ] && [ "$ok2" -eq 0 ]
}

killed_at=$(now_ms)
"$CLUSTER_SH" kill n3 >&2

tmp=$(mktemp -d)
survivors_see_n3_gone "$tmp" 3s || fail "a survivor did not report n3 suspect then gone"
for node in n1 n2; do
    step "$node saw n3 suspect after $(cat "$tmp/$node.suspect.ms") ms, gone after $(cat "$tmp/$node.gone.ms") ms"
    # gone = 5 missed heartbeats (500 ms); allow for polling (100 ms) and a busy machine.
    [ "$(cat "$tmp/$node.gone.ms")" -lt 2500 ] || fail "$node took too long to see n3 gone"
done
rm -rf "$tmp"
out=$(rexctl nodes --timeout 500ms 2>/dev/null || true)
printf '%s\n' "$out" | sed 's/^/      /' >&2
[[ "$(grep '^n3 ' <<<"$out")" == *" no "*gone* ]] || fail "rexctl nodes does not show n3 unreachable and gone"

"$CLUSTER_SH" restart n3 >&2
wait_for n1 state=peers.n3.status=alive 3s
wait_for n2 state=peers.n3.status=alive 3s
wait_for n3 state=peers.n1.status=alive 3s
wait_for n3 state=peers.n2.status=alive 3s
out=$(rexctl nodes 2>&1) || fail "rexctl nodes after the restart: $out"
printf '%s\n' "$out" | sed 's/^/      /' >&2

# n1's follow of n3 reconnects to the restarted publisher and delivers again.
v=$(set_until_seen n3 n3.back again n1 back)
step "after the restart: n3 set n3.back=$v → n1 follows.back.lastValue=$v"

# --- the same faults under the SWIM membership (REX_MEMBERSHIP=swim) -----------------------------
# A cluster of its own (state in .deploy/e2e/swim, its own ports), stopped whatever happens. The
# semantics differ from heartbeats where SWIM means them to: a killed node is suspected by a
# failed probe, then declared dead (shown as gone) after the suspicion timeout (Lifeguard: shorter
# as more members confirm); a stopped node (SIGTERM) announces that it left, so it is gone at
# once; each peer shows its incarnation; a dead member's publisher is disconnected.
(
    export REX_DEPLOY_DIR="$STATE_DIR/swim" REX_MEMBERSHIP=swim
    set_state_dir "$REX_DEPLOY_DIR"
    trap '"$CLUSTER_SH" down >/dev/null 2>&1 || true' EXIT
    # shellcheck disable=SC2086
    "$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >&2 || fail "swim: the cluster did not come up"
    grep -q '"membership"' "$CLUSTER_FILE" || fail "swim: cluster.json has no membership endpoints"
    # Members from the cluster file start at incarnation 0 (a status change reports the new one).
    [ "$(rexctl -o json state n1 | json_get peers.n2.incarnation)" = 0 ] || fail "swim: n1 shows no incarnation for n2"
    rexctl send n1 follow swim swim.t --from n3 >/dev/null

    killed_at=$(now_ms)
    "$CLUSTER_SH" kill n3 >&2
    tmp=$(mktemp -d)
    survivors_see_n3_gone "$tmp" 4s || fail "swim: a survivor did not report n3 suspect then gone"
    for node in n1 n2; do
        step "swim: $node saw n3 suspect after $(cat "$tmp/$node.suspect.ms") ms, dead after $(cat "$tmp/$node.gone.ms") ms"
        # Suspicion timeout at N = 3: 0.4 s floor to 2.4 s for a lone suspicion; allow a busy machine.
        [ "$(cat "$tmp/$node.gone.ms")" -lt 3500 ] || fail "swim: $node took too long to see n3 dead"
    done

    "$CLUSTER_SH" restart n3 >&2
    wait_for n1 state=peers.n3.status=alive 3s
    wait_for n3 state=peers.n2.status=alive 3s
    incarnation=$(rexctl -o json state n1 | json_get peers.n3.incarnation)
    [ "$incarnation" -gt 0 ] || fail "swim: the restarted n3 is not at a new incarnation in n1's view ($incarnation)"
    step "swim: n1 sees the restarted n3 alive at incarnation $incarnation (its start time in ms)"
    v=$(set_until_seen n3 swim.t back n1 swim)
    step "swim: after the restart n3 set swim.t=$v → n1 follows.swim.lastValue=$v (its publisher reconnected)"

    # SIGTERM: n2 announces it leaves; n1 drops it without a suspicion timeout.
    rexctl wait n1 --for gone=n2 --timeout 3s >"$tmp/left" 2>&1 &
    watcher=$!
    sleep 0.2
    stopped_at=$(now_ms)
    "$CLUSTER_SH" restart n2 >"$tmp/restart" 2>&1 &
    restarter=$!
    wait "$watcher" || fail "swim: n1 did not see n2 gone after its SIGTERM: $(cat "$tmp/left")"
    left_ms=$(($(now_ms) - stopped_at))
    wait "$restarter" || fail "swim: restart n2: $(cat "$tmp/restart")"
    step "swim: n2 stopped (SIGTERM, announces left) → n1 saw it gone after $left_ms ms (no suspicion timeout)"
    wait_for n1 state=peers.n2.status=alive 3s
    rm -rf "$tmp"
    "$CLUSTER_SH" down >&2
)
