# shellcheck shell=bash
# A real Prometheus (Debian's, deploy/prometheus.sh) scrapes the 3-node cluster every 500 ms:
# its HTTP API reports `up == 1` for all three targets, and the follower's
# rate(rexnode_messages_received_total) rises well past its idle baseline while n1
# publishes (rexctl send --count/--rate). The server is stopped and its dir removed on any exit.
# Skips loudly when no prometheus binary can be had (under CI=true deploy/e2e/run.sh counts that
# skip as a failure).

PROMETHEUS_SH="$DEPLOY_SCRIPTS_DIR/prometheus.sh"
prometheus=$(ensure_prometheus) || {
    warn "SKIPPING 19_prometheus: no prometheus binary (Debian's prometheus package could not be fetched)"
    exit 77
}
step "prometheus: $prometheus ($("$prometheus" --version 2>&1 | head -1))"
"$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >/dev/null 2>&1 || fail "the cluster is not up"

publisher_pid=''
cleanup() {
    [ -n "$publisher_pid" ] && kill "$publisher_pid" 2>/dev/null && wait "$publisher_pid" 2>/dev/null
    "$PROMETHEUS_SH" down >/dev/null 2>&1 || warn "deploy/prometheus.sh down failed"
    [ ! -d "$STATE_DIR/prometheus" ] || warn "$STATE_DIR/prometheus was not removed"
}
trap cleanup EXIT

"$PROMETHEUS_SH" up 500ms || fail "deploy/prometheus.sh up failed"
step "config: $(grep -c 'targets:' "$STATE_DIR/prometheus/prometheus.yml") targets in $STATE_DIR/prometheus/prometheus.yml"

query() { "$PROMETHEUS_SH" query "$1"; }
# The value of a query's first series (empty when it has none).
value_of() { query "$1" | awk 'NR == 1 { print $NF }'; }

# Every target up: `up == 1` answers one series per node.
up_nodes() { query 'up == 1' | sed -n 's/.*node=\([^, ]*\).*/\1/p' | sort | paste -sd' '; }
all_up() { [ "$(up_nodes)" = "n1 n2 n3" ]; }
until_true 20 all_up || fail "up == 1 for n1 n2 n3 within 20 s; Prometheus says: $(query up | paste -sd';')"
assert_eq "n1 n2 n3" "$(up_nodes)" "nodes with up == 1"
assert_eq 3 "$(value_of 'count(rexnode_info)')" "count(rexnode_info)"

# n2 follows what n1 publishes; first make sure a message gets through.
ctl send n2 follow load 'prom.*' --from n1 >/dev/null
wait_for n2 'keep=follow[load]' 3s
v=$(publish_until_seen n1 prom.load warmup n2 load)
step "n1 publish prom.load=$v → n2 follows.load.lastValue=$v"

# The baseline: idle (no data-plane message: the membership has its own socket), over the last
# 3 s of scrapes.
rate_query='rate(rexnode_messages_received_total{node="n2"}[3s])'
rate_now() { value_of "$rate_query" | awk '{ printf "%d", $1 }'; }
has_rate() { [ -n "$(rate_now)" ]; }
until_true 10 has_rate || fail "no $rate_query after 10 s"
baseline=$(rate_now)
step "baseline $rate_query = $baseline/s"

# 300 messages a second for up to 20 s, in the background; the rate must rise by at least 100/s
# (a third of it: on a busy 2-core machine rexctl may not keep up 300 requests a second).
rexctl send n1 publish prom.load 'm{i}' --count 6000 --rate 300 >/dev/null 2>"$STATE_DIR/prom-publisher.err" &
publisher_pid=$!
target=$((baseline + 100))
risen() { [ "$(rate_now)" -ge "$target" ] 2>/dev/null; }
until_true 15 risen \
    || fail "$rate_query stayed below $target/s (baseline $baseline/s) while n1 published 300/s: now $(rate_now)/s"
step "$rate_query = $(rate_now)/s while publishing (≥ $target/s)"
published=$(value_of 'rexnode_messages_published_total{node="n1"}')
step "rexnode_messages_published_total{node=\"n1\"} = $published"
kill "$publisher_pid" 2>/dev/null || true
wait "$publisher_pid" 2>/dev/null || true
publisher_pid=''

# The control requests behind those publishes, and n2's follow among its live channels by kind.
dispatched_query='rexnode_control_requests_total{node="n1",op="dispatch",result="ok"}'
dispatched() { [ "$(value_of "$dispatched_query" | awk '{ printf "%d", $1 }')" -ge 100 ] 2>/dev/null; }
until_true 5 dispatched || fail "$dispatched_query below 100 after the publishes: '$(value_of "$dispatched_query")'"
step "$dispatched_query = $(value_of "$dispatched_query")"
follows=$(value_of 'rexnode_channels_live{node="n2",kind="follow"}')
[ "${follows%.*}" -ge 1 ] 2>/dev/null || fail "rexnode_channels_live{node=\"n2\",kind=\"follow\"}: '$follows'"
assert_eq "$(value_of 'sum(rexnode_channels_live{node="n2"})')" "$(ctl_json metrics n2 | json_get channels.live)" \
    "sum(rexnode_channels_live{node=\"n2\"}) (Prometheus) and channels.live (rexctl metrics)"

# The histogram and process metrics arrive too (PromQL over them answers).
p99=$(value_of 'histogram_quantile(0.99, rate(rexnode_reconcile_cycle_duration_seconds_bucket{node="n2"}[3s]))')
[ -n "$p99" ] || fail "no histogram_quantile over rexnode_reconcile_cycle_duration_seconds_bucket"
step "p99 reconcile cycle on n2: ${p99}s"
rss=$(value_of 'process_resident_memory_bytes{node="n1"}')
[ -n "$rss" ] && [ "${rss%.*}" -gt 0 ] || fail "process_resident_memory_bytes{node=\"n1\"}: '$rss'"
step "process_resident_memory_bytes{node=\"n1\"} = $rss"

"$PROMETHEUS_SH" down || fail "deploy/prometheus.sh down failed"
[ ! -d "$STATE_DIR/prometheus" ] || fail "$STATE_DIR/prometheus left behind"
step "Prometheus stopped, its dir removed"
