# shellcheck shell=bash
# Helpers for the multi-host scenarios (deploy/e2e/hosts/tests/*.sh), sourced by
# deploy/e2e/hosts/run.sh after ../lib.sh (step, fail, wait_for, until_true, publish_until_seen,
# state_get, assert_eq). A scenario:
#
#   scenario_begin NAME       checks the cluster is whole (brings up a fresh one when not), resets
#                             every node's peak RSS, and sets the trap that ends the scenario
#   field KEY VALUE           one measurement, for the result line and results.json
#   check_le WHAT VALUE BOUND / check_eq WHAT EXPECTED ACTUAL / check_fail TEXT
#                             a check that records a failure instead of exiting, so every
#                             measurement is still taken
#   watch_start / watch_stop  the membership watcher (hostwatch.py) in the background
#
# On exit (pass or fail) the trap stops the watcher and the loads it started, clears every fault
# (heal, no loss, no slow link, links up, nodes resumed), checks that every node still runs, prints
# one line — RESULT NAME PASS|FAIL seconds, detect, heal, lost/gaps, peak RSS, notes — and appends
# the scenario's JSON document to $HOSTS_RESULTS_JSONL.

HOSTS_SH="$DEPLOY_SCRIPTS_DIR/hosts.sh"
HOSTWATCH_PY="$DEPLOY_SCRIPTS_DIR/e2e/hosts/hostwatch.py"
HOSTS_COUNT=5

hosts() { "$HOSTS_SH" "$@"; }
hostwatch() { /usr/bin/python3 "$HOSTWATCH_PY" "$@"; }

# The cluster's hosts, h1…hN.
all_hosts() { local i; for ((i = 1; i <= HOSTS_COUNT; i++)); do echo "h$i"; done; }

host_pid() { cat "$PID_DIR/$1.pid" 2>/dev/null || true; }

# host_alive HOST: its node process runs (stopped counts as running).
host_alive() {
    local pid
    pid=$(host_pid "$1")
    [ -n "$pid" ] && pid_alive "$pid" && is_our_node "$pid" "$1"
}

# mib PID FIELD: VmRSS or VmHWM of a live process in MiB (empty when gone).
mib() { awk -v f="$2:" '$1 == f { printf "%d\n", ($2 + 512) / 1024 }' "/proc/$1/status" 2>/dev/null || true; }

# Resets the peak RSS (VmHWM) of every node to its current RSS: peaks are then this scenario's.
reset_peaks() {
    local host pid
    for host in $(all_hosts); do
        pid=$(host_pid "$host")
        [ -n "$pid" ] && host_alive "$host" && echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || true
    done
}

# True when every node answers and sees every other node alive.
cluster_whole() {
    rexctl -o json nodes --timeout 500ms 2>/dev/null | py -c '
import json, sys
nodes = [json.loads(l) for l in sys.stdin if l.strip().startswith("{")]
ok = len(nodes) == int(sys.argv[1]) and all(
    n.get("reachable") and all(s == "alive" for s in (n.get("seenBy") or {}).values()) and len(n.get("seenBy") or {}) == len(nodes) - 1
    for n in nodes)
sys.exit(0 if ok else 1)' "$HOSTS_COUNT"
}

# A whole cluster, within 5 s; else a fresh one (an earlier scenario may have left it broken).
ensure_whole() {
    until_true 5 cluster_whole && return 0
    warn "the cluster is not whole: starting a fresh one"
    # shellcheck disable=SC2086
    hosts up "$HOSTS_COUNT" -- $HOSTS_NODE_ARGS >&2 || fail "a fresh cluster of $HOSTS_COUNT hosts did not come up"
}

scenario_begin() {
    S_NAME=$1
    S_STARTED=$(now_ms)
    S_FAILS=() S_NOTES=() S_BG=()
    S_WATCH_PID='' S_EVENTS=''
    declare -gA S_FIELDS=()
    S_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hosts-scenario.XXXXXX")
    trap scenario_end EXIT
    ensure_whole
    reset_peaks
}

field() { S_FIELDS[$1]=$2; }
note() {
    S_NOTES+=("$*")
    step "$*"
}

check_fail() {
    error "$*"
    S_FAILS+=("$*")
}

# check_le WHAT VALUE BOUND: VALUE ≤ BOUND (integers; a missing VALUE fails).
check_le() {
    if [[ "$2" =~ ^-?[0-9]+$ ]] && [ "$2" -le "$3" ]; then
        step "$1 = $2 (bound $3)"
    else
        check_fail "$1 = ${2:-none}, over its bound $3"
    fi
}

check_eq() {
    if [ "$2" = "$3" ]; then
        step "$1 = $3"
    else
        check_fail "$1: expected $2, got $3"
    fi
}

# --- the membership watcher --------------------------------------------------------------------

watch_start() {
    S_EVENTS="$S_TMP/membership.json"
    rm -f "$S_TMP/watch.stop"
    hostwatch watch --cluster "$CLUSTER_FILE" --out "$S_EVENTS" --stop "$S_TMP/watch.stop" \
        --interval-ms 50 --max-seconds "${1:-120}" 2>>"$S_TMP/watch.log" &
    S_WATCH_PID=$!
    # Its first round, so that nothing before it is missed.
    sleep 0.2
}

watch_stop() {
    [ -n "$S_WATCH_PID" ] || return 0
    : >"$S_TMP/watch.stop"
    local deadline=$(($(now_ms) + 5000))
    # pid_alive, not kill -0: the watcher stays a zombie until `wait`, and kill -0 finds it.
    while pid_alive "$S_WATCH_PID"; do
        [ "$(now_ms)" -lt "$deadline" ] || {
            kill "$S_WATCH_PID" 2>/dev/null || true
            break
        }
        sleep 0.05
    done
    wait "$S_WATCH_PID" 2>/dev/null || true
    S_WATCH_PID=''
    [ -s "$S_EVENTS" ] || check_fail "the membership watcher wrote nothing ($(tail -n 3 "$S_TMP/watch.log" 2>/dev/null))"
}

# pairs FROM_LIST TO_LIST: "a>b,…" for every observer in FROM and peer in TO (a ≠ b).
pairs() {
    local a b out=()
    for a in $1; do for b in $2; do [ "$a" = "$b" ] || out+=("$a>$b"); done; done
    local IFS=,
    echo "${out[*]}"
}

# first_ms SINCE PAIRS STATUSES: ms until the last of the pairs first showed one of STATUSES
# (empty when one never did).
first_ms() { hostwatch first --events "$S_EVENTS" --since "$1" --pairs "$2" --status "$3" | json_get max 2>/dev/null | grep -E '^[0-9]+$' || true; }

# flaps SINCE UNTIL PAIRS: the flap document of hostwatch.py.
flaps() { hostwatch flaps --events "$S_EVENTS" --since "$1" --until "$2" --pairs "$3"; }

# --- follows and loads -------------------------------------------------------------------------

# follow_numbers NODE NAME SENDER TOPIC: "count gaps duplicates reordered restarts sequence" of
# the follow, sequence being the last one heard from SENDER on TOPIC (0 when none).
follow_numbers() {
    rexctl -o json state "$1" | py -c '
import json, sys
name, sender, topic = sys.argv[1:4]
f = json.load(sys.stdin)["follows"].get(name) or {}
seq = ((f.get("senders") or {}).get(sender) or {}).get("lastSequence", {}).get(topic, 0)
print(*(f.get(k, 0) for k in ("count", "gaps", "duplicates", "reordered", "restarts")), seq)' "$2" "$3" "$4"
}

# follow_sequence NODE NAME SENDER TOPIC: the last sequence heard.
follow_sequence() {
    local numbers
    numbers=$(follow_numbers "$@" 2>/dev/null) || return 1
    echo "${numbers##* }"
}

# follow_reaches NODE NAME SENDER TOPIC SEQUENCE: the follow has heard SEQUENCE (or later).
follow_reaches() {
    local seq
    seq=$(follow_sequence "$1" "$2" "$3" "$4") || return 1
    [ "$seq" -ge "$5" ]
}

# follow_everywhere NAME TOPIC FROM NODE…: each NODE follows TOPIC from FROM under NAME.
follow_everywhere() {
    local name=$1 topic=$2 from=$3 node
    shift 3
    for node in "$@"; do rexctl send "$node" follow "$name" "$topic" --from "$from" >/dev/null; done
    for node in "$@"; do wait_for "$node" "keep=follow[$name]" 3s; done
}

# sync_sequence SENDER TOPIC NAME NODE…: publishes on SENDER until every NODE's follow NAME heard
# the same last message; prints that message's sequence (the publisher's count so far).
sync_sequence() {
    local sender=$1 topic=$2 name=$3 node v seq=''
    shift 3
    v=$(publish_until_seen "$sender" "$topic" sync "$1" "$name")
    for node in "$@"; do
        rexctl wait "$node" --for "state=follows.$name.lastValue=$v" --timeout 3s >/dev/null \
            || fail "$node's follow $name did not get $v from $sender"
    done
    seq=$(follow_sequence "$1" "$name" "$sender" "$topic")
    for node in "$@"; do
        [ "$(follow_sequence "$node" "$name" "$sender" "$topic")" = "$seq" ] \
            || fail "$node's follow $name is not at $sender's sequence $seq"
    done
    echo "$seq"
}

# converge SENDER TOPIC NAME SECONDS FOLLOWER…: publishes a marker on SENDER every 250 ms until
# every FOLLOWER's follow NAME has heard one (a follower counts the gap before a message only once
# a later message arrives, so the last messages of a load need one after them), then syncs the
# sequence (sync_sequence) and prints it. Fails after SECONDS.
converge() {
    local sender=$1 topic=$2 name=$3 seconds=$4 deadline try=0 node all
    shift 4
    deadline=$(($(now_ms) + seconds * 1000))
    while :; do
        try=$((try + 1))
        rexctl send "$sender" publish "$topic" "marker-$try" >/dev/null
        sleep 0.25
        all=1
        for node in "$@"; do
            [[ "$(state_get "$node" "follows.$name.lastValue" 2>/dev/null)" == marker-* ]] || {
                all=''
                break
            }
        done
        [ -n "$all" ] && break
        [ "$(now_ms)" -lt "$deadline" ] || return 1
    done
    sync_sequence "$sender" "$topic" "$name" "$@"
}

# load_start NAME NODE TOPIC PAYLOAD COUNT RATE: COUNT publishes at RATE/s in the background
# (`rexctl send --count`; {i} in PAYLOAD becomes 1…COUNT).
load_start() {
    local name=$1
    rexctl -o json send "$2" publish "$3" "$4" --count "$5" --rate "$6" >"$S_TMP/load-$name.json" 2>"$S_TMP/load-$name.log" &
    S_BG+=($!)
    eval "S_LOAD_$name=$!"
}

# load_wait NAME SECONDS: waits up to SECONDS for the load to finish; fails unless every
# publish was accepted.
load_wait() {
    local name=$1 var="S_LOAD_$1" pid accepted sent
    pid=${!var}
    # pid_alive, not kill -0: a finished job stays a zombie until `wait`, and kill -0 finds it.
    until_true "$2" load_done "$pid" || {
        kill "$pid" 2>/dev/null || true
        fail "load $name did not finish within $2 s"
    }
    local status=0
    wait "$pid" || status=$?
    # Reaped, its pid may be handed to any new process: never signal it again.
    forget_background "$pid"
    [ "$status" -eq 0 ] || fail "load $name: rexctl send failed: $(tail -n 2 "$S_TMP/load-$name.log")"
    accepted=$(json_get accepted <"$S_TMP/load-$name.json")
    sent=$(json_get sent <"$S_TMP/load-$name.json")
    [ "$accepted" = "$sent" ] || fail "load $name: $accepted of $sent publishes accepted"
}

load_done() { ! pid_alive "$1"; }

forget_background() {
    local pid kept=()
    for pid in "${S_BG[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
    S_BG=("${kept[@]}")
}

unfollow_everywhere() {
    local name=$1 node
    shift
    for node in "$@"; do rexctl send "$node" unfollow "$name" >/dev/null 2>&1 || true; done
}

# metric NODE PATH: one value of the node's metrics.
metric() { rexctl -o json metrics "$1" | json_get "$2"; }

# --- the end of a scenario ---------------------------------------------------------------------

clear_faults() {
    local host pid
    hosts heal >/dev/null 2>&1 || warn "heal failed"
    for host in $(all_hosts); do
        hosts loss "$host" 0 >/dev/null 2>&1 || true
        hosts slow "$host" off >/dev/null 2>&1 || true
        hosts link "$host" up >/dev/null 2>&1 || true
        pid=$(host_pid "$host")
        if host_alive "$host" && [ "$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null)" = T ]; then
            kill -CONT "$pid" 2>/dev/null || true
        fi
    done
}

scenario_end() {
    local status=$? host pid peak=0 hwm peaks=() dead=() result elapsed
    trap - EXIT
    watch_stop 2>/dev/null || true
    # Only children not yet waited for are left here, so each pid is still ours.
    for pid in "${S_BG[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${S_BG[@]}"; do wait "$pid" 2>/dev/null || true; done
    for host in $(all_hosts); do
        pid=$(host_pid "$host")
        if host_alive "$host"; then
            hwm=$(mib "$pid" VmHWM)
            peaks+=("$host=${hwm:-?}")
            [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
        else
            dead+=("$host")
        fi
    done
    clear_faults
    [ ${#dead[@]} -eq 0 ] || S_FAILS+=("node(s) not running at the end: ${dead[*]}")
    [ "$status" -eq 0 ] || [ ${#S_FAILS[@]} -gt 0 ] || S_FAILS+=("the scenario stopped at a failed step (exit $status; see above)")
    result=PASS
    [ ${#S_FAILS[@]} -eq 0 ] || result=FAIL
    elapsed=$(($(now_ms) - S_STARTED))
    field peak_rss_mib "$peak"
    field peak_rss_by_host "${peaks[*]}"
    local line="RESULT $S_NAME $result $(printf '%d.%ds' $((elapsed / 1000)) $((elapsed % 1000 / 100)))"
    [ -n "${S_FIELDS[detect_ms]:-}" ] && line+=" detect=${S_FIELDS[detect_ms]}ms"
    [ -n "${S_FIELDS[heal_ms]:-}" ] && line+=" heal=${S_FIELDS[heal_ms]}ms"
    [ -n "${S_FIELDS[lost]:-}" ] && line+=" lost=${S_FIELDS[lost]}"
    [ -n "${S_FIELDS[gaps]:-}" ] && line+=" gaps=${S_FIELDS[gaps]}"
    line+=" peakRSS=${peak}MiB"
    [ -n "${S_FIELDS[summary]:-}" ] && line+=" | ${S_FIELDS[summary]}"
    [ ${#S_FAILS[@]} -eq 0 ] || line+=" | FAILED: $(printf '%s; ' "${S_FAILS[@]}")"
    echo "$line"
    {
        for key in "${!S_FIELDS[@]}"; do printf '%s\t%s\n' "$key" "${S_FIELDS[$key]}"; done
    } | py -c '
import json, sys
name, result, seconds, fails, notes = sys.argv[1:6]
doc = {"scenario": name, "result": result, "seconds": round(int(seconds) / 1000, 1)}
for line in sys.stdin:
    key, _, value = line.rstrip("\n").partition("\t")
    try:
        doc[key] = int(value)
    except ValueError:
        try:
            doc[key] = float(value)
        except ValueError:
            doc[key] = value
doc["failures"] = [f for f in fails.split("\x1f") if f]
doc["notes"] = [n for n in notes.split("\x1f") if n]
print(json.dumps(doc, sort_keys=True))' "$S_NAME" "$result" "$elapsed" \
        "$(printf '%s\x1f' "${S_FAILS[@]}")" "$(printf '%s\x1f' "${S_NOTES[@]}")" >>"$HOSTS_RESULTS_JSONL"
    if [ "$result" = FAIL ]; then
        mkdir -p "$HOSTS_FAILED_DIR/$S_NAME"
        cp "$LOG_DIR"/*.log "$S_TMP"/*.json "$HOSTS_FAILED_DIR/$S_NAME/" 2>/dev/null || true
    fi
    rm -rf "$S_TMP"
    [ "$result" = PASS ] && exit 0
    exit 1
}
