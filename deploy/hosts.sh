#!/usr/bin/env bash
# A cluster across hosts on one machine: N network namespaces h1…hN on one bridge, one rexnode per
# host bound to the host's own address, and the faults a network has between them.
#
#   deploy/hosts.sh up [N] [--node-bin PATH] [-- NODE_OPTIONS…]
#                                                   N hosts (default 5, at most 16), a node on each; waits until every node sees every other alive
#   deploy/hosts.sh status                          hosts, nodes and faults, then `rexctl nodes`
#   deploy/hosts.sh partition A,B / C,D [--oneway]  drop packets between the groups (--oneway: only those from A,B to C,D)
#   deploy/hosts.sh heal                            remove every partition
#   deploy/hosts.sh loss HOST PERCENT               drop PERCENT % of HOST's packets to and from the other hosts at random (0 ends it)
#   deploy/hosts.sh slow HOST RATE|off              limit HOST's link to RATE both ways (tc tbf; e.g. 1mbit, 512kbit)
#   deploy/hosts.sh link HOST down|up               take HOST's link down (no carrier) or up again
#   deploy/hosts.sh pause|resume|kill|start HOST    SIGSTOP, SIGCONT or SIGKILL HOST's node; start it again on the same address
#   deploy/hosts.sh down                            stop every node; remove every namespace, link and rule made here
#
# HOST is hK or K. Host hK is 10.213.0.K (pub tcp://10.213.0.K:7101, control tcp://10.213.0.K:7201,
# metrics http://10.213.0.K:9101/metrics, membership tcp://10.213.0.K:7301 — the SWIM membership —
# all recorded in the cluster file);
# the bridge is 10.213.0.254 in the root namespace, so rexctl runs from there:
#   .build/release/rexctl --cluster .deploy/hosts/cluster.json nodes
# Partitions and loss apply between hosts only: the root namespace's control traffic is never
# dropped, so a test can always read every node. A slow link limits all of the host's traffic.
#
# State lives in .deploy/hosts/ (or $REX_HOSTS_DIR): cluster.json, node-args, made (every
# namespace and link created, with the identity each was checked against), pids/, logs/. Only what
# `made` lists is ever touched or removed, after checking it is still the thing that was made; an
# rexh-* namespace or link that it does not list makes `up` refuse. Every firewall rule and queue
# lives inside a host's namespace or on its own link, so removing those removes them; the root
# namespace's firewall is never changed. --node-bin PATH runs another node binary than rexnode (a
# feature's own, e.g. Examples/Chat's chat-node; recorded in node-bin until the next up): its
# readiness is that every node answers, as `rexctl nodes` shows no other feature's peers. Timeouts: REX_UP_TIMEOUT (seconds, default 20),
# REX_STOP_GRACE (seconds, default 2).
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# ip, tc and iptables live in /usr/sbin, which a non-login root shell's PATH may lack.
PATH="$PATH:/usr/sbin:/sbin"
UP_TIMEOUT="${REX_UP_TIMEOUT:-20}"
STOP_GRACE="${REX_STOP_GRACE:-2}"
MAX_HOSTS=16
SUBNET_PREFIX=10.213.0
BRIDGE_ADDRESS=$SUBNET_PREFIX.254
NAME_PREFIX=rexh
BRIDGE=$NAME_PREFIX-br
PUB_PORT=7101
CONTROL_PORT=7201
METRICS_PORT=9101
# The SWIM membership's endpoint on each host (rexnode's only membership).
MEMBERSHIP_PORT=7301
[ "${REX_MEMBERSHIP:-swim}" = swim ] || fatal "REX_MEMBERSHIP: the hosts run the SWIM membership only (the heartbeats are gone; got '$REX_MEMBERSHIP')"

set_state_dir "${REX_HOSTS_DIR:-$REPO_ROOT/.deploy/hosts}"
MADE_FILE="$STATE_DIR/made"

usage() {
    sed -n '2,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    exit "${1:-64}"
}

# --- names -------------------------------------------------------------------------------------

# Host hK: namespace rexh-hK, whose end of the veth pair is also called rexh-hK; the root end,
# enslaved to the bridge, is rexh-hK-r. (Interface names are at most 15 bytes: rexh-h16-r is 10.)
host_netns() { echo "$NAME_PREFIX-$1"; }
host_inner_link() { echo "$NAME_PREFIX-$1"; }
host_outer_link() { echo "$NAME_PREFIX-$1-r"; }
host_address() { echo "$SUBNET_PREFIX.${1#h}"; }

# in_host HOST CMD…: CMD inside HOST's namespace.
in_host() {
    local host=$1
    shift
    ip netns exec "$(host_netns "$host")" "$@"
}

# --- what was made -----------------------------------------------------------------------------

# `made` holds one line per object, written right after the object was created:
#   token T                 a random tag; every link made carries the alias "rexh T"
#   netns NAME INODE        the namespace's nsfs inode (a namespace of the same name made later by
#                           someone else has another one)
#   link NAME               a link in the root namespace (the bridge, a veth's root end)
#   host ID                 a host of the cluster, in order
MADE_TOKEN=''
declare -a HOSTS=()
declare -A NETNS_INODE=()
declare -a MADE_LINKS=()
load_made() {
    MADE_TOKEN='' HOSTS=() NETNS_INODE=() MADE_LINKS=()
    [ -f "$MADE_FILE" ] || return 0
    local kind name extra
    while read -r kind name extra; do
        case $kind in
        token) MADE_TOKEN=$name ;;
        netns) NETNS_INODE[$name]=$extra ;;
        link) MADE_LINKS+=("$name") ;;
        host) HOSTS+=("$name") ;;
        esac
    done <"$MADE_FILE"
}
load_made

record() { printf '%s\n' "$*" >>"$MADE_FILE"; }

netns_inode() { stat -L -c %i "/run/netns/$1" 2>/dev/null; }

# True when namespace NAME exists and is the one recorded in `made`.
netns_is_ours() {
    local expected=${NETNS_INODE[$1]:-} actual
    [ -n "$expected" ] || return 1
    actual=$(netns_inode "$1") || return 1
    [ "$actual" = "$expected" ]
}

link_exists() { ip link show dev "$1" >/dev/null 2>&1; }

# True when root-namespace link NAME exists, is recorded in `made` and carries this run's alias.
link_is_ours() {
    local name=$1 alias
    [ -n "$MADE_TOKEN" ] || return 1
    printf '%s\n' "${MADE_LINKS[@]}" | grep -qxF -- "$name" || return 1
    alias=$(ip -o link show dev "$name" 2>/dev/null | sed -n 's/.* alias \(.*\)$/\1/p')
    [ "$alias" = "$NAME_PREFIX $MADE_TOKEN" ]
}

# Every rexh-* namespace and root-namespace link that exists now, one name per line.
existing_prefixed() {
    ip netns list 2>/dev/null | awk -v p="$NAME_PREFIX-" 'index($1, p) == 1 { print $1 }'
    ip -o link show 2>/dev/null | awk -F': ' -v p="$NAME_PREFIX-" '{ sub(/@.*/, "", $2) } index($2, p) == 1 { print $2 }'
}

# Hosts given as hK or K → hK; fails on a host that is not in this cluster.
host_id() {
    local id=$1
    [[ "$id" =~ ^[0-9]+$ ]] && id="h$id"
    printf '%s\n' "${HOSTS[@]}" | grep -qxF -- "$id" \
        || fatal "unknown host '$1' — hosts: ${HOSTS[*]:-(none: deploy/hosts.sh up first)}"
    netns_is_ours "$(host_netns "$id")" \
        || fatal "host $id's namespace $(host_netns "$id") is gone or is not the one made here: deploy/hosts.sh down, then up"
    echo "$id"
}

require_cluster() {
    [ ${#HOSTS[@]} -gt 0 ] || fatal "no hosts here ($MADE_FILE lists none) — start them with: deploy/hosts.sh up"
}

# Serialises the commands that change things (a test may run several at once).
take_lock() {
    mkdir -p "$STATE_DIR"
    exec 9>"$STATE_DIR/.lock"
    flock -w 30 9 || fatal "another deploy/hosts.sh holds $STATE_DIR/.lock for more than 30 s"
}

# --- checks before making anything -------------------------------------------------------------

require_tools() {
    [ "$(id -u)" -eq 0 ] || fatal "network namespaces need root (run as root, or with sudo)"
    local tool missing=()
    for tool in ip tc iptables iptables-restore flock; do
        command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
    done
    [ ${#missing[@]} -eq 0 ] || fatal "missing: ${missing[*]} — apt-get install -y iproute2 iptables util-linux"
}

# Refuses when anything named rexh-* exists that `made` does not list, or when the subnet is in
# use in the root namespace: those belong to someone else.
require_nothing_foreign() {
    local name foreign=()
    while read -r name; do
        [ -n "$name" ] || continue
        if [ -n "${NETNS_INODE[$name]:-}" ] || printf '%s\n' "${MADE_LINKS[@]}" | grep -qxF -- "$name"; then
            continue
        fi
        foreign+=("$name")
    done < <(existing_prefixed)
    [ ${#foreign[@]} -eq 0 ] || fatal "found $(printf '%s ' "${foreign[@]}")which $MADE_FILE does not list: not made by this checkout, so not touched. Run 'deploy/hosts.sh down' in the checkout that made it, or remove it by hand (ip netns del NAME / ip link del NAME)."
    if ip -o -4 addr show 2>/dev/null | grep -q " inet $SUBNET_PREFIX\."; then
        fatal "an address in $SUBNET_PREFIX.0/24 is already in use in the root namespace: $(ip -o -4 addr show | grep " inet $SUBNET_PREFIX\." | awk '{print $2, $4}' | paste -sd, -)"
    fi
    if [ -n "$(ip -4 route show "$SUBNET_PREFIX.0/24" 2>/dev/null)" ]; then
        fatal "the root namespace already routes $SUBNET_PREFIX.0/24: $(ip -4 route show "$SUBNET_PREFIX.0/24")"
    fi
}

# --- signals while making ----------------------------------------------------------------------

# While `up` creates objects, INT and TERM only set a flag, checked after each object is created
# and recorded: an object is never left made but unrecorded (and so never left behind).
interrupted=''
defer_signals() {
    interrupted=''
    trap 'interrupted=130' INT
    trap 'interrupted=143' TERM
}
checkpoint() {
    [ -z "$interrupted" ] || {
        warn "interrupted: removing what was made"
        exit "$interrupted"
    }
}

# --- making ------------------------------------------------------------------------------------

make_bridge() {
    ip link add "$BRIDGE" type bridge
    record "link $BRIDGE"
    MADE_LINKS+=("$BRIDGE")
    ip link set dev "$BRIDGE" alias "$NAME_PREFIX $MADE_TOKEN"
    ip addr add "$BRIDGE_ADDRESS/24" dev "$BRIDGE"
    ip link set dev "$BRIDGE" up
}

# The filter table of a fresh host namespace: a chain for partitions and two for loss, jumped to
# from INPUT and OUTPUT, so `heal` and `loss 0` can each flush their own.
HOST_FIREWALL="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:REXH-CUT - [0:0]
:REXH-LOSS-IN - [0:0]
:REXH-LOSS-OUT - [0:0]
-A INPUT -j REXH-CUT
-A INPUT -j REXH-LOSS-IN
-A OUTPUT -j REXH-LOSS-OUT
COMMIT"

make_host() {
    local host=$1 netns inner outer inode
    netns=$(host_netns "$host") inner=$(host_inner_link "$host") outer=$(host_outer_link "$host")
    ip netns add "$netns"
    inode=$(netns_inode "$netns")
    record "netns $netns $inode"
    NETNS_INODE[$netns]=$inode
    checkpoint
    ip link add "$outer" type veth peer name "$inner" netns "$netns"
    record "link $outer"
    MADE_LINKS+=("$outer")
    checkpoint
    ip link set dev "$outer" alias "$NAME_PREFIX $MADE_TOKEN"
    ip link set dev "$outer" master "$BRIDGE" up
    ip -n "$netns" link set dev lo up
    ip -n "$netns" addr add "$(host_address "$host")/24" dev "$inner"
    ip -n "$netns" link set dev "$inner" up
    in_host "$host" iptables-restore <<<"$HOST_FIREWALL"
    record "host $host"
    HOSTS+=("$host")
}

# Secured (README "Security"): a key per host's node (keys/HOST.key) and the operators', made once;
# each node's public key in the file. The control endpoints are on the hosts' addresses, off
# loopback, where a plain node would refuse to start.
write_cluster_file() {
    local host sep='' membership
    ensure_keys "${HOSTS[@]}"
    {
        printf '{"nodes": [\n'
        for host in "${HOSTS[@]}"; do
            membership=$(printf ', "membership": "tcp://%s:%d"' "$(host_address "$host")" "$MEMBERSHIP_PORT")
            printf '%s  {"id": "%s", "pub": "tcp://%s:%d", "control": "tcp://%s:%d", "metrics": "tcp://%s:%d", "key": "%s"%s}' "$sep" "$host" \
                "$(host_address "$host")" "$PUB_PORT" "$(host_address "$host")" "$CONTROL_PORT" "$(host_address "$host")" "$METRICS_PORT" \
                "$(public_key "$KEY_DIR/$host.key")" "$membership"
            sep=$',\n'
        done
        printf '\n]}\n'
    } >"$CLUSTER_FILE.tmp"
    mv "$CLUSTER_FILE.tmp" "$CLUSTER_FILE"
}

# --- nodes -------------------------------------------------------------------------------------

pid_of() {
    local file="$PID_DIR/$1.pid"
    [ -f "$file" ] && cat "$file"
    return 0
}

# True when PID is host HOST's rexnode: this cluster's command line, inside HOST's namespace
# (never signal a recycled pid or a process we did not start).
is_host_node() {
    local pid=$1 host=$2 ns
    is_our_node "$pid" "$host" || return 1
    ns=$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null) || return 1
    [ "$ns" = "${NETNS_INODE[$(host_netns "$host")]:-}" ]
}

node_running() {
    local pid
    pid=$(pid_of "$1")
    [ -n "$pid" ] && pid_alive "$pid" && is_host_node "$pid" "$1"
}

process_state() { awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null; }

start_node() {
    local host=$1 args=() pid
    [ -f "$NODE_ARGS_FILE" ] && mapfile -t args <"$NODE_ARGS_FILE"
    mkdir -p "$PID_DIR" "$LOG_DIR"
    printf '# %s hosts.sh: starting %s on %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$host" "$(host_address "$host")" >>"$LOG_DIR/$host.log"
    # setsid execs in place (this shell is no process-group leader) and so does `ip netns exec`,
    # so $! is rexnode itself; its own session keeps a terminal's Ctrl-C away from it. It must not
    # inherit fd 9, the lock, or every later command would wait for the node to exit.
    setsid ip netns exec "$(host_netns "$host")" "$NODE_BIN" --cluster "$CLUSTER_FILE" --id "$host" "${args[@]}" \
        >>"$LOG_DIR/$host.log" 2>&1 </dev/null 9>&- &
    pid=$!
    echo "$pid" >"$PID_DIR/$host.pid"
}

# wait_gone PID SECONDS: true once PID has exited (or is a zombie) within SECONDS.
wait_gone() {
    local pid=$1 deadline=$(($(now_ms) + $2 * 1000))
    while pid_alive "$pid"; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

# Stops host nodes given as "PID HOST": SIGCONT (a paused node cannot act on SIGTERM), SIGTERM,
# SIGKILL after STOP_GRACE seconds; fails when one survives SIGKILL for 3 s.
stop_nodes() {
    local pair pid host status=0
    for pair in "$@"; do
        read -r pid host <<<"$pair"
        is_host_node "$pid" "$host" || continue
        kill -CONT "$pid" 2>/dev/null || true
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pair in "$@"; do
        read -r pid host <<<"$pair"
        wait_gone "$pid" "$STOP_GRACE" && continue
        is_host_node "$pid" "$host" || continue
        warn "$host (pid $pid) did not exit within ${STOP_GRACE}s of SIGTERM: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        wait_gone "$pid" 3 || {
            error "$host (pid $pid) survived SIGKILL for 3 s"
            status=1
        }
    done
    return "$status"
}

log_tail() {
    local host=$1
    printf -- '--- last 20 lines of %s ---\n' "$LOG_DIR/$host.log" >&2
    tail -n 20 "$LOG_DIR/$host.log" >&2 2>/dev/null || true
}

# wait_ready [--answer] HOST…: every HOST answers ping and (without --answer) is seen alive by
# every reachable node, within UP_TIMEOUT seconds.
wait_ready() {
    local want=ready
    if [ "${1:-}" = --answer ]; then
        want=answer
        shift
    fi
    local hosts=("$@") host state pending deadline pid
    local -A states=()
    deadline=$(($(now_ms) + UP_TIMEOUT * 1000))
    while :; do
        checkpoint
        for host in "${hosts[@]}"; do
            node_running "$host" && continue
            # Not the node in its namespace yet, but still running: setsid, then `ip netns exec`,
            # exec in turn before rexnode does (on a busy machine that can take a while).
            pid=$(pid_of "$host")
            [ -n "$pid" ] && pid_alive "$pid" && continue
            error "$host's node exited while starting"
            log_tail "$host"
            return 1
        done
        states=()
        while read -r host state; do states[$host]=$state; done < <(rexctl -o json nodes --timeout 500ms 2>/dev/null | readiness)
        pending=()
        for host in "${hosts[@]}"; do
            state=${states[$host]:-down}
            if [ "$want" = answer ] && [ "$state" != down ]; then continue; fi
            [ "$state" = ready ] || pending+=("$host($state)")
        done
        [ ${#pending[@]} -eq 0 ] && return 0
        if [ "$(now_ms)" -ge "$deadline" ]; then
            error "not ready after ${UP_TIMEOUT}s: ${pending[*]}"
            for host in "${hosts[@]}"; do log_tail "$host"; done
            explain_unreachable
            return 1
        fi
        sleep 0.2
    done
}

# When hosts cannot reach each other, one known cause lies outside: with br_netfilter loaded,
# bridged packets pass the root namespace's FORWARD chain. Said, never changed.
explain_unreachable() {
    local policy
    [ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null || echo 0)" = 1 ] || return 0
    policy=$(iptables -S FORWARD 2>/dev/null | awk '$1 == "-P" { print $3; exit }')
    [ "$policy" = DROP ] || return 0
    warn "bridged packets pass the root namespace's FORWARD chain (br_netfilter), whose policy is DROP: the hosts cannot reach each other. This script does not change the root firewall."
}

# --- teardown ----------------------------------------------------------------------------------

# Stops every node of this cluster and removes every object `made` lists that is still the one
# made; keeps the logs. Safe to re-run; removes nothing else.
teardown() {
    local pairs=() host pid netns name status=0
    for host in "${HOSTS[@]}"; do
        pid=$(pid_of "$host")
        [ -n "$pid" ] && pairs+=("$pid $host")
        # A node whose pid file was lost: find it in its namespace by its command line.
        netns=$(host_netns "$host")
        if netns_is_ours "$netns"; then
            for pid in $(ip netns pids "$netns" 2>/dev/null); do
                is_host_node "$pid" "$host" && pairs+=("$pid $host")
            done
        fi
    done
    if [ ${#pairs[@]} -gt 0 ]; then
        stop_nodes "${pairs[@]}" || status=1
    fi
    for host in "${HOSTS[@]}"; do
        netns=$(host_netns "$host")
        netns_is_ours "$netns" || continue
        pid=$(ip netns pids "$netns" 2>/dev/null | paste -sd' ' -)
        [ -z "$pid" ] || warn "$netns still holds processes not started here (pids $pid): left running; the namespace lives on without its name until they exit"
    done
    # Root ends first (that removes each veth pair), then the namespaces, then the bridge.
    for name in "${MADE_LINKS[@]}"; do
        [ "$name" = "$BRIDGE" ] && continue
        link_is_ours "$name" && { ip link del dev "$name" || status=1; }
    done
    for netns in "${!NETNS_INODE[@]}"; do
        netns_is_ours "$netns" && { ip netns del "$netns" || status=1; }
    done
    link_is_ours "$BRIDGE" && { ip link del dev "$BRIDGE" || status=1; }
    # What is left and still ours (a failed delete) keeps its record, for the next down.
    local left=()
    for name in "${MADE_LINKS[@]}"; do link_is_ours "$name" && left+=("$name"); done
    for netns in "${!NETNS_INODE[@]}"; do netns_is_ours "$netns" && left+=("$netns"); done
    if [ ${#left[@]} -gt 0 ]; then
        error "could not remove: ${left[*]} (kept in $MADE_FILE for the next down)"
        return 1
    fi
    rm -f "$MADE_FILE" "$CLUSTER_FILE" "$NODE_ARGS_FILE"
    rm -rf "$PID_DIR"
    load_made
    return "$status"
}

# --- faults ------------------------------------------------------------------------------------

# parse_group LIST NAME: the hosts of a comma list (h1,h2 or 1,2) into the array NAME.
parse_group() {
    local -n group=$2
    local items=() item
    IFS=, read -ra items <<<"$1"
    group=()
    for item in "${items[@]}"; do
        [ -n "$item" ] || continue
        group+=("$(host_id "$item")")
    done
    [ ${#group[@]} -gt 0 ] || fatal "partition: an empty group in '$1'"
}

cmd_partition() {
    require_cluster
    local oneway='' words=()
    while [ $# -gt 0 ]; do
        case $1 in
        --oneway) oneway=1 ;;
        *) words+=("$1") ;;
        esac
        shift
    done
    local spec="${words[*]:-}"
    spec=${spec// /}
    [[ "$spec" == */* ]] && [[ "$spec" != */*/* ]] || fatal "usage: deploy/hosts.sh partition A,B / C,D [--oneway]"
    local left=() right=() a b
    parse_group "${spec%%/*}" left
    parse_group "${spec#*/}" right
    for a in "${left[@]}"; do
        for b in "${right[@]}"; do [ "$a" != "$b" ] || fatal "partition: $a is on both sides"; done
    done
    take_lock
    # A packet is dropped where it arrives: B drops what comes from A, and the other way round.
    for a in "${left[@]}"; do
        for b in "${right[@]}"; do
            in_host "$b" iptables -w 5 -A REXH-CUT -s "$(host_address "$a")" -j DROP
            [ -n "$oneway" ] || in_host "$a" iptables -w 5 -A REXH-CUT -s "$(host_address "$b")" -j DROP
        done
    done
    if [ -n "$oneway" ]; then
        ok "partition: packets from ${left[*]} to ${right[*]} are dropped (the other way still passes)"
    else
        ok "partition: ${left[*]} / ${right[*]} (packets dropped both ways)"
    fi
}

cmd_heal() {
    require_cluster
    take_lock
    local host
    for host in "${HOSTS[@]}"; do in_host "$host" iptables -w 5 -F REXH-CUT; done
    ok "healed: no partition"
}

cmd_loss() {
    [ $# -eq 2 ] || fatal "usage: deploy/hosts.sh loss HOST PERCENT"
    require_cluster
    local host percent=$2 probability
    host=$(host_id "$1")
    [[ "$percent" =~ ^[0-9]+(\.[0-9]+)?$ ]] && py -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 100 else 1)' "$percent" \
        || fatal "loss: PERCENT is a number from 0 to 100 (got '$percent')"
    probability=$(py -c 'import sys; print(float(sys.argv[1]) / 100)' "$percent")
    take_lock
    in_host "$host" iptables -w 5 -F REXH-LOSS-IN
    in_host "$host" iptables -w 5 -F REXH-LOSS-OUT
    if [ "$probability" = 0.0 ]; then
        ok "loss: none on $host"
        return 0
    fi
    # Loopback and the root namespace (rexctl) are exempt: only packets between hosts are lost.
    in_host "$host" iptables -w 5 -A REXH-LOSS-IN -i lo -j RETURN
    in_host "$host" iptables -w 5 -A REXH-LOSS-IN -s "$BRIDGE_ADDRESS" -j RETURN
    in_host "$host" iptables -w 5 -A REXH-LOSS-IN -m statistic --mode random --probability "$probability" -j DROP
    in_host "$host" iptables -w 5 -A REXH-LOSS-OUT -o lo -j RETURN
    in_host "$host" iptables -w 5 -A REXH-LOSS-OUT -d "$BRIDGE_ADDRESS" -j RETURN
    in_host "$host" iptables -w 5 -A REXH-LOSS-OUT -m statistic --mode random --probability "$probability" -j DROP
    ok "loss: $percent % of $host's packets to and from the other hosts dropped at random"
}

cmd_slow() {
    [ $# -eq 2 ] || fatal "usage: deploy/hosts.sh slow HOST RATE|off"
    require_cluster
    local host rate=$2 outer inner
    host=$(host_id "$1")
    outer=$(host_outer_link "$host") inner=$(host_inner_link "$host")
    take_lock
    link_is_ours "$outer" || fatal "$outer is not the link made here"
    if [ "$rate" = off ]; then
        tc qdisc del dev "$outer" root 2>/dev/null || true
        in_host "$host" tc qdisc del dev "$inner" root 2>/dev/null || true
        ok "slow: $host's link at full speed"
        return 0
    fi
    [[ "$rate" =~ ^[0-9]+(\.[0-9]+)?(kbit|mbit|gbit)$ ]] || fatal "slow: RATE like 1mbit, 512kbit or off (got '$rate')"
    # A token bucket on each end: the host's own end shapes what it sends, the root end what it
    # receives. 200 ms of queue, then tail drop: what a slow link with a modest buffer does.
    tc qdisc replace dev "$outer" root tbf rate "$rate" burst 32kbit latency 200ms
    in_host "$host" tc qdisc replace dev "$inner" root tbf rate "$rate" burst 32kbit latency 200ms
    ok "slow: $host's link limited to $rate both ways"
}

cmd_link() {
    [ $# -eq 2 ] && [[ "$2" =~ ^(up|down)$ ]] || fatal "usage: deploy/hosts.sh link HOST down|up"
    require_cluster
    local host outer
    host=$(host_id "$1")
    outer=$(host_outer_link "$host")
    take_lock
    link_is_ours "$outer" || fatal "$outer is not the link made here"
    ip link set dev "$outer" "$2"
    ok "link: $host's link $2"
}

# signal_node HOST SIGNAL WHAT: sends SIGNAL to HOST's node when it is ours and runs.
signal_node() {
    local host=$1 signal=$2 pid
    node_running "$host" || fatal "$host's node is not running"
    pid=$(pid_of "$host")
    kill "-$signal" "$pid"
    echo "$pid"
}

cmd_pause() {
    [ $# -eq 1 ] || fatal "usage: deploy/hosts.sh pause HOST"
    require_cluster
    local host pid
    host=$(host_id "$1")
    pid=$(signal_node "$host" STOP)
    ok "paused $host's node (pid $pid, SIGSTOP)"
}

cmd_resume() {
    [ $# -eq 1 ] || fatal "usage: deploy/hosts.sh resume HOST"
    require_cluster
    local host pid
    host=$(host_id "$1")
    pid=$(signal_node "$host" CONT)
    ok "resumed $host's node (pid $pid, SIGCONT)"
}

cmd_kill() {
    [ $# -eq 1 ] || fatal "usage: deploy/hosts.sh kill HOST"
    require_cluster
    local host pid
    host=$(host_id "$1")
    if ! node_running "$host"; then
        info "$host's node is not running"
        return 0
    fi
    pid=$(signal_node "$host" KILL)
    wait_gone "$pid" 3 || fatal "$host's node (pid $pid) survived SIGKILL for 3 s"
    rm -f "$PID_DIR/$host.pid"
    ok "killed $host's node (pid $pid, SIGKILL)"
}

cmd_start() {
    [ $# -eq 1 ] || fatal "usage: deploy/hosts.sh start HOST"
    require_cluster
    local host started
    host=$(host_id "$1")
    take_lock
    if node_running "$host"; then
        info "$host's node already runs (pid $(pid_of "$host"))"
        return 0
    fi
    started=$(now_ms)
    start_node "$host"
    # Only that it answers: whether the others see it depends on the faults in force.
    wait_ready --answer "$host" || fatal "$host's node did not answer within ${UP_TIMEOUT}s"
    ok "started $host's node (pid $(pid_of "$host")) on $(host_address "$host"); it answered after $(($(now_ms) - started)) ms"
}

# --- up, status, down --------------------------------------------------------------------------

cmd_up() {
    local count=5 args=() node_bin=$REXNODE
    if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
        [[ "$1" =~ ^[1-9][0-9]*$ ]] || fatal "up takes a host count (got '$1')"
        count=$1
        shift
    fi
    if [ $# -gt 0 ] && [ "$1" = --node-bin ]; then
        [ $# -ge 2 ] || fatal "--node-bin takes the path of a node binary"
        node_bin=$(realpath -e "$2" 2>/dev/null) && [ -f "$node_bin" ] && [ -x "$node_bin" ] \
            || fatal "--node-bin: '$2' is not an executable file"
        shift 2
    fi
    if [ $# -gt 0 ]; then
        [ "$1" = -- ] || usage
        shift
        args=("$@")
    fi
    ((count <= MAX_HOSTS)) || fatal "up: at most $MAX_HOSTS hosts (got $count)"
    require_tools
    build_if_stale
    take_lock
    if [ -s "$MADE_FILE" ]; then
        log "hosts of an earlier up are still here: removing them first"
        teardown || fatal "could not remove the earlier hosts (see above)"
    fi
    require_nothing_foreign

    local started host i
    started=$(now_ms)
    # A failed or interrupted up leaves nothing behind.
    UP_COMPLETED=''
    trap '[ -n "$UP_COMPLETED" ] || { trap - EXIT; warn "up did not complete: removing what it made"; load_made; teardown >&2 || true; }' EXIT
    defer_signals
    mkdir -p "$STATE_DIR"
    rm -rf "$PID_DIR" "$LOG_DIR"
    mkdir -p "$PID_DIR" "$LOG_DIR"
    # The earlier nodes are gone: from here on the hosts run node_bin.
    NODE_BIN=$node_bin
    if [ "$NODE_BIN" = "$REXNODE" ]; then rm -f "$NODE_BIN_FILE"; else printf '%s\n' "$NODE_BIN" >"$NODE_BIN_FILE"; fi
    MADE_TOKEN=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
    : >"$MADE_FILE"
    record "token $MADE_TOKEN"
    log "making $count hosts: namespaces $(host_netns h1)…$(host_netns "h$count") on bridge $BRIDGE ($BRIDGE_ADDRESS)"
    make_bridge
    checkpoint
    for ((i = 1; i <= count; i++)); do
        make_host "h$i"
        checkpoint
    done
    write_cluster_file
    printf '%s\n' "${args[@]}" >"$NODE_ARGS_FILE"
    [ ${#args[@]} -eq 0 ] && : >"$NODE_ARGS_FILE"
    log "starting a ${NODE_BIN##*/} node on each host${args[*]:+ (${args[*]})}"
    for host in "${HOSTS[@]}"; do start_node "$host"; done
    wait_ready "${HOSTS[@]}" || exit 1
    UP_COMPLETED=1
    trap - EXIT INT TERM
    ok "$count hosts up; every node answers and sees every other alive after $(($(now_ms) - started)) ms"
    summary
    info "try: $(relative_bin rexctl) --cluster ${CLUSTER_FILE#"$PWD"/} nodes      stop: deploy/hosts.sh down"
}

relative_bin() { echo "${BIN_DIR#"$PWD"/}/$1"; }

# One host's faults in force, read back from the kernel: "CUT LOSS RATE LINK".
host_faults() {
    local host=$1 cut loss rate link
    cut=$(in_host "$host" iptables -w 5 -S REXH-CUT 2>/dev/null \
        | awk -v p="$SUBNET_PREFIX." '$1 == "-A" { a = $4; sub(/\/32$/, "", a); sub(p, "h", a); s = s (s ? "," : "") a } END { print s ? "from:" s : "-" }')
    loss=$(in_host "$host" iptables -w 5 -S REXH-LOSS-IN 2>/dev/null \
        | awk '/--probability/ { for (i = 1; i <= NF; i++) if ($i == "--probability") printf "%.1f%%\n", $(i + 1) * 100 }' | head -n 1)
    rate=$(in_host "$host" tc qdisc show dev "$(host_inner_link "$host")" 2>/dev/null \
        | awk '$2 == "tbf" { for (i = 1; i <= NF; i++) if ($i == "rate") print $(i + 1) }' | head -n 1)
    if ip -o link show dev "$(host_outer_link "$host")" 2>/dev/null | grep -q '[<,]UP[,>]'; then link=up; else link=down; fi
    echo "${cut:--} ${loss:--} ${rate:--} $link"
}

summary() {
    local host pid state cut loss rate link
    {
        printf 'HOST\tADDRESS\tPID\tNODE\tLINK\tDROPS\tLOSS\tRATE\tLOG\n'
        for host in "${HOSTS[@]}"; do
            pid=$(pid_of "$host")
            if node_running "$host"; then
                state=running
                [ "$(process_state "$pid")" = T ] && state=paused
            else
                state=stopped pid='-'
            fi
            read -r cut loss rate link < <(host_faults "$host")
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$host" "$(host_address "$host")" "$pid" "$state" \
                "$link" "$cut" "$loss" "$rate" "${LOG_DIR#"$PWD"/}/$host.log"
        done
    } | print_table
}

cmd_status() {
    if [ ${#HOSTS[@]} -eq 0 ]; then
        info "no hosts ($MADE_FILE lists none) — start them with: deploy/hosts.sh up"
        return 1
    fi
    summary
    echo
    rexctl nodes --timeout 1s
}

cmd_down() {
    take_lock
    if [ ! -s "$MADE_FILE" ]; then
        info "nothing to remove ($MADE_FILE lists nothing)"
        return 0
    fi
    local started
    started=$(now_ms)
    log "stopping ${#HOSTS[@]} node(s) and removing their hosts"
    teardown || fatal "down left something behind (see above)"
    ok "removed every namespace, link and rule made here in $(($(now_ms) - started)) ms"
}

main() {
    [ $# -ge 1 ] || usage
    local command=$1
    shift
    case $command in
    up) cmd_up "$@" ;;
    status) cmd_status "$@" ;;
    partition) cmd_partition "$@" ;;
    heal) [ $# -eq 0 ] || usage; cmd_heal ;;
    loss) cmd_loss "$@" ;;
    slow) cmd_slow "$@" ;;
    link) cmd_link "$@" ;;
    pause) cmd_pause "$@" ;;
    resume) cmd_resume "$@" ;;
    kill) cmd_kill "$@" ;;
    start) cmd_start "$@" ;;
    down) [ $# -eq 0 ] || usage; cmd_down ;;
    -h | --help | help) usage 0 ;;
    *)
        error "unknown command '$command'"
        usage
        ;;
    esac
}

main "$@"
