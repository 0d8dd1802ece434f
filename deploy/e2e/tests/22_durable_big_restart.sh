# shellcheck shell=bash
# Restart with 100,000 follows (DURABLE_BIG_FOLLOWS): a node started on a data directory holding
# them in its journal restores them and opens its control endpoint within 2 s of its start, and
# gives every one back in its state. The first ping waits further for the engine's first
# reconcile of 100,000 follow channels (bounded at 20 s here), and the restart completes when
# every follow's channel is live (metrics' live follow channels, bounded at 2 s); both figures
# are printed, with the node's CPU time by then. Restored follows open without the follow settle.
# Issue 16's target, every follow live within 2 s of the process start, is asserted (--max-live-s
# 2). On a quiet 2-core machine the node needs 0.82-0.89 s of CPU for it and the wall figure is
# the same (0.84-0.90 s, 4 runs, load 1); under other builds' load it follows the load (before
# the last cuts, at 1.0-1.2 s of CPU: load 10-35, median 3.7 s), so run the suite on a machine of
# its own, as CI does. The probe is cheap: a
# `metrics` request counts live channels from the engine's per-class counters (about 4 ms of node
# CPU at 100,000 follows, not 210-230),
# and it polls only after the first ping, i.e. after the engine's first reconcile; the scenario
# prints what 10 metrics requests cost the node once every follow is live.

mapfile -t ports < <(pick_port_block 1 2)
[ ${#ports[@]} -eq 2 ] || fail "no free ports for the node"
dir="$STATE_DIR/big-restart"
rm -rf "$dir"
mkdir -p "$dir" "$LOG_DIR"
out="$dir/big_restart.out"
if ! timeout 100 "$PYTHON" "$DEPLOY_SCRIPTS_DIR/e2e/crash_loop.py" --rexnode "$REXNODE" --dir "$dir/data" --log "$LOG_DIR/big.log" \
    --pub-port "${ports[0]}" --control-port "${ports[1]}" --big-restart "${DURABLE_BIG_FOLLOWS:-100000}" --max-live-s 2 --metrics-cost 10 >"$out" 2>&1; then
    cat "$out" >&2
    fail "restart with ${DURABLE_BIG_FOLLOWS:-100000} follows failed (node log in ${LOG_DIR#"$REPO_ROOT"/}/big.log)"
fi
while read -r line; do step "$line"; done <"$out"
rm -rf "$dir/data"
