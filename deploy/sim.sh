#!/usr/bin/env bash
# The deterministic simulation's batch: builds rexsim ($REX_BUILD, release by default) and runs
# it over a range of seeds — 5 nodes of the real stores, feeds feature, SWIM membership and
# journal logic over a simulated network, clock and disk, with faults — checking every run's
# history (durability, convergence, membership, keep set). A failing seed prints the one
# command that replays it. Exits with rexsim's code (0 all passed, 1 a run failed, 64 usage).
#
#   deploy/sim.sh [--seeds A..B] [rexsim options…]
#
#   --seeds A..B   the seeds (default 1..200: the CI batch, about a minute in release)
# Other options go to rexsim after the defaults, so they win, e.g.
#   deploy/sim.sh --seeds 1..1000 --nodes 10 --seconds 120
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

seeds=1..200 extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --seeds)
        [ $# -ge 2 ] || fatal "--seeds needs A..B"
        seeds=$2
        shift
        ;;
    -h | --help)
        sed -n '2,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
        exit 0
        ;;
    *) extra+=("$1") ;;
    esac
    shift
done

swift build -c "$REX_BUILD" --product rexsim >&2 || fatal "swift build --product rexsim failed (see above)"
"$REPO_ROOT/.build/$REX_BUILD/rexsim" --seeds "$seeds" --nodes 5 --seconds 40 --settle 15 ${extra[@]+"${extra[@]}"}
