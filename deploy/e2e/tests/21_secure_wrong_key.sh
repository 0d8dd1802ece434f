# shellcheck shell=bash
# An operator key the nodes do not list is refused at the handshake (ZAP 400): rexctl says which
# key and what to do, at once (exit 2), and nothing is dispatched. The node logs the refusal.

secure_begin
stranger="$STATE_DIR/stranger.key"
rm -f "$stranger" "${stranger%.key}.pub"
public=$(rexctl keygen "$stranger")
set +e
started=$(now_ms)
out=$(rexctl --key "$stranger" send n1 set strangerx 1 2>&1)
code=$?
set -e
elapsed=$(($(now_ms) - started))
step "stranger key ${public:0:8}…: exit $code after $elapsed ms: $out"
assert_eq 2 "$code" "exit code of a refused key"
[[ "$out" == *"refused key ${public:0:8}"*"(ZAP status 400)"* ]] || fail "the error does not name the refused key: $out"
[ "$elapsed" -lt 2000 ] || fail "the refusal took $elapsed ms (it should not wait for --timeout)"
until_true 3 grep -q 'event=connection_refused .*socket=rex.control' "$LOG_DIR/n1.log" || fail "n1 did not log the refused connection"
step "n1: $(grep -m1 'event=connection_refused' "$LOG_DIR/n1.log" | cut -c1-200)"
[ -z "$(state_get n1 feeds.strangerx 2>/dev/null || true)" ] || fail "the refused key's set was accepted"
rm -f "$stranger" "${stranger%.key}.pub"
