# shellcheck shell=bash
# What a secured deployment refuses at start: a node's secret key that others may read (as ssh
# does), rexctl's own key likewise, and a plain control endpoint on every interface without
# --insecure. Each is one line that says what to run.

secure_begin
key="$KEY_DIR/n3.key"
chmod 644 "$key"
set +e
out=$("$REXNODE" --cluster "$CLUSTER_FILE" --id n3 2>&1)
code=$?
set -e
chmod 600 "$key"
step "rexnode with a world-readable key: exit $code: $out"
assert_eq 64 "$code" "rexnode's exit code"
[[ "$out" == *"group or others may access it (mode 0644)"*"chmod 600 $key"* ]] || fail "rexnode did not say how to fix the key: $out"

operator="$KEY_DIR/operator.key"
chmod 640 "$operator"
set +e
out=$(rexctl state n1 2>&1)
code=$?
set -e
chmod 600 "$operator"
step "rexctl with a group-readable key: exit $code: $out"
assert_eq 2 "$code" "rexctl's exit code"
[[ "$out" == *"chmod 600 $operator"* ]] || fail "rexctl did not say how to fix its key: $out"
rexctl state n1 >/dev/null || fail "rexctl with the key made private again"

set +e
out=$("$REXNODE" --id lonely --pub 'tcp://127.0.0.1:*' --control 'tcp://0.0.0.0:*' 2>&1)
code=$?
set -e
step "rexnode --control tcp://0.0.0.0:* without keys: exit $code: ${out:0:160}…"
assert_eq 64 "$code" "exit code of a plain control endpoint on every interface"
[[ "$out" == *"--insecure"* ]] || fail "the refusal does not name --insecure: $out"
