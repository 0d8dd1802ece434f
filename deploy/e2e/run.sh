#!/usr/bin/env bash
# The end-to-end suite: a real cluster of rexnode processes on loopback, driven by deploy/cluster.sh
# and rexctl. Each tests/NN_*.sh is one scenario, run in order against the same cluster, in a
# subshell with `set -e`. Every wait is bounded; the cluster is stopped on any exit; on a failure
# every node's log tail is printed. Closes with "E2E: N passed, M failed".
#
# The NN_hostile_*.sh scenarios each start a fresh cluster of their own (same state dir) and
# attack it with a rogue peer (rogue.py, helpers in hostile_lib.sh); they print one RESULT line
# each and a table at the end. 90_down stays last. A scenario exiting 77 counts as skipped, and
# under CI (CI=true) as failed: there a check that cannot run is a failed check.
#
#   deploy/e2e/run.sh [SCENARIO…]      e.g. deploy/e2e/run.sh 01_up 02_follow
#                                      or a glob: deploy/e2e/run.sh '*_hostile_*'
set -euo pipefail
# shellcheck source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=lib.sh
source "$DEPLOY_SCRIPTS_DIR/e2e/lib.sh"
# shellcheck source=hostile_lib.sh
source "$DEPLOY_SCRIPTS_DIR/e2e/hostile_lib.sh"

# Short intervals so changes show quickly. The nodes run the SWIM membership (rexnode's only one,
# a 100 ms protocol period).
export E2E_NODE_ARGS="--feed-interval 20 --follow-settle 20"

# The suite's own state dir, apart from any cluster a person has up in .deploy/.
E2E_DIR="$REPO_ROOT/.deploy/e2e"
export REX_DEPLOY_DIR="$E2E_DIR"
set_state_dir "$E2E_DIR"

passed=0 failed=0 skipped=0
failures=()

print_log_tails() {
    local log
    for log in "$LOG_DIR"/*.log; do
        [ -f "$log" ] || continue
        printf -- '--- last 25 lines of %s ---\n' "$log" >&2
        tail -n 25 "$log" >&2
    done
}

finish() {
    local status=$?
    trap - EXIT INT TERM
    if [ "$failed" -gt 0 ] || [ "$status" -ne 0 ]; then
        print_log_tails
    fi
    "$CLUSTER_SH" down >/dev/null 2>&1 || warn "deploy/cluster.sh down failed while cleaning up"
    if [ "$failed" -gt 0 ] || [ "$status" -ne 0 ]; then
        info "logs kept in ${E2E_DIR#"$PWD"/}/logs"
        [ "${#failures[@]}" -gt 0 ] && info "failed: ${failures[*]}"
    else
        rm -rf "$E2E_DIR"
    fi
    [ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
    if [ "$skipped" -gt 0 ]; then
        echo "E2E: $passed passed, $failed failed, $skipped skipped"
    else
        echo "E2E: $passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ] && exit 0
    exit 1
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_system_packages
build_if_stale

# A cluster left behind by an interrupted run.
"$CLUSTER_SH" down >/dev/null 2>&1 || true
rm -rf "$E2E_DIR"

select_scenarios "$DEPLOY_SCRIPTS_DIR/e2e/tests" "$@"

log "end-to-end: ${#scenarios[@]} scenarios against a local cluster (state in ${E2E_DIR#"$PWD"/})"
suite_started=$(now_ms)
for file in "${scenarios[@]}"; do
    name=$(basename "$file" .sh)
    if [ "$name" != 01_up ] && [ -n "${cluster_broken:-}" ]; then
        skipped=$((skipped + 1))
        info "SKIP $name (the cluster did not come up)"
        continue
    fi
    log "$name"
    started=$(now_ms)
    set +e
    (
        set -euo pipefail
        # shellcheck source=/dev/null
        source "$file"
    )
    status=$?
    set -e
    elapsed=$(($(now_ms) - started))
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        ok "PASS $name ($elapsed ms)"
    elif [ "$status" -eq 77 ] && ! in_ci; then
        skipped=$((skipped + 1))
        warn "SKIP $name ($elapsed ms)"
    elif [ "$status" -eq 77 ]; then
        failed=$((failed + 1))
        failures+=("$name")
        error "FAIL $name ($elapsed ms): it skipped itself (exit 77, reason above), and under CI=true a skipped check is a failed one"
    else
        failed=$((failed + 1))
        failures+=("$name")
        error "FAIL $name ($elapsed ms)"
        [ "$name" = 01_up ] && cluster_broken=1
    fi
done
if [ -s "$STATE_DIR/hostile-results.tsv" ]; then
    log "hostile peers"
    {
        printf 'SCENARIO\tPEAK MiB\tAFTER MiB\tPING ms\tSECONDS\tRESULT\tWHY\n'
        awk -F'\t' -v OFS='\t' '{ if (length($7) > 100) $7 = substr($7, 1, 97) "..."; print }' "$STATE_DIR/hostile-results.tsv"
    } | print_table >&2
fi
log "end-to-end suite took $(($(now_ms) - suite_started)) ms"
