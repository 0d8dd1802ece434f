# shellcheck shell=bash
# Hostile operator input: distinct follows dispatched as fast as n1 takes them (pipelined, 256 in
# flight, at most 60 s). Every one must be accepted at 2,000/s or more; afterwards n1 answers ping
# within the limit, every node lives, and n1's peak RSS stays within what the README states a
# follow costs: 32 MiB plus 6 KiB per follow (kept afterwards: the follows are n1's state, so
# unlike the other probes its RSS is not expected back near its baseline). CI sends 30,000 follows; HOSTILE_HEAVY=1 sends the
# issue's 100,000 (HOSTILE_FOLLOWS sets any count).

count=${HOSTILE_FOLLOWS:-30000}
[ "${HOSTILE_HEAVY:-}" = 1 ] && count=${HOSTILE_FOLLOWS:-100000}
export HOSTILE_RSS_MIB_FOLLOW_FLOOD=${HOSTILE_RSS_MIB_FOLLOW_FLOOD:-$((32 + count * 6 / 1024))}
hostile_begin follow_flood n1
hostile_rogue follows --control "${H_CONTROL[n1]}" --count "$count" --window 256 --max-seconds 60
step "rogue: $H_OUT"
accepted=$(json_get accepted <<<"$H_OUT" || echo 0)
seconds=$(json_get seconds <<<"$H_OUT" || echo 0)
[ "$accepted" = "$count" ] || hostile_note "n1 accepted $accepted of $count follows"
if py -c 'import sys; sys.exit(0 if float(sys.argv[2]) > 0 and int(sys.argv[1]) / float(sys.argv[2]) >= 2000 else 1)' "$accepted" "$seconds"; then
    step "n1 took $accepted follows in $seconds s"
else
    hostile_note "n1 took $accepted follows in $seconds s: under 2,000/s"
fi
hostile_verdict --no-return "the $accepted follows it took are state n1 keeps (about 6 KiB each)"
