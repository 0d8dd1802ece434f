#!/usr/bin/env bash
# The README's "run" command: installs what is missing, builds, starts a 3-node cluster on
# loopback and walks through a short scripted scenario with rexctl, showing each command and what
# it prints. The cluster stays up afterwards for you to continue by hand (deploy/cluster.sh down
# stops it). Re-running stops the cluster in .deploy/ and starts afresh.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

CLUSTER_SH="deploy/cluster.sh"
# The nodes run the SWIM membership (cluster.sh gives each a membership endpoint): each probes one
# other member every 100 ms; a killed node is suspect after a missed probe and dead about 0.5–2.5 s
# later (sooner as more members confirm the suspicion); a stopped one announces that it left.
NODE_ARGS=()
STEPS=7
step_number=0

heading() {
    step_number=$((step_number + 1))
    printf '\n%s[%d/%d] %s%s\n' "$_C_BOLD" "$step_number" "$STEPS" "$1" "$_C_OFF"
    [ $# -lt 2 ] || printf '%s\n' "$2"
}

# shown CMD…: prints the command as you would type it, runs it, indents its output.
shown() {
    local words=() word status=0
    for word in "$@"; do
        [ "$word" = "$REXCTL" ] && word=rexctl
        case $word in *[[:space:]\*\?\[\]]*) word="'$word'" ;; esac
        words+=("$word")
    done
    printf '%s$ %s%s\n' "$_C_DIM" "${words[*]}" "$_C_OFF"
    "$@" 2>&1 | sed 's/^/  /' || status=$?
    return "$status"
}

# set_until NODE TOPIC VALUE FOLLOWER NAME: shows `send NODE set TOPIC VALUE` and the wait for it
# on FOLLOWER. A brand-new subscription reaches the publisher a moment after the follow goes live
# (ZeroMQ's "slow joiner"), so when the first value is missed the set is quietly repeated.
set_until() {
    local node=$1 topic=$2 value=$3 follower=$4 name=$5 try
    shown "$REXCTL" send "$node" set "$topic" "$value"
    for try in 1 2 3 4 5; do
        if rexctl wait "$follower" --for "state=follows.$name.lastValue=$value" --timeout 1s >/dev/null 2>&1; then
            shown "$REXCTL" wait "$follower" --for "state=follows.$name.lastValue=$value" --timeout 5s
            return 0
        fi
        # Re-send after an unset so the feed publishes again even though its value is unchanged.
        rexctl send "$node" unset "$topic" >/dev/null
        rexctl send "$node" set "$topic" "$value" >/dev/null
    done
    fatal "$follower did not receive $topic=$value from $node"
}

ensure_system_packages
build_if_stale

# The scenario starts from fresh nodes: stop a cluster left in .deploy/ (an earlier demo, say).
if [ -f "$CLUSTER_FILE" ]; then
    log "stopping the cluster in ${STATE_DIR#"$REPO_ROOT"/}/ to start afresh"
    "$CLUSTER_SH" down
fi
log "starting a 3-node cluster (deploy/cluster.sh up 3 -- ${NODE_ARGS[*]})"
"$CLUSTER_SH" up 3 -- "${NODE_ARGS[@]}"

heading "The cluster" "Three rexnode processes; each connects to the others' publishers and probes the others over its membership endpoint (SWIM)."
shown "$REXCTL" nodes

heading "Feeds and follows across nodes" \
    "n2 follows n1's topic eu.prices; n3 follows every eu.* topic from any peer. n1 sets a feed."
shown "$REXCTL" send n2 follow prices eu.prices --from n1
shown "$REXCTL" send n3 follow europe 'eu.*'
shown "$REXCTL" wait n2 --for 'keep=follow[prices]' --timeout 5s
shown "$REXCTL" wait n3 --for 'keep=follow[europe]' --timeout 5s
set_until n1 eu.prices 42 n2 prices
shown "$REXCTL" wait n3 --for state=follows.europe.lastValue=42 --timeout 5s
shown "$REXCTL" state n2

heading "A topic change recreates a channel" \
    "n2's follow 'prices' moves to eu.rates: its channel's reset key changes, so the engine cancels it and opens it anew."
shown "$REXCTL" keep n2
shown "$REXCTL" send n2 follow prices eu.rates --from n1
deadline=$(($(now_ms) + 5000))
until [ "$(rexctl -o json describe n2 'follow[prices]' 2>/dev/null | json_get status || true)" = live ] \
    && [ "$(rexctl -o json describe n2 'follow[prices]' | json_get recreates)" = 1 ]; do
    [ "$(now_ms)" -lt "$deadline" ] || fatal "follow[prices] on n2 was not recreated within 5 s"
    sleep 0.1
done
shown "$REXCTL" keep n2
shown "$REXCTL" describe n2 'follow[prices]'

heading "Publish" "publish sends one message now (not a feed: no dedup, no throttle). n2 and n3 both receive it."
value=1.08
shown "$REXCTL" send n1 publish eu.rates "$value"
# As above: the recreated subscription may reach n1 a moment late; publish again if so.
for try in 1 2 3 4 5; do
    rexctl wait n2 --for state=follows.prices.lastValue=$value --timeout 1s >/dev/null 2>&1 && break
    [ "$try" -lt 5 ] || fatal "n2 did not receive the publish on eu.rates"
    rexctl send n1 publish eu.rates "$value" >/dev/null
done
shown "$REXCTL" wait n2 --for state=follows.prices.lastValue=$value --timeout 5s
shown "$REXCTL" wait n3 --for state=follows.europe.lastValue=$value --timeout 5s
shown "$REXCTL" metrics n1

heading "Membership after a node dies" \
    "kill -9 n3: a probe of it fails, the others suspect it, then declare it dead (rexctl nodes: dead, and the incarnation peers last heard)."
shown "$CLUSTER_SH" kill n3
shown "$REXCTL" wait n1 --for gone=n3 --timeout 5s
shown "$REXCTL" wait n2 --for gone=n3 --timeout 5s
shown "$REXCTL" nodes --timeout 500ms || true

heading "It rejoins" "restart n3 on the same ports: it comes back at a new incarnation (its start time), the others reconnect and see it alive again."
shown "$CLUSTER_SH" restart n3
shown "$REXCTL" wait n1 --for state=peers.n3.status=alive --timeout 5s
shown "$REXCTL" nodes

heading "Security" \
    "Every socket speaks CURVE: rexctl uses .deploy/keys/operator.key (admin). The viewer key reads but may not dispatch, and a client without the cluster file's keys gets nowhere."
shown "$REXCTL" --key .deploy/keys/viewer.key nodes
shown "$REXCTL" --key .deploy/keys/viewer.key send n1 set eu.prices 0 || true
shown "$REXCTL" --node "n1=$(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][0]["control"])' "$CLUSTER_FILE")" --timeout 1s state n1 || true

relative_rexctl="${REXCTL#"$REPO_ROOT"/}"
cat <<EOF

${_C_BOLD}The cluster is still running. Continue by hand:${_C_OFF}
  export PATH="\$PWD/${relative_rexctl%/rexctl}:\$PATH"     # rexctl reads .deploy/cluster.json from here
  rexctl nodes                                 rexctl --help
  rexctl send n1 set eu.prices 43              rexctl wait n2 --for state=follows.prices.lastValue=43
  rexctl keep --all                            rexctl keep n2 --watch
  deploy/cluster.sh status                     deploy/cluster.sh logs n1 -f
  deploy/cluster.sh kill n2                    deploy/cluster.sh restart n2
Stop it:
  deploy/cluster.sh down
EOF
