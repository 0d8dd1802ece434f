#!/usr/bin/env bash
# Checks the cluster's Prometheus rules (deploy/prometheus/rules.yml):
#   1. `promtool check rules`: the file parses, every expression is valid PromQL;
#   2. `promtool test rules rules_test.yml`: every alert fires when it should and only then, and
#      the recordings compute what they say;
#   3. every metric the rules read is one a real node serves: one rexnode (with --data-dir, so
#      the journal families are there) is started on loopback, its /metrics read, and each
#      rexnode_*/process_* name in the rules' expressions looked up among its families (with
#      a histogram's _bucket, _sum and _count). A renamed metric fails here, where steps 1 and 2
#      would pass with the old name in both files.
#
#   deploy/prometheus/check.sh
#
# promtool is Debian's (ensure_prometheus_binary, lib/common.sh); rexnode is this tree's build
# (build_if_stale). The node and its data directory are removed at exit, whatever happens.
set -euo pipefail
# shellcheck source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

[ $# -eq 0 ] || fatal "usage: deploy/prometheus/check.sh"
RULES_DIR="$DEPLOY_SCRIPTS_DIR/prometheus"
RULES="$RULES_DIR/rules.yml"
RULES_TEST="$RULES_DIR/rules_test.yml"

promtool=$(ensure_prometheus_binary promtool) || fatal "no promtool (Debian's prometheus package could not be fetched)"
log "promtool check rules ${RULES#"$REPO_ROOT"/}"
"$promtool" check rules "$RULES" >&2
log "promtool test rules ${RULES_TEST#"$REPO_ROOT"/}"
# promtool resolves rule_files against the test file's directory.
"$promtool" test rules "$RULES_TEST" >&2

build_if_stale
work=$(mktemp -d "${TMPDIR:-/tmp}/rex-rules-check.XXXXXX")
node_pid='' node_start=''
cleanup() {
    if [ -n "$node_pid" ] && process_running "$node_pid" "$node_start"; then
        kill -TERM "$node_pid" 2>/dev/null || true
        if [ -n "$(wait_exited 5000 "$node_pid $node_start")" ]; then
            kill -KILL "$node_pid" 2>/dev/null || true
            wait_exited 5000 "$node_pid $node_start" >/dev/null || true
        fi
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mapfile -t ports < <(pick_ports 4)
metrics_url="http://127.0.0.1:${ports[3]}/metrics"
"$REXNODE" --id rules-check --pub "tcp://127.0.0.1:${ports[0]}" --control "tcp://127.0.0.1:${ports[1]}" \
    --membership "tcp://127.0.0.1:${ports[2]}" --metrics "tcp://127.0.0.1:${ports[3]}" \
    --data-dir "$work/data" >"$work/node.log" 2>&1 </dev/null &
node_pid=$!
node_start=$(process_start_time "$node_pid") || node_start=''
deadline=$(($(now_ms) + 20000))
until curl -fsS --max-time 1 "$metrics_url" -o "$work/metrics.txt" 2>/dev/null; do
    if ! pid_alive "$node_pid" || [ "$(now_ms)" -ge "$deadline" ]; then
        tail -n 20 "$work/node.log" >&2 || true
        fatal "the node's $metrics_url did not answer (log above)"
    fi
    sleep 0.1
done

log "the rules' metrics against a node's /metrics"
py - "$RULES" "$work/metrics.txt" <<'PY'
import re, sys
rules_text, metrics_text = open(sys.argv[1]).read(), open(sys.argv[2]).read()
families = set(re.findall(r"^# TYPE (\S+) \S+$", metrics_text, re.M))
served = set(families)
for name in re.findall(r"^# TYPE (\S+) histogram$", metrics_text, re.M):
    served |= {name + "_bucket", name + "_sum", name + "_count"}
exprs = re.findall(r"^\s*expr:\s*(.+)$", rules_text, re.M)
# Metric names the node exports: rexnode_* and process_*. Recording rules' names carry a colon
# and `up` is Prometheus' own, so neither is looked up.
used = sorted({name for expr in exprs for name in re.findall(r"(?<![\w:])((?:rexnode|process)_\w+)(?![\w:])", expr)})
if not families or not used:
    sys.exit("nothing to compare: %d families served, %d metrics in the rules" % (len(families), len(used)))
missing = [name for name in used if name not in served]
for name in used:
    print("  %-50s %s" % (name, "served" if name in served else "NOT SERVED"), file=sys.stderr)
if missing:
    sys.exit("the rules read metrics the node does not serve: " + ", ".join(missing))
PY
ok "rules: promtool check and test passed; the $(grep -c '^\s*- \(alert\|record\):' "$RULES") rules read only metrics a node serves"
