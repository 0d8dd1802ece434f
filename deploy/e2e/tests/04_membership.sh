# shellcheck shell=bash
# The SWIM membership (the suite's cluster runs it): kill -9 one node: the others suspect it (a
# failed probe), then declare it dead after the suspicion timeout (Lifeguard: shorter as more
# members confirm), shown as gone with `rexctl nodes` saying dead; each peer shows its
# incarnation; restart it: it rejoins at a new incarnation (its start time in ms) and its
# publisher is followed again. Then SIGTERM: a stopping node announces that it left, so it is
# gone at once (no suspicion timeout) and `rexctl nodes` says left.

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

grep -q '"membership"' "$CLUSTER_FILE" || fail "cluster.json has no membership endpoints: not a SWIM cluster"
# Every peer shows an incarnation (0 for a member from the cluster file not restarted since;
# earlier scenarios may have restarted some).
incarnation=$(rexctl -o json state n1 | json_get peers.n2.incarnation)
[[ "$incarnation" =~ ^[0-9]+$ ]] || fail "n1 shows no incarnation for n2 ($incarnation)"
rexctl send n1 follow swim swim.t --from n3 >/dev/null

killed_at=$(now_ms)
"$CLUSTER_SH" kill n3 >&2
tmp=$(mktemp -d)
survivors_see_n3_gone "$tmp" 4s || fail "a survivor did not report n3 suspect then gone"
for node in n1 n2; do
    step "$node saw n3 suspect after $(cat "$tmp/$node.suspect.ms") ms, dead after $(cat "$tmp/$node.gone.ms") ms"
    # Suspicion timeout at N = 3: 0.4 s floor to 2.4 s for a lone suspicion; allow a busy machine.
    [ "$(cat "$tmp/$node.gone.ms")" -lt 3500 ] || fail "$node took too long to see n3 dead"
done
assert_eq dead "$(state_get n1 peers.n3.membership)" "n1's membership status of n3"
out=$(rexctl nodes --timeout 500ms 2>/dev/null || true)
printf '%s\n' "$out" | sed 's/^/      /' >&2
[[ "$(grep '^n3 ' <<<"$out")" == *" no "*dead* ]] || fail "rexctl nodes does not show n3 unreachable and dead"

"$CLUSTER_SH" restart n3 >&2
wait_for n1 state=peers.n3.status=alive 3s
wait_for n2 state=peers.n3.status=alive 3s
wait_for n3 state=peers.n1.status=alive 3s
wait_for n3 state=peers.n2.status=alive 3s
incarnation=$(rexctl -o json state n1 | json_get peers.n3.incarnation)
[ "$incarnation" -gt 0 ] || fail "the restarted n3 is not at a new incarnation in n1's view ($incarnation)"
step "n1 sees the restarted n3 alive at incarnation $incarnation (its start time in ms)"
out=$(rexctl nodes 2>&1) || fail "rexctl nodes after the restart: $out"
printf '%s\n' "$out" | sed 's/^/      /' >&2
[[ "$(grep '^n3 ' <<<"$out")" == *" yes "*alive*" $incarnation "* ]] || fail "rexctl nodes does not show n3 alive at incarnation $incarnation"
v=$(set_until_seen n3 swim.t back n1 swim)
step "after the restart n3 set swim.t=$v → n1 follows.swim.lastValue=$v (its publisher reconnected)"

# SIGTERM: n2 announces it leaves; n1 drops it without a suspicion timeout.
rexctl wait n1 --for gone=n2 --timeout 3s >"$tmp/left" 2>&1 &
watcher=$!
sleep 0.2
stopped_at=$(now_ms)
"$CLUSTER_SH" restart n2 >"$tmp/restart" 2>&1 &
restarter=$!
wait "$watcher" || fail "n1 did not see n2 gone after its SIGTERM: $(cat "$tmp/left")"
left_ms=$(($(now_ms) - stopped_at))
wait "$restarter" || fail "restart n2: $(cat "$tmp/restart")"
step "n2 stopped (SIGTERM, announces left) → n1 saw it gone after $left_ms ms (no suspicion timeout)"
wait_for n1 state=peers.n2.status=alive 3s
rm -rf "$tmp"
