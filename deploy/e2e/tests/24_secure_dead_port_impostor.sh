# shellcheck shell=bash
# The dead-port takeover, secured: n3 is killed and an impostor binds its PUB port and sends
# forged heartbeats `$hb.n3`. The survivors expect n3's key there, so their handshakes fail: no
# subscription reaches the impostor and n3 stays gone. With n3's stolen secret key the same probe
# is let in (what CURVE cannot prevent), which shows the probe can tell. n3 then rejoins.

secure_begin
pub=$(node_field n3 pub)
"$CLUSTER_SH" kill n3 >&2
wait_for n1 gone=n3 5s
wait_for n2 gone=n3 5s
out=$(secure_probe impostor --bind "$pub" --victim n3 --seconds 2.5)
step "impostor with its own key: $out"
assert_eq 0 "$(json_get subscriptions <<<"$out")" "subscriptions the impostor received"
[ "$(json_get sent <<<"$out")" -gt 10 ] || fail "the impostor sent almost nothing: $out"
for id in n1 n2; do
    assert_eq gone "$(state_get "$id" peers.n3.status)" "$id's view of n3 after the forged heartbeats"
done
out=$(secure_probe impostor --bind "$pub" --victim n3 --key "$KEY_DIR/n3.key" --seconds 2.5)
step "impostor with n3's stolen key: $out"
[ "$(json_get subscriptions <<<"$out")" -gt 0 ] || fail "even n3's own key got no subscription: the probe cannot tell"
"$CLUSTER_SH" restart n3 >&2
wait_for n1 state=peers.n3.status=alive 5s
wait_for n2 state=peers.n3.status=alive 5s
