# shellcheck shell=bash
# The dead-port takeover, secured, under the SWIM membership. n3 is killed; while the survivors
# still reconnect to its publisher (suspect), an impostor with a key of its own binds that port:
# they expect n3's key there, so no subscription reaches it. n3 is then declared dead and its
# publisher disconnected; to be connected to again an impostor has to forge n3's comeback on the
# membership, which without n3's key (plain, or a key of its own) is refused at the handshake: n3
# stays gone. With n3's stolen secret key (what CURVE cannot prevent) the same comeback is taken
# and a publisher holding that key gets n1's subscription, which shows the probes can tell.
# n3 then restarts and rejoins.

secure_begin
pub=$(node_field n3 pub)
mem1=$(node_field n1 membership)
mem3=$(node_field n3 membership)
[ -n "$mem1" ] && [ -n "$mem3" ] || fail "the cluster file has no membership endpoints: not a SWIM cluster"
# n1's shared subscriber subscribes to this on every publisher it connects to.
rexctl send n1 follow imp 'imp.*' >/dev/null
rexctl wait n1 --for 'keep=follow[imp]' --timeout 2s >/dev/null
"$CLUSTER_SH" kill n3 >&2
out=$(secure_probe impostor --bind "$pub" --victim n3 --seconds 1.5)
step "impostor with its own key while n3 is suspect: $out"
assert_eq 0 "$(json_get subscriptions <<<"$out")" "subscriptions the impostor received"
[ "$(json_get sent <<<"$out")" -gt 10 ] || fail "the impostor sent almost nothing: $out"
wait_for n1 gone=n3 5s
wait_for n2 gone=n3 5s

# Forged comebacks, at an incarnation below the one a restarted n3 will take (its start time in ms).
incarnation=$(now_ms)
refused_before=$(rexctl -o json metrics n1 | json_get security.handshakesRefused)
for key in stranger plain; do
    out=$(rogue membership --endpoint "$mem1" --key "$key" --as n3 --address "$mem3 $pub" --send "ping-as:n3:$incarnation")
    step "comeback of n3 forged with $key: $out"
done
refused_after=$(rexctl -o json metrics n1 | json_get security.handshakesRefused)
[ "$refused_after" -gt "$refused_before" ] || fail "n1 refused no handshake ($refused_before → $refused_after)"
for id in n1 n2; do
    assert_eq gone "$(state_get "$id" peers.n3.status)" "$id's view of n3 after the comebacks forged without its key"
done

# With n3's stolen key: taken.
secure_probe impostor --bind "$pub" --victim n3 --key "$KEY_DIR/n3.key" --seconds 3 >"$STATE_DIR/impostor.out" &
impostor=$!
sleep 0.3   # (the impostor binds first, so n1's reconnect finds it)
out=$(rogue membership --endpoint "$mem1" --key stolen --as n3 --address "$mem3 $pub" --send "ping-as:n3:$incarnation")
step "comeback of n3 forged with its stolen key: $out"
wait "$impostor" || fail "the stolen-key impostor failed: $(cat "$STATE_DIR/impostor.out")"
out=$(cat "$STATE_DIR/impostor.out")
step "impostor with n3's stolen key: $out"
[ "$(json_get subscriptions <<<"$out")" -gt 0 ] || fail "even n3's own key got no subscription: the probe cannot tell"
"$CLUSTER_SH" restart n3 >&2
wait_for n1 state=peers.n3.status=alive 5s
wait_for n2 state=peers.n3.status=alive 5s
