# shellcheck shell=bash
# Hostile peer, sequence semantics: a rogue publisher sends sequence 5 ("newer"), then a duplicate
# 5 and an older 3. n2's follow must keep the value of sequence 5; a later sequence 6 is taken.

hostile_begin stale_sequence n2
hostile_rogue data --control "${H_CONTROL[n2]}" --pub "${H_PUB[n2]}" --follow st --topic st.t \
    --probe-seq 5 --msg 5=duplicate-5 --msg 3=older-3 --final 6=newer-6
step "rogue: $H_OUT"
probe=$(hostile_out probe)
last=$(hostile_out follow.lastValue || echo null)
if [ "$last" = "$probe" ]; then
    step "after a duplicate and an older sequence n2 follows.st.lastValue is still $probe"
else
    hostile_note "after a duplicate (5) and an older (3) sequence, n2 follows.st.lastValue is '$last', not the value of sequence 5 ('$probe')"
fi
[ "$(hostile_out finalTaken)" = true ] || hostile_note "sequence 6 after them was not taken by n2's follow"
hostile_verdict
