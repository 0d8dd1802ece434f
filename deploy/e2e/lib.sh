# shellcheck shell=bash
# Helpers for the end-to-end scenarios (deploy/e2e/tests/*.sh), sourced by deploy/e2e/run.sh.
# A scenario runs in a subshell with `set -e`: its first failing command fails it.

CLUSTER_SH="$DEPLOY_SCRIPTS_DIR/cluster.sh"

# step TEXT: one progress line.
step() { printf '    · %s\n' "$*" >&2; }

# fail TEXT: fails the scenario.
fail() {
    error "$*"
    exit 1
}

# ctl ARGS…: rexctl against the suite's cluster; its output goes to stderr as progress.
ctl() { rexctl "$@"; }

# ctl_quiet ARGS…: rexctl, stdout captured by the caller.
ctl_json() { rexctl -o json "$@"; }

# wait_for NODE COND TIMEOUT: `rexctl wait`, bounded; prints what held.
wait_for() {
    local node=$1 cond=$2 timeout=$3 out
    out=$(rexctl wait "$node" --for "$cond" --timeout "$timeout" 2>&1) || fail "$out"
    step "$out"
}

# until_true SECONDS CMD…: runs CMD every 100 ms until it succeeds; fails after SECONDS.
until_true() {
    local seconds=$1 deadline
    shift
    deadline=$(($(now_ms) + seconds * 1000))
    until "$@"; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}

# send_until_seen ACTION SENDER TOPIC VALUE FOLLOWER NAME: sends `ACTION TOPIC value-N` (set or
# publish) on SENDER until FOLLOWER's follow NAME holds it, up to 5 times, each wait bounded by
# 1 s; prints the value that arrived. Nodes replay feeds to new subscribers, so one try is the
# rule; the retry guards publish against the slow joiner (a subscription still in flight).
send_until_seen() {
    local action=$1 sender=$2 topic=$3 value=$4 follower=$5 name=$6 try v
    for try in 1 2 3 4 5; do
        v="$value-$try"
        rexctl send "$sender" "$action" "$topic" "$v" >/dev/null
        if rexctl wait "$follower" --for "state=follows.$name.lastValue=$v" --timeout 1s >/dev/null 2>&1; then
            echo "$v"
            return 0
        fi
    done
    fail "$follower's follow $name never received a $action of $topic from $sender (5 tries)"
}

set_until_seen() { send_until_seen set "$@"; }
publish_until_seen() { send_until_seen publish "$@"; }

# state_get NODE PATH: a value of the node's state document.
state_get() { rexctl -o json state "$1" | json_get "$2"; }

# channel_get NODE CHANNEL PATH: a value of one channel of the node's keep set.
channel_get() { rexctl -o json describe "$1" "$2" | json_get "$3"; }

# assert_eq EXPECTED ACTUAL WHAT
assert_eq() {
    [ "$1" = "$2" ] || fail "$3: expected '$1', got '$2'"
    step "$3 = $2"
}

# The suite's node pids and ports, from its state dir.
node_pids() { cat "$PID_DIR"/*.pid 2>/dev/null | paste -sd" " || true; }
cluster_ports() {
    py -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    for key in ("pub", "control", "metrics"):
        if n.get(key): print(n[key].rsplit(":", 1)[1])' "$CLUSTER_FILE"
}

# --- secured cluster (the 2x_secure_* scenarios) ---------------------------------------------

SECURE_PROBE="$DEPLOY_SCRIPTS_DIR/e2e/secure_probe.py"
secure_probe() { /usr/bin/python3 "$SECURE_PROBE" "$@"; }

# secure_begin: the suite's cluster up and secured (the hostile scenarios leave a plain one).
secure_begin() {
    # shellcheck disable=SC2086
    "$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >/dev/null 2>&1 || fail "a secured 3-node cluster did not come up"
    [ -n "$(node_key n1)" ] || fail "the cluster file has no key for n1: the cluster is not secured"
    KEY_DIR="$STATE_DIR/keys"
}

# node_field ID FIELD: a member of node ID's cluster-file entry.
node_field() {
    py -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    if n["id"] == sys.argv[2]: print(n.get(sys.argv[3]) or "")' "$CLUSTER_FILE" "$1" "$2"
}
node_key() { node_field "$1" key; }
