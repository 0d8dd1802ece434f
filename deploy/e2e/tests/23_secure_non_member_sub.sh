# shellcheck shell=bash
# Only members subscribe: while n1 publishes, a SUB with a key of its own (and n1's real server
# key) gets nothing from n1's publisher, nor does a plain SUB, while one holding a member's key
# (n3's) gets n1's messages — the same probe, so the check can fail.

secure_begin
pub=$(node_field n1 pub)
server=$(node_key n1)
stranger="$STATE_DIR/sub-stranger.key"
rm -f "$stranger" "${stranger%.key}.pub"
rexctl keygen "$stranger" >/dev/null
# n1 publishes for the probes' whole run (nodes under the SWIM membership publish nothing idle).
rexctl send n1 publish nm.t 'v{i}' --count 500 --rate 100 >/dev/null 2>&1 &
publisher=$!
out_stranger=$(secure_probe sub --pub "$pub" --key "$stranger" --server-key="$server" --seconds 1.5)
out_plain=$(secure_probe sub --pub "$pub" --seconds 1.5)
out_member=$(secure_probe sub --pub "$pub" --key "$KEY_DIR/n3.key" --server-key="$server" --seconds 1.5)
kill "$publisher" 2>/dev/null || true
wait "$publisher" 2>/dev/null || true
step "stranger: $out_stranger"
step "plain: $out_plain"
step "member (n3's key): $out_member"
assert_eq 0 "$(json_get received <<<"$out_stranger")" "messages a non-member's SUB received"
assert_eq 0 "$(json_get received <<<"$out_plain")" "messages a plain SUB received"
[ "$(json_get received <<<"$out_member")" -gt 0 ] || fail "a member's SUB received nothing: the probe cannot tell"
until_true 3 grep -q 'event=connection_refused .*socket=rex.data' "$LOG_DIR/n1.log" || fail "n1 did not log the refused subscriber"
rm -f "$stranger" "${stranger%.key}.pub"
