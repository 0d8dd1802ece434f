# shellcheck shell=bash
# A host's node paused (SIGSTOP) for 1.5 s and resumed; another host's node killed (SIGKILL) and
# started again on the same address. Asserted: each time the other four see it gone within
# DETECT_BOUND_MS; every node sees every other alive within RESUME_BOUND_MS of the resume and
# within RESTART_BOUND_MS of the restart, and a follow of that host delivers again: the paused one's continues its
# sequence with no gap, the restarted one's counts one restart (a new epoch) and no gap, at a
# new incarnation. What h1 published to the paused host meanwhile (300 messages) arrives after
# the resume or counts as gaps (lost = gaps).
#
# Bounds, from the SWIM settings (100 ms period, suspicion floor 400 ms) with N = 5: each of the
# four others probes the silent member within its round (at most 7 periods after it stopped);
# two of them suspecting it independently bring the suspicion timeout to its floor, so it is
# declared dead about 0.8 s + 0.4 s after it stops answering; 2 s leaves room for a loaded
# machine. Resume: the resumed member hears it is dead and refutes, which spreads in a few
# periods: 1.5 s with the same room. Restart: the new node joins through a seed at a higher
# incarnation, and a join that gets no answer (a starting node's first one can go unanswered) is
# sent again 1 s later (± 50 %): 3 s.

DETECT_BOUND_MS=${DETECT_BOUND_MS:-2000}
RESUME_BOUND_MS=${RESUME_BOUND_MS:-1500}
RESTART_BOUND_MS=${RESTART_BOUND_MS:-3000}
PAUSE_SECONDS=1.5
scenario_begin 05_pause_kill
others_of_h4="h1 h2 h3 h5" others_of_h5="h1 h2 h3 h4"

follow_everywhere pk_a pk.a h4 h2
follow_everywhere pk_b pk.b h5 h1
follow_everywhere pk_c pk.c h1 h4
base_a=$(sync_sequence h4 pk.a pk_a h2)
base_c=$(sync_sequence h1 pk.c pk_c h4)
read -r cc0 gc0 _ _ _ _ <<<"$(follow_numbers h4 pk_c h1 pk.c)"
sync_sequence h5 pk.b pk_b h1 >/dev/null
read -r ca0 ga0 _ _ ra0 _ <<<"$(follow_numbers h2 pk_a h4 pk.a)"
read -r cb0 gb0 _ _ rb0 _ <<<"$(follow_numbers h1 pk_b h5 pk.b)"
# A restart shows as a new incarnation in the membership (its start time in ms).
peer_incarnation0=$(state_get h1 peers.h5.incarnation)

watch_start 60

# Paused.
paused_at=$(now_ms)
hosts pause h4 >&2
load_start c h1 pk.c 'c{i}' 300 200
sleep "$PAUSE_SECONDS"
if rexctl state h4 --timeout 300ms >/dev/null 2>&1; then check_fail "h4 answered while paused"; else step "h4 does not answer while paused"; fi
resumed_at=$(now_ms)
hosts resume h4 >&2
until_true $(((RESUME_BOUND_MS + 999) / 1000)) cluster_whole || check_fail "the cluster was not whole within ${RESUME_BOUND_MS} ms of the resume"
resume_ms=$(($(now_ms) - resumed_at))
final_a=$(converge h4 pk.a pk_a 5 h2) || check_fail "h2's follow of h4 did not deliver after the resume"
read -r ca1 ga1 da1 rda1 ra1 sa1 <<<"$(follow_numbers h2 pk_a h4 pk.a)"
check_eq "h2←h4 after the resume: delivered = numbered, gaps, duplicates, restarts" \
    "$((final_a - base_a))/0/0/0" "$((ca1 - ca0))/$((ga1 - ga0))/$da1/$((ra1 - ra0))"
load_wait c 5
final_c=$(converge h1 pk.c pk_c 5 h4) || check_fail "h4's follow of h1 did not deliver after the resume"
read -r cc1 gc1 dc1 rdc1 _ _ <<<"$(follow_numbers h4 pk_c h1 pk.c)"
lost_c=$(((final_c - base_c) - (cc1 - cc0)))
check_eq "h4←h1, sent to h4 while paused: lost = gaps counted; duplicates, reordered" "$lost_c/$lost_c/0/0" "$lost_c/$((gc1 - gc0))/$dc1/$rdc1"

# Killed and started again.
killed_at=$(now_ms)
hosts kill h5 >&2
for node in $others_of_h5; do
    rexctl wait "$node" --for gone=h5 --timeout 3s >/dev/null || check_fail "$node did not see h5 gone within 3 s of the kill"
done
started_at=$(now_ms)
hosts start h5 >&2
until_true $(((RESTART_BOUND_MS + 999) / 1000)) cluster_whole || check_fail "the cluster was not whole within ${RESTART_BOUND_MS} ms of the restart"
restart_ms=$(($(now_ms) - started_at))
converge h5 pk.b pk_b 5 h1 >/dev/null || check_fail "h1's follow of h5 did not deliver after the restart"
read -r cb1 gb1 db1 rdb1 rb1 _ <<<"$(follow_numbers h1 pk_b h5 pk.b)"
check_eq "h1←h5 after the restart: new epochs seen, gaps, duplicates" "1/0/0" "$((rb1 - rb0))/$((gb1 - gb0))/$db1"
incarnation=$(state_get h1 peers.h5.incarnation)
[ "$incarnation" -gt "$peer_incarnation0" ] && step "h1 sees the restarted h5 at incarnation $incarnation (was $peer_incarnation0)" \
    || check_fail "h1 does not see the restarted h5 at a new incarnation ($peer_incarnation0 → $incarnation)"
watch_stop

pause_gone_ms=$(first_ms "$paused_at" "$(pairs "$others_of_h4" h4)" gone)
kill_gone_ms=$(first_ms "$killed_at" "$(pairs "$others_of_h5" h5)" gone)
check_le "ms until the others saw paused h4 gone" "$pause_gone_ms" "$DETECT_BOUND_MS"
check_le "ms until the others saw killed h5 gone" "$kill_gone_ms" "$DETECT_BOUND_MS"
check_le "ms from the resume until the cluster was whole" "$resume_ms" "$RESUME_BOUND_MS"
check_le "ms from the restart until the cluster was whole" "$restart_ms" "$RESTART_BOUND_MS"
unfollow_everywhere pk_a h2
unfollow_everywhere pk_b h1
unfollow_everywhere pk_c h4

detect=$pause_gone_ms
[ "${kill_gone_ms:-0}" -gt "${detect:-0}" ] && detect=$kill_gone_ms
back=$resume_ms
[ "$restart_ms" -gt "$back" ] && back=$restart_ms
field detect_ms "$detect"
field heal_ms "$back"
field pause_gone_ms "$pause_gone_ms"
field resume_whole_ms "$resume_ms"
field kill_gone_ms "$kill_gone_ms"
field restart_whole_ms "$restart_ms"
field lost $(((final_a - base_a) - (ca1 - ca0) + lost_c))
field gaps $(((ga1 - ga0) + (gb1 - gb0) + (gc1 - gc0)))
field bounds "gone ≤ ${DETECT_BOUND_MS} ms, whole again ≤ ${RESUME_BOUND_MS} ms after the resume, ≤ ${RESTART_BOUND_MS} ms after the restart"
field summary "pause ${PAUSE_SECONDS}s: gone ${pause_gone_ms:-?} ms, whole ${resume_ms} ms after SIGCONT, its follow continues with no gap, $((final_c - base_c)) sent to it: lost $lost_c = gaps $((gc1 - gc0)); kill: gone ${kill_gone_ms:-?} ms, whole ${restart_ms} ms after the restart, follow sees 1 restart, no gap"
