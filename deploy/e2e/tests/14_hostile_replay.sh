# shellcheck shell=bash
# Hostile peer, replay amplification: n1 holds a few feeds `ra.*`; a rogue XSUB sends 40 KB of
# subscribe/unsubscribe frame pairs for `ra.` to n1's PUB. Each subscribe replays every matching
# feed, so 40 KB in could be 20,000 messages out; n1 may publish at most HOSTILE_REPLAY_MAX
# messages meanwhile (default: feeds × 10; it publishes nothing else: no heartbeats).

hostile_begin --secured replay n1
feeds=${HOSTILE_REPLAY_FEEDS:-4}
for ((k = 0; k < feeds; k++)); do rexctl send n1 set "ra.$k" "value-$k" >/dev/null; done
wait_for n1 "state=feeds.ra.$((feeds - 1)).value=value-$((feeds - 1))" 2s
sleep 0.2   # the feeds' first publish (throttled, 20 ms)
published() { rexctl -o json metrics n1 | json_get messages.published; }
before=$(published)
started=$(now_ms)
hostile_rogue sub-churn --pub "${H_PUB[n1]}" --prefix ra. --bytes "${HOSTILE_REPLAY_BYTES:-40000}" --hold 1
step "rogue: $H_OUT"
sleep 0.3
after=$(published)
elapsed=$(($(now_ms) - started))
extra=$((after - before))
limit=${HOSTILE_REPLAY_MAX:-$((feeds * 10))}
if [ "$extra" -le "$limit" ]; then
    step "n1 published $extra messages in $elapsed ms (at most $limit)"
else
    hostile_note "n1 published $extra messages in $elapsed ms for $(hostile_out pairs) subscribe/unsubscribe pairs on $feeds feeds; at most $limit allowed"
fi
hostile_verdict --delivery n1:n2
