#!/usr/bin/env bash
# Every benchmark in one run on this machine, release builds, each figure next to its baseline:
# the core (rexbench: against the targets and the original library's figures), the ZMQ layer
# (zmqbench: against the C programs of ../shared/bench/zmq-baseline, built and run in the same
# session) and the nodes (nodebench: end to end and follow churn against raw libzmq). Each tool
# reports medians over several runs; this script prints their summary tables together and keeps
# the full output in .deploy/bench/.
#
#   deploy/bench.sh [--quick]
#
#   --quick   one short repetition of each (about a minute in all); default: full runs (~5 min)
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

quick=()
case "${1:-}" in
--quick) quick=(--quick) ;;
"") ;;
-h | --help)
    sed -n '2,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    exit 0
    ;;
*) fatal "unknown option '$1' (try --help)" ;;
esac

ensure_system_packages
out="$REPO_ROOT/.deploy/bench"
mkdir -p "$out"
for product in rexbench zmqbench nodebench; do
    log "building $product (release)"
    swift build -c release --product "$product" >"$out/build-$product.log" 2>&1 ||
        fatal "building $product failed: see $out/build-$product.log"
done

status=0
run() {
    local name=$1
    shift
    log "running $name ${quick[*]:-} (full output: .deploy/bench/$name.txt)"
    local started
    started=$(now_ms)
    if ! "$REPO_ROOT/.build/release/$name" "$@" "${quick[@]}" >"$out/$name.txt" 2>"$out/$name.err"; then
        error "$name failed: see $out/$name.err"
        status=1
    fi
    ok "$name took $(( ($(now_ms) - started) / 1000 )) s"
}
run rexbench
run zmqbench
run nodebench

section() { printf '\n%s\n' "$1"; }
section "== Core (rexbench): targets of the core issue, next to the original library's figures"
sed -n '/^Summary — targets/,$p' "$out/rexbench.txt"
section "== ZMQ layer (zmqbench): Swift next to the C baseline, same machine, same run"
sed -n '/^| case /,/^$/p' "$out/zmqbench.txt"
section "== Nodes (nodebench): end to end and follow churn next to raw libzmq, same run"
sed -n '/^benchmark /,/^$/p' "$out/nodebench.txt"
exit "$status"
