# shellcheck shell=bash
# A slow link: h4's link limited to 1 Mbit/s both ways (tc tbf, 200 ms of queue) while h1
# publishes 1 KB messages at 400/s (about 3.4 Mbit/s) for 8 s to h2, h3 and h4. The publisher's
# memory stays bounded: its peak RSS at most RSS_BOUND_MIB over its baseline (its queue for h4
# holds at most --queue-messages 1,000 messages, about 1 MB). The other hosts are unaffected: h2
# and h3 get every message with no gap, within 2 s of the load's end, and every pair among
# h1, h2, h3, h5 stays alive. h4 gets what its link carries (its throughput is recorded), loses
# the rest as counted gaps (lost = gaps once the link is fast again). Heartbeats have a
# connection of their own (the membership SUB; the follow `--from h1` has a dedicated one) but
# share the slow link: how long h4 saw h1 not alive is recorded, not a failure (seen: 0 ms).

RSS_BOUND_MIB=${RSS_BOUND_MIB:-64}
RATE=400 SECONDS_OF_LOAD=8
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
    until_true 2 follow_reaches "$node" sl h1 sl.t $((base + count)) || check_fail "$node (fast link) did not have h1's last message within 2 s of the load's end"
done
h1_peak_mib=$(mib "$h1_pid" VmHWM)
h4_rate=$(((h4_c1 - h4_c0) * 1000 / (h4_t1 - h4_t0)))
hosts slow h4 off >&2
final=$(converge h1 sl.t sl 15 h2 h3 h4) || check_fail "h2, h3 and h4 did not all hear h1 within 15 s of the link being fast again"
until_true 10 cluster_whole || check_fail "the cluster is not whole 10 s after the link was fast again"
watch_stop

check_le "h1's peak RSS over its baseline (MiB)" $((h1_peak_mib - h1_base_mib)) "$RSS_BOUND_MIB"
fast_doc=$(flaps "$load_at" "$load_end" "$(pairs "$fast" "$fast")")
fast_flaps=$(json_get totals.left <<<"$fast_doc")
if grep -q '"membership"' "$CLUSTER_FILE"; then
    # SWIM: the slow h4's late acks make it suspect others, gossiped until refuted: a fast pair
    # may see a brief suspect, never a death.
    check_eq "times a pair among $fast saw the other gone during the load" 0 "$(json_get totals.gone <<<"$fast_doc")"
    check_le "times a pair among $fast left alive during the load (suspicions gossiped, refuted)" "$fast_flaps" "$SECONDS_OF_LOAD"
else
    check_eq "times a pair among $fast left alive during the load" 0 "$fast_flaps"
fi
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
field slow_host_saw_h1_not_alive_ms "$h4_not_alive"
field bounds "publisher peak RSS ≤ baseline + ${RSS_BOUND_MIB} MiB; fast hosts: no gap, last message ≤ 2 s after the load, pairs never leave alive"
field summary "1 Mbit/s to h4 under ${RATE}×1 KB/s for ${SECONDS_OF_LOAD}s: h1 RSS ${h1_base_mib}→${h1_peak_mib} MiB (≤ +${RSS_BOUND_MIB}); h4 got ${h4_rate}/s, $(IFS=';'; echo "${per_follow[*]}"); h2, h3 whole, fast pairs 0 flaps; h4 saw h1 not alive ${h4_not_alive} ms"
