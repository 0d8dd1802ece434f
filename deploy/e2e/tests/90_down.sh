# shellcheck shell=bash
# `down` leaves no rexnode process and no bound port behind, and is safe to re-run.

pids=$(node_pids)
ports=$(cluster_ports)
"$CLUSTER_SH" down >&2
for pid in $pids; do
    ! pid_alive "$pid" || fail "rexnode pid $pid is still alive after down"
done
step "no process left of pids $pids"
for dir in /proc/[0-9]*; do
    cmdline=$(tr '\0' ' ' 2>/dev/null <"$dir/cmdline") || continue
    [[ "$cmdline" == *" --cluster $CLUSTER_FILE "* ]] && pid_alive "${dir#/proc/}" && fail "stray node: ${dir#/proc/}: $cmdline"
done
step "no process started with $CLUSTER_FILE"
for port in $ports; do
    ! port_in_use "$port" || fail "port $port is still bound after down"
done
step "no bound port of $(paste -sd' ' <<<"$ports")"
[ ! -d "$PID_DIR" ] || fail "pid files left in $PID_DIR"
out=$("$CLUSTER_SH" down 2>&1) || fail "down again failed: $out"
step "down again: $out"
