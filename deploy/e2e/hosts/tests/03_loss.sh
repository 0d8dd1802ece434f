# shellcheck shell=bash
# 20 % random loss on h5's packets to and from the other hosts, both ways, for
# HOSTS_LOSS_SECONDS (15 s, half the issue's 30 s to keep CI short), while h1 publishes 500
# messages/s to h5 and h2 and h5 publishes 500/s to h3. Asserted: no node crashes; during the
# loss each pair with h5 leaves alive at most PAIR_LEFT_BOUND times (twice a second; the worst
# pair counts), and the 8 pairs with h5 are together not alive at most NOT_ALIVE_BOUND_PCT % of
# the time; no pair without h5 sees the other gone, those 12 pairs leave alive at most
# UNTOUCHED_LEFT_BOUND times in all (twice a second) and are not alive at most
# UNTOUCHED_NOT_ALIVE_BOUND_PCT % of the time (each suspicion brief); within CONVERGE_BOUND_S of
# the loss ending every follow is at its publisher's last message with lost = gaps and no
# duplicate or reordering; within BASELINE_BOUND_S more, every host's sockets and live channels
# are back at their baseline, its fds at most at it and its RSS within 16 MiB of it. Throughput
# is recorded.
#
# Why pairs flap: a lost segment stalls a TCP stream for at least its 200 ms minimum
# retransmission timeout (2 protocol periods), and a stream that carries only probes has too few
# segments for fast retransmit, so each lost retransmission doubles the stall (0.2, 0.4, 0.8 …
# s): a probe across it misses its period, and the pair looks suspect until the subject refutes.
# Pairs without h5 see suspects too: h5's own late acks make it suspect others, and a suspicion
# is gossiped to every member until its subject refutes it — a brief suspect, never a death. How
# often is not set by the design (it follows the loss and TCP's backoff): the two counts' bounds
# are what runs of this suite measured on this 2-core VM under load, with room (README, "Across
# hosts").
# Converge: a stream deep in backoff when the loss ends waits for its next retransmission (its
# timeout doubles with each loss of the same segment, so seconds; more than 12 s has been seen).
# Back to the baseline: once the follows have converged, the same follows hold the same sockets
# and channels; BASELINE_BOUND_S is 5 s, and 20 s when a member was declared dead during the
# loss (its connections are dropped, and made again only after it refutes, which has taken over
# 10 s). fds may read lower, never higher: a baseline taken while a connection was being remade
# reads one more.

LOSS_SECONDS=${HOSTS_LOSS_SECONDS:-15}
LOSS_PERCENT=20
RATE=500
PAIR_LEFT_BOUND=${PAIR_LEFT_BOUND:-$((2 * LOSS_SECONDS))}
NOT_ALIVE_BOUND_PCT=${NOT_ALIVE_BOUND_PCT:-25}
UNTOUCHED_LEFT_BOUND=${UNTOUCHED_LEFT_BOUND:-$((2 * LOSS_SECONDS))}
UNTOUCHED_NOT_ALIVE_BOUND_PCT=${UNTOUCHED_NOT_ALIVE_BOUND_PCT:-5}
CONVERGE_BOUND_S=${CONVERGE_BOUND_S:-30}
scenario_begin 03_loss

follow_everywhere ls_a ls.a h1 h5 h2
follow_everywhere ls_b ls.b h5 h3
base_a=$(sync_sequence h1 ls.a ls_a h5 h2)
base_b=$(sync_sequence h5 ls.b ls_b h3)
follows=("h5:ls_a:h1:ls.a:$base_a:a" "h2:ls_a:h1:ls.a:$base_a:a" "h3:ls_b:h5:ls.b:$base_b:b")
declare -A before=() base_fds=() base_sockets=() base_live=() base_rss=()
for f in "${follows[@]}"; do
    IFS=: read -r node name sender topic _ _ <<<"$f"
    before[$f]=$(follow_numbers "$node" "$name" "$sender" "$topic")
done
for host in $(all_hosts); do
    read -r base_fds[$host] base_sockets[$host] base_live[$host] base_rss[$host] < <(rexctl -o json metrics "$host" \
        | py -c 'import json, sys; m = json.load(sys.stdin); print(m["process"]["fds"], m["sockets"]["open"], m["channels"]["live"], round(m["process"]["rssBytes"] / 1048576))')
done
step "baseline fds/sockets/live/RSS MiB: $(for h in $(all_hosts); do printf '%s=%s/%s/%s/%s ' "$h" "${base_fds[$h]}" "${base_sockets[$h]}" "${base_live[$h]}" "${base_rss[$h]}"; done)"

watch_start 90
count=$((RATE * LOSS_SECONDS))
loss_at=$(now_ms)
hosts loss h5 "$LOSS_PERCENT" >&2
load_start a h1 ls.a 'a{i}' "$count" "$RATE"
load_start b h5 ls.b 'b{i}' "$count" "$RATE"
sleep 1
declare -A mid0=()
for f in "${follows[@]}"; do IFS=: read -r node name _ _ _ _ <<<"$f"; mid0[$f]=$(state_get "$node" "follows.$name.count"); done
mid0_at=$(now_ms)
sleep $((LOSS_SECONDS - 2))
declare -A rates=()
for f in "${follows[@]}"; do
    IFS=: read -r node name sender _ _ _ <<<"$f"
    rates[$node←$sender]=$(py -c 'import sys; print(round((int(sys.argv[1]) - int(sys.argv[2])) * 1000 / (int(sys.argv[3]) - int(sys.argv[4]))))' \
        "$(state_get "$node" "follows.$name.count")" "${mid0[$f]}" "$(now_ms)" "$mid0_at")
done
load_wait a 10
load_wait b 10
clear_at=$(now_ms)
hosts loss h5 0 >&2
final_a=$(converge h1 ls.a ls_a "$CONVERGE_BOUND_S" h5 h2) || check_fail "h5 and h2 did not both hear h1 within ${CONVERGE_BOUND_S} s of the loss ending"
final_b=$(converge h5 ls.b ls_b "$CONVERGE_BOUND_S" h3) || check_fail "h3 did not hear h5 within ${CONVERGE_BOUND_S} s of the loss ending"
converged_ms=$(($(now_ms) - clear_at))
until_true 10 cluster_whole || check_fail "the cluster is not whole 10 s after the loss ended"
watch_stop

with_h5="$(pairs "h1 h2 h3 h4" h5),$(pairs h5 "h1 h2 h3 h4")"
without_h5=$(pairs "h1 h2 h3 h4" "h1 h2 h3 h4")
doc=$(flaps "$loss_at" "$clear_at" "$with_h5")
read -r worst_pct worst_left all_pct total_left total_gone < <(py -c '
import json, sys
d = json.load(sys.stdin)
span = max(d["spanMs"], 1)
pairs = list(d["pairs"].values())
print(max(round(100 * p["notAliveMs"] / span) for p in pairs), max(p["left"] for p in pairs),
      round(100 * d["totals"]["notAliveMs"] / (span * len(pairs))), d["totals"]["left"], d["totals"]["gone"])' <<<"$doc")
check_le "times a pair with h5 left alive (worst pair)" "$worst_left" "$PAIR_LEFT_BOUND"
check_le "% of the loss the pairs with h5 were not alive (all 8 pairs)" "$all_pct" "$NOT_ALIVE_BOUND_PCT"
step "the worst pair with h5 was not alive ${worst_pct} % of the loss"
untouched=$(flaps "$loss_at" "$clear_at" "$without_h5")
untouched_left=$(json_get totals.left <<<"$untouched")
untouched_gone=$(json_get totals.gone <<<"$untouched")
untouched_not_alive_ms=$(json_get totals.notAliveMs <<<"$untouched")
check_eq "times a pair without h5 saw the other gone" 0 "$untouched_gone"
check_le "times a pair without h5 left alive (suspicions gossiped from h5, refuted)" "$untouched_left" "$UNTOUCHED_LEFT_BOUND"
untouched_pct=$(py -c 'import json, sys; d = json.load(sys.stdin); print(round(100 * d["totals"]["notAliveMs"] / (max(d["spanMs"], 1) * len(d["pairs"]))))' <<<"$untouched")
check_le "% of the loss the pairs without h5 were not alive (all 12 pairs; ${untouched_not_alive_ms} ms in all)" "$untouched_pct" "$UNTOUCHED_NOT_ALIVE_BOUND_PCT"

lost_total=0 gaps_total=0 per_follow=()
declare -A final=([a]=${final_a:-0} [b]=${final_b:-0})
for f in "${follows[@]}"; do
    IFS=: read -r node name sender topic base load <<<"$f"
    read -r c0 g0 _ _ _ _ <<<"${before[$f]}"
    read -r c1 g1 d1 r1 _ s1 <<<"$(follow_numbers "$node" "$name" "$sender" "$topic")"
    published=$((${final[$load]} - base))
    lost=$((published - (c1 - c0))) gaps=$((g1 - g0))
    lost_total=$((lost_total + lost)) gaps_total=$((gaps_total + gaps))
    per_follow+=("$node←$sender ${rates[$node←$sender]}/s lost $lost")
    check_eq "$node←$sender: at the last sequence; lost = gaps counted; duplicates, reordered" \
        "${final[$load]}/$lost/$lost/0/0" "$s1/$lost/$gaps/$d1/$r1"
done

# Back to the baseline: the same follows, so the same sockets, channels and fds.
leaks() {
    local host fds sockets live rss out=()
    for host in $(all_hosts); do
        read -r fds sockets live rss < <(rexctl -o json metrics "$host" \
            | py -c 'import json, sys; m = json.load(sys.stdin); print(m["process"]["fds"], m["sockets"]["open"], m["channels"]["live"], round(m["process"]["rssBytes"] / 1048576))')
        # fds at most the baseline's: one taken while a connection was being remade reads one
        # more (seen in CI: baseline 49/47 fds on h3/h4, after 48/46), and a leak only grows.
        [ "$fds" -le "${base_fds[$host]}" ] && [ "$sockets" = "${base_sockets[$host]}" ] && [ "$live" = "${base_live[$host]}" ] \
            && [ "$rss" -le $((${base_rss[$host]} + 16)) ] || out+=("$host:$fds/$sockets/$live/${rss}MiB")
    done
    echo "${out[*]}"
}
BASELINE_BOUND_S=5
[ "${total_gone:-0}" -eq 0 ] || BASELINE_BOUND_S=20
baseline_started=$(now_ms)
if until_true "$BASELINE_BOUND_S" test -z "$(leaks)"; then
    baseline_ms=$(($(now_ms) - baseline_started))
    step "fds, sockets, live channels and RSS back to the baseline on every host after $baseline_ms ms"
else
    check_fail "not back to the baseline within $BASELINE_BOUND_S s (fds/sockets/live/RSS): $(leaks)"
fi
unfollow_everywhere ls_a h5 h2
unfollow_everywhere ls_b h3

field lost "$lost_total"
field gaps "$gaps_total"
field loss_seconds "$LOSS_SECONDS"
field loss_percent "$LOSS_PERCENT"
field throughput_into_h5_per_s "${rates[h5←h1]}"
field throughput_out_of_h5_per_s "${rates[h3←h5]}"
field throughput_clean_per_s "${rates[h2←h1]}"
field offered_per_s "$RATE"
field worst_pair_not_alive_pct "$worst_pct"
field pairs_with_h5_not_alive_pct "$all_pct"
field worst_pair_flaps "$worst_left"
field flaps_with_h5 "$total_left"
field gone_with_h5 "$total_gone"
field converge_ms "$converged_ms"
field baseline_ms "${baseline_ms:-}"
field untouched_pairs_left "$untouched_left"
field untouched_pairs_gone "$untouched_gone"
field untouched_pairs_not_alive_ms "$untouched_not_alive_ms"
field heal_ms "$converged_ms"
field bounds "converge ≤ ${CONVERGE_BOUND_S} s; a pair with h5 leaves alive ≤ ${PAIR_LEFT_BOUND}×, pairs with h5 not alive ≤ ${NOT_ALIVE_BOUND_PCT} % of the time; pairs without h5 never gone, leave alive ≤ ${UNTOUCHED_LEFT_BOUND}× in all, not alive ≤ ${UNTOUCHED_NOT_ALIVE_BOUND_PCT} % of the time; back to baseline ≤ ${BASELINE_BOUND_S} s"
field summary "${LOSS_PERCENT}% for ${LOSS_SECONDS}s at ${RATE}/s: $(IFS=';'; echo "${per_follow[*]}"); pairs with h5 left alive ${total_left}× (worst pair ${worst_left}×), gone ${total_gone}×, not alive ${all_pct}% of the time (worst pair ${worst_pct}%), other pairs left alive ${untouched_left}×, gone ${untouched_gone}×; whole ${converged_ms} ms after"
