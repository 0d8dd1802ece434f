# shellcheck shell=bash
# Hostile peer, memory from outside input: 200,000 distinct sender names (`p.x\0sender<i> …`) from
# a rogue publisher on a prefix follow `p.*` of n2. Remembering a sequence per sender must be
# bounded (1024 per follow).

hostile_begin many_senders n2
hostile_rogue data --control "${H_CONTROL[n2]}" --pub "${H_PUB[n2]}" --follow many --prefix p. --topic p.x \
    --senders "${HOSTILE_SENDERS:-200000}" --max-seconds 40 --marker-seconds 10
step "rogue: $H_OUT"
senders=$(hostile_out senders)
if [ "$senders" = null ]; then
    step "n2 did not answer a state request after the attack: cannot count the senders it remembers"
elif [ "$senders" -le "${HOSTILE_SENDERS_MAX:-1024}" ]; then
    step "n2 follows.many remembers $senders senders (at most ${HOSTILE_SENDERS_MAX:-1024})"
else
    hostile_note "n2 follows.many remembers $senders senders (at most ${HOSTILE_SENDERS_MAX:-1024} allowed)"
fi
hostile_verdict
