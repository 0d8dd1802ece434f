# shellcheck shell=bash
# Crash consistency: deploy/e2e/crash_loop.py kills a node with SIGKILL at a random moment under a
# pipelined load of set/unset/follow/unfollow, 50 times (CRASH_ITERATIONS), restarting it on the
# same data directory each time; after every restart acknowledged ⊆ recovered ⊆ sent (the state
# is the fold of a prefix of the actions sent that holds every one acknowledged). The node folds
# its journal into a snapshot every 3,000 actions, so kills land in compactions too.

mapfile -t ports < <(pick_port_block 1 2)
[ ${#ports[@]} -eq 2 ] || fail "no free ports for the crash node"
dir="$STATE_DIR/crash"
rm -rf "$dir"
mkdir -p "$dir" "$LOG_DIR"
step "node on pub ${ports[0]}, control ${ports[1]}, data in ${dir#"$REPO_ROOT"/}"
out="$dir/crash_loop.out"
if ! timeout 100 "$PYTHON" "$DEPLOY_SCRIPTS_DIR/e2e/crash_loop.py" --rexnode "$REXNODE" --dir "$dir/data" --log "$LOG_DIR/crash.log" \
    --pub-port "${ports[0]}" --control-port "${ports[1]}" --iterations "${CRASH_ITERATIONS:-50}" --compact-actions 3000 ${CRASH_SEED:+--seed "$CRASH_SEED"} >"$out" 2>&1; then
    tail -n 20 "$out" >&2
    fail "crash loop failed (output in ${out#"$REPO_ROOT"/}, node log in ${LOG_DIR#"$REPO_ROOT"/}/crash.log)"
fi
sed -n '1p;$p' "$out" | while read -r line; do step "$line"; done
