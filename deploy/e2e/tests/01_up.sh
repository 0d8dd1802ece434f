# shellcheck shell=bash
# Three nodes come up, answer ping and see each other alive; `up` again says so.

step "deploy/cluster.sh up 3 -- $E2E_NODE_ARGS"
# shellcheck disable=SC2086
"$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >&2

for id in n1 n2 n3; do
    pid=$(cat "$PID_DIR/$id.pid")
    is_our_node "$pid" "$id" || fail "$id: pid $pid is not its rexnode"
done
step "three rexnode processes: $(node_pids)"

out=$(rexctl nodes 2>&1) || fail "rexctl nodes failed: $out"
printf '%s\n' "$out" | sed 's/^/      /' >&2
for id in n1 n2 n3; do
    for peer in n1 n2 n3; do
        [ "$id" = "$peer" ] && continue
        wait_for "$id" "state=peers.$peer.status=alive" 3s
    done
done

step "up again, same arguments: says it is already up, changes nothing"
before=$(node_pids)
# shellcheck disable=SC2086
out=$("$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS 2>&1 >/dev/null) || fail "second up failed: $out"
[[ "$out" == *"already up"* ]] || fail "second up did not say 'already up': $out"
assert_eq "$before" "$(node_pids)" "pids after the second up"
