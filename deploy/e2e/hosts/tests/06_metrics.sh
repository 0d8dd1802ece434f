# shellcheck shell=bash
# Every host's HTTP metrics endpoint, as the cluster file records it, answers from the root
# namespace: /healthz is ok, /metrics names the host and counts every other host alive (and
# passes `promtool check metrics` when a promtool can be had; under CI=true it must be). A
# partition of h1 from the rest shows in h1's own /metrics — rexnode_members{status="dead"}
# reaches N-1 within GONE_BOUND_MS — while the endpoint keeps answering (root-namespace traffic
# is never cut); after `heal` it counts N-1 alive again within HEAL_BOUND_MS of the heal.
#
# Bounds, from the SWIM settings (100 ms period; lone suspicion 2,400 ms; Lifeguard's local
# health): h1, cut off alone, is the one whose probes all fail and whose ping-requests get no
# nack, so each failed probe raises its local health score and stretches its next period by
# (1 + score): 100, 200, 300 … ms. It probes all four others within at most 7 probes (a round
# begun before the cut, then a reshuffled one): 2.8 s. No one can confirm its suspicions, so each
# lasts the lone 2,400 ms: gone ≤ 5.2 s on an idle machine, 7 s with room for a loaded one (the
# majority side's detection is bounded in 02_partition). Heal, as in 02_partition: the connections
# across the cut resume at TCP's next retransmission, at most about the cut's length after the
# heal, and members send their table to a dead member every second or so: the cut's length + 2 s.

scenario_begin 06_metrics
GONE_BOUND_MS=${GONE_BOUND_MS:-7000}

declare -A URL=()
while read -r id endpoint; do
    URL[$id]="http://${endpoint#tcp://}"
done < <(py -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]: print(n["id"], n.get("metrics") or "-")' "$CLUSTER_FILE")

promtool=$(ensure_promtool 2>/dev/null) || promtool=''
if [ -z "$promtool" ] && in_ci; then
    check_fail "no promtool (Debian's prometheus package could not be fetched): the format cannot be checked, and under CI=true a skipped check is a failed one"
elif [ -z "$promtool" ]; then
    note "no promtool (Debian's prometheus package could not be fetched): format not checked"
fi
# members_of HOST STATUS: the host's rexnode_members{status=STATUS}, from its /metrics.
members_of() {
    curl -sS --max-time 2 "${URL[$1]}/metrics" 2>/dev/null | awk -v key="rexnode_members{status=\"$2\"}" '$1 == key { print $2 }'
}
for host in $(all_hosts); do
    [ "${URL[$host]:-}" != "http://-" ] && [ -n "${URL[$host]:-}" ] || { check_fail "$host has no metrics endpoint in $CLUSTER_FILE"; continue; }
    check_eq "$host ${URL[$host]}/healthz" ok "$(curl -sS --max-time 2 "${URL[$host]}/healthz" 2>&1)"
    body="$S_TMP/metrics-$host.txt"
    curl -sS --max-time 2 -o "$body" "${URL[$host]}/metrics" || { check_fail "$host: GET /metrics failed"; continue; }
    grep -qx "rexnode_info{node=\"$host\",feature=\"feeds\",feature_version=\"1\"} 1" "$body" || check_fail "$host: no rexnode_info{node=\"$host\",feature=\"feeds\",…} 1"
    check_eq "$host rexnode_members{status=\"alive\"}" $((HOSTS_COUNT - 1)) "$(members_of "$host" alive)"
    if [ -n "$promtool" ]; then
        out=$("$promtool" check metrics <"$body" 2>&1) && step "$host: promtool check metrics: clean" \
            || check_fail "$host: promtool check metrics: $out"
    fi
done

others=$(all_hosts | grep -vx h1 | paste -sd, -)
# Gone: `dead` (the membership's rexnode_members family keeps dead and left apart).
gone_of() { members_of "$1" dead; }
h1_sees_all_gone() { [ "$(gone_of h1)" = $((HOSTS_COUNT - 1)) ]; }
h1_sees_all_alive() { [ "$(members_of h1 alive)" = $((HOSTS_COUNT - 1)) ]; }
hosts partition "h1 / $others" >&2
cut=$(now_ms)
if until_true $(((GONE_BOUND_MS + 999) / 1000)) h1_sees_all_gone; then
    gone_ms=$(($(now_ms) - cut))
    check_le "h1's /metrics: every other host gone after (ms)" "$gone_ms" "$GONE_BOUND_MS"
else
    check_fail "h1's /metrics did not count $((HOSTS_COUNT - 1)) gone within $GONE_BOUND_MS ms (alive=$(members_of h1 alive), suspect=$(members_of h1 suspect), gone=$(gone_of h1))"
fi
hosts heal >&2
healed=$(now_ms)
# The cut lasted from the partition to the heal.
HEAL_BOUND_MS=${HEAL_BOUND_MS:-$((healed - cut + 2000))}
if until_true $(((HEAL_BOUND_MS + 999) / 1000)) h1_sees_all_alive; then
    heal_ms=$(($(now_ms) - healed))
    check_le "h1's /metrics: every other host alive again after (ms)" "$heal_ms" "$HEAL_BOUND_MS"
else
    check_fail "h1's /metrics did not count $((HOSTS_COUNT - 1)) alive within $HEAL_BOUND_MS ms of heal"
fi

field detect_ms "${gone_ms:-}"
field heal_ms "${heal_ms:-}"
field summary "$HOSTS_COUNT hosts serve /healthz and /metrics from the cluster file's address${promtool:+ (promtool clean)}; partition of h1 seen in its own /metrics after ${gone_ms:-?} ms, healed after ${heal_ms:-?} ms"
