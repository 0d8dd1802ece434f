# shellcheck shell=bash
# Hostile peer, dead-port takeover: n3 is killed, the rogue binds n3's PUB port, the survivors'
# SUB sockets reconnect to it, and it sends forged heartbeats `$hb.n3` with sequence 1, then
# 18446744073709551615 (with the epoch field: once in n3's own epoch, once in another one).
# Neither survivor may die (both did: the heartbeat gap overflowed an Int). On the secured cluster
# the rogue holds n3's stolen key (without it the takeover fails: 24_secure_dead_port_impostor).

hostile_begin --secured dead_port n1 n2
# With the epoch field, the forgery continues n3's own stream (its epoch, learnt from one of its
# heartbeats), so the huge sequence is a gap, not a restart.
heartbeat=$(rogue wire --pub "${H_PUB[n3]}") || hostile_fail "no heartbeat from n3 at ${H_PUB[n3]}"
epoch=()
if [ "$(json_get wire <<<"$heartbeat")" = new ]; then epoch=(--epoch "$(json_get epoch <<<"$heartbeat")"); fi
step "n3's heartbeat: $heartbeat"
"$CLUSTER_SH" kill n3 >&2
H_KILLED+=(n3)
hostile_rogue "${epoch[@]}" takeover --bind "${H_PUB[n3]}" --victim n3 --subscribers 2 \
    --verify "${H_CONTROL[n1]}" --verify "${H_CONTROL[n2]}" --pub "${H_PUB[n1]}" \
    --seqs 1,18446744073709551615
step "rogue: $H_OUT"
if [ ${#epoch[@]} -gt 0 ] && node_alive n1 && node_alive n2; then
    # And as a "restart" of n3: another epoch, sequence 1, then UInt64.max again.
    hostile_rogue --epoch 1 takeover --bind "${H_PUB[n3]}" --victim n3 --subscribers 2 \
        --verify "${H_CONTROL[n1]}" --verify "${H_CONTROL[n2]}" --pub "${H_PUB[n1]}" \
        --seqs 1,18446744073709551615
    step "rogue (epoch 1): $H_OUT"
fi
hostile_verdict --delivery n1:n2
