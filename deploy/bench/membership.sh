#!/usr/bin/env bash
# Issue 19's membership measurement, the old all-to-all heartbeats against the SWIM membership, in
# one run on this machine. For each N, each mode on a cluster of its own (deploy/cluster.sh,
# plain unless --secured; 100 ms heartbeats, or SWIM at cluster.sh's protocol period: 100 ms, and
# 150 ms above 50 nodes; REX_PROTOCOL_PERIOD overrides it, and the row's label says which):
#   idle    3 s to settle, then the CPU every rexnode used over 10 s (utime + stime from /proc), in
#           % of one core: the cluster's and per node;
#   pause   n1 follows a topic from n2; n2 is stopped (SIGSTOP) for PAUSE ms, shorter than either
#           mode's time to declare a member dead (heartbeats: 5 missed = 500 ms; SWIM: a ping
#           timeout, then a suspicion of at least 0.4 s × log10 N), then continued. A watcher on
#           every other node (rexctl wait --for gone=n2, pushed, not polled) counts the nodes that
#           declared it dead; afterwards n1's follow must be the same channel (opens and recreates
#           unchanged) and receive n2's next value;
#   kill    kill -9 of the last node: time until every other node reports it gone (the slowest;
#           each node's watcher is subscribed before the kill);
#   rejoin  the killed node restarted (deploy/cluster.sh restart): time from its process start
#           until it sees every other node alive;
#   join    SWIM on a plain cluster only: deploy/cluster.sh add (a node in no running node's
#           cluster file, --join of running members): time from its process start until it sees
#           every member alive.
#
#   deploy/bench/membership.sh [--old-bin DIR] [--secured] [--pause MS] [N…]     default N: 10 30 100
#
# --old-bin DIR: prebuilt rexnode and rexctl of a commit that still has the heartbeats (this tree
# runs SWIM only), e.g. 6fdc183: git worktree add /work/wt-old 6fdc183 --detach, then in it
# swift build -c release --product rexnode and --product rexctl; DIR=/work/wt-old/.build/release.
# The heartbeat rows need it. BENCH_MODES (default "heartbeat swim" with --old-bin, "swim"
# without) picks the modes. The machine's load average is printed
# before each N: run it on a quiet machine, and quote the load with the figures. A row whose
# cluster does not come up within REX_UP_TIMEOUT says so and the run goes on.
# State in .deploy/bench-membership; every cluster is stopped, whatever happens.
set -euo pipefail
# shellcheck source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
export REX_DEPLOY_DIR="$REPO_ROOT/.deploy/bench-membership"
set_state_dir "$REX_DEPLOY_DIR"
CLUSTER_SH="$DEPLOY_SCRIPTS_DIR/cluster.sh"
NEW_BIN_DIR="$BIN_DIR"

old_bin='' secured=0 pause_ms=300 counts=()
while [ $# -gt 0 ]; do
    case $1 in
    --old-bin)
        old_bin=$(realpath -m "${2:?--old-bin needs a directory}")
        shift
        [ -x "$old_bin/rexnode" ] && [ -x "$old_bin/rexctl" ] || fatal "--old-bin $old_bin: no executable rexnode and rexctl there"
        ;;
    --secured) secured=1 ;;
    --pause)
        pause_ms=${2:?--pause needs milliseconds}
        shift
        [[ "$pause_ms" =~ ^[1-9][0-9]{1,3}$ ]] && ((pause_ms < 400)) || fatal "--pause takes 10–399 ms (under either mode's time to declare death)"
        ;;
    -h | --help)
        sed -n '2,30s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
        exit 0
        ;;
    [1-9]*)
        [[ "$1" =~ ^[1-9][0-9]{0,2}$ ]] && (($1 >= 3 && $1 <= 249)) || fatal "N is 3–249 (got '$1')"
        counts+=("$1")
        ;;
    *) fatal "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
[ ${#counts[@]} -gt 0 ] || counts=(10 30 100)

stop_cluster() { "$CLUSTER_SH" down >/dev/null 2>&1 || true; }
trap 'stop_cluster; rm -rf "${tmp:-}"' EXIT

ticks() { # total utime + stime of the given pids, in clock ticks
    local pid total=0 fields line
    for pid in "$@"; do
        read -r line 2>/dev/null <"/proc/$pid/stat" || continue
        read -ra fields <<<"${line##*) }"
        total=$((total + fields[11] + fields[12]))
    done
    echo "$total"
}

# all_alive_conditions ID: --for state=peers.X.status=alive for every other node of the cluster file.
all_alive_conditions() {
    local id
    load_ids
    for id in "${NODE_IDS[@]}"; do [ "$id" = "$1" ] || printf -- '--for\nstate=peers.%s.status=alive\n' "$id"; done
}
load_ids() { mapfile -t NODE_IDS < <(py -c 'import json, sys; print("\n".join(n["id"] for n in json.load(open(sys.argv[1]))["nodes"]))' "$CLUSTER_FILE"); }

# Milliseconds since boot (10 ms steps), the clock of process start times.
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# time_until_sees_all ID CMD…: runs CMD (which starts node ID; it may add ID to the cluster file
# first) and a watcher on ID that every other node is alive at once (pushed by the node); prints
# the ms from the node's process start until that held, or "-" if not within 30 s. From the process
# start, not from CMD's: cluster.sh's own checks before it spawns the node are not the join.
time_until_sees_all() {
    local id=$1 starter deadline seen='' pid start hz conditions=()
    shift
    "$@" >"$tmp/start.out" 2>&1 &
    starter=$!
    deadline=$(($(now_ms) + 10000))
    until grep -q "\"$id\"" "$CLUSTER_FILE" 2>/dev/null; do
        [ "$(now_ms)" -lt "$deadline" ] || break
        sleep 0.01
    done
    mapfile -t conditions < <(all_alive_conditions "$id")
    rexctl wait "$id" "${conditions[@]}" --timeout 30s >/dev/null 2>&1 && seen=$(uptime_ms)
    wait "$starter" || warn "$* failed: $(tail -n 3 "$tmp/start.out")"
    pid=$(cat "$PID_DIR/$id.pid" 2>/dev/null || true)
    start=$(process_start_time "$pid" 2>/dev/null || true)
    hz=$(getconf CLK_TCK)
    if [ -n "$seen" ] && [ -n "$start" ]; then echo $((seen - start * 1000 / hz)); else echo -; fi
}

declare -a ROWS=()
measure() {
    local mode=$1 count=$2 bin_dir label pids=() id before after hz cpu killed_at slowest=0 ms seen=0
    local false_dead=0 no_answer=0 opens_before opens_after recreates_before recreates_after follow_ok=no
    local rejoin=- join=- waiters=()
    bin_dir=$NEW_BIN_DIR
    [ "$mode" != heartbeat ] || bin_dir=$old_bin
    label="$mode"
    [ "$mode" != heartbeat ] || label="heartbeat (old bin)"
    # cluster.sh's choice of protocol period (see its cmd_up), in the row's label.
    # The env value as text, not through $((…)): bash arithmetic would evaluate what it holds
    # (cluster.sh validates it before any node starts).
    [ "$mode" != swim ] || label="swim ${REX_PROTOCOL_PERIOD:-$((count > 50 ? 150 : 100))} ms"
    # cluster.sh with this row's binaries and membership; rexctl of the same build.
    local up=(env REX_BIN_DIR="$bin_dir" REX_MEMBERSHIP="$mode" "$CLUSTER_SH")
    set_bins "$bin_dir"
    local up_args=("$count")
    [ "$secured" = 1 ] || up_args+=(--insecure)
    up_args+=(-- --log-level warning)
    [ "$mode" != heartbeat ] || up_args+=(--heartbeat 100)
    local up_started
    up_started=$(now_ms)
    if ! "${up[@]}" up "${up_args[@]}" >"$tmp/up.out" 2>&1; then
        warn "$label N=$count: the cluster did not come up: $(grep -m1 'error:' "$tmp/up.out" || tail -n 1 "$tmp/up.out")"
        ROWS+=("$label	$count	not up	-	-	-	-	-	-	-")
        stop_cluster
        return 0
    fi
    local up_ms=$(($(now_ms) - up_started))
    for ((id = 1; id <= count; id++)); do pids+=("$(cat "$PID_DIR/n$id.pid")"); done

    # idle
    sleep 3
    hz=$(getconf CLK_TCK)
    before=$(ticks "${pids[@]}")
    sleep 10
    after=$(ticks "${pids[@]}")
    cpu=$(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.1f", t / hz / 10 * 100 }')

    # pause: SIGSTOP of n2 shorter than the time to declare death
    rexctl send n1 follow pause pause.t --from n2 >/dev/null
    rexctl wait n1 --for 'keep=follow[pause]' --timeout 10s >/dev/null
    opens_before=$(rexctl -o json describe n1 'follow[pause]' | json_get opens)
    recreates_before=$(rexctl -o json describe n1 'follow[pause]' | json_get recreates)
    waiters=()
    for ((id = 1; id <= count; id++)); do
        [ "$id" = 2 ] && continue
        (
            status=0
            rexctl wait "n$id" --for gone=n2 --timeout "$((pause_ms + 4000))ms" >/dev/null 2>&1 || status=$?
            echo "$status" >"$tmp/pause.n$id"
        ) &
        waiters+=($!)
    done
    sleep $((2 + count / 25)) # the watchers subscribe (each a watch on its node) before the pause begins
    kill -STOP "${pids[1]}"
    sleep "0.$(printf '%03d' "$pause_ms")"
    kill -CONT "${pids[1]}"
    wait "${waiters[@]}" || true
    for ((id = 1; id <= count; id++)); do
        [ "$id" = 2 ] && continue
        case $(cat "$tmp/pause.n$id" 2>/dev/null || echo 2) in
        0) false_dead=$((false_dead + 1)) ;;
        1) ;;
        *) no_answer=$((no_answer + 1)) ;;
        esac
    done
    rm -f "$tmp"/pause.*
    opens_after=$(rexctl -o json describe n1 'follow[pause]' | json_get opens)
    recreates_after=$(rexctl -o json describe n1 'follow[pause]' | json_get recreates)
    local marker="after-pause-$RANDOM"
    rexctl send n2 set pause.t "$marker" >/dev/null
    if rexctl wait n1 --for "state=follows.pause.lastValue=$marker" --timeout 5s >/dev/null 2>&1 \
        && [ "$opens_before/$recreates_before" = "$opens_after/$recreates_after" ]; then
        follow_ok=kept
    else
        follow_ok="lost (opens $opens_before→$opens_after, recreates $recreates_before→$recreates_after)"
    fi

    # kill -9 of the last node
    # The watchers first, so the figure is the nodes' detection, not rexctl's start-up.
    local victim="n$count"
    waiters=()
    for ((id = 1; id < count; id++)); do
        (rexctl wait "n$id" --for "gone=$victim" --timeout 30s >/dev/null 2>&1 && now_ms >"$tmp/gone.n$id") &
        waiters+=($!)
    done
    sleep $((2 + count / 25))
    killed_at=$(now_ms)
    kill -9 "${pids[count - 1]}"
    wait "${waiters[@]}" || true
    for ((id = 1; id < count; id++)); do
        [ -f "$tmp/gone.n$id" ] || continue
        seen=$((seen + 1))
        ms=$(($(cat "$tmp/gone.n$id") - killed_at))
        ((ms > slowest)) && slowest=$ms
    done
    rm -f "$tmp"/gone.*

    # rejoin: the killed node restarted
    rejoin=$(time_until_sees_all "$victim" "${up[@]}" restart "$victim")

    # join: a new node through --join (SWIM: cluster.sh add; the cluster must be plain)
    if [ "$mode" = swim ] && [ "$secured" = 0 ]; then
        join=$(time_until_sees_all joiner "${up[@]}" add joiner)
    fi

    printf '%-20s N=%-4d up %6d ms  idle %6s %% of a core (%5s %% per node)  pause %d ms: declared dead by %d/%d (%d no answer), follow %s  kill -9 → gone at %d/%d, last after %d ms  rejoin %s ms  join %s ms\n' \
        "$label" "$count" "$up_ms" "$cpu" "$(awk -v c="$cpu" -v n="$count" 'BEGIN { printf "%.2f", c / n }')" \
        "$pause_ms" "$false_dead" $((count - 1)) "$no_answer" "$follow_ok" "$seen" $((count - 1)) "$slowest" "$rejoin" "$join" >&2
    ROWS+=("$label	$count	$cpu	$(awk -v c="$cpu" -v n="$count" 'BEGIN { printf "%.2f", c / n }')	$false_dead/$((count - 1))	${follow_ok%% *}	$seen/$((count - 1))	$slowest	$rejoin	$join")
    stop_cluster
}

# The rexctl of the binaries a row runs (an old node answers its own rexctl best).
set_bins() {
    REXNODE="$1/rexnode"
    REXCTL="$1/rexctl"
}

modes=${BENCH_MODES:-$([ -n "$old_bin" ] && echo "heartbeat swim" || echo swim)}
for mode in $modes; do
    case $mode in
    swim) ;;
    heartbeat) [ -n "$old_bin" ] || fatal "the heartbeat rows need --old-bin DIR: this tree's rexnode runs SWIM only" ;;
    *) fatal "BENCH_MODES takes heartbeat and swim (got '$mode')" ;;
    esac
done
build_if_stale
tmp=$(mktemp -d)
log "membership bench: N = ${counts[*]}, modes $modes, $([ "$secured" = 1 ] && echo secured || echo plain), pause ${pause_ms} ms${old_bin:+; heartbeats from $old_bin}"
for count in "${counts[@]}"; do
    info "load average before N=$count: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
    for mode in $modes; do measure "$mode" "$count"; done
done
info "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
{
    printf 'MODE\tN\tIDLE CPU %%\tPER NODE %%\tPAUSED, DECLARED DEAD BY\tFOLLOW\tKILL -9 SEEN BY\tLAST SEEN (ms)\tREJOIN (ms)\tJOIN (ms)\n'
    printf '%s\n' "${ROWS[@]}"
} | print_table
