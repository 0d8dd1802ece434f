#!/usr/bin/env bash
# The Kubernetes set of deploy/k8s/ played on this machine by podman 4.3 (`podman kube play`): the
# local rendering of deploy/k8s/render.py (one `kind: Pod` per member, the StatefulSet's container),
# secured and durable, on a podman network of its own.
#
#   deploy/k8s/play.sh up [--replicas N]   play N members (default 3), wait until ready, say how to reach them
#   deploy/k8s/play.sh status              the pods, and rexctl nodes from the host
#   deploy/k8s/play.sh down                remove every pod, volume, network and file `up` made
#   deploy/k8s/play.sh check               the CI scenario below, in a state directory of its own; removed after
#
# up: the image of this tree (deploy/image.sh ensure --runtime shared); CURVE keys made once with
# rexctl keygen in .deploy/k8s/keys; the members' key files copied to .deploy/k8s/secret as root's,
# group 65532, mode 0440 (what a non-root pod sees of a Secret mounted with fsGroup); the rendering
# in .deploy/k8s/pods; a network rexk8s-TOKEN on a free 10.214.X.0/24 with DNS (aardvark) and a
# bridge named rexk8sTOKEN; each member played on it under the alias rexnode-I.rexnode (its DNS
# name under the StatefulSet's headless Service) with its 4 ports published on 127.0.0.1 only;
# .deploy/k8s/cluster.json names those ports for rexctl on the host. Ready: each member answers
# /readyz 200 and rexctl sees every member alive by all the others.
#
# check: up with 3 members; the pods run as uid 65532 on a read-only root with no capabilities and
# no new privileges; a follow on rexnode-2 of rexnode-0's feed delivers across pods; rexnode-1 holds
# a feed, is killed (SIGKILL to its pod) and seen dead by the others, then replaced by a new pod of
# the same YAML on its volume and seen alive again holding the feed; an image upgrade (the image
# committed again with a label, as a new tag) rolls member by member — SIGTERM to the pod (exit 0,
# seen left), the new pod played, ready before the next — while a writer per member sends `set`
# actions, and every action acknowledged is in its member's state after; then down, and nothing of
# it is left: no pod, container, volume, network or bridge. Prints the figures.
#
# podman runs through deploy/image.sh (deploy/podman/containers.conf, storage in .deploy/image/).
# Needs root. One `up` (or check) at a time per checkout: they share pod names (a lock says so).
set -euo pipefail
# shellcheck source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

IMAGE_SH="$DEPLOY_SCRIPTS_DIR/image.sh"
RENDER="$DEPLOY_SCRIPTS_DIR/k8s/render.py"
K8S_DIR="$(realpath -m "${REX_K8S_DIR:-$REPO_ROOT/.deploy/k8s}")"
# deploy/image.sh's state: podman's storage and network files.
IMAGE_DIR="$(realpath -m "${REX_IMAGE_DIR:-$REPO_ROOT/.deploy/image}")"
IMAGE_UID=65532
REPLICAS=3
# The lock's descriptor (see lock); 255 until then, which no command here has open.
LOCK_FD=255

usage() {
    sed -n '6,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    exit "${1:-64}"
}

# pm ARGS…: podman with the project's configuration and storage; its stderr (healthcheck notices
# it cannot schedule without systemd) goes to PODMAN_LOG, shown when the command fails.
pm() {
    local status=0
    "$IMAGE_SH" podman "$@" 2>>"$PODMAN_LOG" {LOCK_FD}>&- || status=$?
    if [ "$status" -ne 0 ]; then
        error "podman $* failed (exit $status):"
        tail -n 5 "$PODMAN_LOG" >&2
    fi
    return "$status"
}

member() { echo "rexnode-$1"; }

# pq ARGS…: a podman query, its errors dropped.
pq() { "$IMAGE_SH" podman "$@" 2>/dev/null {LOCK_FD}>&-; }

# --- state: what `up` made, recorded so that `down` removes exactly that -------------------------

use_state() {
    K8S_STATE=$1
    set_state_dir "$K8S_STATE"
    PODMAN_LOG="$K8S_STATE/podman.log"
    MADE="$K8S_STATE/made"
}

# record KIND NAME: KIND is pod, volume, network, image or bridge.
record() { printf '%s %s\n' "$1" "$2" >>"$MADE"; }
made() { [ -f "$MADE" ] && awk -v kind="$1" '$1 == kind { print $2 }' "$MADE" | sort -u; }

# lock: one up or check per checkout (their pods have the same names). Every podman command runs
# with the lock's descriptor closed (pm, pq): conmon outlives its command and would hold it.
lock() {
    mkdir -p "$REPO_ROOT/.deploy"
    exec {LOCK_FD}>"$REPO_ROOT/.deploy/k8s.lock"
    flock -n "$LOCK_FD" || fatal "another deploy/k8s/play.sh holds .deploy/k8s.lock (a check running, or use its down)"
}

# A /24 in 10.214.0.0/16 that no route or address of this machine uses.
free_subnet() {
    local used third tries
    used=$(ip -4 route show; ip -4 -o addr show)
    for ((tries = 0; tries < 50; tries++)); do
        third=$((RANDOM % 256))
        grep -q "10\.214\.$third\." <<<"$used" || { echo "10.214.$third.0/24"; return 0; }
    done
    fatal "no free 10.214.X.0/24 after 50 tries"
}

# --- up ------------------------------------------------------------------------------------------

# The host's cluster file for rexctl: each member's ports on 127.0.0.1 and its key.
write_host_cluster() {
    local i
    {
        printf '{"nodes": [\n'
        for ((i = 0; i < REPLICAS; i++)); do
            printf '  {"id": "%s", "pub": "tcp://127.0.0.1:%d", "control": "tcp://127.0.0.1:%d", "membership": "tcp://127.0.0.1:%d", "metrics": "tcp://127.0.0.1:%d", "key": "%s"}%s\n' \
                "$(member "$i")" "${PORTS[i]}" "${PORTS[REPLICAS + i]}" "${PORTS[2 * REPLICAS + i]}" "${PORTS[3 * REPLICAS + i]}" \
                "$(public_key "$KEY_DIR/$(member "$i").key")" "$([ $((i + 1)) -lt "$REPLICAS" ] && echo ,)"
        done
        printf ']}\n'
    } >"$CLUSTER_FILE"
}

# render IMAGE OUT: the local rendering of the members in OUT.
render() {
    local ports=() i
    for ((i = 0; i < REPLICAS; i++)); do
        ports+=("${PORTS[i]}" "${PORTS[REPLICAS + i]}" "${PORTS[2 * REPLICAS + i]}" "${PORTS[3 * REPLICAS + i]}")
    done
    "$PYTHON" "$RENDER" podman --keys "$KEY_DIR" --secret-dir "$K8S_STATE/secret" --out "$2" --image "$1" \
        --host-ports "$(IFS=,; echo "${ports[*]}")" --replicas "$REPLICAS" || fatal "render.py podman failed"
}

# play I DIR: plays member I from DIR's rendering on the network, under its DNS name.
play() {
    local name
    name=$(member "$1")
    record pod "$name"
    record volume "data-$name"
    pm kube play --network "$NETWORK:alias=$name.rexnode" --configmap "$2/configmap-settings.yaml" \
        --configmap "$2/configmap-cluster.yaml" "$2/$name.yaml" >/dev/null \
        || fatal "podman kube play $name failed"
}

metrics_port() { echo "${PORTS[3 * REPLICAS + $1]}"; }
ready_http() { curl -fsS --max-time 1 "http://127.0.0.1:$(metrics_port "$1")/readyz" >/dev/null 2>&1; }

# wait_ready STARTED_MS [I…]: until members I… (all by default) answer /readyz 200 and rexctl sees
# every member ready (answering, alive to all the others); 90 s from STARTED_MS at most.
wait_ready() {
    local started=$1 deadline i states waiting
    shift
    local which=("$@")
    [ ${#which[@]} -gt 0 ] || mapfile -t which < <(seq 0 $((REPLICAS - 1)))
    deadline=$((started + 90000))
    while :; do
        waiting=''
        for i in "${which[@]}"; do ready_http "$i" || waiting+=" $(member "$i")"; done
        if [ -z "$waiting" ]; then
            states=$(rexctl -o json nodes --timeout 1s 2>/dev/null | readiness || true)
            [ "$(grep -c ' ready$' <<<"$states")" -eq "$REPLICAS" ] && break
            waiting=" (rexctl: $(paste -sd ' ' <<<"$states"))"
        fi
        if [ "$(now_ms)" -ge "$deadline" ]; then
            for i in "${which[@]}"; do
                printf -- '--- %s (last 15 lines) ---\n' "$(member "$i")" >&2
                "$IMAGE_SH" podman logs --tail 15 "$(member "$i")-rexnode" {LOCK_FD}>&- >&2 2>&1 || true
            done
            fatal "not ready 90 s after the start:$waiting"
        fi
        sleep 0.1
    done
}

cmd_up() {
    while [ $# -gt 0 ]; do
        case "$1" in
        --replicas)
            [ $# -ge 2 ] || usage
            REPLICAS=$2
            shift 2
            ;;
        *) usage ;;
        esac
    done
    [[ "$REPLICAS" =~ ^[1-9][0-9]?$ ]] && [ "$REPLICAS" -le 16 ] || fatal "--replicas takes 1 to 16 (got $REPLICAS)"
    use_state "$K8S_DIR"
    [ ! -f "$MADE" ] || fatal "already up ($MADE): deploy/k8s/play.sh down first"
    lock
    # A start that fails takes down what it made.
    trap 'status=$?; [ "$status" -eq 0 ] || { (down) || true; rm -f "$MADE"; }; exit "$status"' EXIT
    up
    trap - EXIT
    rexctl nodes >&2
    ok "$REPLICAS members ready in ${READY_MS} ms; rexctl --cluster ${CLUSTER_FILE#"$REPO_ROOT"/} nodes reaches them; deploy/k8s/play.sh down removes them"
}

# up: everything but the lock, in K8S_STATE; sets IMAGE, NETWORK, PORTS, READY_MS.
up() {
    [ "$(id -u)" -eq 0 ] || fatal "deploy/k8s/play.sh needs root (podman's root mode)"
    ensure_system_packages
    mkdir -p "$K8S_STATE"
    : >"$MADE"
    inventory >"$K8S_STATE/before"
    IMAGE=$("$IMAGE_SH" ensure --runtime shared) || fatal "deploy/image.sh ensure failed"
    build_if_stale
    local ids=() i token subnet started
    for ((i = 0; i < REPLICAS; i++)); do ids+=("$(member "$i")"); done
    ensure_keys "${ids[@]}"
    # The Secret as a non-root pod sees it: root's files, group 65532 (fsGroup), mode 0440.
    rm -rf "$K8S_STATE/secret"
    install -d -m 0750 -o 0 -g "$IMAGE_UID" "$K8S_STATE/secret"
    for i in "${ids[@]}"; do install -m 0440 -o 0 -g "$IMAGE_UID" "$KEY_DIR/$i.key" "$K8S_STATE/secret/$i.key"; done
    mapfile -t PORTS < <(pick_port_block "$REPLICAS" 4)
    write_host_cluster
    render "$IMAGE" "$K8S_STATE/pods"
    "$PYTHON" "$RENDER" check >&2 || fatal "the renderings differ (render.py check)"

    token=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
    NETWORK="rexk8s-$token"
    subnet=$(free_subnet)
    record network "$NETWORK"
    record bridge "rexk8s$token"
    record volume rexnode-cluster
    pm network create --subnet "$subnet" --label "io.swiftrex.k8s=$token" "$NETWORK" >/dev/null \
        || fatal "podman network create $NETWORK failed"
    # Its bridge named after the token, not podmanN (which another checkout's podman may pick
    # too): podman 4.3's network create has no --interface-name, so the network's file says it,
    # before any pod makes the bridge.
    local file="$IMAGE_DIR/networks/$NETWORK.json"
    sed -i "s/\"network_interface\": \"[a-z0-9]*\"/\"network_interface\": \"rexk8s$token\"/" "$file"
    [ "$(pm network inspect --format '{{.NetworkInterface}}' "$NETWORK")" = "rexk8s$token" ] || fatal "could not name $NETWORK's bridge"
    echo "$NETWORK" >"$K8S_STATE/network"
    printf '%s\n' "${PORTS[@]}" >"$K8S_STATE/ports"
    log "kube play ×$REPLICAS from $IMAGE on $NETWORK ($subnet), ports on 127.0.0.1"
    started=$(now_ms)
    for ((i = 0; i < REPLICAS; i++)); do play "$i" "$K8S_STATE/pods"; done
    wait_ready "$started"
    READY_MS=$(($(now_ms) - started))
}

# --- down ----------------------------------------------------------------------------------------

# inventory: every pod, container, volume and network in this checkout's podman storage, by name
# (what down must leave as up found it: kube play makes volumes of its own, for ConfigMaps, and a
# container from an image with a VOLUME gets an anonymous one), but deploy/image.sh's (rexcheck-…),
# which may run beside.
inventory() {
    {
        pq pod ps --format '{{.Name}}' | sed 's/^/pod /'
        pq ps --all --format '{{.Names}}' | sed 's/^/container /'
        pq volume ls --format '{{.Name}}' | sed 's/^/volume /'
        pq network ls --format '{{.Name}}' | sed 's/^/network /'
    } | grep -v ' rexcheck-' | sort
}

cmd_down() {
    use_state "$K8S_DIR"
    [ -f "$MADE" ] || { ok "nothing is up"; return 0; }
    lock
    down
    rm -rf "$K8S_STATE/pods" "$K8S_STATE/pods-upgrade" "$K8S_STATE/secret"
    rm -f "$MADE" "$CLUSTER_FILE" "$K8S_STATE/network" "$K8S_STATE/ports" "$PODMAN_LOG"
    ok "down: no pod, volume or network of it left"
}

# down: removes what MADE lists (pods SIGTERM, SIGKILL after 10 s) and checks none of it is left.
down() {
    local pods volumes networks images bridges left='' name
    mapfile -t pods < <(made pod)
    mapfile -t volumes < <(made volume)
    mapfile -t networks < <(made network)
    mapfile -t images < <(made image)
    mapfile -t bridges < <(made bridge)
    if [ ${#pods[@]} -gt 0 ]; then
        # Stopped first, together (SIGTERM, SIGKILL after 10 s), then removed: `pod rm --force` of
        # running pods took 1-4.5 s each here, stop and rm about 1 s.
        pm pod stop --ignore --time 10 "${pods[@]}" >/dev/null 2>&1 || true
        pm pod rm --force --ignore "${pods[@]}" >/dev/null 2>&1 || true
    fi
    for name in "${volumes[@]}"; do pm volume rm --force "$name" >/dev/null 2>&1 || true; done
    for name in "${networks[@]}"; do pm network rm --force "$name" >/dev/null 2>&1 || true; done
    for name in "${images[@]}"; do pm rmi --force "$name" >/dev/null 2>&1 || true; done
    for name in "${pods[@]}"; do
        [ -z "$(pq pod ps --quiet --filter "name=^$name\$" 2>/dev/null)" ] || left+=" pod:$name"
        [ -z "$(pq ps --all --quiet --filter "name=^$name-" 2>/dev/null)" ] || left+=" containers:$name-*"
    done
    for name in "${volumes[@]}"; do
        [ -z "$(pq volume ls --quiet --filter "name=^$name\$" 2>/dev/null)" ] || left+=" volume:$name"
    done
    for name in "${networks[@]}"; do
        [ -z "$(pq network ls --quiet --filter "name=^$name\$" 2>/dev/null)" ] || left+=" network:$name"
    done
    for name in "${images[@]}"; do
        ! pq image exists "$name" 2>/dev/null || left+=" image:$name"
    done
    for name in "${bridges[@]}"; do
        ! ip link show "$name" >/dev/null 2>&1 || left+=" bridge:$name"
    done
    if [ -f "$K8S_STATE/before" ]; then
        left+=$(comm -13 "$K8S_STATE/before" <(inventory) | sed 's/^/ /; s/ \([a-z]*\) / \1:/' | tr -d '\n')
    fi
    [ -z "$left" ] || fatal "left behind after down:$left"
}

cmd_status() {
    use_state "$K8S_DIR"
    [ -f "$MADE" ] || { ok "nothing is up"; return 0; }
    pq pod ps --filter "name=^rexnode-" >&2
    rexctl nodes
}

# --- check ---------------------------------------------------------------------------------------

# feed_value NODE TOPIC: the value of NODE's feed TOPIC ('' when it has none).
state_json() { rexctl -o json state "$1" --timeout 5s; }

# container_pid I: the pid of member I's node on this machine.
container_pid() { pq inspect --format '{{.State.Pid}}' "$(member "$1")-rexnode" 2>/dev/null; }
pod_ip() {
    pq inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$(member "$1")-rexnode" 2>/dev/null
}

# check_confinement: each node runs as 65532 on a read-only root, no capabilities, no new privileges.
check_confinement() {
    local i pid status
    for ((i = 0; i < REPLICAS; i++)); do
        pid=$(container_pid "$i")
        status=$(cat "/proc/$pid/status")
        [ "$(awk '/^Uid:/ { print $2 }' <<<"$status")" = "$IMAGE_UID" ] || fatal "$(member "$i") does not run as uid $IMAGE_UID"
        [ "$(awk '/^CapEff:/ { print $2 }' <<<"$status")" = 0000000000000000 ] || fatal "$(member "$i") has capabilities"
        [ "$(awk '/^NoNewPrivs:/ { print $2 }' <<<"$status")" = 1 ] || fatal "$(member "$i") may gain privileges"
        [ "$(pq inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$(member "$i")-rexnode")" = true ] \
            || fatal "$(member "$i")'s root is writable"
    done
    ok "each member runs as uid $IMAGE_UID, read-only root, no capabilities, no new privileges; its key root's 0440 (group $IMAGE_UID)"
}

# writer I: sets upgrade.I.N on member I, N = 1, 2, …, until STOP exists (at most 5000, 180 s),
# about 15 a second (paced, so that the writers do not take both cores from the members);
# appends each acknowledged N to ACKED/I.
writer() {
    local i=$1 n deadline=$(($(now_ms) + 180000))
    for ((n = 1; n <= 5000; n++)); do
        [ ! -e "$K8S_STATE/stop-writers" ] && [ "$(now_ms)" -lt "$deadline" ] || break
        if rexctl --timeout 1s send "$(member "$i")" set "upgrade.$i.$n" "v$n" >/dev/null 2>&1; then
            echo "$n" >>"$K8S_STATE/acked.$i"
        fi
        sleep 0.05
    done
}

# lost I: how many of member I's acknowledged actions its state does not hold.
lost() {
    state_json "$(member "$1")" | "$PYTHON" -S -c '
import json, sys
state = json.load(sys.stdin)
feeds = state.get("feeds", {})
acked = [line.strip() for line in open(sys.argv[1]) if line.strip()]
missing = [n for n in acked if feeds.get("upgrade.%s.%s" % (sys.argv[2], n), {}).get("value") != "v" + n]
print(len(missing), len(acked))
' "$K8S_STATE/acked.$1" "$1"
}

cmd_check() {
    [ $# -eq 0 ] || usage
    lock
    use_state "$(mktemp -d "${TMPDIR:-/tmp}/rex-k8s-check.XXXXXX")"
    trap 'check_cleanup' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    local figures=() t0 t1 i old_ip new_ip code
    up
    figures+=("kube play ×$REPLICAS → all ready (/readyz 200, rexctl: each alive to all)"$'\t'"$READY_MS")
    check_confinement

    # A follow across pods.
    rexctl send rexnode-0 set k8s.news hello >/dev/null
    rexctl send rexnode-2 follow news k8s.news --from rexnode-0 >/dev/null
    rexctl wait rexnode-2 --for state=follows.news.lastValue=hello --timeout 20s >/dev/null \
        || fatal "rexnode-2's follow of rexnode-0's feed did not deliver"
    ok "a follow on rexnode-2 of rexnode-0's feed delivers across pods"

    # One pod killed, seen dead, replaced on its volume.
    rexctl send rexnode-1 set k8s.held durable >/dev/null
    old_ip=$(pod_ip 1)
    t0=$(now_ms)
    pm pod kill --signal KILL rexnode-1 >/dev/null
    for i in 0 2; do
        rexctl wait "$(member "$i")" --for state=peers.rexnode-1.membership=dead --timeout 20s >/dev/null \
            || fatal "$(member "$i") did not see the killed rexnode-1 dead"
    done
    t1=$(now_ms)
    figures+=("rexnode-1 killed → seen dead by both others"$'\t'"$((t1 - t0))")
    pm pod rm --force rexnode-1 >/dev/null
    t0=$(now_ms)
    play 1 "$K8S_STATE/pods"
    wait_ready "$t0" 1
    t1=$(now_ms)
    new_ip=$(pod_ip 1)
    figures+=("replacement played → ready, seen alive ($old_ip → $new_ip)"$'\t'"$((t1 - t0))")
    [ "$(state_json rexnode-1 | "$PYTHON" -S -c 'import json,sys; print(json.load(sys.stdin)["feeds"].get("k8s.held", {}).get("value"))')" = durable ] \
        || fatal "the replaced rexnode-1 lost its feed k8s.held (its volume's state)"
    ok "rexnode-1 killed, seen dead, replaced: ready again with its volume's state (feed k8s.held)"

    # A rolling image upgrade under writes.
    local upgraded="localhost/rexnode:k8s-upgrade-${NETWORK#rexk8s-}"
    record image "$upgraded"
    pm create --name "rexk8s-commit-${NETWORK#rexk8s-}" "$IMAGE" >/dev/null
    pm commit --quiet --change "LABEL=io.swiftrex.upgrade=${NETWORK#rexk8s-}" "rexk8s-commit-${NETWORK#rexk8s-}" "$upgraded" >/dev/null
    pm rm --volumes "rexk8s-commit-${NETWORK#rexk8s-}" >/dev/null
    render "$upgraded" "$K8S_STATE/pods-upgrade"
    local writers=() rolled unavailable stopped acked_count seen_left=0
    rm -f "$K8S_STATE/stop-writers"
    for ((i = 0; i < REPLICAS; i++)); do
        : >"$K8S_STATE/acked.$i"
        writer "$i" &
        writers+=($!)
    done
    sleep 1 # the writers under way before the first member goes
    log "rolling upgrade to $upgraded, member by member"
    rolled=$(now_ms)
    for ((i = 0; i < REPLICAS; i++)); do
        t0=$(now_ms)
        pm pod stop --time 30 "$(member "$i")" >/dev/null
        stopped=$(($(now_ms) - t0))
        code=$(pq inspect --format '{{.State.ExitCode}}' "$(member "$i")-rexnode" 2>/dev/null)
        [ "$code" = 0 ] || fatal "$(member "$i") exited $code on SIGTERM"
        # Seen left (announced); or dead, when the announcement was lost (README, "Running on
        # podman": a DNS stall of libzmq's I/O thread, likely).
        local peer
        peer=$(member $(((i + 1) % REPLICAS)))
        rexctl wait "$peer" --for "gone=$(member "$i")" --timeout 5s >/dev/null || fatal "$peer did not see $(member "$i") go"
        if rexctl wait "$peer" --for "state=peers.$(member "$i").membership=left" --timeout 1s >/dev/null 2>&1; then
            seen_left=$((seen_left + 1))
        else
            warn "$peer holds the stopped $(member "$i") dead, not left: its leave did not reach it"
        fi
        pm pod rm "$(member "$i")" >/dev/null
        t1=$(now_ms)
        play "$i" "$K8S_STATE/pods-upgrade"
        wait_ready "$t0" "$i"
        unavailable=$(($(now_ms) - t0))
        figures+=("  $(member "$i"): pod stop (SIGTERM → exit 0)"$'\t'"$stopped")
        figures+=("  $(member "$i"): kube play → ready, seen alive"$'\t'"$(($(now_ms) - t1))")
        [ "$(pq inspect --format '{{.ImageName}}' "$(member "$i")-rexnode")" = "$upgraded" ] \
            || fatal "$(member "$i") does not run $upgraded"
        figures+=("  $(member "$i"): unavailable (SIGTERM → new pod ready)"$'\t'"$unavailable")
    done
    figures+=("rolling upgrade, $REPLICAS members ($seen_left of $REPLICAS seen left, the others dead)"$'\t'"$(($(now_ms) - rolled))")
    touch "$K8S_STATE/stop-writers"
    wait "${writers[@]}"
    local counts total=0 missing=0
    for ((i = 0; i < REPLICAS; i++)); do
        read -r counts acked_count < <(lost "$i")
        missing=$((missing + counts))
        total=$((total + acked_count))
    done
    [ "$missing" -eq 0 ] || fatal "$missing of $total acknowledged actions are not in their member's state after the upgrade"
    rexctl send rexnode-0 set k8s.news upgraded >/dev/null
    rexctl wait rexnode-2 --for state=follows.news.lastValue=upgraded --timeout 20s >/dev/null \
        || fatal "the follow across pods does not deliver after the upgrade"
    ok "rolled member by member under writes: $total actions acknowledged, none lost; the follow still delivers"

    t0=$(now_ms)
    down
    figures+=("down (pods SIGTERM, volumes, network)"$'\t'"$(($(now_ms) - t0))")
    : >"$MADE"
    {
        printf 'STEP\tMS\n'
        printf '%s\n' "${figures[@]}"
    } | print_table >&2
    ok "kubernetes check passed: $REPLICAS members from $IMAGE played, killed, replaced, upgraded and removed; nothing left"
}

check_cleanup() {
    local status=$?
    [ -e "$K8S_STATE/stop-writers" ] || touch "$K8S_STATE/stop-writers" 2>/dev/null || true
    wait 2>/dev/null || true
    if [ -s "$MADE" ]; then
        (down) || status=1
    fi
    rm -rf "$K8S_STATE"
    exit "$status"
}

main() {
    [ $# -ge 1 ] || usage
    local command=$1
    shift
    case $command in
    up) cmd_up "$@" ;;
    down) [ $# -eq 0 ] || usage; cmd_down ;;
    status) [ $# -eq 0 ] || usage; cmd_status ;;
    check) cmd_check "$@" ;;
    -h | --help | help) usage 0 ;;
    *)
        error "unknown command '$command'"
        usage
        ;;
    esac
}

main "$@"
