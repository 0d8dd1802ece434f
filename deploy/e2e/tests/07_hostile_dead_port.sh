# shellcheck shell=bash
# Hostile peer, dead-port takeover (SWIM membership): n3 is killed and declared dead, so the
# survivors drop their connections to its publisher. The rogue then binds n3's PUB port and, to
# be connected to again, forges n3's comeback on the membership (plain: anyone can; secured: the
# rogue holds n3's stolen key, which CURVE cannot stop — without it the comeback is refused:
# 24_secure_dead_port_impostor). A comeback at incarnation UInt64.max, which n3 could never
# refute, is refused as from the future (counted: membership.dropped.future_incarnation); one at
# the current time in ms is taken, and a restarted n3 refutes it (its own start time is later).
# Once both survivors subscribe to the rogue, it sends forged data from n3 with sequence 1, then
# 18446744073709551615 (the heartbeat gap that overflowed an Int once crashed both survivors).
# Neither survivor may die, and n1 must still deliver to n2.

hostile_begin --secured dead_port n1 n2
for id in n1 n2; do ctl send "$id" follow dp 'dp.*' >/dev/null; done
"$CLUSTER_SH" kill n3 >&2
H_KILLED+=(n3)
wait_for n1 gone=n3 5s
wait_for n2 gone=n3 5s
# Dead means disconnected: a publisher on n3's port, even with n3's own key, hears from nobody.
out=$(secure_probe impostor --bind "${H_PUB[n3]}" --victim n3 --key "$STATE_DIR/keys/n3.key" --seconds 1.5)
step "n3's port after it was declared dead: $out"
[ "$(json_get subscriptions <<<"$out")" = 0 ] || hostile_note "a survivor still subscribed at a dead member's port: $out"
hostile_rogue_bg takeover takeover --bind "${H_PUB[n3]}" --victim n3 --subscribers 2 --topic dp.forged --follow dp \
    --verify "${H_CONTROL[n1]}" --verify "${H_CONTROL[n2]}" --seqs 1,18446744073709551615
for id in n1 n2; do
    hostile_rogue membership --endpoint "${H_MEMBERSHIP[$id]}" --as n3 \
        --address "${H_MEMBERSHIP[n3]} ${H_PUB[n3]}" --send "ping-as:n3:18446744073709551615"
    step "forged comeback of n3 at $id, at incarnation UInt64.max: $H_OUT"
    future=$(ctl_json metrics "$id" | json_get membership.dropped.future_incarnation || echo 0)
    [ "$future" -ge 1 ] || hostile_note "$id took n3's comeback at incarnation UInt64.max (future_incarnation = $future)"
    hostile_rogue membership --endpoint "${H_MEMBERSHIP[$id]}" --as n3 \
        --address "${H_MEMBERSHIP[n3]} ${H_PUB[n3]}" --send "ping-as:n3:$(now_ms)"
    step "forged comeback of n3 at $id, at the current time: $H_OUT"
done
# (n3 does not stay alive: nobody answers the survivors' probes at its membership endpoint, so it
# is suspected and declared dead again within a few seconds — which the rogue does not need.)
until_true 10 test -s "$H_TMP/takeover.out" || hostile_note "the rogue publisher did not finish within 10 s"
step "rogue: $(cat "$H_TMP/takeover.out" 2>/dev/null)"
grep -q '"precondition"' "$H_TMP/takeover.out" 2>/dev/null && hostile_note "the takeover could not be set up: $(cat "$H_TMP/takeover.out")"
hostile_verdict --delivery n1:n2
