# shellcheck shell=bash
# A secured cluster: every node runs CURVE (its log says so), its key files are private, rexctl
# works with the default key, and a plain client gets no reply and one clear error (exit 2).

secure_begin
for id in n1 n2 n3; do
    grep -q 'event=started .*security=curve' "$LOG_DIR/$id.log" || fail "$id's log does not say it started secured"
    mode=$(stat -c %a "$KEY_DIR/$id.key")
    assert_eq 600 "$mode" "mode of keys/$id.key"
done
out=$(rexctl nodes 2>&1) || fail "rexctl nodes on the secured cluster: $out"
printf '%s\n' "$out" | sed 's/^/      /' >&2

control=$(node_field n1 control)
set +e
out=$(rexctl --node "n1=$control" --timeout 1s send n1 set plainx 1 2>&1)
code=$?
set -e
step "plain client: exit $code: $out"
assert_eq 2 "$code" "exit code of a plain client"
[[ "$out" == *"requires CURVE"*"rexctl spoke plain"* ]] || fail "the plain client's error does not say why: $out"
[ "$(wc -l <<<"$out")" -eq 1 ] || fail "more than one line: $out"
[ -z "$(state_get n1 feeds.plainx 2>/dev/null || true)" ] || fail "the plain client's set was accepted"
