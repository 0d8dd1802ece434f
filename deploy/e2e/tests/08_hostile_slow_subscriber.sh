# shellcheck shell=bash
# Hostile peer, slow subscriber: a rogue SUB connects to n1's PUB, subscribes to everything and
# never reads, while n1 publishes a lot (pipelined `publish` dispatches: HOSTILE_SLOW_BIG × 10 KB,
# then HOSTILE_SLOW_SMALL × 64 B, enough to fill the rogue's queue). n2's follow of n1's topic must
# keep advancing, n2 and n3 must keep seeing n1 alive, n1's RSS must stay under budget and come
# back near its baseline once the rogue left.

hostile_begin --secured slow_subscriber n1
ctl send n2 follow slow sl.t >&2
wait_for n2 'keep=follow[slow]' 3s
v=$(publish_until_seen n1 sl.t warm n2 slow)
step "n1 publish sl.t=$v → n2 follows.slow.lastValue=$v"

hostile_rogue_bg slow slow-sub --pub "${H_PUB[n1]}" --ready "$H_TMP/slow.ready" --stop "$H_TMP/slow.stop" --seconds 90
# Its first message: n1 publishes until the rogue has one (nodes on the SWIM membership publish
# nothing idle, no heartbeats).
first_message() {
    test -f "$H_TMP/slow.ready" && return 0
    rexctl send n1 publish sl.t first >/dev/null 2>&1 || true
    test -f "$H_TMP/slow.ready"
}
until_true 6 first_message || hostile_fail "the rogue subscriber got no first message from n1 within 6 s"
before=$(state_get n2 follows.slow.count)
hostile_rogue flood --control "${H_CONTROL[n1]}" --topic sl.t --count "${HOSTILE_SLOW_BIG:-26000}" --size 10240 --max-seconds 40
step "flood of 10 KB publishes: $H_OUT"
hostile_rogue flood --control "${H_CONTROL[n1]}" --topic sl.t --count "${HOSTILE_SLOW_SMALL:-80000}" --size 64 --max-seconds 40
step "flood of 64 B publishes: $H_OUT"
step "n1 RSS while the rogue still holds on: $(rss_mib "${H_PID[n1]}") MiB; metrics messages: $(rexctl -o json metrics n1 | json_get messages)"

# While the rogue is still subscribed and not reading: n1 keeps serving n2 and n3.
sleep 0.5   # five protocol periods
marker="marker-$RANDOM"
rexctl send n1 publish sl.t "$marker" >/dev/null
if rexctl wait n2 --for "state=follows.slow.lastValue=$marker" --timeout 3s >/dev/null 2>&1; then
    step "n2's follow of n1's sl.t advanced: count $before → $(state_get n2 follows.slow.count), then the marker arrived"
else
    hostile_note "n2's follow of n1's sl.t stopped advancing while a subscriber of n1 did not read (count $before → $(state_get n2 follows.slow.count || echo ?), marker not delivered in 3 s)"
fi
for id in n2 n3; do
    status=$(state_get "$id" peers.n1.status || echo '?')
    if [ "$status" = alive ]; then
        step "$id sees n1 alive"
    else
        hostile_note "$id sees n1 $status while a subscriber of n1 does not read"
    fi
done
: >"$H_TMP/slow.stop"
until_true 5 test -s "$H_TMP/slow.out" || warn "the rogue subscriber did not stop within 5 s"
hostile_verdict
