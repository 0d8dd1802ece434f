#!/usr/bin/env bash
# The multi-host suite: five network-namespace hosts on one bridge (deploy/hosts.sh), one rexnode
# each, and the faults a network has between them. Each tests/NN_*.sh is one scenario, run in
# order in a subshell with `set -e`, against the same cluster (a scenario that finds it broken
# starts a fresh one); each prints one RESULT line. Every wait is bounded; on any exit every node
# is stopped and every namespace, link and rule removed. Results: .deploy/hosts/results.json.
# Closes with "HOSTS: N passed, M failed".
#
# Where network namespaces cannot be made (not root, no CAP_SYS_ADMIN, no /run/netns) the suite
# is skipped with a warning and exits 0 — except under CI (CI=true), where a skipped check is a
# failed one: it exits 1. Anything else missing is a failure, and so is a scenario that skips
# itself (exit 77) under CI.
#
#   deploy/e2e/hosts/run.sh [SCENARIO…]    e.g. deploy/e2e/hosts/run.sh 02_partition, or a glob
#
# Environment: HOSTS_NODE_ARGS (the nodes' options, default below), HOSTS_LOSS_SECONDS (15).
set -euo pipefail
# shellcheck source=../../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.sh"
# shellcheck source=../lib.sh
source "$DEPLOY_SCRIPTS_DIR/e2e/lib.sh"
# shellcheck source=lib.sh
source "$DEPLOY_SCRIPTS_DIR/e2e/hosts/lib.sh"

# As in deploy/e2e/run.sh: the SWIM membership (a 100 ms protocol period), short feed and settle
# intervals. A queue of
# 1,000 messages per subscriber (default 10,000) so that a few seconds of partition or a slow link
# overflow it and losses show up as gaps within a CI-sized run.
export HOSTS_NODE_ARGS="${HOSTS_NODE_ARGS:---feed-interval 20 --follow-settle 20 --queue-messages 1000}"

PATH="$PATH:/usr/sbin:/sbin"   # ip, for the probe below
HOSTS_DIR="$REPO_ROOT/.deploy/hosts"
export REX_HOSTS_DIR="$HOSTS_DIR"
set_state_dir "$HOSTS_DIR"
export HOSTS_RESULTS_JSONL="$HOSTS_DIR/results.jsonl"
export HOSTS_FAILED_DIR="$HOSTS_DIR/failed"
RESULTS_JSON="$HOSTS_DIR/results.json"

passed=0 failed=0 skipped=0
failures=()
RUN_STARTED=$SECONDS

# True when this process may make network namespaces: root, a private network namespace can be
# entered (CAP_SYS_ADMIN, a kernel with them), and /run/netns can hold named ones. Makes nothing.
can_make_namespaces() {
    [ "$(id -u)" -eq 0 ] || {
        echo "not root"
        return 1
    }
    command -v ip >/dev/null 2>&1 || {
        echo "no ip (iproute2)"
        return 1
    }
    unshare --net true 2>/dev/null || {
        echo "unshare --net fails (no CAP_SYS_ADMIN or no network namespaces in this kernel/container)"
        return 1
    }
    mkdir -p /run/netns 2>/dev/null && [ -w /run/netns ] || {
        echo "/run/netns is not writable"
        return 1
    }
}

write_results() {
    py -c '
import json, sys
docs = []
try:
    with open(sys.argv[1]) as f:
        docs = [json.loads(l) for l in f if l.strip()]
except OSError:
    pass
out = {"suite": "hosts", "nodeArgs": sys.argv[3], "skipped": sys.argv[4] or None, "seconds": float(sys.argv[5]),
       "passed": sum(d["result"] == "PASS" for d in docs), "failed": sum(d["result"] != "PASS" for d in docs),
       "scenarios": docs}
with open(sys.argv[2] + ".tmp", "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
' "$HOSTS_RESULTS_JSONL" "$RESULTS_JSON" "$HOSTS_NODE_ARGS" "${1:-}" "$((SECONDS - RUN_STARTED))" \
        && mv "$RESULTS_JSON.tmp" "$RESULTS_JSON" && rm -f "$HOSTS_RESULTS_JSONL"
}

print_results_table() {
    [ -s "$HOSTS_RESULTS_JSONL" ] || return 0
    {
        printf 'SCENARIO\tRESULT\tSECONDS\tDETECT ms\tHEAL ms\tLOST\tGAPS\tPEAK MiB\tSUMMARY\n'
        py -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    cells = [d["scenario"], d["result"], d["seconds"]] + [d.get(k, "-") for k in ("detect_ms", "heal_ms", "lost", "gaps", "peak_rss_mib")]
    summary = d.get("summary", "")
    cells.append(summary if len(summary) <= 110 else summary[:107] + "...")
    print("\t".join(str(c) for c in cells))' "$HOSTS_RESULTS_JSONL"
    } | print_table >&2
}

finish() {
    local status=$?
    trap - EXIT INT TERM
    hosts down >/dev/null 2>&1 || { warn "deploy/hosts.sh down failed while cleaning up: retrying"; hosts down >&2 || true; }
    print_results_table
    write_results "" || warn "could not write ${RESULTS_JSON#"$PWD"/}"
    if [ "$failed" -gt 0 ] || [ "$status" -ne 0 ]; then
        info "logs kept in ${HOSTS_DIR#"$PWD"/}/logs (and failed/ per failed scenario)"
        [ "${#failures[@]}" -gt 0 ] && info "failed: ${failures[*]}"
    else
        rm -rf "$LOG_DIR" "$HOSTS_FAILED_DIR"
    fi
    info "results: ${RESULTS_JSON#"$PWD"/}"
    [ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
    if [ "$skipped" -gt 0 ]; then
        echo "HOSTS: $passed passed, $failed failed, $skipped skipped"
    else
        echo "HOSTS: $passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ] && exit 0
    exit 1
}

select_scenarios "$DEPLOY_SCRIPTS_DIR/e2e/hosts/tests" "$@"

if ! why=$(can_make_namespaces); then
    { mkdir -p "$HOSTS_DIR" && rm -f "$HOSTS_RESULTS_JSONL" && write_results "$why"; } 2>/dev/null \
        || warn "could not write ${RESULTS_JSON#"$PWD"/}"
    if in_ci; then
        error "the multi-host suite cannot run: network namespaces cannot be made here ($why)."
        error "Under CI=true a skipped check is a failed check: run CI as root with CAP_SYS_ADMIN."
        echo "HOSTS: 0 passed, ${#scenarios[@]} failed (not run: $why)"
        exit 1
    fi
    warn "=================================================================================="
    warn "SKIPPING the multi-host suite: network namespaces cannot be made here ($why)."
    warn "Nothing about partitions, loss, slow links or host restarts was tested."
    warn "=================================================================================="
    echo "HOSTS: 0 passed, 0 failed, ${#scenarios[@]} skipped"
    exit 0
fi
mkdir -p "$HOSTS_DIR"
rm -f "$HOSTS_RESULTS_JSONL" "$RESULTS_JSON"
rm -rf "$HOSTS_FAILED_DIR"

# stop_scenario: TERM to a running scenario, and up to 15 s for it to end (its trap cleans up).
scenario_pid=''
stop_scenario() {
    [ -n "$scenario_pid" ] || return 0
    kill -TERM "$scenario_pid" 2>/dev/null || true
    local deadline=$(($(now_ms) + 15000))
    while pid_alive "$scenario_pid" && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.1; done
    wait "$scenario_pid" 2>/dev/null || true
}
trap finish EXIT
trap 'stop_scenario; exit 130' INT
trap 'stop_scenario; exit 143' TERM

ensure_system_packages
build_if_stale

log "multi-host: ${#scenarios[@]} scenarios on $HOSTS_COUNT namespaced hosts (state in ${HOSTS_DIR#"$PWD"/})"
suite_started=$(now_ms)
# shellcheck disable=SC2086
hosts up "$HOSTS_COUNT" -- $HOSTS_NODE_ARGS >&2 || fatal "the hosts did not come up (see above)"
for file in "${scenarios[@]}"; do
    name=$(basename "$file" .sh)
    log "$name"
    started=$(now_ms)
    # In the background and waited for, so that a TERM or Ctrl-C is acted on at once (bash runs a
    # trap only after the foreground command ends): the trap passes it on to the scenario, whose
    # own trap clears its faults and stops its loads.
    set +e
    (
        trap 'exit 143' TERM
        set -euo pipefail
        # shellcheck source=/dev/null
        source "$file"
    ) &
    scenario_pid=$!
    wait "$scenario_pid"
    status=$?
    scenario_pid=''
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
    fi
done
log "multi-host suite took $(($(now_ms) - suite_started)) ms"
