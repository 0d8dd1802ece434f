# shellcheck shell=bash
# Every node serves HTTP metrics where the cluster file says: /healthz answers "ok", /metrics is
# valid Prometheus text (`promtool check metrics`, lint included) with the node's own id and its
# peers alive, an unknown path is 404. Skips loudly when no promtool can be had (under CI=true
# deploy/e2e/run.sh counts that skip as a failure).

promtool=$(ensure_promtool) || {
    warn "SKIPPING 18_metrics: no promtool (Debian's prometheus package could not be fetched)"
    exit 77
}
step "promtool: $promtool ($("$promtool" --version 2>&1 | head -1))"
# The hostile scenarios before this one each leave a cluster of their own: any will do, as long
# as it is up (after 01_up alone it is the first one).
"$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >/dev/null 2>&1 || fail "the cluster is not up"
declare -A METRICS=()
ids=()
while read -r id endpoint; do
    ids+=("$id") METRICS[$id]=$endpoint
done < <(py -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]: print(n["id"], n.get("metrics") or "-")' "$CLUSTER_FILE")
[ ${#ids[@]} -gt 0 ] || fail "no node in $CLUSTER_FILE"
for id in "${ids[@]}"; do
    endpoint=${METRICS[$id]}
    [ "$endpoint" != - ] || fail "$id has no metrics endpoint in $CLUSTER_FILE"
    url="http://${endpoint#tcp://}"
    health=$(curl -sS --max-time 5 "$url/healthz") || fail "$id: GET $url/healthz failed"
    assert_eq ok "$health" "$id /healthz"
    code=$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' "$url/nope") || fail "$id: GET $url/nope failed"
    assert_eq 404 "$code" "$id /nope status"
    body="$STATE_DIR/metrics-$id.txt"
    curl -sS --max-time 5 -o "$body" "$url/metrics" || fail "$id: GET $url/metrics failed"
    out=$("$promtool" check metrics <"$body" 2>&1) || fail "$id: promtool check metrics: $out"
    step "$id: promtool check metrics: clean ($(grep -c '^rexnode_\|^process_' "$body") samples)"
    grep -qx "rexnode_info{node=\"$id\",feature=\"feeds\",feature_version=\"1\"} 1" "$body" || fail "$id: no rexnode_info{node=\"$id\",feature=\"feeds\",…} 1"
    # cluster.sh gives every node a data dir: its journal families were part of the check above.
    grep -q '^rexnode_journal_commit_duration_seconds_count ' "$body" || fail "$id: no rexnode_journal_* metrics"
    # Channel lifecycles by kind: every node opened its peers' connections and its membership.
    for kind in peer membership; do
        opens=$(awk -v key="rexnode_channel_opens_total{kind=\"$kind\"}" '$1 == key { print $2 }' "$body")
        [ -n "$opens" ] && [ "${opens%.*}" -ge 1 ] || fail "$id: rexnode_channel_opens_total{kind=\"$kind\"} is '${opens:-absent}', expected ≥ 1"
    done
    alive=$(awk '$1 == "rexnode_members{status=\"alive\"}" { print $2 }' "$body")
    assert_eq $((${#ids[@]} - 1)) "$alive" "$id rexnode_members{status=\"alive\"}"
done
