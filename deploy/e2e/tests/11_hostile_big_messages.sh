# shellcheck shell=bash
# Hostile peer, memory from outside input: 5,000 data messages of 100 KB each on a topic n2
# follows, from a rogue publisher (values are at most 16 KiB: the follow must not take them).

hostile_begin big_messages n2
hostile_rogue data --control "${H_CONTROL[n2]}" --pub "${H_PUB[n2]}" --follow big --topic bm.t \
    --count "${HOSTILE_BIG_COUNT:-5000}" --size 102400 --max-seconds 40
step "rogue: $H_OUT"
# The RSS a backlog costs depends on how far n2 falls behind; taking the values at all is the
# deterministic part.
if [[ "$(hostile_out follow.lastValue)" == *"(102400 bytes)" ]]; then
    hostile_note "n2's follow took 100 KB values from the rogue (values are at most ${HOSTILE_VALUE_MAX:-16384} bytes; count $(hostile_out follow.count))"
fi
hostile_verdict --delivery n1:n2
