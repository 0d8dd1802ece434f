#!/usr/bin/env bash
# A Prometheus server on loopback scraping the local cluster's nodes (their `/metrics`).
#
#   deploy/prometheus.sh config [INTERVAL]   print the scrape config for the cluster file (default 15s)
#   deploy/prometheus.sh up [INTERVAL]       write the config, start Prometheus on a free loopback port, wait until ready
#   deploy/prometheus.sh url                 the running server's base URL
#   deploy/prometheus.sh query PROMQL        an instant query over the HTTP API: one "LABELS VALUE" line per series
#   deploy/prometheus.sh down                stop the server (SIGTERM, SIGKILL after a grace period), remove its dir
#
# The server is Debian's prometheus binary, unpacked from its .deb (ensure_prometheus in
# lib/common.sh; nothing is installed as a service). Every node of the cluster file with a
# "metrics" endpoint is one target, labelled node="ID". State lives in the cluster's state dir
# (.deploy/ or $REX_DEPLOY_DIR) under prometheus/: prometheus.yml, data/ (the TSDB), pid, port,
# log — all of it removed by `down`. Timeouts: REX_UP_TIMEOUT (seconds, default 20),
# REX_STOP_GRACE (seconds, default 5).
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

UP_TIMEOUT="${REX_UP_TIMEOUT:-20}"
STOP_GRACE="${REX_STOP_GRACE:-5}"
PROM_DIR="$STATE_DIR/prometheus"
PROM_CONFIG="$PROM_DIR/prometheus.yml"
PROM_PID_FILE="$PROM_DIR/pid"
PROM_PORT_FILE="$PROM_DIR/port"
PROM_LOG="$PROM_DIR/prometheus.log"

usage() {
    sed -n '2,8s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    exit "${1:-64}"
}

# A scrape interval as Prometheus writes durations: digits then ms, s or m (bounded, so a typo
# is a usage error here rather than a server that will not start).
check_interval() {
    [[ "$1" =~ ^[1-9][0-9]{0,4}(ms|s|m)$ ]] || fatal "INTERVAL takes e.g. 500ms, 1s or 15s (got '$1')"
}

# config_text INTERVAL: the whole prometheus.yml for the cluster file, one static target per
# node with a metrics endpoint (its `tcp://HOST:PORT` as HOST:PORT).
config_text() {
    [ -f "$CLUSTER_FILE" ] || fatal "no cluster here ($CLUSTER_FILE missing) — start one with: deploy/cluster.sh up"
    py - "$CLUSTER_FILE" "$1" <<'EOF'
import json, re, sys
nodes = json.load(open(sys.argv[1])).get("nodes", [])
interval = sys.argv[2]
targets = []
for node in nodes:
    endpoint = node.get("metrics") or ""
    match = re.fullmatch(r"tcp://([A-Za-z0-9.\-]+|\[[0-9a-fA-F:]+\]):([0-9]{1,5})", endpoint)
    node_id = str(node.get("id", ""))
    if match and re.fullmatch(r"[A-Za-z0-9_.\-]{1,256}", node_id):
        targets.append((node_id, match.group(1) + ":" + match.group(2)))
if not targets:
    sys.exit("no node of %s has a metrics endpoint" % sys.argv[1])
print("# Written by deploy/prometheus.sh from %s." % sys.argv[1])
print("global:")
print("  scrape_interval: %s" % interval)
print("  scrape_timeout: %s" % interval)
print("  evaluation_interval: %s" % interval)
print("scrape_configs:")
print("  - job_name: rexnode")
print("    metrics_path: /metrics")
print("    static_configs:")
for node_id, target in targets:
    # Both are plain (checked above), so they need no YAML quoting beyond the double quotes.
    print('      - targets: ["%s"]' % target)
    print('        labels: {node: "%s"}' % node_id)
EOF
}

# True when PID is the Prometheus started here (its command line names this config file).
is_our_prometheus() {
    local pid=$1 cmdline
    [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
    cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
    [[ "$cmdline" == *prometheus" --config.file=$PROM_CONFIG "* ]]
}

running_pid() {
    local pid
    [ -f "$PROM_PID_FILE" ] || return 1
    pid=$(cat "$PROM_PID_FILE")
    pid_alive "$pid" && is_our_prometheus "$pid" && echo "$pid"
}

base_url() {
    [ -f "$PROM_PORT_FILE" ] || fatal "no Prometheus here ($PROM_PORT_FILE missing) — start one with: deploy/prometheus.sh up"
    echo "http://127.0.0.1:$(cat "$PROM_PORT_FILE")"
}

cmd_config() {
    local interval=${1:-15s}
    check_interval "$interval"
    config_text "$interval"
}

cmd_up() {
    local interval=${1:-15s} binary port pid deadline
    check_interval "$interval"
    if pid=$(running_pid); then
        ok "Prometheus already runs (pid $pid) at $(base_url)"
        return 0
    fi
    binary=$(ensure_prometheus) || fatal "no prometheus binary (Debian's prometheus package could not be fetched)"
    rm -rf "$PROM_DIR"
    mkdir -p "$PROM_DIR/data"
    config_text "$interval" >"$PROM_CONFIG"
    port=$(pick_ports 1)
    echo "$port" >"$PROM_PORT_FILE"
    # setsid: a session of its own, so this terminal's Ctrl-C does not reach it (down stops it).
    # Console templates point at the (empty) state dir: the Debian defaults live in /etc, which
    # an unpacked binary does not have.
    setsid "$binary" --config.file="$PROM_CONFIG" --storage.tsdb.path="$PROM_DIR/data" \
        --web.listen-address="127.0.0.1:$port" --storage.tsdb.retention.time=1h \
        --web.console.templates="$PROM_DIR" --web.console.libraries="$PROM_DIR" --log.level=warn \
        >>"$PROM_LOG" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$PROM_PID_FILE"
    deadline=$(($(now_ms) + UP_TIMEOUT * 1000))
    until curl -fsS --max-time 1 "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; do
        if ! pid_alive "$pid"; then
            tail -n 20 "$PROM_LOG" >&2 || true
            fatal "Prometheus exited while starting (log above, $PROM_LOG)"
        fi
        if [ "$(now_ms)" -ge "$deadline" ]; then
            tail -n 20 "$PROM_LOG" >&2 || true
            fatal "Prometheus not ready after ${UP_TIMEOUT}s (log above, $PROM_LOG)"
        fi
        sleep 0.1
    done
    ok "Prometheus $("$binary" --version 2>&1 | head -1 | awk '{print $3}') (pid $pid) at http://127.0.0.1:$port, scraping every $interval"
}

cmd_url() { base_url; }

cmd_query() {
    [ $# -eq 1 ] || usage
    local url
    url=$(base_url)
    curl -fsS --max-time 5 -G "$url/api/v1/query" --data-urlencode "query=$1" | py -c '
import json, sys
reply = json.load(sys.stdin)
if reply.get("status") != "success":
    sys.exit("query failed: %s" % reply.get("error", reply))
data = reply.get("data", {})
if data.get("resultType") == "scalar":
    print(data["result"][1]); sys.exit(0)
for series in data.get("result", []):
    labels = ",".join("%s=%s" % kv for kv in sorted(series.get("metric", {}).items()))
    print(labels or "{}", series["value"][1])
'
}

cmd_down() {
    local pid start
    if pid=$(running_pid); then
        start=$(process_start_time "$pid") || start=''
        kill -TERM "$pid" 2>/dev/null || true
        if [ -n "$start" ] && [ -n "$(wait_exited $((STOP_GRACE * 1000)) "$pid $start")" ]; then
            warn "Prometheus (pid $pid) did not exit within ${STOP_GRACE}s of SIGTERM: SIGKILL"
            process_running "$pid" "$start" && kill -KILL "$pid" 2>/dev/null || true
            [ -z "$(wait_exited 5000 "$pid $start")" ] || fatal "Prometheus (pid $pid) survived SIGKILL for 5 s"
        fi
        ok "stopped Prometheus (pid $pid)"
    fi
    rm -rf "$PROM_DIR"
}

main() {
    [ $# -ge 1 ] || usage
    local command=$1
    shift
    case $command in
    config) [ $# -le 1 ] || usage; cmd_config "$@" ;;
    up) [ $# -le 1 ] || usage; cmd_up "$@" ;;
    url) [ $# -eq 0 ] || usage; cmd_url ;;
    query) cmd_query "$@" ;;
    down) [ $# -eq 0 ] || usage; cmd_down ;;
    -h | --help | help) usage 0 ;;
    *)
        error "unknown command '$command'"
        usage
        ;;
    esac
}

main "$@"
