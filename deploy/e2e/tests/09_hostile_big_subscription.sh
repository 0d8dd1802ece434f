# shellcheck shell=bash
# Hostile peer, memory from outside input: one 10 MB subscription frame (1 + a 10 MB prefix) sent
# by a rogue XSUB to n1's PUB (XPUB) endpoint.

hostile_begin big_subscription n1
hostile_rogue big-sub --pub "${H_PUB[n1]}" --size "${HOSTILE_BIG_SUB_BYTES:-10000000}"
step "rogue: $H_OUT"
hostile_verdict --delivery n1:n2
