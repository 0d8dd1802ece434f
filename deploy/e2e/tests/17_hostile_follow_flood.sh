# shellcheck shell=bash
# Hostile operator input, heavy: 100,000 distinct follows dispatched quickly (pipelined, 256 in
# flight, at most 60 s) to n1; afterwards n1 answers ping within the limit and stays under budget.
# Too slow for CI today: runs only with HOSTILE_HEAVY=1.

[ "${HOSTILE_HEAVY:-}" = 1 ] || hostile_skip follow_flood "heavy (100,000 follows, up to a minute): set HOSTILE_HEAVY=1 to run it"
hostile_begin follow_flood n1
hostile_rogue follows --control "${H_CONTROL[n1]}" --count "${HOSTILE_FOLLOWS:-100000}" --window 256 --max-seconds 60
step "rogue: $H_OUT"
hostile_verdict
