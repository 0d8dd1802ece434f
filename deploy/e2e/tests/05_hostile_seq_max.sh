# shellcheck shell=bash
# Hostile peer, sequence overflow: a rogue publisher added as a peer of n2 sends, on a topic n2
# follows, sequence 1 and then 18446744073709551615 (UInt64.max). Counting the gap between the
# two must not trap (it did: Int(sequence - last - 1) does not fit, n2 died).

hostile_begin seq_max n2
hostile_rogue data --control "${H_CONTROL[n2]}" --pub "${H_PUB[n2]}" --follow hx --topic hx.max \
    --probe-seq 1 --msg 18446744073709551615=max
step "rogue: $H_OUT"
hostile_verdict --delivery n1:n2
