# shellcheck shell=bash
# The viewer key reads (nodes, state, keep, metrics, wait) and is refused every dispatch with
# `forbidden`; the admin key (the default, keys/operator.key) may do both.

secure_begin
viewer="$KEY_DIR/viewer.key"
for command in "nodes" "state n1" "keep n1" "metrics n1" "wait n1 --for state=peers.n2.status=alive --timeout 3s"; do
    # shellcheck disable=SC2086
    out=$(rexctl --key "$viewer" $command 2>&1) || fail "viewer: rexctl $command failed: $out"
    step "viewer: rexctl $command: ok"
done
set +e
out=$(rexctl --key "$viewer" send n1 set viewerx 1 2>&1)
code=$?
set -e
step "viewer: send: exit $code: $out"
assert_eq 2 "$code" "exit code of a viewer's dispatch"
[[ "$out" == *"forbidden"*"role viewer"* ]] || fail "the viewer's dispatch was not forbidden: $out"
[ -z "$(state_get n1 feeds.viewerx 2>/dev/null || true)" ] || fail "the viewer's set was accepted"
rexctl send n1 set adminx 1 >/dev/null || fail "the admin key could not dispatch"
wait_for n1 'state=feeds.adminx.value=1' 2s
