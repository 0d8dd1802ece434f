#!/usr/bin/env bash
# Checks the systemd unit deploy/systemd/rexnode@.service without installing anything:
#   1. `systemd-analyze verify` of the instance rexnode@n1.service: every key known, every value
#      parsed, its dependencies found, its command executable. Any message fails the check, not
#      only a non-zero exit (verify reports an unparsable value, e.g. ProtectSystem=stricter, as a
#      warning and exits 0);
#   2. `systemd-analyze security --offline=yes`: the unit's exposure score must stay at or below
#      SECURITY_THRESHOLD (2.0 on systemd's 0–10 scale), so hardening cannot be dropped quietly.
#
#   deploy/systemd/check.sh
#
# Both run against a temporary root (--root) that holds a copy of this machine's unit directory
# (the targets the unit depends on), the unit in etc/systemd/system, and at /usr/local/bin/rexnode
# and /bin/sh stubs: executable shell scripts, since verify checks that each command exists and is
# executable, not what it does. The temporary root is removed at exit. systemd-analyze comes from
# Debian's systemd package (installed when missing and root; no unit is started).
set -euo pipefail
# shellcheck source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

[ $# -eq 0 ] || fatal "usage: deploy/systemd/check.sh"
UNIT="$DEPLOY_SCRIPTS_DIR/systemd/rexnode@.service"
INSTANCE=rexnode@n1.service
# systemd-analyze security's --threshold counts tenths: 20 is an exposure of 2.0.
SECURITY_THRESHOLD=20

if ! command -v systemd-analyze >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || fatal "systemd-analyze is missing; install it first: sudo apt-get install -y systemd"
    log "installing systemd (apt-get) for systemd-analyze"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq systemd >/dev/null
fi
system_units=''
for dir in /usr/lib/systemd/system /lib/systemd/system; do
    if [ -f "$dir/sysinit.target" ]; then
        system_units=$dir
        break
    fi
done
[ -n "$system_units" ] || fatal "no systemd unit directory with sysinit.target (/usr/lib/systemd/system)"

root=$(mktemp -d "${TMPDIR:-/tmp}/rex-systemd-check.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/lib/systemd" "$root/etc/systemd/system" "$root/usr/local/bin" "$root/bin"
cp -a "$system_units" "$root/usr/lib/systemd/system"
cp "$UNIT" "$root/etc/systemd/system/"
# The unit's commands: rexnode, and the shell of its ExecStartPre.
for command in usr/local/bin/rexnode bin/sh; do
    printf '#!/bin/sh\n# A stub for systemd-analyze verify, which checks only that the command is executable.\nexit 0\n' >"$root/$command"
    chmod 0755 "$root/$command"
done

log "systemd-analyze verify $INSTANCE ($(systemd-analyze --version | head -n 1))"
status=0
messages=$(systemd-analyze verify --root="$root" "$INSTANCE" 2>&1) || status=$?
if [ "$status" -ne 0 ] || [ -n "$messages" ]; then
    printf '%s\n' "$messages" | sed "s|$root||g" >&2
    fatal "systemd-analyze verify $INSTANCE: exit $status, $(printf '%s\n' "$messages" | grep -c .) message(s) (above)"
fi
ok "systemd-analyze verify $INSTANCE: no message"

log "systemd-analyze security --offline=yes $INSTANCE (at most $((SECURITY_THRESHOLD / 10)).$((SECURITY_THRESHOLD % 10)))"
status=0
report=$(systemd-analyze security --offline=yes --root="$root" --threshold="$SECURITY_THRESHOLD" "$INSTANCE" 2>&1) || status=$?
exposure=$(printf '%s\n' "$report" | sed -n 's/^→ Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || {
    printf '%s\n' "$report" | sed "s|$root||g" >&2
    fatal "systemd-analyze security printed no exposure level (above)"
}
if [ "$status" -ne 0 ]; then
    printf '%s\n' "$report" | grep -v '^✓' | sed "s|$root||g" >&2
    fatal "$INSTANCE: exposure $exposure, over $((SECURITY_THRESHOLD / 10)).$((SECURITY_THRESHOLD % 10)) (the settings that count against it above)"
fi
ok "$INSTANCE: exposure $exposure (systemd-analyze security, 0 = most restricted, 10 = none)"
