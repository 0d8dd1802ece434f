# shellcheck shell=bash
# Hostile peer on the SWIM membership path: raw bytes at n1's membership ROUTER.
#  1. Without a member's key (a plain DEALER, then one with a key of its own): the handshake is
#     refused, nothing reaches the membership, no stranger is admitted.
#  2. With n3's stolen key (what CURVE cannot prevent): every malformed kind is counted under its
#     own reason in n1's metrics (rexnode_membership_messages_dropped_total{reason=…}) and dropped;
#     a message claiming another sender ("rogue") is a sender_mismatch; gossip from "n3" that a
#     stranger is alive is refused (it holds no key); a frame over twice the limit cuts only that
#     connection.
# n1 keeps n2 and n3 alive throughout and answers ping in time.

hostile_begin --secured membership n1
mem1=${H_MEMBERSHIP[n1]}
[ "$mem1" != - ] || hostile_fail "the cluster file has no membership endpoints: not a SWIM cluster"
metric() { rexctl -o json metrics n1 | json_get "$1"; }
dropped() { metric "membership.dropped.$1"; }

refused_before=$(metric security.handshakesRefused)
for key in plain stranger; do
    hostile_rogue membership --endpoint "$mem1" --key "$key" --send join-as:rogue --send bad_magic --send gossip:rogue
    step "without a member's key ($key): $H_OUT"
done
refused_after=$(metric security.handshakesRefused)
[ "$refused_after" -gt "$refused_before" ] || hostile_note "n1 refused no handshake from a key of the rogue's own ($refused_before → $refused_after)"
[ "$(dropped bad_magic)" = 0 ] || hostile_note "bytes from a non-member reached n1's membership (bad_magic $(dropped bad_magic))"

kinds=(bad_magic unsupported_version unknown_kind truncated trailing_bytes bad_varint oversized)
sends=()
for kind in "${kinds[@]}"; do sends+=(--send "$kind"); done
hostile_rogue membership --endpoint "$mem1" --key stolen --as n3 "${sends[@]}" --send three-frames \
    --send join-as:rogue --send gossip:rogue
step "with n3's stolen key: $H_OUT"
counted() {
    local doc
    doc=$(rexctl -o json metrics n1) || return 1
    py -c '
import json, sys
dropped = json.loads(sys.argv[1])["membership"]["dropped"]
sys.exit(0 if all(dropped.get(k, 0) >= 1 for k in sys.argv[2:]) else 1)' "$doc" "${kinds[@]}" bad_frames sender_mismatch stranger
}
if until_true 5 counted; then
    step "n1 counted every kind: $(rexctl -o json metrics n1 | json_get membership.dropped)"
else
    hostile_note "n1 did not count every malformed kind within 5 s: $(rexctl -o json metrics n1 | json_get membership.dropped)"
fi
for id in n1 n2; do
    [ -z "$(state_get "$id" peers.rogue 2>/dev/null || true)" ] || hostile_note "$id admitted the stranger 'rogue': $(state_get "$id" peers.rogue)"
done
metrics=$(node_field n1 metrics)
text=$(curl -fsS --max-time 2 "http://${metrics#tcp://}/metrics") || hostile_note "GET /metrics of n1 failed"
grep -q '^rexnode_membership_messages_dropped_total{reason="oversized"} [1-9]' <<<"$text" \
    || hostile_note "GET /metrics does not show the oversized membership message"

received=$(metric membership.received)
hostile_rogue membership --endpoint "$mem1" --key stolen --as n3 --send huge
step "a frame over twice the limit: $H_OUT"
until_true 5 test "$(metric membership.received)" -gt "$((received + 5))" || hostile_note "n1's membership stopped receiving after the huge frame"
for peer in n2 n3; do
    [ "$(state_get n1 "peers.$peer.status")" = alive ] || hostile_note "n1 sees $peer $(state_get n1 "peers.$peer.status") after the attack"
done
hostile_verdict
