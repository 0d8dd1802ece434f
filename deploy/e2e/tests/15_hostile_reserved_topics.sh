# shellcheck shell=bash
# Hostile operator input, reserved topics: `$` starts the nodes' own topics (snapshot requests;
# `$hb.` was the old heartbeats', still reserved); a `publish` or a `set` on one would forge them. Each must be refused: rexctl exits non-zero with the node's error reply, and the
# node's own reply to the raw request says ok=false.

hostile_begin --secured reserved_topics n1
refused() {   # refused WHAT RAW-ACTION-JSON REXCTL-ARGS…
    local what=$1 raw=$2 out rc=0 reply
    shift 2
    out=$(rexctl send n1 "$@" 2>&1) || rc=$?
    if [ "$rc" -eq 0 ]; then
        hostile_note "rexctl send n1 $what was accepted (exit 0)"
    elif [ "$rc" -eq 64 ]; then
        hostile_note "rexctl send n1 $what was refused as a usage error (exit 64), not by the node: $out"
    else
        step "rexctl send n1 $what refused (exit $rc): $out"
    fi
    reply=$(rogue request --control "${H_CONTROL[n1]}" --json "{\"op\": \"dispatch\", \"action\": $raw}") || true
    if [ "$(json_get ok <<<"$reply" 2>/dev/null)" = false ]; then
        step "raw dispatch $raw → $(json_get error <<<"$reply")"
    else
        hostile_note "n1 replied $(json_get ok <<<"$reply" 2>/dev/null || echo "nothing") to a raw dispatch of $what"
    fi
}
refused "publish \$hb.x ''" '{"type": "publish", "topic": "$hb.x", "payload": ""}' publish '$hb.x' ''
refused "set \$hb.x 1" '{"type": "set", "topic": "$hb.x", "value": "1"}' set '$hb.x' 1
refused "publish \$snap ''" '{"type": "publish", "topic": "$snap", "payload": ""}' publish '$snap' ''
hostile_verdict
