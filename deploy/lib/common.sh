# shellcheck shell=bash
# Shared helpers for deploy/ scripts: logging, paths, system packages, building, ports, processes.
# Source it; it defines functions and variables only and has no side effects beyond that.
#
# Environment:
#   REX_DEPLOY_DIR   where cluster state lives (default: <repo>/.deploy)
#   REX_BUILD        release (default) or debug: which build of rexnode/rexctl to use
#   REX_BIN_DIR      a directory holding prebuilt rexnode and rexctl to use instead (never built
#                    here; e.g. an older commit's release build for a same-run comparison)
#   REX_PORT_RANGE   LOW-HIGH loopback ports to pick from (default 17000-31999; keep it below 32768,
#                    the start of the kernel's ephemeral range, so no reconnecting socket can be
#                    handed the same port and end up connected to itself)
#   NO_COLOR         set to disable colour on a terminal

# --- logging (all to stderr) -------------------------------------------------------------------

if [ -t 2 ] && [ -z "${NO_COLOR:-}" ]; then
    _C_DIM=$'\e[2m' _C_RED=$'\e[31m' _C_YEL=$'\e[33m' _C_GRN=$'\e[32m' _C_BOLD=$'\e[1m' _C_OFF=$'\e[0m'
else
    _C_DIM='' _C_RED='' _C_YEL='' _C_GRN='' _C_BOLD='' _C_OFF=''
fi

log() { printf '%s==>%s %s\n' "$_C_BOLD" "$_C_OFF" "$*" >&2; }
info() { printf '    %s\n' "$*" >&2; }
ok() { printf '%s ok%s %s\n' "$_C_GRN" "$_C_OFF" "$*" >&2; }
warn() { printf '%swarning:%s %s\n' "$_C_YEL" "$_C_OFF" "$*" >&2; }
error() { printf '%serror:%s %s\n' "$_C_RED" "$_C_OFF" "$*" >&2; }
fatal() {
    error "$*"
    exit 1
}

# --- paths -------------------------------------------------------------------------------------

DEPLOY_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEPLOY_SCRIPTS_DIR="$(dirname "$DEPLOY_LIB_DIR")"
REPO_ROOT="$(dirname "$DEPLOY_SCRIPTS_DIR")"
REX_BUILD="${REX_BUILD:-release}"
BIN_DIR="${REX_BIN_DIR:-$REPO_ROOT/.build/$REX_BUILD}"
REXNODE="$BIN_DIR/rexnode"
REXCTL="$BIN_DIR/rexctl"

# Cluster state: one directory holding cluster.json, node-args, pids/ID.pid, logs/ID.log.
set_state_dir() {
    STATE_DIR="$(realpath -m "$1")"
    CLUSTER_FILE="$STATE_DIR/cluster.json"
    NODE_ARGS_FILE="$STATE_DIR/node-args"
    PID_DIR="$STATE_DIR/pids"
    LOG_DIR="$STATE_DIR/logs"
    KEY_DIR="$STATE_DIR/keys"
    OPERATORS_FILE="$STATE_DIR/operators.json"
    NODE_BIN_FILE="$STATE_DIR/node-bin"
    # The node binary the cluster runs: rexnode, or the one `up --node-bin PATH` recorded (a
    # feature's own node, e.g. Examples/Chat's chat-node).
    NODE_BIN=$REXNODE
    if [ -f "$NODE_BIN_FILE" ]; then NODE_BIN=$(<"$NODE_BIN_FILE"); fi
    # The cluster authority (a secured cluster): its signing key, and the public key every node
    # reads beside the cluster file.
    AUTHORITY_KEY="$STATE_DIR/authority.key"
    export REXCTL_CLUSTER="$CLUSTER_FILE"
}
set_state_dir "${REX_DEPLOY_DIR:-$REPO_ROOT/.deploy}"

# --- CI ----------------------------------------------------------------------------------------

# True under CI (CI=true, as CI services set it): there a check that cannot run is a failed
# check, never a skip.
in_ci() {
    case "${CI:-}" in
    true | TRUE | True | 1) return 0 ;;
    *) return 1 ;;
    esac
}

# --- system packages ---------------------------------------------------------------------------

# Installs the Debian packages the project needs when any is missing: apt-get when root, else
# prints the exact command and fails.
ensure_system_packages() {
    local missing=()
    [ -f /usr/include/zmq.h ] || missing+=(libzmq3-dev)
    [ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev) # the node's durable state (CSQLite)
    [ -f /usr/include/sodium.h ] || missing+=(libsodium-dev)   # the cluster authority's signatures (CSodium)
    command -v python3 >/dev/null 2>&1 || missing+=(python3)
    # The hostile-peer scenarios' rogue (deploy/e2e/rogue.py) runs on the system python with
    # pyzmq; a `python3` earlier on PATH (a pyenv shim) does not have it.
    /usr/bin/python3 -c 'import zmq' >/dev/null 2>&1 || missing+=(python3-zmq)
    [ -x /usr/sbin/iptables ] || missing+=(iptables) # deploy/hosts.sh: partitions and loss between test hosts
    command -v tmux >/dev/null 2>&1 || missing+=(tmux) # e2e 20_top: rexctl top in a pseudo-terminal
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ]; then
        log "installing ${missing[*]} (apt-get)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        error "missing system packages: ${missing[*]}"
        fatal "install them first:  sudo apt-get update && sudo apt-get install -y ${missing[*]}"
    fi
}

# --- cluster readiness -------------------------------------------------------------------------

# Prints "ID STATE" for every node of `rexctl -o json nodes` on stdin: STATE is ready (answers ping
# and every reachable node sees it alive), joining (answers, not yet seen alive by all) or down.
readiness() {
    py -c '
import json, sys
for line in sys.stdin:
    try: n = json.loads(line)
    except ValueError: continue
    if not isinstance(n, dict) or "id" not in n: continue
    seen = (n.get("seenBy") or {}).values()
    state = "down" if not n.get("reachable") else "ready" if all(s == "alive" for s in seen) else "joining"
    print(n["id"], state)
'
}

# Prints "ID STATE DETAIL" for every node of `rexctl -o json nodes` on stdin, STATE as in
# readiness; DETAIL says why a node is not ready: its error when down, and when joining which
# nodes see it as what ("suspect to n3 n7; unknown to n9 (+4)").
readiness_detail() {
    py -c '
import json, sys
def names(viewers):
    return " ".join(viewers[:4]) + (" (+%d)" % (len(viewers) - 4) if len(viewers) > 4 else "")
for line in sys.stdin:
    try: n = json.loads(line)
    except ValueError: continue
    if not isinstance(n, dict) or "id" not in n: continue
    if not n.get("reachable"):
        print(n["id"], "down", " ".join(str(n.get("error") or "no answer").split())[:200])
        continue
    views = {}
    for viewer, status in (n.get("seenBy") or {}).items():
        if status != "alive": views.setdefault(str(status), []).append(viewer)
    detail = "; ".join("%s to %s" % (status, names(viewers)) for status, viewers in sorted(views.items()))
    print(n["id"], "joining" if views else "ready", detail)
'
}

# --- test suites -------------------------------------------------------------------------------

# select_scenarios DIR [PATTERN…]: sets `scenarios` to DIR's NN_*.sh files in order, or to those
# whose name (without .sh) matches one of the glob PATTERNs; fails when none does.
select_scenarios() {
    local dir=$1 file name wanted
    shift
    scenarios=()
    for file in "$dir"/[0-9]*.sh; do
        name=$(basename "$file" .sh)
        if [ $# -gt 0 ]; then
            for wanted in "$@"; do
                # shellcheck disable=SC2053 # a glob on purpose
                if [[ "$name" == $wanted ]]; then
                    scenarios+=("$file")
                    break
                fi
            done
        else
            scenarios+=("$file")
        fi
    done
    [ ${#scenarios[@]} -gt 0 ] || fatal "no scenario matches: $*"
}

# Prints the path of NAME, promtool (Prometheus' checker, for `promtool check metrics`) or
# prometheus (the server, for the e2e scrape), or fails. Debian ships both only inside the
# `prometheus` package (19 MB download, 96 MB installed, pulling in a web UI's JavaScript, and its
# postinst would start a Prometheus server as a service): so rather than install that, the .deb is
# fetched with `apt-get download` and only usr/bin/promtool and usr/bin/prometheus (static
# binaries) are unpacked into .deploy/tools/. Done once for both; safe to re-run. Not part of
# ensure_system_packages, so `deploy/cluster.sh up` never fetches it.
ensure_prometheus_binary() {
    local name=$1
    case "$name" in
    promtool | prometheus) ;;
    *) fatal "ensure_prometheus_binary: not in the prometheus package: $name" ;;
    esac
    if command -v "$name" >/dev/null 2>&1; then
        command -v "$name"
        return 0
    fi
    local dir="$REPO_ROOT/.deploy/tools" work binary
    if [ -x "$dir/$name" ] && "$dir/$name" --version >/dev/null 2>&1; then
        echo "$dir/$name"
        return 0
    fi
    command -v apt-get >/dev/null 2>&1 || { error "no $name and no apt-get to fetch it"; return 1; }
    log "fetching promtool and prometheus (Debian's prometheus package, unpacked into ${dir#"$PWD"/}; once)"
    work=$(mktemp -d)
    if ! (cd "$work" && { apt-get download -qq prometheus >/dev/null 2>&1 \
        || { [ "$(id -u)" -eq 0 ] && apt-get update -qq && apt-get download -qq prometheus >/dev/null; }; }); then
        rm -rf "$work"
        error "apt-get download prometheus failed"
        return 1
    fi
    mkdir -p "$dir"
    if ! dpkg-deb -x "$work"/prometheus_*.deb "$work/root"; then
        rm -rf "$work"
        error "dpkg-deb could not unpack the prometheus package"
        return 1
    fi
    for binary in promtool prometheus; do
        [ -x "$work/root/usr/bin/$binary" ] && mv "$work/root/usr/bin/$binary" "$dir/$binary"
    done
    rm -rf "$work"
    if ! [ -x "$dir/$name" ]; then
        error "the prometheus package has no usr/bin/$name"
        return 1
    fi
    echo "$dir/$name"
}

ensure_promtool() { ensure_prometheus_binary promtool; }
ensure_prometheus() { ensure_prometheus_binary prometheus; }

# --- building ----------------------------------------------------------------------------------

# Builds rexnode and rexctl when a binary is missing or older than any source or Package.swift.
build_if_stale() {
    local stale=''
    if [ -n "${REX_BIN_DIR:-}" ]; then
        [ -x "$REXNODE" ] && [ -x "$REXCTL" ] || fatal "REX_BIN_DIR=$REX_BIN_DIR has no executable rexnode and rexctl"
        return 0
    fi
    if ! [ -x "$REXNODE" ] || ! [ -x "$REXCTL" ]; then
        stale='not built yet'
    elif [ -n "$(find "$REPO_ROOT/Sources" "$REPO_ROOT/Package.swift" -newer "$REXNODE" -print -quit)" ] \
        || [ -n "$(find "$REPO_ROOT/Sources" "$REPO_ROOT/Package.swift" -newer "$REXCTL" -print -quit)" ]; then
        stale='sources changed'
    fi
    if [ -z "$stale" ]; then
        return 0
    fi
    log "building rexnode and rexctl ($REX_BUILD; $stale) — the first build takes a few minutes"
    local started=$SECONDS
    # One product per invocation: given several --product flags, swift build builds only the last.
    local product
    for product in rexnode rexctl; do
        if ! (cd "$REPO_ROOT" && swift build -c "$REX_BUILD" --product "$product") >&2; then
            fatal "swift build --product $product failed (see above)"
        fi
    done
    # swift build leaves an up-to-date binary untouched; touch both so the check above settles.
    touch "$REXNODE" "$REXCTL"
    ok "built in $((SECONDS - started))s: $BIN_DIR/{rexnode,rexctl}"
}

rexctl() { "$REXCTL" "$@"; }

# --- keys (a secured cluster, README "Security") -----------------------------------------------

# public_key FILE: the public key of a key file (from its .pub beside it).
public_key() { sed -n 's/^public-key = //p' "${1%.key}.pub"; }

# ensure_key NAME: KEY_DIR/NAME.key (mode 0600) and NAME.pub, made once with rexctl keygen and
# kept afterwards.
ensure_key() {
    local file="$KEY_DIR/$1.key"
    if [ -f "$file" ] && [ -f "${file%.key}.pub" ]; then return 0; fi
    rexctl keygen "$file" --force >/dev/null || fatal "rexctl keygen $file failed"
}

# ensure_keys ID…: a key per node, the operators' keys (operator: admin, rexctl's default;
# viewer: read-only), and OPERATORS_FILE listing the operators.
ensure_keys() {
    local id
    mkdir -p "$KEY_DIR"
    chmod 700 "$KEY_DIR"
    for id in "$@"; do ensure_key "$id"; done
    ensure_key operator
    ensure_key viewer
    printf '{"operators": [\n  {"name": "operator", "key": "%s", "role": "admin"},\n  {"name": "viewer", "key": "%s", "role": "viewer"}\n]}\n' \
        "$(public_key "$KEY_DIR/operator.key")" "$(public_key "$KEY_DIR/viewer.key")" >"$OPERATORS_FILE.tmp"
    mv "$OPERATORS_FILE.tmp" "$OPERATORS_FILE"
    ensure_authority
}

# ensure_authority: the cluster authority's key pair beside the cluster file (authority.key,
# mode 0600, and authority.pub, which every node reads), made once with rexctl authority init and
# kept afterwards. On a real cluster the signing key lives offline (README, "Security").
ensure_authority() {
    if [ -f "$AUTHORITY_KEY" ] && [ -f "${AUTHORITY_KEY%.key}.pub" ]; then return 0; fi
    rexctl authority init --out "$STATE_DIR" --force >/dev/null || fatal "rexctl authority init --out $STATE_DIR failed"
}

# --- ports -------------------------------------------------------------------------------------

# True when something listens on 127.0.0.1:PORT (or the port is bound at all, when ss is around).
port_in_use() {
    local port=$1
    if command -v ss >/dev/null 2>&1; then
        [ -n "$(ss -Htan "sport = :$port" 2>/dev/null | awk '$1 != "TIME-WAIT"')" ]
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
    fi
}

# busy_among PORT…: prints those of the ports that are in use (as port_in_use tells), with one
# `ss` for the whole set rather than one per port (400 ports at N = 100); without ss, one by one.
busy_among() {
    local port
    if command -v ss >/dev/null 2>&1; then
        local -A bound=()
        while read -r port; do bound[$port]=1; done < <(ss -Htan 2>/dev/null | awk '$1 != "TIME-WAIT" { n = split($4, a, ":"); print a[n] }')
        for port in "$@"; do [ -z "${bound[$port]:-}" ] || echo "$port"; done
    else
        for port in "$@"; do ! port_in_use "$port" || echo "$port"; done
    fi
}

# Prints COUNT distinct free loopback ports from REX_PORT_RANGE, one per line, chosen at random so
# that concurrent clusters (other worktrees, tests) rarely collide.
pick_ports() {
    local count=$1 range="${REX_PORT_RANGE:-17000-31999}"
    local low=${range%-*} high=${range#*-}
    ((low > 1023 && high < 32768 && low < high)) || fatal "REX_PORT_RANGE=$range must lie within 1024-32767"
    local -A chosen=()
    local picked=0 tries=0 port
    while ((picked < count)); do
        ((tries++ < 1000)) || fatal "no $count free ports in $range"
        port=$((low + (RANDOM * 32768 + RANDOM) % (high - low + 1)))
        [ -n "${chosen[$port]:-}" ] && continue
        port_in_use "$port" && continue
        chosen[$port]=1
        echo "$port"
        picked=$((picked + 1))
    done
}

# Prints SETS×COUNT free ports (SETS defaults to 2), one set after another, from one block of
# 50×SETS ports in REX_PORT_RANGE chosen at random: set k gets BASE+50k+1… — pub ports BASE+1…,
# control ports BASE+51…, metrics ports BASE+101… (so n1 gets e.g. 23401, 23451 and 23501).
pick_port_block() {
    local count=$1 sets=${2:-2} range="${REX_PORT_RANGE:-17000-31999}"
    # Each set of ports is a group of STRIDE (a multiple of 50, so small clusters keep their ports).
    local stride=$(((count / 50 + 1) * 50))
    local low=${range%-*} high=${range#*-} size=$((stride * ${2:-2}))
    ((count <= 250)) || fatal "at most 250 nodes per cluster (got $count)"
    ((low > 1023 && high < 32768 && high - low >= size - 1)) || fatal "REX_PORT_RANGE=$range must span $size ports within 1024-32767"
    local blocks=$(((high - low + 1) / size)) tries base i group ports
    for ((tries = 0; tries < 50; tries++)); do
        base=$((low + (RANDOM % blocks) * size))
        ports=()
        for ((group = 0; group < sets; group++)); do
            for ((i = 1; i <= count; i++)); do ports+=($((base + stride * group + i))); done
        done
        [ -z "$(busy_among "${ports[@]}")" ] || continue
        printf '%s\n' "${ports[@]}"
        return 0
    done
    fatal "no block of $((sets * count)) free ports in $range after 50 tries"
}

# The port of a tcp://HOST:PORT endpoint.
endpoint_port() { echo "${1##*:}"; }

# --- JSON (python3; present on every machine of this kind, installed above otherwise) ----------

# The system python starts in a fraction of the time of a pyenv shim; -S skips site-packages
# (only the standard library is used).
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3 || echo python3)
py() { "$PYTHON" -S "$@"; }

# json_get PATH < document: prints the value at a dotted path (numbers index arrays);
# strings bare, other values as JSON; empty output and status 1 when the path is missing.
json_get() {
    py -c '
import json, sys
value = json.load(sys.stdin)
for part in sys.argv[1].split(".") if sys.argv[1] else []:
    try:
        value = value[int(part)] if isinstance(value, list) else value[part]
    except (KeyError, IndexError, ValueError, TypeError):
        sys.exit(1)
print(value if isinstance(value, str) else json.dumps(value))
' "$1"
}

# --- processes ---------------------------------------------------------------------------------

# True when PID is alive and is the cluster's node binary (NODE_BIN: rexnode unless `up --node-bin`)
# started for this state dir with --id ID (guards against a recycled pid: never signal a process
# we did not start).
is_our_node() {
    local pid=$1 id=$2 cmdline
    [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
    cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
    [[ "$cmdline" == *"${NODE_BIN##*/} --cluster $CLUSTER_FILE --id $id "* ]]
}

# True while any thread of PID has not exited. The state of the pid alone (its main thread) does
# not tell: it reads Z as soon as the main thread is done, while other threads still run and the
# process still holds its sockets. Once every thread has exited the process is a zombie waiting for
# its parent to reap it: gone, as it holds no memory, file or port any more. (Orphaned nodes belong
# to pid 1, which may take a second or more to reap them; nothing here waits for that.)
pid_alive() {
    local stat line state
    for stat in /proc/"$1"/task/*/stat; do
        read -r line 2>/dev/null <"$stat" || continue
        state=${line##*) }
        state=${state%% *}
        [ "$state" = Z ] || [ "$state" = X ] || return 0
    done
    return 1
}

# The start time of PID (clock ticks after boot, /proc/PID/stat field 22). With it a pid names one
# process: a pid alone may be handed to a new process once the old one is reaped.
process_start_time() {
    local line fields
    read -r line 2>/dev/null <"/proc/$1/stat" || return 1
    read -r -a fields <<<"${line##*) }"
    [ -n "${fields[19]:-}" ] || return 1
    echo "${fields[19]}"
}

# True while the process PID that started at START has a thread left.
process_running() {
    pid_alive "$1" && [ "$(process_start_time "$1")" = "$2" ]
}

# wait_exited TIMEOUT_MS "PID START [NAME]"…: waits until each process has exited (see pid_alive),
# checking every 10 ms for at most TIMEOUT_MS; prints the entries still running at the deadline.
wait_exited() {
    local timeout=$1 entry pid start deadline
    shift
    local -a running=("$@") still=()
    deadline=$(($(now_ms) + timeout))
    while [ ${#running[@]} -gt 0 ]; do
        still=()
        for entry in "${running[@]}"; do
            read -r pid start _ <<<"$entry"
            process_running "$pid" "$start" && still+=("$entry")
        done
        running=("${still[@]}")
        [ ${#running[@]} -gt 0 ] && [ "$(now_ms)" -lt "$deadline" ] || break
        sleep 0.01
    done
    [ ${#running[@]} -eq 0 ] || printf '%s\n' "${running[@]}"
}

# Milliseconds since the epoch.
now_ms() { date +%s%3N; }

# Prints a table from tab-separated lines on stdin, columns aligned; numeric columns right-aligned.
print_table() {
    py -c '
import sys
rows = [line.rstrip("\n").split("\t") for line in sys.stdin if line.strip()]
if not rows: sys.exit(0)
width = max(len(r) for r in rows)
rows = [r + [""] * (width - len(r)) for r in rows]
def numeric(col):
    cells = [r[col] for r in rows[1:] if r[col] not in ("", "-")]
    return bool(cells) and all(c.replace(".", "", 1).isdigit() for c in cells)
sizes = [max(len(r[c]) for r in rows) for c in range(width)]
right = [numeric(c) for c in range(width)]
for r in rows:
    cells = [r[c].rjust(sizes[c]) if right[c] else r[c].ljust(sizes[c]) for c in range(width)]
    print("  ".join(cells).rstrip())
'
}
