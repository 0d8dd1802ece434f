# shellcheck shell=bash
# Helpers for the hostile-peer scenarios (tests/NN_hostile_*.sh), sourced by deploy/e2e/run.sh
# after lib.sh. A scenario:
#
#   hostile_begin [--secured] NAME [NODE…]
#                                a fresh 3-node cluster (plain; --secured: CURVE, and the rogue
#                                holds stolen keys), its pids and RSS baselines, a peak-RSS
#                                watch, and a cleanup trap; NODE… are the attacked nodes
#   hostile_rogue SUBCOMMAND …   runs deploy/e2e/rogue.py (its JSON summary lands in $H_OUT);
#                                a failed precondition (exit 3) fails the scenario at once
#   hostile_check_* / hostile_note   checks that record a failure instead of exiting, so every
#                                measurement is still taken and printed
#   hostile_verdict [--no-return WHY]
#                                every node alive, each attacked node answers ping within the
#                                limit, its peak RSS is under budget and its RSS gets back to
#                                within HOSTILE_RETURN_MIB of its baseline (--no-return: not
#                                expected, WHY printed: the attack left state the node keeps);
#                                fails with every reason at once
#
# On exit (pass or fail) the trap stops the rogues it started, prints one result line —
# scenario, peak RSS MiB, after RSS MiB, ping ms, seconds, PASS/FAIL and why — appends it to
# $STATE_DIR/hostile-results.tsv (run.sh prints them as a table at the end), keeps the node logs
# of a failed scenario in $STATE_DIR/hostile-failed/NAME/ and removes its temporary files.
# A scenario that exits 77 is skipped (run.sh counts it as such).
#
# Environment:
#   HOSTILE_RSS_MIB       RSS budget of an attacked node in MiB (default 256); per scenario
#                         HOSTILE_RSS_MIB_<NAME>, e.g. HOSTILE_RSS_MIB_SLOW_SUBSCRIBER=512
#   HOSTILE_PING_MS       control ping round-trip limit (default 100)
#   HOSTILE_PING_TRIES    timing tries (default 5; a missing reply fails at once)
#   HOSTILE_RETURN_MIB    how far above its baseline the RSS may stay after the attack (default 64)
#   HOSTILE_RETURN_S      how long it gets to come down (default 10)
#   HOSTILE_HEAVY=1       also run the heavy scenarios (100,000 follows)

ROGUE_PYTHON=/usr/bin/python3
ROGUE_PY="$DEPLOY_SCRIPTS_DIR/e2e/rogue.py"

rogue() { "$ROGUE_PYTHON" "$ROGUE_PY" "$@"; }

# hostile_begin [--secured] NAME [ATTACKED…]
hostile_begin() {
    local security=--insecure
    if [ "$1" = --secured ]; then
        security=''
        shift
    fi
    H_NAME=$1
    H_STARTED=$(now_ms)
    shift
    H_ATTACKED=("$@")
    [ ${#H_ATTACKED[@]} -gt 0 ] || H_ATTACKED=(n1)
    local upper var
    upper=$(tr '[:lower:]-' '[:upper:]_' <<<"$H_NAME")
    var="HOSTILE_RSS_MIB_$upper"
    H_BUDGET=${!var:-${HOSTILE_RSS_MIB:-256}}
    H_PING_LIMIT=${HOSTILE_PING_MS:-100}
    H_FAILS=() H_BG=() H_KILLED=()
    H_PING='-' H_AFTER='-' H_PEAK='-' H_OUT='' H_WATCH='' H_WATCH_OUT=/dev/null
    declare -gA H_PID=() H_CONTROL=() H_PUB=() H_BASE=() H_MEMBERSHIP=()
    H_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hostile.XXXXXX")
    trap hostile_end EXIT
    "$ROGUE_PYTHON" -c 'import zmq' 2>/dev/null \
        || hostile_fail "$ROGUE_PYTHON has no zmq module: apt-get install python3-zmq (ensure_system_packages does it)"

    # A fresh cluster: an earlier scenario may have left a node dead, a rogue peer behind or a
    # few hundred MiB allocated.
    local started id
    started=$(now_ms)
    # (A node still chewing on the previous attack gets 1 s to stop, then SIGKILL.)
    REX_STOP_GRACE=1 "$CLUSTER_SH" down >"$H_TMP/cluster.log" 2>&1 || true
    # These scenarios test what a node does with hostile input from a peer or client it let in.
    # On a secured cluster (--secured) only a member's or an operator's key gets that far, so the
    # rogue attacks with stolen ones (rogue.py: keys/ beside the cluster file), which CURVE cannot
    # stop. The others run plain: a rogue publisher on a port of its own is never connected to
    # by a secured node, and raw-ZMTP attacks have no CURVE. What CURVE keeps out is tested by
    # the 2x_secure_* scenarios.
    # shellcheck disable=SC2086
    if ! "$CLUSTER_SH" up 3 $security -- $E2E_NODE_ARGS >>"$H_TMP/cluster.log" 2>&1; then
        sed 's/^/      /' "$H_TMP/cluster.log" >&2
        hostile_fail "a fresh 3-node cluster did not come up"
    fi
    while read -r id pub control membership; do
        H_PUB[$id]=$pub H_CONTROL[$id]=$control H_MEMBERSHIP[$id]=$membership
        H_PID[$id]=$(cat "$PID_DIR/$id.pid")
        H_BASE[$id]=$(rss_mib "${H_PID[$id]}")
    done < <(py -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]: print(n["id"], n["pub"], n["control"], n.get("membership") or "-")' "$CLUSTER_FILE")
    local pids=() args=()
    for id in n1 n2 n3; do
        pids+=("$id=${H_PID[$id]}")
        args+=(--pid "${H_PID[$id]}")
    done
    H_WATCH_OUT="$H_TMP/rss-peaks.json"
    rogue rss-watch "${args[@]}" --out "$H_WATCH_OUT" --stop "$H_TMP/rss-stop" --max-seconds 300 &
    H_WATCH=$!
    step "fresh $([ -n "$security" ] && echo "plain" || echo "secured (the rogue holds stolen keys)") cluster in $(($(now_ms) - started)) ms: ${pids[*]}; RSS n1/n2/n3 ${H_BASE[n1]}/${H_BASE[n2]}/${H_BASE[n3]} MiB; attacked: ${H_ATTACKED[*]}; budget ${H_BUDGET} MiB"
}

# rss_mib PID [FIELD]: VmRSS (or FIELD, e.g. VmHWM, the peak) of a live process in MiB; empty when gone.
rss_mib() {
    awk -v f="${2:-VmRSS}:" '$1 == f { printf "%d\n", ($2 + 512) / 1024 }' "/proc/$1/status" 2>/dev/null || true
}

# node_alive ID: its process (recorded by hostile_begin) still runs.
node_alive() { pid_alive "${H_PID[$1]}" && is_our_node "${H_PID[$1]}" "$1"; }

# crash_reason ID: what a dead node's log says about its end (the Swift runtime's message and the
# first frame of the crashed thread), one line.
crash_reason() {
    local log="$LOG_DIR/$1.log" what where
    [ -f "$log" ] || return 0
    what=$(grep -m1 -oE '(Swift runtime failure|Fatal error|Illegal instruction|Segmentation fault|Killed)[^*]*' "$log" | sed 's/ *$//' || true)
    where=$(grep -A4 -m1 ' crashed:' "$log" \
        | sed -nE 's|^ *[0-9]+ +(\[[a-z]+\] +)*0x[0-9a-f]+ (.+) \+ [0-9]+ in [^ ]+ at .*/([^/]+)$|\2 at \3|p' | head -n 1 || true)
    [ -n "$what$where" ] && printf ': %s%s' "${what:-crashed}" "${where:+ in $where}"
    return 0
}

# hostile_note TEXT: records a failed check; hostile_verdict fails the scenario with all of them.
hostile_note() {
    error "$*"
    H_FAILS+=("$*")
}

# hostile_fail TEXT: fails the scenario now, with TEXT as the reason on its result line.
hostile_fail() {
    H_FAILS+=("$*")
    fail "$*"
}

# hostile_rogue [--epoch E] SUBCOMMAND ARGS…: runs the rogue in the foreground; its
# summary is left in $H_OUT.
hostile_rogue() {
    local rc=0
    rogue "$@" >"$H_TMP/rogue.out" || rc=$?
    H_OUT=$(tail -n 1 "$H_TMP/rogue.out" 2>/dev/null || true)
    case $rc in
    0) ;;
    3) hostile_fail "precondition failed, the attack did not happen: $(json_get precondition <<<"$H_OUT" 2>/dev/null || echo "$H_OUT")" ;;
    *) hostile_fail "rogue.py $* exited with status $rc" ;;
    esac
}

# hostile_rogue_bg NAME SUBCOMMAND ARGS…: runs a rogue in the background (stopped by the trap at
# the latest); its output goes to $H_TMP/NAME.out, its pid to H_BG.
hostile_rogue_bg() {
    local name=$1
    shift
    rogue "$@" >"$H_TMP/$name.out" &
    H_BG+=($!)
}

# hostile_out PATH: a value of the last rogue summary.
hostile_out() { json_get "$1" <<<"$H_OUT"; }

# hostile_ping ID: one timed control ping (HOSTILE_PING_TRIES tries, the best counts); records
# the round trip in H_PING; a missing reply or every try over the limit is a failed check.
hostile_ping() {
    local id=$1 out rc=0 ms
    out=$(rogue ping --control "${H_CONTROL[$id]}" --tries "${HOSTILE_PING_TRIES:-5}" --limit-ms "$H_PING_LIMIT") || rc=$?
    ms=$(json_get ms <<<"$out" 2>/dev/null || echo '-')
    [ "$H_PING" = '-' ] || [ "$ms" = '-' ] || ms=$(py -c 'import sys; print(max(float(a) for a in sys.argv[1:]))' "$H_PING" "$ms")
    H_PING=$ms
    case $rc in
    0) step "$id answers ping in $(json_get ms <<<"$out") ms (tries: $(json_get samples <<<"$out"))" ;;
    1) hostile_note "$id answers ping too slowly: best of $(json_get samples <<<"$out") ms is over ${H_PING_LIMIT} ms" ;;
    *)
        H_PING='none'
        hostile_note "$id does not answer ping ($(json_get error <<<"$out" 2>/dev/null || echo "$out"))"
        ;;
    esac
}

# hostile_check_alive: every node of the cluster (but those the scenario killed) still runs.
hostile_check_alive() {
    local id dead=()
    for id in n1 n2 n3; do
        [[ " ${H_KILLED[*]} " == *" $id "* ]] && continue
        if node_alive "$id"; then continue; fi
        dead+=("$id")
        hostile_note "node $id (pid ${H_PID[$id]}) died$(crash_reason "$id")"
    done
    [ ${#dead[@]} -gt 0 ] || step "every node alive: $(for id in n1 n2 n3; do [[ " ${H_KILLED[*]} " == *" $id "* ]] || printf '%s ' "$id=${H_PID[$id]}"; done)"
}

# peak_mib ID: the peak RSS of a node during the scenario: its VmHWM when alive, else the most
# the watch saw.
peak_mib() {
    local id=$1 hwm watched
    hwm=$(rss_mib "${H_PID[$id]}" VmHWM)
    watched=$(py -c '
import json, sys
try: print((json.load(open(sys.argv[1])).get(sys.argv[2], 0) + 512) // 1024)
except (OSError, ValueError): print(0)' "$H_WATCH_OUT" "${H_PID[$id]}")
    if [ -n "$hwm" ] && [ "$hwm" -ge "$watched" ]; then echo "$hwm"; else echo "$watched"; fi
}

# hostile_check_budget: each attacked node's peak RSS is under the budget.
hostile_check_budget() {
    local id peak max=0
    for id in "${H_ATTACKED[@]}"; do
        peak=$(peak_mib "$id")
        [ "$peak" -gt "$max" ] && max=$peak
        if [ "$peak" -gt "$H_BUDGET" ]; then
            hostile_note "$id peak RSS ${peak} MiB is over the budget of ${H_BUDGET} MiB (baseline ${H_BASE[$id]} MiB)"
        else
            step "$id peak RSS ${peak} MiB (budget ${H_BUDGET} MiB, baseline ${H_BASE[$id]} MiB)"
        fi
    done
    H_PEAK=$max
}

# hostile_check_return: each attacked node's RSS comes back to baseline + HOSTILE_RETURN_MIB
# within HOSTILE_RETURN_S seconds.
hostile_check_return() {
    local id rss limit deadline
    deadline=$(($(now_ms) + ${HOSTILE_RETURN_S:-10} * 1000))
    for id in "${H_ATTACKED[@]}"; do
        node_alive "$id" || continue
        limit=$((H_BASE[$id] + ${HOSTILE_RETURN_MIB:-64}))
        while :; do
            rss=$(rss_mib "${H_PID[$id]}")
            [ -n "$rss" ] && [ "$rss" -le "$limit" ] && break
            [ "$(now_ms)" -lt "$deadline" ] || break
            sleep 0.2
        done
        H_AFTER=$rss
        if [ -n "$rss" ] && [ "$rss" -le "$limit" ]; then
            step "$id RSS back to ${rss} MiB (baseline ${H_BASE[$id]} + ${HOSTILE_RETURN_MIB:-64} MiB allowed)"
        else
            hostile_note "$id RSS still ${rss:-?} MiB ${HOSTILE_RETURN_S:-10} s after the rogue left (baseline ${H_BASE[$id]} MiB, allowed ${limit} MiB)"
        fi
    done
}

# hostile_check_delivery FROM TO: a value FROM sets still reaches a follow on TO (the attacked
# node keeps serving its honest peers), up to 3 tries of 1 s.
hostile_check_delivery() {
    local from=$1 to=$2 name=hostile_check topic="hc.$H_NAME" try v
    node_alive "$from" && node_alive "$to" || return 0
    if ! rexctl send "$to" follow "$name" "$topic" >/dev/null 2>&1 \
        || ! rexctl wait "$to" --for "keep=follow[$name]" --timeout 2s >/dev/null 2>&1; then
        hostile_note "$to did not take a new follow after the attack"
        return 0
    fi
    for try in 1 2 3; do
        v="check-$try"
        rexctl send "$from" set "$topic" "$v" >/dev/null 2>&1 || true
        if rexctl wait "$to" --for "state=follows.$name.lastValue=$v" --timeout 1s >/dev/null 2>&1; then
            step "$from still delivers to $to: follows.$name.lastValue=$v"
            return 0
        fi
    done
    hostile_note "$from no longer delivers to $to: a follow of $topic got nothing in 3 tries"
}

# hostile_verdict [--no-return WHY] [--delivery FROM:TO]: the common assertions — each attacked
# node answers a timed ping, every node is alive, the attacked nodes' peak RSS is under budget and
# their RSS comes back near baseline (unless --no-return, whose WHY is printed); with --delivery
# FROM still delivers to TO — then fails with every recorded reason.
hostile_verdict() {
    local id back=1 delivery=''
    while [ $# -gt 0 ]; do
        case $1 in
        --no-return)
            back=''
            step "RSS not expected back near its baseline: $2"
            shift
            ;;
        --delivery)
            delivery=$2
            shift
            ;;
        *) fail "hostile_verdict: unknown option $1" ;;
        esac
        shift
    done
    for id in "${H_ATTACKED[@]}"; do
        if node_alive "$id"; then hostile_ping "$id"; fi
    done
    hostile_check_alive
    hostile_check_budget
    if [ -n "$back" ]; then
        hostile_check_return
    else
        for id in "${H_ATTACKED[@]}"; do
            if node_alive "$id"; then H_AFTER=$(rss_mib "${H_PID[$id]}"); fi
        done
    fi
    # (Pointless when an attacked node does not even answer ping.)
    if [ -n "$delivery" ] && [ "$H_PING" != none ]; then
        hostile_check_delivery "${delivery%:*}" "${delivery#*:}"
    fi
    [ ${#H_FAILS[@]} -eq 0 ] || fail "$H_NAME: ${#H_FAILS[@]} check(s) failed (above)"
}

# hostile_skip NAME TEXT: skips the scenario, loudly, before hostile_begin (exit 77).
hostile_skip() {
    local name=$1
    shift
    warn "SKIPPED $name: $*"
    printf '%sRESULT%s %-18s peak %5s MiB  after %5s MiB  ping %7s ms  %5s s  SKIP  (%s)\n' "$_C_BOLD" "$_C_OFF" "$name" - - - - "$*" >&2
    printf '%s\t-\t-\t-\t-\tSKIP\t%s\n' "$name" "$*" >>"$STATE_DIR/hostile-results.tsv"
    exit 77
}

# The EXIT trap of a hostile scenario.
hostile_end() {
    local status=$? pid verdict why id deadline peak seconds
    trap - EXIT
    set +eu
    # Our own background rogues and the RSS watch only, by pid (children of this shell, not
    # reaped before `wait`, so the pid cannot have been reused).
    for pid in "${H_BG[@]}"; do kill "$pid" 2>/dev/null; done
    : >"$H_TMP/rss-stop"
    deadline=$(($(now_ms) + 3000))
    for pid in "${H_BG[@]}" ${H_WATCH:+"$H_WATCH"}; do
        while kill -0 "$pid" 2>/dev/null; do
            if [ "$(now_ms)" -ge "$deadline" ]; then
                kill -KILL "$pid" 2>/dev/null
                break
            fi
            sleep 0.05
        done
        wait "$pid" 2>/dev/null
    done
    if [ "$H_PEAK" = '-' ] && [ -n "${H_PID[${H_ATTACKED[0]}]:-}" ]; then
        H_PEAK=0
        for id in "${H_ATTACKED[@]}"; do
            peak=$(peak_mib "$id")
            [ "$peak" -gt "$H_PEAK" ] && H_PEAK=$peak
        done
    fi
    if [ "$H_AFTER" = '-' ] && [ -n "${H_PID[${H_ATTACKED[0]}]:-}" ]; then
        node_alive "${H_ATTACKED[0]}" && H_AFTER=$(rss_mib "${H_PID[${H_ATTACKED[0]}]}") || H_AFTER=dead
    fi
    case $status in
    0) verdict=PASS why='' ;;
    77) verdict=SKIP why='' ;;
    *)
        verdict=FAIL
        why=$(printf '%s; ' "${H_FAILS[@]}" | sed 's/; $//')
        [ -n "$why" ] || why='aborted (see above)'
        ;;
    esac
    seconds=$(py -c 'import sys; print("%.1f" % (int(sys.argv[1]) / 1000))' "$(($(now_ms) - H_STARTED))")
    printf '%sRESULT%s %-18s peak %5s MiB  after %5s MiB  ping %7s ms  %5s s  %s%s\n' "$_C_BOLD" "$_C_OFF" \
        "$H_NAME" "$H_PEAK" "$H_AFTER" "$H_PING" "$seconds" "$verdict" "${why:+  ($why)}" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$H_NAME" "$H_PEAK" "$H_AFTER" "$H_PING" "$seconds" "$verdict" "$why" >>"$STATE_DIR/hostile-results.tsv"
    if [ "$verdict" = FAIL ] && [ -d "$LOG_DIR" ]; then
        mkdir -p "$STATE_DIR/hostile-failed/$H_NAME"
        cp "$LOG_DIR"/*.log "$STATE_DIR/hostile-failed/$H_NAME/" 2>/dev/null
        info "node logs kept in ${STATE_DIR#"$PWD"/}/hostile-failed/$H_NAME/"
    fi
    rm -rf "$H_TMP"
    exit "$status"
}
