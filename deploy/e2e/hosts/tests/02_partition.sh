# shellcheck shell=bash
# A partition into {h1,h2} / {h3,h4,h5} for CUT_SECONDS (3 s) while h1 and h5 each publish 500
# messages of 2 KB a second (more than a 1,000-message queue and the kernel's socket buffers hold
# for 3 s). Asserted: every node sees every node across the cut suspect, then gone, within
# DETECT_BOUND_MS of the cut; no node sees a node of its own side gone (one briefly suspect, a
# node starved of CPU past a probe's timeout, is counted, not failed); h3's follow of h1 across
# the cut stalls; after `heal` every node sees every other alive within HEAL_BOUND_MS, and every
# follow reaches its publisher's last message within CONVERGE_BOUND_MS (markers published after
# the load until every follower hears one); on every follow the messages lost are exactly the
# gaps it counted, with no duplicate or reordering, and the followers on the publisher's own side
# (h2←h1, h4←h5) lose nothing; no node crashes.
#
# Bounds, from the SWIM membership's settings (RexMembership's MembershipSettings: 100 ms period,
# 40 ms ping timeout, suspicion floor 4 periods × max(1, log10 5) = 400 ms, a lone suspicion
# 6 × the floor, 2 confirmations to reach the floor) with N = 5:
# - gone: each near member probes each far one within its shuffled round-robin, at most
#   2(N − 1) − 1 = 7 periods after the cut, and suspects it at the end of that period (800 ms).
#   On the 3-member side the suspicion is confirmed twice (400 ms); on the 2-member side once
#   at most (the other near member's own failed probe), which brings 2,400 ms down to 1,138 ms.
#   So gone ≤ 800 + 1,138 ms + the watcher's 50 ms round ≈ 2.0 s on an idle machine; the bound
#   gives 1 s more for a loaded one (timers fire late when the 2 cores are oversubscribed).
# - heal: the membership's connections across the cut stall (no ZMTP heartbeat or keepalive) and
#   resume at TCP's next retransmission, which backs off while the cut lasts (200 ms, doubling):
#   at most about the cut's length after the heal. Members also send their table to a dead member
#   every second or so (reconnectInterval 2 s, shared by the members), and refutations spread in
#   a few periods. So heal ≤ cut + 2 s.
# - converge: the heal's bound, plus the load's last second (it runs 1 s past the heal) and the
#   data connections the membership dropped at "dead", made again at "alive": heal + 3 s.

DETECT_BOUND_MS=${DETECT_BOUND_MS:-3000}
CUT_SECONDS=${CUT_SECONDS:-3}
HEAL_BOUND_MS=${HEAL_BOUND_MS:-$((CUT_SECONDS * 1000 + 2000))}
CONVERGE_BOUND_MS=${CONVERGE_BOUND_MS:-$((HEAL_BOUND_MS + 3000))}
scenario_begin 02_partition
left="h1 h2" right="h3 h4 h5"

follow_everywhere cut_a c.a h1 h2 h3
follow_everywhere cut_b c.b h5 h4 h1
base_a=$(sync_sequence h1 c.a cut_a h2 h3)
base_b=$(sync_sequence h5 c.b cut_b h4 h1)
# follower:name:sender:topic:base — h3 and h1 are across the cut from their publisher.
follows=("h2:cut_a:h1:c.a:$base_a:a" "h3:cut_a:h1:c.a:$base_a:a" "h4:cut_b:h5:c.b:$base_b:b" "h1:cut_b:h5:c.b:$base_b:b")
declare -A before=()
for f in "${follows[@]}"; do
    IFS=: read -r node name sender topic _ <<<"$f"
    before[$f]=$(follow_numbers "$node" "$name" "$sender" "$topic")
done

watch_start 60
count=2500 rate=500 padding=$(printf '%2000s' '' | tr ' ' x)
load_start a h1 c.a "a{i}-$padding" "$count" "$rate"
load_start b h5 c.b "b{i}-$padding" "$count" "$rate"
sleep 1
cut_at=$(now_ms)
hosts partition h1,h2 / h3,h4,h5 >&2
sleep 1
stalled_at=$(follow_sequence h3 cut_a h1 c.a)
sleep $((CUT_SECONDS - 1))
stalled_to=$(follow_sequence h3 cut_a h1 c.a)
check_eq "h3's follow of h1 across the cut stalls (sequence 1 s into the cut → at its end)" "$stalled_at" "$stalled_to"
heal_at=$(now_ms)
hosts heal >&2
load_wait a 10
load_wait b 10
final_a=$(converge h1 c.a cut_a $(((CONVERGE_BOUND_MS + 999) / 1000)) h2 h3) \
    || check_fail "h2 and h3 did not both hear h1 again within ${CONVERGE_BOUND_MS} ms of the heal"
final_b=$(converge h5 c.b cut_b $(((CONVERGE_BOUND_MS + 999) / 1000)) h4 h1) \
    || check_fail "h4 and h1 did not both hear h5 again within ${CONVERGE_BOUND_MS} ms of the heal"
converged_ms=$(($(now_ms) - heal_at))
# Every pair alive again before the watcher stops.
until_true 10 cluster_whole || check_fail "the cluster is not whole 10 s after the heal"
watch_stop

cross="$(pairs "$left" "$right"),$(pairs "$right" "$left")"
same="$(pairs "$left" "$left"),$(pairs "$right" "$right")"
suspect_ms=$(first_ms "$cut_at" "$cross" suspect,gone)
gone_ms=$(first_ms "$cut_at" "$cross" gone)
healed_ms=$(first_ms "$heal_at" "$cross" alive)
check_le "ms until every node saw the other side suspect" "$suspect_ms" "$DETECT_BOUND_MS"
check_le "ms until every node saw the other side gone" "$gone_ms" "$DETECT_BOUND_MS"
check_le "ms from the heal until every node saw the other side alive" "$healed_ms" "$HEAL_BOUND_MS"
check_le "ms from the heal until every follow had the last message" "$converged_ms" "$CONVERGE_BOUND_MS"
same_doc=$(flaps "$cut_at" "$heal_at" "$same")
same_flaps=$(json_get totals.left <<<"$same_doc")
same_gone=$(json_get totals.gone <<<"$same_doc")
check_eq "times a node saw its own side gone during the cut" 0 "$same_gone"
step "times a node saw its own side suspect during the cut: $same_flaps"

lost_total=0 gaps_total=0 per_follow=()
declare -A final=([a]=${final_a:-0} [b]=${final_b:-0})
for f in "${follows[@]}"; do
    IFS=: read -r node name sender topic base load <<<"$f"
    read -r c0 g0 _ _ _ _ <<<"${before[$f]}"
    read -r c1 g1 d1 r1 _ s1 <<<"$(follow_numbers "$node" "$name" "$sender" "$topic")"
    # Between the two syncs the sender numbered final − base messages (the load and the markers).
    published=$((${final[$load]} - base))
    lost=$((published - (c1 - c0))) gaps=$((g1 - g0))
    lost_total=$((lost_total + lost)) gaps_total=$((gaps_total + gaps))
    per_follow+=("$node←$sender lost $lost gaps $gaps of $published")
    check_eq "$node←$sender: at the last sequence; lost = gaps counted; duplicates, reordered" \
        "${final[$load]}/$lost/$lost/0/0" "$s1/$lost/$gaps/$d1/$r1"
    case "$node:$sender" in
    h2:h1 | h4:h5) check_eq "$node←$sender (same side) lost" 0 "$lost" ;;
    esac
done
unfollow_everywhere cut_a h2 h3
unfollow_everywhere cut_b h4 h1

field detect_ms "$gone_ms"
field suspect_ms "$suspect_ms"
field heal_ms "$healed_ms"
field converge_ms "$converged_ms"
field lost "$lost_total"
field gaps "$gaps_total"
field cut_seconds "$CUT_SECONDS"
field published_per_side "$count"
field same_side_suspects "$same_flaps"
field same_side_gone "$same_gone"
field bounds "detect ≤ ${DETECT_BOUND_MS} ms, heal ≤ ${HEAL_BOUND_MS} ms, converge ≤ ${CONVERGE_BOUND_MS} ms"
field summary "cut ${CUT_SECONDS}s: suspect ${suspect_ms:-?} ms, gone ${gone_ms:-?} ms (≤ ${DETECT_BOUND_MS}); alive ${healed_ms:-?} ms (≤ ${HEAL_BOUND_MS}) and follows whole ${converged_ms} ms (≤ ${CONVERGE_BOUND_MS}) after heal; $(IFS=';'; echo "${per_follow[*]}")"
