# shellcheck shell=bash
# kill -9 one node: the others see it suspect, then gone, within the heartbeat intervals (suspect
# after 2 missed, gone after 5); restart it: it rejoins, is alive again and delivers again.

killed_at=$(now_ms)
"$CLUSTER_SH" kill n3 >&2

# Watch both survivors at once: the suspect window is only 3 heartbeat intervals wide.
tmp=$(mktemp -d)
watch_peer() {
    local node=$1
    rexctl wait "$node" --for state=peers.n3.status=suspect --timeout 3s >"$tmp/$node.suspect" 2>&1 || return 1
    echo $(($(now_ms) - killed_at)) >"$tmp/$node.suspect.ms"
    rexctl wait "$node" --for gone=n3 --timeout 3s >"$tmp/$node.gone" 2>&1 || return 1
    echo $(($(now_ms) - killed_at)) >"$tmp/$node.gone.ms"
}
watch_peer n1 &
w1=$!
watch_peer n2 &
w2=$!
ok1=0 ok2=0
wait "$w1" || ok1=$?
wait "$w2" || ok2=$?
for node in n1 n2; do
    cat "$tmp/$node.suspect" "$tmp/$node.gone" 2>/dev/null | sed 's/^/      /' >&2 || true
done
[ "$ok1" -eq 0 ] && [ "$ok2" -eq 0 ] || fail "a survivor did not report n3 suspect then gone"
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
