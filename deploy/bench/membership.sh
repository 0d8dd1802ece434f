#!/usr/bin/env bash
# Cluster idle CPU and kill -9 detection, all-to-all heartbeats against the SWIM membership, in
# one run on this machine: for each N and mode, a plain cluster (deploy/cluster.sh, 100 ms
# heartbeats or the 100 ms SWIM protocol period), 3 s to settle, the CPU every rexnode used over
# 10 s (utime + stime from /proc, in % of one core), then kill -9 of the last node and the time
# until every other node reports it gone (rexctl wait on each, in parallel).
#
#   deploy/bench/membership.sh [N…]        default: 30 100
#
# BENCH_MODES (default "heartbeat swim") picks the modes (heartbeats at N = 100 can take this
# 2-core machine past what the readiness check tolerates).
# State in .deploy/bench-membership; every cluster is stopped, whatever happens.
set -euo pipefail
# shellcheck source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
export REX_DEPLOY_DIR="$REPO_ROOT/.deploy/bench-membership"
set_state_dir "$REX_DEPLOY_DIR"
export REX_UP_TIMEOUT="${REX_UP_TIMEOUT:-180}"
CLUSTER_SH="$DEPLOY_SCRIPTS_DIR/cluster.sh"
trap '"$CLUSTER_SH" down >/dev/null 2>&1 || true' EXIT

ticks() {  # total utime + stime of the given pids, in clock ticks
    local pid total=0 fields
    for pid in "$@"; do
        read -ra fields <"/proc/$pid/stat" || continue
        total=$((total + fields[13] + fields[14]))
    done
    echo "$total"
}

measure() {
    local mode=$1 count=$2 pids=() id before after hz cpu victim killed_at tmp slowest=0 ms waiters=()
    REX_MEMBERSHIP=$mode "$CLUSTER_SH" up "$count" --insecure -- --heartbeat 100 --log-level warning >/dev/null
    for ((id = 1; id <= count; id++)); do pids+=("$(cat "$PID_DIR/n$id.pid")"); done
    sleep 3
    hz=$(getconf CLK_TCK)
    before=$(ticks "${pids[@]}")
    sleep 10
    after=$(ticks "${pids[@]}")
    cpu=$(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.1f", t / hz / 10 * 100 }')
    victim="n$count"
    tmp=$(mktemp -d)
    killed_at=$(now_ms)
    kill -9 "${pids[count - 1]}"
    for ((id = 1; id < count; id++)); do
        (rexctl wait "n$id" --for "gone=$victim" --timeout 20s >/dev/null 2>&1 && echo $(($(now_ms) - killed_at)) >"$tmp/n$id") &
        waiters+=($!)
    done
    wait "${waiters[@]}" || true
    local seen=0
    for ((id = 1; id < count; id++)); do
        [ -f "$tmp/n$id" ] || continue
        seen=$((seen + 1))
        ms=$(cat "$tmp/n$id")
        ((ms > slowest)) && slowest=$ms
    done
    rm -rf "$tmp"
    printf '%-9s N=%-4d idle CPU %6s %% of a core (%5s %% per node)   kill -9 → gone at %d/%d nodes, the last after %d ms\n' \
        "$mode" "$count" "$cpu" "$(awk -v c="$cpu" -v n="$count" 'BEGIN { printf "%.2f", c / n }')" "$seen" $((count - 1)) "$slowest"
    "$CLUSTER_SH" down >/dev/null
}

build_if_stale
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(30 100)
for count in "${counts[@]}"; do
    for mode in ${BENCH_MODES:-heartbeat swim}; do measure "$mode" "$count"; done
done
