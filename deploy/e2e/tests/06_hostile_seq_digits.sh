# shellcheck shell=bash
# Hostile peer, sequence of 25 digits: more than a UInt64 holds. 9999999999999999999999999 must
# not be counted as 1.6e18 missed messages (a wrapping parse does that), and 25 digits that wrap
# to exactly UInt64.max must not trap either.

hostile_begin seq_digits n2
hostile_rogue data --control "${H_CONTROL[n2]}" --pub "${H_PUB[n2]}" --follow hd --topic hd.digits \
    --probe-seq 1 --msg 9999999999999999999999999=nines --msg 1844692854115028871151615=wraps-to-max
step "rogue: $H_OUT"
gaps=$(hostile_out follow.gaps || echo null)
if [ "$gaps" != null ] && [ "$gaps" -gt "${HOSTILE_GAPS_MAX:-1000}" ]; then
    hostile_note "n2 counted $gaps missed messages from a 25-digit sequence (at most ${HOSTILE_GAPS_MAX:-1000} allowed)"
fi
hostile_verdict --delivery n1:n2
