#!/usr/bin/env bash
# A consumer proves the package: Examples/Countdown depends on SwiftRex by version, the way any
# other package would. This clones the repository (HEAD) into a temporary directory, tags the
# clone 0.1.0, and builds and tests the example in release against
# `.package(url: "file://<clone>", from: "0.1.0")` — which SwiftPM refuses for a package that uses
# unsafe flags. Then it prints the example's dispatch rate next to rexbench's same figure
# (dispatch mode (a): a trivial reducer, dispatched on the store's own executor), built from this
# checkout in the same run. The rates are printed, not enforced: this VM is shared and noisy.
#
#   deploy/example.sh            build, test, benchmark (1,000,000 actions × 5 runs each)
#   deploy/example.sh --no-bench build and test only
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

bench=1
case "${1:-}" in
"") ;;
--no-bench) bench='' ;;
*) fatal "usage: deploy/example.sh [--no-bench]" ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/swiftrex-example.XXXXXX")
trap 'rm -rf "$work"' EXIT
clone="$work/SwiftRex"

log "cloning $(git rev-parse --short HEAD) into $clone and tagging it 0.1.0"
git clone --quiet --no-hardlinks "$REPO_ROOT" "$clone"
git -C "$clone" -c user.name=example -c user.email=example@localhost tag -a 0.1.0 -m "example.sh: temporary release tag"

# The example is built from the clone too, so it sees exactly the committed tree; its own build
# directory and its dependency's checkout live under $work.
example="$clone/Examples/Countdown"
export SWIFTREX_URL="file://$clone"
log "resolving Examples/Countdown against $SWIFTREX_URL from 0.1.0"
(cd "$example" && swift package resolve) >&2
resolved=$(cd "$example" && swift package show-dependencies --format json | "$PYTHON" -S -c '
import json, sys
deps = json.load(sys.stdin)["dependencies"]
print(" ".join(d["identity"] + "@" + d["version"] for d in deps))')
info "resolved: $resolved"
case "$resolved" in
*"@0.1.0"*) ;;
*) fatal "the example did not resolve SwiftRex by version (got: $resolved)" ;;
esac

log "building the example in release (the core and the test kit only)"
(cd "$example" && swift build -c release --build-tests) >&2
log "testing the example in release"
(cd "$example" && swift test -c release --skip-build) >&2
ok "Examples/Countdown builds and passes its tests against SwiftRex 0.1.0"

[ -n "$bench" ] || exit 0
log "benchmark: the example's dispatch rate next to rexbench's (same workload, same run)"
(cd "$REPO_ROOT" && swift build -c release --product rexbench) >&2
# rexbench prints "(a) on the store's executor (ThreadExecutor.execute)   8.70 M/s   …"; the
# example prints "EXAMPLE_DISPATCH_PER_S 8700000". Both medians, in actions/s.
rexbench_rate() {
    "$REPO_ROOT/.build/release/rexbench" --only dispatch | "$PYTHON" -S -c '
import re, sys
for line in sys.stdin:
    if line.startswith("(a) on the store"):
        m = re.search(r"([0-9.]+) ([kM])/s", line)
        print(int(float(m.group(1)) * (1e6 if m.group(2) == "M" else 1e3)))
        break'
}
example_rate() { "$example/.build/release/countdown-bench" | sed -n "s/^EXAMPLE_DISPATCH_PER_S //p"; }
# Interleaved, twice each: a burst of load on the VM then hits both sides alike.
table=$'ROUND\tREXBENCH (A) ACTIONS/S\tEXAMPLE ACTIONS/S\tEXAMPLE / REXBENCH'
for round in 1 2; do
    rexbench_rate_now=$(rexbench_rate)
    example_rate_now=$(example_rate)
    [ -n "$rexbench_rate_now" ] && [ -n "$example_rate_now" ] || fatal "a benchmark printed no rate"
    table+=$'\n'"$round"$'\t'"$rexbench_rate_now"$'\t'"$example_rate_now"$'\t'"$("$PYTHON" -S -c "print(f'{$example_rate_now / $rexbench_rate_now * 100:.0f} %')")"
done
printf '%s\n' "$table" | print_table >&2
