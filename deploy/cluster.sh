#!/usr/bin/env bash
# A local multi-process cluster of rexnode processes on loopback.
#
#   deploy/cluster.sh up [N] [--insecure] [--node-bin PATH] [-- NODE_OPTIONS…]
#                                                    start N nodes (default 3), secured, wait until they answer
#   deploy/cluster.sh status                         processes, then `rexctl nodes`
#   deploy/cluster.sh logs ID [-f] [-n LINES]        a node's log
#   deploy/cluster.sh down                           SIGTERM, SIGKILL after a grace period; nothing left
#   deploy/cluster.sh restart ID                     restart one node on the same ports
#   deploy/cluster.sh kill ID                        SIGKILL one node (for tests)
#   deploy/cluster.sh add [NAME]                     start one more node that joins the running cluster
#
# State lives in .deploy/ (or $REX_DEPLOY_DIR): cluster.json (what rexctl reads by default from the
# repository root; each node's pub, control and metrics endpoints — `curl METRICS/metrics`),
# node-args, pids/ID.pid, logs/ID.log, data/ID (each node's --data-dir: its durable feeds, follows
# and peer changes; kept by restart, kill and down; `up` starts a new cluster from empty ones
# unless REX_KEEP_DATA=1). Every subcommand is safe to re-run.
# --node-bin PATH runs another node binary than rexnode: a feature's own (NodeCommand.main, e.g.
# Examples/Chat's chat-node), with the same flags, security, durability and membership; recorded in
# node-bin, so that the other subcommands find and restart its processes until the next `up`.
# Secured by default (README, "Security"): keys/ID.key per node and keys/operator.key (admin) and
# keys/viewer.key (viewer) for rexctl, each made once by `rexctl keygen` and kept (mode 0600);
# every node's public key in cluster.json, the operators in operators.json. --insecure runs plain
# (every node says so when it starts).
# Membership: every node gets a membership endpoint in cluster.json and runs the SWIM membership,
# rexnode's only one (probes, suspicion, gossip: idle cost flat in N). REX_MEMBERSHIP=heartbeat
# writes none, for deploy/bench/membership.sh's same-run comparison only: it needs REX_BIN_DIR with
# an older rexnode that still has the all-to-all heartbeats.
# add: under SWIM only (nodes learn the new one by gossip). On a secured cluster the new node's key
# is admitted first, on every running node, by a statement of the cluster authority (authority.key
# beside the cluster file, made by up: rexctl admit), then the node starts.
# REX_BIN_DIR (lib/common.sh) runs prebuilt binaries instead of this tree's build, e.g. an older
# rexnode that still has the heartbeats (REX_MEMBERSHIP=heartbeat) for deploy/bench/membership.sh.
# Timeouts: REX_UP_TIMEOUT (seconds; default 20 plus one per node of the cluster: 120 s at
# N = 100, where a loaded 2-core machine takes about a minute), REX_STOP_GRACE (seconds, default 5).
# A large cluster's readiness is polled less often (at most once a second) and each node is given
# longer to answer (up to 5 s): every poll asks each node, under SWIM for its /metrics (members by
# status), under heartbeats for its state (CURVE handshake included). REX_UP_WAVE (default 50):
# under SWIM, up starts more nodes than that in waves of that many (see start_cluster).
# REX_PROTOCOL_PERIOD (ms): SWIM's protocol period; default 100, and 150 above 50 nodes (see cmd_up).
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

[ -z "${REX_UP_TIMEOUT:-}" ] || [[ "$REX_UP_TIMEOUT" =~ ^[1-9][0-9]{0,4}$ ]] || fatal "REX_UP_TIMEOUT takes whole seconds (got '$REX_UP_TIMEOUT')"
DATA_DIR="$STATE_DIR/data"
STOP_GRACE="${REX_STOP_GRACE:-5}"
MEMBERSHIP_MODE="${REX_MEMBERSHIP:-swim}"
case "$MEMBERSHIP_MODE" in
swim) PORT_SETS=4 ;;
heartbeat)
    # This tree's rexnode refuses a cluster file without membership endpoints.
    [ -n "${REX_BIN_DIR:-}" ] || fatal "REX_MEMBERSHIP=heartbeat needs REX_BIN_DIR: an older rexnode that still has the heartbeats (this tree's runs SWIM only)"
    PORT_SETS=3
    ;;
*) fatal "REX_MEMBERSHIP takes swim or heartbeat (got '$MEMBERSHIP_MODE')" ;;
esac

usage() {
    sed -n '2,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    exit "${1:-64}"
}

# --- cluster file ------------------------------------------------------------------------------

have_cluster() { [ -f "$CLUSTER_FILE" ]; }

# Loads the cluster file into IDS (file order), PUB[ID], CONTROL[ID] and METRICS[ID] (empty for
# a file written before nodes served metrics); all empty without a file.
declare -a IDS=()
declare -A PUB=() CONTROL=() METRICS=() MEMBERSHIP=()
load_cluster() {
    IDS=() PUB=() CONTROL=() METRICS=() MEMBERSHIP=()
    have_cluster || return 0
    local id pub control metrics membership
    while read -r id pub control metrics membership; do
        IDS+=("$id") PUB[$id]=$pub CONTROL[$id]=$control
        [ "$metrics" = - ] || METRICS[$id]=$metrics
        [ "$membership" = - ] || MEMBERSHIP[$id]=$membership
    done < <(py -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    print(n["id"], n["pub"], n["control"], n.get("metrics") or "-", n.get("membership") or "-")' "$CLUSTER_FILE")
}
load_cluster

require_node() {
    have_cluster || fatal "no cluster here ($CLUSTER_FILE missing) — start one with: deploy/cluster.sh up"
    [ -n "${CONTROL[$1]:-}" ] || fatal "unknown node '$1' — known nodes: $(printf '%s\n' "${IDS[@]}" | paste -sd, | sed 's/,/, /g')"
}

# write_cluster_file N SECURED PORT…: nodes n1…nN with pub ports first, then control ports, then
# metrics ports (HTTP /metrics and /healthz), then (4 sets) membership ports; SECURED=1 adds each
# node's public key.
write_cluster_file() {
    local count=$1 secured=$2
    shift 2
    local ports=("$@") i sep='' key ids=() membership
    mkdir -p "$STATE_DIR"
    if [ "$secured" = 1 ]; then
        mapfile -t ids < <(seq -f 'n%g' 1 "$count")
        ensure_keys "${ids[@]}"
    fi
    {
        printf '{"nodes": [\n'
        for ((i = 0; i < count; i++)); do
            key=''
            if [ "$secured" = 1 ]; then key=$(printf ', "key": "%s"' "$(public_key "$KEY_DIR/n$((i + 1)).key")"); fi
            membership=''
            if [ ${#ports[@]} -ge $((4 * count)) ]; then membership=$(printf ', "membership": "tcp://127.0.0.1:%d"' "${ports[3 * count + i]}"); fi
            printf '%s  {"id": "n%d", "pub": "tcp://127.0.0.1:%d", "control": "tcp://127.0.0.1:%d", "metrics": "tcp://127.0.0.1:%d"%s%s}' \
                "$sep" $((i + 1)) "${ports[i]}" "${ports[count + i]}" "${ports[2 * count + i]}" "$key" "$membership"
            sep=$',\n'
        done
        printf '\n]}\n'
    } >"$CLUSTER_FILE.tmp"
    mv "$CLUSTER_FILE.tmp" "$CLUSTER_FILE"
    load_cluster
}

# The ports of the current cluster file, pub, control, metrics then membership ports, when it has
# COUNT nodes (each with a metrics endpoint, and a membership endpoint exactly when asked for).
previous_ports() {
    local count=$1 id
    [ "${#IDS[@]}" -eq "$count" ] && [ "${#METRICS[@]}" -eq "$count" ] || return 1
    if [ "$PORT_SETS" = 4 ]; then [ "${#MEMBERSHIP[@]}" -eq "$count" ] || return 1; else [ "${#MEMBERSHIP[@]}" -eq 0 ] || return 1; fi
    for id in "${IDS[@]}"; do endpoint_port "${PUB[$id]}"; done
    for id in "${IDS[@]}"; do endpoint_port "${CONTROL[$id]}"; done
    for id in "${IDS[@]}"; do endpoint_port "${METRICS[$id]}"; done
    if [ "$PORT_SETS" = 4 ]; then for id in "${IDS[@]}"; do endpoint_port "${MEMBERSHIP[$id]}"; done; fi
}

all_ports_free() { [ -z "$(busy_among "$@")" ]; }

# --- processes ---------------------------------------------------------------------------------

pid_of() {
    local file="$PID_DIR/$1.pid"
    [ -f "$file" ] && cat "$file"
    return 0
}

# True when node ID runs (its pid file names a live rexnode of this cluster).
node_running() {
    local pid
    pid=$(pid_of "$1")
    [ -n "$pid" ] && pid_alive "$pid" && is_our_node "$pid" "$1"
}

# Live node processes (NODE_BIN) started with this cluster file, whatever their pid files say: "PID ID".
cluster_processes() {
    local dir pid cmdline
    for dir in /proc/[0-9]*; do
        pid=${dir#/proc/}
        cmdline=$(tr '\0' ' ' 2>/dev/null <"$dir/cmdline") || continue
        [[ "$cmdline" == *"${NODE_BIN##*/} --cluster $CLUSTER_FILE --id "* ]] || continue
        pid_alive "$pid" || continue
        cmdline=${cmdline#*" --id "}
        echo "$pid ${cmdline%% *}"
    done
}

# start_node ID [OPTION…]: starts node ID with the cluster's node arguments, then the options.
start_node() {
    local id=$1 args=() pid
    shift
    [ -f "$NODE_ARGS_FILE" ] && mapfile -t args <"$NODE_ARGS_FILE"
    args+=("$@")
    mkdir -p "$PID_DIR" "$LOG_DIR" "$DATA_DIR"
    printf '# %s cluster.sh: starting %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$id" >>"$LOG_DIR/$id.log"
    # setsid: the node gets a session of its own, so a Ctrl-C or hangup of this terminal does not
    # reach it; it execs in place (this shell is not a process-group leader), so $! is the node.
    setsid "$NODE_BIN" --cluster "$CLUSTER_FILE" --id "$id" --data-dir "$DATA_DIR/$id" "${args[@]}" >>"$LOG_DIR/$id.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$PID_DIR/$id.pid"
}

# Signals the given "PID ID" pairs with SIGTERM and waits until each has exited (every thread
# gone, so its sockets are closed), for up to STOP_GRACE seconds; SIGKILLs what is left and waits
# up to 5 s more for that. Each process is followed by pid and start time, so a pid handed on to
# another process after the node is reaped is never waited for, nor killed.
stop_processes() {
    local pair pid id start entry
    local -a signalled=() left=()
    for pair in "$@"; do
        read -r pid id <<<"$pair"
        is_our_node "$pid" "$id" || continue
        start=$(process_start_time "$pid") || continue
        kill -TERM "$pid" 2>/dev/null || continue
        signalled+=("$pid $start $id")
    done
    [ ${#signalled[@]} -gt 0 ] || return 0
    mapfile -t left < <(wait_exited $((STOP_GRACE * 1000)) "${signalled[@]}")
    [ ${#left[@]} -eq 0 ] && return 0
    for entry in "${left[@]}"; do
        read -r pid start id <<<"$entry"
        warn "$id (pid $pid) did not exit within ${STOP_GRACE}s of SIGTERM: SIGKILL"
        process_running "$pid" "$start" && kill -KILL "$pid" 2>/dev/null || true
    done
    mapfile -t left < <(wait_exited 5000 "${left[@]}")
    [ ${#left[@]} -eq 0 ] && return 0
    for entry in "${left[@]}"; do
        read -r pid start id <<<"$entry"
        error "$id (pid $pid) survived SIGKILL for 5 s"
    done
    exit 1
}

# Waits until no cluster port is bound (a dead process's sockets close at once; this is a check).
wait_ports_free() {
    local id port deadline busy ports
    local -A owner=()
    for id in "$@"; do
        for port in "$(endpoint_port "${PUB[$id]}")" "$(endpoint_port "${CONTROL[$id]}")" \
            ${METRICS[$id]:+"$(endpoint_port "${METRICS[$id]}")"} ${MEMBERSHIP[$id]:+"$(endpoint_port "${MEMBERSHIP[$id]}")"}; do
            owner[$port]=$id
        done
    done
    deadline=$(($(now_ms) + 3000))
    while :; do
        busy=()
        mapfile -t ports < <(busy_among "${!owner[@]}")
        for port in "${ports[@]}"; do busy+=("${owner[$port]}:$port"); done
        [ ${#busy[@]} -eq 0 ] && return 0
        [ "$(now_ms)" -lt "$deadline" ] || {
            error "ports still bound after stopping: ${busy[*]}"
            return 1
        }
        sleep 0.05
    done
}

# --- readiness ---------------------------------------------------------------------------------

log_tail() {
    local id=$1 lines=${2:-20}
    if [ -f "$LOG_DIR/$id.log" ]; then
        printf -- '--- last %d lines of %s ---\n' "$lines" "$LOG_DIR/$id.log" >&2
        tail -n "$lines" "$LOG_DIR/$id.log" >&2
    else
        printf -- '--- %s has no log (%s) ---\n' "$id" "$LOG_DIR/$id.log" >&2
    fi
}

# How long rexctl gives each node of a cluster of COUNT to answer: 500 ms up to 25 nodes, 20 ms
# per node beyond, at most 5 s (a loaded machine with many nodes answers slower).
request_timeout_ms() { echo $(($1 <= 25 ? 500 : $1 >= 250 ? 5000 : $1 * 20)); }

# The readiness wait of a cluster of COUNT nodes: REX_UP_TIMEOUT, else 20 s plus 1 s per node.
up_timeout() { echo "${REX_UP_TIMEOUT:-$((20 + $1))}"; }

# "LIMIT total": at most LIMIT of the words, then "(+K more)".
brief_list() {
    local limit=$1
    shift
    local shown=("${@:1:limit}")
    printf '%s' "${shown[*]}"
    [ $# -le "$limit" ] || printf ' (+%d more)' $(($# - limit))
}

# membership_readiness TIMEOUT_MS ID…: "ID ready|joining|down DETAIL" for each given node of a
# SWIM cluster, from every running node's /metrics (its count of members by status), one small
# HTTP request a node, 32 at a time: O(N) requests of O(1) size, where `rexctl nodes` asks each
# node for its whole state (every peer: O(N) each, O(N²) a poll; at N = 200 a poll took longer
# than the nodes had to answer). With R nodes running, a node is ready when it answers, sees
# R − 1 members alive, and every other running node does too: with no strangers in the tables
# (a secured cluster admits none; cluster.sh adds none) that is "seen alive by every other".
membership_readiness() {
    py - "$CLUSTER_FILE" "$PID_DIR" "${NODE_BIN##*/}" "$1" "${@:2}" <<'PY'
import concurrent.futures, json, os, re, sys, urllib.request
cluster_file, pid_dir, node_name, timeout_ms, wanted = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
nodes = json.load(open(cluster_file))["nodes"]
def running(node):
    try:
        pid = open(os.path.join(pid_dir, node["id"] + ".pid")).read().strip()
        cmdline = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, ValueError):
        return False
    return ("%s --cluster %s --id %s " % (node_name, cluster_file, node["id"])) in cmdline
line = re.compile(r'^rexnode_members\{status="(alive|suspect|dead|left)"\} (\d+)$', re.M)
def members(node):
    endpoint = (node.get("metrics") or "").replace("tcp://", "http://", 1)
    try:
        with urllib.request.urlopen(endpoint + "/metrics", timeout=timeout_ms / 1000) as reply:
            text = reply.read(1 << 20).decode(errors="replace")
    except Exception as error:
        return None, " ".join(str(error).split())[:200] or "no answer"
    counts = {status: int(count) for status, count in line.findall(text)}
    return (counts, "") if "alive" in counts else (None, "no membership counts in /metrics")
live = [node for node in nodes if running(node)]
with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
    answers = dict(zip((node["id"] for node in live), pool.map(members, live)))
expected = len(live) - 1
short = sorted((id for id, (counts, _) in answers.items() if counts and counts["alive"] != expected),
               key=lambda id: (len(id), id))
silent = sorted((id for id, (counts, _) in answers.items() if counts is None), key=lambda id: (len(id), id))
def names(ids):
    return " ".join(ids[:4]) + (" (+%d)" % (len(ids) - 4) if len(ids) > 4 else "")
for id in wanted:
    if id not in answers:
        print(id, "down", "not running")
        continue
    counts, error = answers[id]
    if counts is None:
        print(id, "down", error)
    elif counts["alive"] != expected:
        print(id, "joining", "sees %d of %d alive (%s)" % (counts["alive"], expected,
              ", ".join("%d %s" % (counts.get(s, 0), s) for s in ("suspect", "dead", "left"))))
    elif short or silent:
        print(id, "joining", "; ".join(part for part in (
            "%s see fewer than %d alive" % (names(short), expected) if short else "",
            "%s do not answer" % names(silent) if silent else "") if part))
    else:
        print(id, "ready", "")
PY
}

# readiness_lines TIMEOUT_MS ID…: the readiness of the given nodes, one line each (see wait_ready):
# from /metrics on a SWIM cluster whose nodes all serve it, else from `rexctl nodes`.
readiness_lines() {
    local timeout_ms=$1
    shift
    if [ ${#MEMBERSHIP[@]} -gt 0 ] && [ "${#METRICS[@]}" -eq "${#IDS[@]}" ]; then
        membership_readiness "$timeout_ms" "$@"
    else
        rexctl -o json nodes --timeout "${timeout_ms}ms" 2>/dev/null | readiness_detail
    fi
}

# Waits until every given node runs, answers (ping, or /metrics under SWIM) and is seen alive by
# the others, for up to TIMEOUT seconds (wait_ready TIMEOUT ID…). Each poll asks every node of the
# cluster (see readiness_lines: its /metrics under SWIM, its state under heartbeats): polls are
# 100 ms apart for up to 10 nodes and 10 ms per node beyond, at most 1 s; each node has 500 ms to
# answer, 20 ms per node beyond 25, at most 5 s — so the check does not take from the nodes the
# time they need to come up. A progress line every 10 s. On a node that exits, or at the
# deadline, says which nodes are not ready and why (down: the error; joining: which peers do not
# yet see it alive), shows a few log tails and fails.
wait_ready() {
    local timeout=$1 id state detail now started deadline next_progress poll_ms request_ms
    shift
    local ids=("$@") pending=() exited=()
    local -A states=() details=()
    local total=${#IDS[@]}
    poll_ms=$((total <= 10 ? 100 : total >= 100 ? 1000 : total * 10))
    request_ms=$(request_timeout_ms "$total")
    started=$(now_ms)
    deadline=$((started + timeout * 1000))
    next_progress=$((started + 10000))
    while :; do
        exited=()
        for id in "${ids[@]}"; do node_running "$id" || exited+=("$id"); done
        if [ ${#exited[@]} -gt 0 ]; then
            error "${#exited[@]} node(s) exited while starting: $(brief_list 10 "${exited[@]}")"
            for id in "${exited[@]:0:3}"; do log_tail "$id"; done
            return 1
        fi
        states=() details=()
        while read -r id state detail; do
            states[$id]=$state details[$id]=$detail
        done < <(readiness_lines "$request_ms" "${ids[@]}")
        pending=()
        for id in "${ids[@]}"; do [ "${states[$id]:-down}" = ready ] || pending+=("$id"); done
        [ ${#pending[@]} -eq 0 ] && return 0
        now=$(now_ms)
        if [ "$now" -ge "$deadline" ]; then
            error "not ready after ${timeout}s: ${#pending[@]} of ${#ids[@]} node(s) do not answer ping or are not yet seen alive by every other node"
            for id in "${pending[@]:0:10}"; do info "$id: ${states[$id]:-down}${details[$id]:+ — ${details[$id]}}"; done
            [ ${#pending[@]} -le 10 ] || info "… and $((${#pending[@]} - 10)) more: $(brief_list 20 "${pending[@]:10}")"
            for id in "${pending[@]:0:3}"; do log_tail "$id"; done
            info "every node's log: ${LOG_DIR#"$PWD"/}/ID.log (deploy/cluster.sh logs ID); a slower machine: REX_UP_TIMEOUT=SECONDS"
            return 1
        fi
        if [ "$now" -ge "$next_progress" ]; then
            info "$((${#ids[@]} - ${#pending[@]})) of ${#ids[@]} ready after $(((now - started) / 1000)) s; waiting for $(brief_list 8 "${pending[@]}")"
            next_progress=$((now + 10000))
        fi
        sleep "$((poll_ms / 1000)).$(printf '%03d' $((poll_ms % 1000)))"
    done
}

# start_cluster COUNT SECURED: starts every node of the cluster file and waits until all are ready
# (REX_UP_TIMEOUT in all). Under SWIM, more than REX_UP_WAVE nodes (default 50) start in waves of
# that many, each wave once the nodes before it are ready: starting 200 processes at once on two
# cores kept the load past 300 for minutes, and members that could not run in time suspected each
# other. A plain cluster's waves each start from the cluster file as far as their own nodes, so
# no running node waits for members that are not there yet; the running ones learn each new node
# first-hand (its probes) and by gossip, as for `add`, and the file is whole again at the end. A
# secured cluster's nodes all start from the whole file (a node admits only the keys it started
# with): the first waves declare the nodes not yet started dead, and each refutes when it starts.
start_cluster() {
    local count=$1 secured=$2 wave=${REX_UP_WAVE:-50} first last begun deadline remaining full all=("${IDS[@]}")
    [[ "$wave" =~ ^[1-9][0-9]{0,3}$ ]] || fatal "REX_UP_WAVE takes a node count (got '$wave')"
    if [ ${#MEMBERSHIP[@]} -eq 0 ] || [ "$count" -le "$wave" ]; then
        for id in "${all[@]}"; do start_node "$id"; done
        wait_ready "$(up_timeout "$count")" "${all[@]}"
        return
    fi
    full="$STATE_DIR/cluster.full.json"
    cp "$CLUSTER_FILE" "$full"
    begun=$(now_ms)
    deadline=$((begun + $(up_timeout "$count") * 1000))
    for ((first = 0; first < count; first += wave)); do
        last=$((first + wave < count ? first + wave : count))
        [ "$secured" = 1 ] || write_cluster_prefix "$full" "$last"
        for id in "${all[@]:first:last-first}"; do start_node "$id"; done
        remaining=$(((deadline - $(now_ms)) / 1000))
        ((remaining > 0)) || remaining=1
        if ! wait_ready "$remaining" "${all[@]:0:last}"; then
            mv "$full" "$CLUSTER_FILE"
            load_cluster
            return 1
        fi
        [ "$last" -ge "$count" ] || info "$last of $count nodes ready after $((($(now_ms) - begun) / 1000)) s; starting the next wave"
    done
    mv "$full" "$CLUSTER_FILE"
    load_cluster
}

# write_cluster_prefix FULL K: the cluster file with the first K nodes of FULL (replaced at once:
# a node starting meanwhile reads one or the other).
write_cluster_prefix() {
    py -c '
import json, os, sys
full, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
nodes = json.load(open(full))["nodes"][:count]
with open(path + ".tmp", "w") as f:
    f.write("{\"nodes\": [\n" + ",\n".join("  " + json.dumps(n) for n in nodes) + "\n]}\n")
os.replace(path + ".tmp", path)
' "$1" "$2" "$CLUSTER_FILE"
    load_cluster
}

summary() {
    local id pid state
    {
        printf 'ID\tPID\tPROCESS\tPUB\tCONTROL\tMETRICS\tLOG\n'
        while read -r id; do
            pid=$(pid_of "$id")
            if node_running "$id"; then state=running; else state=stopped pid='-'; fi
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$pid" "$state" "${PUB[$id]}" "${CONTROL[$id]}" "${METRICS[$id]:--}" \
                "${LOG_DIR#"$PWD"/}/$id.log"
        done < <(printf '%s\n' "${IDS[@]}")
    } | print_table
}

# --- subcommands -------------------------------------------------------------------------------

cmd_up() {
    local count=3 args=() secured=1 node_bin=$REXNODE
    if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
        [[ "$1" =~ ^[1-9][0-9]*$ ]] || fatal "up takes a node count (got '$1')"
        count=$1
        shift
    fi
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        case $1 in
        --insecure) secured=0 ;;
        --node-bin)
            [ $# -ge 2 ] || fatal "--node-bin takes the path of a node binary"
            node_bin=$(realpath -e "$2" 2>/dev/null) && [ -f "$node_bin" ] && [ -x "$node_bin" ] \
                || fatal "--node-bin: '$2' is not an executable file"
            shift
            ;;
        *) usage ;;
        esac
        shift
    done
    if [ $# -gt 0 ]; then
        shift
        args=("$@")
    fi
    ((count <= 250)) || fatal "up: at most 250 nodes (got $count)"
    # Plain nodes are told so: each then logs that it runs without CURVE whenever it starts.
    [ "$secured" = 1 ] || args=(--insecure "${args[@]}")
    # SWIM's protocol period (README, "Membership"): a member's idle cost goes as 1 / period and
    # detection time with it. Measured at N = 100 on 2 cores: 100 ms idles at 44-49 % of a core in
    # all, 150 ms at 33 % with kill -9 seen dead by all in 2.4-2.6 s; so 150 ms above 50 nodes.
    # REX_PROTOCOL_PERIOD (ms) overrides; an explicit --protocol-period in the options wins.
    if [ "$MEMBERSHIP_MODE" = swim ] && [[ " ${args[*]} " != *" --protocol-period "* ]]; then
        local period=${REX_PROTOCOL_PERIOD:-$((count > 50 ? 150 : 100))}
        [[ "$period" =~ ^[1-9][0-9]{1,4}$ ]] || fatal "REX_PROTOCOL_PERIOD takes milliseconds (got '$period')"
        [ "$period" = 100 ] || args+=(--protocol-period "$period")
    fi

    ensure_system_packages
    build_if_stale

    # Already (partly) up?
    local running=() id previous_args=()
    for id in "${IDS[@]}"; do node_running "$id" && running+=("$id"); done
    [ -f "$NODE_ARGS_FILE" ] && mapfile -t previous_args <"$NODE_ARGS_FILE"
    if [ ${#running[@]} -gt 0 ]; then
        if [ ${#running[@]} -eq "$count" ] && [ "${#IDS[@]}" -eq "$count" ] && [ "$node_bin" = "$NODE_BIN" ] \
            && [ "${previous_args[*]}" = "${args[*]}" ] && wait_ready "$(up_timeout "$count")" "${running[@]}"; then
            ok "cluster already up: $count nodes (deploy/cluster.sh down to stop it)"
            summary
            return 0
        fi
        log "cluster is up with ${#running[@]} running of ${#IDS[@]} nodes, not as asked: restarting it"
        cmd_down
    fi
    # Strays of an earlier run whose pid files are gone.
    local strays=()
    mapfile -t strays < <(cluster_processes)
    [ ${#strays[@]} -gt 0 ] && cmd_down
    # From here on the cluster runs node_bin (the processes of the previous one are gone).
    NODE_BIN=$node_bin
    mkdir -p "$STATE_DIR"
    if [ "$NODE_BIN" = "$REXNODE" ]; then rm -f "$NODE_BIN_FILE"; else printf '%s\n' "$NODE_BIN" >"$NODE_BIN_FILE"; fi

    local ports=() attempt started
    mapfile -t ports < <(previous_ports "$count" || true)
    if [ ${#ports[@]} -eq $((PORT_SETS * count)) ] && all_ports_free "${ports[@]}"; then
        info "reusing the ports of the previous cluster file"
    else
        ports=()
    fi
    for attempt in 1 2 3; do
        if [ ${#ports[@]} -eq 0 ]; then
            mapfile -t ports < <(pick_port_block "$count" "$PORT_SETS")
            [ ${#ports[@]} -eq $((PORT_SETS * count)) ] || fatal "could not pick $((PORT_SETS * count)) free ports"
        fi
        rm -rf "$PID_DIR" "$LOG_DIR"
        # A new cluster starts empty; a restarted node (restart, kill + restart) keeps its data.
        [ "${REX_KEEP_DATA:-}" = 1 ] || rm -rf "$DATA_DIR"
        mkdir -p "$STATE_DIR" "$LOG_DIR"
        write_cluster_file "$count" "$secured" "${ports[@]}"
        printf '%s\n' "${args[@]}" >"$NODE_ARGS_FILE"
        [ ${#args[@]} -eq 0 ] && : >"$NODE_ARGS_FILE"

        log "starting $count ${NODE_BIN##*/} nodes, $([ "$secured" = 1 ] && echo "secured (CURVE, keys in ${KEY_DIR#"$PWD"/})" || echo "INSECURE (no CURVE)")${args[*]:+ (${args[*]})}"
        started=$(now_ms)
        start_cluster "$count" "$secured" && break
        cmd_down
        # Another process may have bound one of the ports between the check and the bind.
        if [ "$attempt" -lt 3 ] && grep -qs 'EADDRINUSE' "$LOG_DIR"/*.log; then
            warn "a port was taken in the meantime: picking other ports"
            ports=()
            continue
        fi
        fatal "the cluster did not come up (see the log tails above)"
    done
    ok "$count nodes answer ping and see each other alive after $(($(now_ms) - started)) ms"
    summary
    if [ "$PWD" = "$REPO_ROOT" ] && [ "$CLUSTER_FILE" = "$REPO_ROOT/.deploy/cluster.json" ]; then
        info "try: $(relative_bin rexctl) nodes      stop: deploy/cluster.sh down"
    else
        info "try: REXCTL_CLUSTER=$CLUSTER_FILE $(relative_bin rexctl) nodes      stop: deploy/cluster.sh down"
    fi
}

relative_bin() { echo "${BIN_DIR#"$PWD"/}/$1"; }

cmd_status() {
    have_cluster || {
        info "no cluster ($CLUSTER_FILE missing) — start one with: deploy/cluster.sh up"
        return 1
    }
    summary
    echo
    local status=0
    rexctl nodes --timeout "$(($(request_timeout_ms "${#IDS[@]}") * 2))ms" || status=$?
    return "$status"
}

cmd_logs() {
    [ $# -ge 1 ] || usage
    local id=$1 follow='' lines=50
    shift
    while [ $# -gt 0 ]; do
        case $1 in
        -f) follow=1 ;;
        -n)
            lines=${2:?-n needs a number}
            shift
            ;;
        *) usage ;;
        esac
        shift
    done
    require_node "$id"
    [ -f "$LOG_DIR/$id.log" ] || fatal "$id has no log yet ($LOG_DIR/$id.log)"
    if [ -n "$follow" ]; then
        exec tail -n "$lines" -f "$LOG_DIR/$id.log"
    fi
    tail -n "$lines" "$LOG_DIR/$id.log"
}

cmd_down() {
    # Every live rexnode of this cluster, by its command line: pid files may have been lost.
    local pairs=()
    mapfile -t pairs < <(cluster_processes)
    if [ ${#pairs[@]} -eq 0 ]; then
        info "no node running"
    else
        log "stopping ${#pairs[@]} node(s): SIGTERM, SIGKILL after ${STOP_GRACE}s"
        local started
        started=$(now_ms)
        stop_processes "${pairs[@]}"
        ok "stopped in $(($(now_ms) - started)) ms"
    fi
    rm -rf "$PID_DIR"
    [ ${#IDS[@]} -eq 0 ] || wait_ports_free "${IDS[@]}"
}

cmd_restart() {
    [ $# -eq 1 ] || usage
    local id=$1 pid started
    require_node "$id"
    build_if_stale
    if node_running "$id"; then
        pid=$(pid_of "$id")
        log "stopping $id (pid $pid)"
        stop_processes "$pid $id"
    fi
    wait_ports_free "$id"
    log "starting $id on ${PUB[$id]} / ${CONTROL[$id]}"
    started=$(now_ms)
    start_node "$id"
    wait_ready "$(up_timeout "${#IDS[@]}")" "$id" || exit 1
    ok "$id (pid $(pid_of "$id")) answers ping and is seen alive after $(($(now_ms) - started)) ms"
}

# Adds node ID to the cluster file: its pub, control, metrics and membership endpoints on the
# given ports, and its public key when the cluster is secured.
append_cluster_node() {
    local id=$1 pub=$2 control=$3 metrics=$4 membership=$5 key=${6:-}
    py -c '
import json, os, sys
path, id, pub, control, metrics, membership, key = sys.argv[1:8]
with open(path) as f: doc = json.load(f)
node = {"id": id, "pub": pub, "control": control, "metrics": metrics}
if key: node["key"] = key
node["membership"] = membership
doc["nodes"].append(node)
with open(path + ".tmp", "w") as f:
    f.write("{\"nodes\": [\n" + ",\n".join("  " + json.dumps(n) for n in doc["nodes"]) + "\n]}\n")
os.replace(path + ".tmp", path)
' "$CLUSTER_FILE" "$id" "tcp://127.0.0.1:$pub" "tcp://127.0.0.1:$control" "tcp://127.0.0.1:$metrics" "tcp://127.0.0.1:$membership" "$key"
    load_cluster
}

# add [NAME]: one more node (NAME, or the first free nK) on four free ports, recorded in the
# cluster file, started with --join of up to three running members' membership endpoints; it
# learns the others from them and they learn it by gossip. Waits until it answers ping and
# every node sees it alive. Needs the SWIM membership; on a secured cluster, its authority.
cmd_add() {
    [ $# -le 1 ] || usage
    have_cluster || fatal "no cluster here ($CLUSTER_FILE missing) — start one with: deploy/cluster.sh up"
    local id=${1:-} k seeds=() ports=() running=0 started member secured='' key='' out
    [ ${#MEMBERSHIP[@]} -gt 0 ] || fatal "add needs the SWIM membership (the cluster file has no membership endpoints, an old-heartbeat cluster of the membership bench): deploy/cluster.sh up N"
    if [ -n "$(py -c 'import json, sys; print(next((1 for n in json.load(open(sys.argv[1]))["nodes"] if n.get("key")), ""))' "$CLUSTER_FILE")" ]; then
        # Its running nodes take a new member's key from a statement of the cluster authority
        # (README, "Security"); one made before the authority existed admits none.
        [ -f "$AUTHORITY_KEY" ] || fatal "add: this cluster is secured and has no authority ($AUTHORITY_KEY): its nodes admit only the member keys they started with — start it anew (deploy/cluster.sh up N makes one)"
        secured=1
    fi
    if [ -z "$id" ]; then
        for ((k = ${#IDS[@]} + 1; ; k++)); do [ -n "${CONTROL[n$k]:-}" ] || break; done
        id="n$k"
    fi
    [[ "$id" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ ]] || fatal "add: a node name is 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit (got '$id')"
    [ -z "${CONTROL[$id]:-}" ] || fatal "add: $id is already in the cluster file (deploy/cluster.sh restart $id starts it again)"
    ((${#IDS[@]} < 250)) || fatal "add: at most 250 nodes (the cluster has ${#IDS[@]})"
    build_if_stale
    for member in "${IDS[@]}"; do
        node_running "$member" || continue
        running=$((running + 1))
        [ ${#seeds[@]} -ge 6 ] || seeds+=(--join "${MEMBERSHIP[$member]}") # up to three seeds
    done
    [ ${#seeds[@]} -gt 0 ] || fatal "add: no node of the cluster runs — start it first: deploy/cluster.sh up N"
    mapfile -t ports < <(pick_ports 4)
    [ ${#ports[@]} -eq 4 ] || fatal "add: could not pick 4 free ports"
    if [ -n "$secured" ]; then
        ensure_key "$id"
        key=$(public_key "$KEY_DIR/$id.key")
        # Admitted before it is in the cluster file (rexctl asks every node listed there): a node
        # that does not answer gets the statement from the others.
        if ! out=$(rexctl --timeout "$(request_timeout_ms "${#IDS[@]}")ms" admit "$id" --key "$KEY_DIR/$id.pub" --authority "$AUTHORITY_KEY" 2>&1); then
            [[ "$out" == *"accepted on "[1-9]* ]] || fatal "add: no running node admitted $id's key: $out"
            warn "add: not every node answered the admission (the others pass it on): ${out##*$'\n'}"
        fi
        info "admitted $id's key: ${out##*$'\n'}"
    fi
    append_cluster_node "$id" "${ports[@]}" "$key"
    log "adding $id (joins through $((${#seeds[@]} / 2)) of $running running nodes)"
    started=$(now_ms)
    start_node "$id" "${seeds[@]}"
    wait_ready "$(up_timeout "${#IDS[@]}")" "$id" || fatal "$id did not join (its entry stays in the cluster file: deploy/cluster.sh restart $id, or up N to start over)"
    ok "$id (pid $(pid_of "$id")) joined: answers ping and is seen alive by all ${running} others after $(($(now_ms) - started)) ms"
}

cmd_kill() {
    [ $# -eq 1 ] || usage
    local id=$1 pid start
    require_node "$id"
    if ! node_running "$id"; then
        info "$id is not running"
        rm -f "$PID_DIR/$id.pid"
        return 0
    fi
    pid=$(pid_of "$id")
    start=$(process_start_time "$pid") || start=''
    kill -KILL "$pid"
    [ -z "$(wait_exited 5000 "$pid $start")" ] || fatal "$id (pid $pid) survived SIGKILL for 5 s"
    rm -f "$PID_DIR/$id.pid"
    ok "killed $id (pid $pid, SIGKILL)"
}

main() {
    [ $# -ge 1 ] || usage
    local command=$1
    shift
    case $command in
    up) cmd_up "$@" ;;
    status) cmd_status "$@" ;;
    logs) cmd_logs "$@" ;;
    down) [ $# -eq 0 ] || usage; cmd_down ;;
    restart) cmd_restart "$@" ;;
    kill) cmd_kill "$@" ;;
    add) cmd_add "$@" ;;
    -h | --help | help) usage 0 ;;
    *)
        error "unknown command '$command'"
        usage
        ;;
    esac
}

main "$@"
