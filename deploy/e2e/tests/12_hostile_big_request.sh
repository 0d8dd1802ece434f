# shellcheck shell=bash
# Hostile peer, memory from outside input: one 300 MB control request (a `ping` whose id is 300 MB)
# from a rogue DEALER to n1's control endpoint (requests are at most 1 MiB). An error reply or
# none are both fine; n1 must survive and keep serving.

hostile_begin --secured big_request n1
hostile_rogue big-request --control "${H_CONTROL[n1]}" --kind ping --size "${HOSTILE_BIG_REQUEST_BYTES:-300000000}" --wait 3
step "rogue: $H_OUT"
hostile_verdict --delivery n1:n2
