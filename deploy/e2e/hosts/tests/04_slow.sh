# shellcheck shell=bash
# A slow link: h4's link limited to 1 Mbit/s both ways (tc tbf, 200 ms of queue) while h1
# publishes 1 KB messages at 400/s (about 3.4 Mbit/s) for 8 s to h2, h3 and h4. Asserted: the
# publisher's peak RSS stays within RSS_BOUND_MIB of its baseline (its queue for h4 holds at most
# --queue-messages 1,000 messages, about 1 MB; the rest is room for the allocator); h2 and h3
# (fast links) have h1's last message within FAST_LAST_BOUND_S of the load's end and lose
# nothing; among h1, h2, h3, h5 no pair sees the other gone, and during the load the 12 pairs
# leave alive at most FAST_LEFT_BOUND times in all (twice a second) and are not alive at most
# FAST_NOT_ALIVE_BOUND_PCT % of the time (each suspicion brief): the slow h4's late acks make it suspect fast members, and a suspicion is gossiped to every member
# until its subject refutes it; h4 gets what its link carries (its throughput is recorded) and
# loses the rest as counted gaps (lost = gaps once the link is fast again). The membership has a
# connection of its own but shares the slow link: how long h4 saw h1 not alive is recorded, not
# asserted (it can be most of the load).

RSS_BOUND_MIB=${RSS_BOUND_MIB:-16}
RATE=400 SECONDS_OF_LOAD=8
FAST_LAST_BOUND_S=1
FAST_LEFT_BOUND=$((2 * SECONDS_OF_LOAD))
FAST_NOT_ALIVE_BOUND_PCT=5
scenario_begin 04_slow
fast="h1 h2 h3 h5"

follow_everywhere sl sl.t h1 h2 h3 h4
base=$(sync_sequence h1 sl.t sl h2 h3 h4)
declare -A before=()
for node in h2 h3 h4; do before[$node]=$(follow_numbers "$node" sl h1 sl.t); done
h1_pid=$(host_pid h1)
h1_base_mib=$(mib "$h1_pid" VmRSS)
host_alive h1 && echo 5 >"/proc/$h1_pid/clear_refs"

hosts slow h4 1mbit >&2
watch_start 90
count=$((RATE * SECONDS_OF_LOAD)) padding=$(printf '%1000s' '' | tr ' ' x)
load_at=$(now_ms)
load_start s h1 sl.t "s{i}-$padding" "$count" "$RATE"
sleep 1
h4_c0=$(state_get h4 follows.sl.count) h4_t0=$(now_ms)
load_wait s $((SECONDS_OF_LOAD + 10))
h4_c1=$(state_get h4 follows.sl.count) h4_t1=$(now_ms)
load_end=$(now_ms)
for node in h2 h3; do
    until_true "$FAST_LAST_BOUND_S" follow_reaches "$node" sl h1 sl.t $((base + count)) \
        || check_fail "$node (fast link) did not have h1's last message within $FAST_LAST_BOUND_S s of the load's end"
done
fast_last_ms=$(($(now_ms) - load_end))
h1_peak_mib=$(mib "$h1_pid" VmHWM)
h4_rate=$(((h4_c1 - h4_c0) * 1000 / (h4_t1 - h4_t0)))
hosts slow h4 off >&2
final=$(converge h1 sl.t sl 15 h2 h3 h4) || check_fail "h2, h3 and h4 did not all hear h1 within 15 s of the link being fast again"
until_true 10 cluster_whole || check_fail "the cluster is not whole 10 s after the link was fast again"
watch_stop

check_le "h1's peak RSS over its baseline (MiB)" $((h1_peak_mib - h1_base_mib)) "$RSS_BOUND_MIB"
fast_doc=$(flaps "$load_at" "$load_end" "$(pairs "$fast" "$fast")")
fast_flaps=$(json_get totals.left <<<"$fast_doc")
fast_gone=$(json_get totals.gone <<<"$fast_doc")
fast_not_alive_ms=$(json_get totals.notAliveMs <<<"$fast_doc")
check_eq "times a pair among $fast saw the other gone during the load" 0 "$fast_gone"
check_le "times a pair among $fast left alive during the load (suspicions gossiped from h4, refuted)" "$fast_flaps" "$FAST_LEFT_BOUND"
fast_pct=$(py -c 'import json, sys; d = json.load(sys.stdin); print(round(100 * d["totals"]["notAliveMs"] / (max(d["spanMs"], 1) * len(d["pairs"]))))' <<<"$fast_doc")
check_le "% of the load the pairs among $fast were not alive (${fast_not_alive_ms} ms in all)" "$fast_pct" "$FAST_NOT_ALIVE_BOUND_PCT"
h4_view=$(flaps "$load_at" "$load_end" "h4>h1" | json_get pairs.h4\>h1)
h4_not_alive=$(json_get notAliveMs <<<"$h4_view")

lost_total=0 gaps_total=0 per_follow=()
for node in h2 h3 h4; do
    read -r c0 g0 _ _ _ _ <<<"${before[$node]}"
    read -r c1 g1 d1 r1 _ s1 <<<"$(follow_numbers "$node" sl h1 sl.t)"
    published=$((${final:-0} - base))
    lost=$((published - (c1 - c0))) gaps=$((g1 - g0))
    lost_total=$((lost_total + lost)) gaps_total=$((gaps_total + gaps))
    per_follow+=("$node lost $lost")
    check_eq "$node←h1: at the last sequence; lost = gaps counted; duplicates, reordered" "${final:-?}/$lost/$lost/0/0" "$s1/$lost/$gaps/$d1/$r1"
    [ "$node" = h4 ] || check_eq "$node (fast link) lost" 0 "$lost"
done
unfollow_everywhere sl h2 h3 h4

field lost "$lost_total"
field gaps "$gaps_total"
field link "1mbit"
field offered_per_s "$RATE"
field message_bytes 1000
field throughput_slow_host_per_s "$h4_rate"
field publisher_rss_base_mib "$h1_base_mib"
field publisher_rss_peak_mib "$h1_peak_mib"
field fast_last_message_ms "$fast_last_ms"
field fast_pairs_left "$fast_flaps"
field fast_pairs_gone "$fast_gone"
field fast_pairs_not_alive_ms "$fast_not_alive_ms"
field slow_host_saw_h1_not_alive_ms "$h4_not_alive"
field bounds "publisher peak RSS ≤ baseline + ${RSS_BOUND_MIB} MiB; fast hosts: nothing lost, last message ≤ ${FAST_LAST_BOUND_S} s after the load; fast pairs never gone, leave alive ≤ ${FAST_LEFT_BOUND}× in all, not alive ≤ ${FAST_NOT_ALIVE_BOUND_PCT} % of the time"
field summary "1 Mbit/s to h4 under ${RATE}×1 KB/s for ${SECONDS_OF_LOAD}s: h1 RSS ${h1_base_mib}→${h1_peak_mib} MiB (≤ +${RSS_BOUND_MIB}); h4 got ${h4_rate}/s, $(IFS=';'; echo "${per_follow[*]}"); h2, h3 whole, fast pairs left alive ${fast_flaps}×; h4 saw h1 not alive ${h4_not_alive} ms"
