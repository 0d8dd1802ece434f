# shellcheck shell=bash
# rexctl top in a pseudo-terminal (a private tmux server): the table is redrawn in place on the
# alternate screen with every node up and rates from the second sample on; SIGTSTP (Ctrl-Z) gives
# the terminal back while it is stopped and SIGCONT brings the screen back; `q` quits with 0, and
# SIGTERM ends it with 143; either way the terminal is as it was (stty settings, primary screen).
# Then plain mode through a pipe: --count samples, one table each, and -o json lines.

command -v tmux >/dev/null 2>&1 || fail "no tmux (ensure_system_packages installs it)"
"$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >/dev/null 2>&1 || fail "the cluster is not up"

work="$STATE_DIR/top"
rm -rf "$work"
mkdir -p "$work"
# A socket of our own (short path: a unix socket's is limited to 107 bytes), never the user's server.
socket=$(mktemp -u /tmp/rexctl-top.XXXXXX)
tm() { tmux -S "$socket" -f /dev/null "$@"; }
cleanup() {
    tm kill-server >/dev/null 2>&1 || true
    rm -f "$socket"
}
trap cleanup EXIT

# The pane runs this script: the terminal's settings before and after, rexctl's pid and status.
cat >"$work/run.sh" <<EOF
stty -g > "$work/stty.before"
bash -c 'echo \$\$ > "$work/pid"; exec "$REXCTL" --cluster "$CLUSTER_FILE" top --interval 200ms'
echo \$? > "$work/status"
stty -g > "$work/stty.after"
EOF

screen() { tm capture-pane -p -t top; }
# The sample number the screen shows now (empty before the first frame).
shown_sample() { screen | sed -n 's/.* sample \([0-9]*\) at .*/\1/p' | head -1; }
frame_with_rates() {
    local frame
    frame=$(screen)
    [ "$(grep -c '^rexctl top' <<<"$frame")" -eq 1 ] || return 1
    for id in n1 n2 n3; do
        grep -Eq "^$id +up +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9] " <<<"$frame" || return 1
    done
}
finished() { [ -s "$work/status" ]; }

start_top() {
    rm -f "$work/status" "$work/pid" "$work/stty.before" "$work/stty.after"
    # An interactive shell types the script: with job control the script (and rexctl in it) runs
    # in a process group of its own, not an orphaned one, where the kernel would discard SIGTSTP.
    tm new-session -d -s top -x 120 -y 24 "bash --norc --noprofile -i"
    tm send-keys -t top "bash $work/run.sh" Enter
    until_true 10 frame_with_rates || fail "no frame with every node up and rates within 10 s; the screen: $(screen)"
}

check_restored() {
    assert_eq 0 "$(tm display-message -p -t top '#{alternate_on}')" "$1: alternate screen after exit"
    cmp -s "$work/stty.before" "$work/stty.after" \
        || fail "$1: terminal settings not restored: $(cat "$work/stty.before") → $(cat "$work/stty.after")"
    step "$1: stty settings as before"
}

# 1. Redraw in place, then q.
start_top
assert_eq 1 "$(tm display-message -p -t top '#{alternate_on}')" "alternate screen while running"
first=$(shown_sample)
later() { [ "$(shown_sample)" -gt "$first" ] 2>/dev/null; }
until_true 5 later || fail "the frame was not redrawn after sample $first"
step "redrawn in place: sample $first → $(shown_sample), one header on the screen"
screen | sed -n '1,6s/^/      /p' >&2

# 2. Stopped (SIGTSTP, what Ctrl-Z sends; to the rexctl we started, by its pid) and continued.
pid=$(cat "$work/pid")
process_state() { awk '/^State:/ { print $2 }' "/proc/$pid/status"; }
stopped() { [ "$(process_state)" = T ]; }
primary_screen() { [ "$(tm display-message -p -t top '#{alternate_on}')" = 0 ]; }
before_stop=$(shown_sample)
kill -TSTP "$pid"
until_true 5 stopped || fail "rexctl top did not stop on SIGTSTP (state $(process_state))"
until_true 2 primary_screen || fail "the alternate screen stayed on while stopped"
pane_tty=$(tm display-message -p -t top '#{pane_tty}')
[ "$(cat "$work/stty.before")" = "$(stty -F "$pane_tty" -g)" ] || fail "stty settings while stopped differ from before"
step "stopped: primary screen, stty settings as before"
kill -CONT "$pid"
alternate_screen() { [ "$(tm display-message -p -t top '#{alternate_on}')" = 1 ]; }
drawn_again() { [ "$(shown_sample)" -gt "$before_stop" ] 2>/dev/null; }
until_true 5 alternate_screen || fail "the alternate screen did not come back after SIGCONT"
until_true 5 drawn_again || fail "no new frame after SIGCONT (still sample $before_stop)"
step "continued: alternate screen again, sample $before_stop → $(shown_sample)"

tm send-keys -t top q
until_true 5 finished || fail "rexctl top did not exit within 5 s of q"
assert_eq 0 "$(cat "$work/status")" "exit status after q"
check_restored q
tm kill-session -t top

# 3. SIGTERM (to the rexctl we started, by its pid).
start_top
pid=$(cat "$work/pid")
kill -TERM "$pid"
until_true 5 finished || fail "rexctl top did not exit within 5 s of SIGTERM"
assert_eq 143 "$(cat "$work/status")" "exit status after SIGTERM"
check_restored SIGTERM
tm kill-session -t top

# 4. Plain mode through a pipe: 3 samples, rates from the second on, no escape sequences.
out=$("$REXCTL" top --count 3 --interval 200ms | cat)
assert_eq 3 "$(grep -c '^rexctl top' <<<"$out")" "plain samples"
for id in n1 n2 n3; do
    assert_eq 2 "$(grep -Ec "^$id +up +[0-9]+\.[0-9] " <<<"$out")" "plain samples with rates for $id"
done
! grep -q $'\e' <<<"$out" || fail "plain output holds escape sequences"
json=$("$REXCTL" -o json top --count 2 --interval 200ms)
assert_eq 6 "$(grep -c '"reachable":true' <<<"$json")" "json lines (3 nodes × 2 samples)"
assert_eq 3 "$(py -c '
import json, sys
print(sum(1 for line in sys.stdin if isinstance(json.loads(line).get("cyclesPerSecond"), (int, float))))' <<<"$json")" \
    "json lines with a cycle rate (the second sample)"
