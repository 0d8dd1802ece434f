# shellcheck shell=bash
# Follows across hosts deliver: `rexctl nodes` from the root namespace reaches every host and each
# node sees every other alive; a ring of follows (hK follows hK+1's feed, from it) delivers; h1's
# prefix follow hears every other host; a burst of 400 publishes on h1 reaches h2…h5 whole
# (count = 400, no gap).

scenario_begin 01_follow
hosts_list=$(all_hosts | paste -sd' ' -)

out=$(rexctl -o json nodes --timeout 1s)
seen=$(py -c '
import json, sys
nodes = [json.loads(l) for l in sys.stdin if l.strip()]
print(sum(1 for n in nodes if n.get("reachable")), sum(sum(1 for s in (n.get("seenBy") or {}).values() if s == "alive") for n in nodes))' <<<"$out")
read -r reachable alive_views <<<"$seen"
check_eq "hosts answering rexctl from the root namespace" "$HOSTS_COUNT" "$reachable"
check_eq "(observer, peer) pairs alive" $((HOSTS_COUNT * (HOSTS_COUNT - 1))) "$alive_views"

# A ring: hK follows ring.hK+1 from hK+1.
for ((k = 1; k <= HOSTS_COUNT; k++)); do
    next=h$((k % HOSTS_COUNT + 1))
    rexctl send "h$k" follow ring "ring.$next" --from "$next" >/dev/null
done
rexctl send h1 follow every 'ring.*' >/dev/null
for ((k = 1; k <= HOSTS_COUNT; k++)); do wait_for "h$k" 'keep=follow[ring]' 3s; done
wait_for h1 'keep=follow[every]' 3s
ring_started=$(now_ms)
for ((k = 1; k <= HOSTS_COUNT; k++)); do
    next=h$((k % HOSTS_COUNT + 1))
    v=$(set_until_seen "$next" "ring.$next" "from-$next" "h$k" ring)
    step "$next set ring.$next=$v → h$k follows.ring"
done
ring_ms=$(($(now_ms) - ring_started))
senders=$(rexctl -o json state h1 | py -c 'import json, sys; print(",".join(sorted(json.load(sys.stdin)["follows"]["every"].get("senders", {}))))')
check_eq "senders h1's prefix follow ring.* heard" "h2,h3,h4,h5" "$senders"

# A burst with known sequences: every follower gets all of it.
followers=(h2 h3 h4 h5)
follow_everywhere burst b.t h1 "${followers[@]}"
base=$(sync_sequence h1 b.t burst "${followers[@]}")
declare -A before=()
for node in "${followers[@]}"; do before[$node]=$(follow_numbers "$node" burst h1 b.t); done
burst=400
burst_started=$(now_ms)
load_start burst h1 b.t 'b{i}' "$burst" 800
load_wait burst 10
for node in "${followers[@]}"; do
    until_true 5 follow_reaches "$node" burst h1 b.t $((base + burst)) || check_fail "$node did not get the whole burst within 5 s"
done
burst_ms=$(($(now_ms) - burst_started))
lost_total=0 gaps_total=0
for node in "${followers[@]}"; do
    read -r c0 g0 _ _ _ _ <<<"${before[$node]}"
    read -r c1 g1 d1 r1 _ s1 <<<"$(follow_numbers "$node" burst h1 b.t)"
    lost_total=$((lost_total + burst - (c1 - c0)))
    gaps_total=$((gaps_total + g1 - g0))
    check_eq "$node: burst delivered / gaps / duplicates / reordered" "$burst/0/0/0" "$((c1 - c0))/$((g1 - g0))/$d1/$r1"
done
unfollow_everywhere burst "${followers[@]}"
for ((k = 1; k <= HOSTS_COUNT; k++)); do rexctl send "h$k" unfollow ring >/dev/null; done
rexctl send h1 unfollow every >/dev/null

field lost "$lost_total"
field gaps "$gaps_total"
field hosts "$HOSTS_COUNT"
field ring_ms "$ring_ms"
field burst_messages "$burst"
field burst_ms "$burst_ms"
field summary "$reachable/$HOSTS_COUNT hosts answer, $alive_views/$((HOSTS_COUNT * (HOSTS_COUNT - 1))) pairs alive; ring of $HOSTS_COUNT follows in ${ring_ms} ms; ${burst}×${#followers[@]} burst whole in ${burst_ms} ms"
