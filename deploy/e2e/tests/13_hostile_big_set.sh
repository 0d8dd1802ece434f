# shellcheck shell=bash
# Hostile peer, memory from outside input: a control `set` whose value is 300 MB (values are at most
# 16 KiB, requests at most 1 MiB). An error reply or none are both fine; n1 must survive, keep
# serving and not hold the value.

hostile_begin --secured big_set n1
hostile_rogue big-request --control "${H_CONTROL[n1]}" --kind set --size "${HOSTILE_BIG_REQUEST_BYTES:-300000000}" --wait 3
step "rogue: $H_OUT"
hostile_verdict --delivery n1:n2
