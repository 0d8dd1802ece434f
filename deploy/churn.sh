#!/usr/bin/env bash
# The churn load test against a cluster of its own: starts N nodes (default 3) in .deploy/churn/,
# runs `rexctl load churn` with a sweep over several rates and then the main run, writes
# .deploy/churn/result.json and .deploy/churn/latency.svg, stops the cluster on any exit and exits
# with rexctl's code (0 every invariant held, 1 one broke, 2 a node did not answer).
#
#   deploy/churn.sh [--quick] [--nodes N] [rexctl load churn options…]
#
#   --quick      a short variant for CI (about 20–30 s in all)
#   --nodes N    cluster size (default 3)
# Other options go to `rexctl load churn` after the defaults, so they win, e.g.
#   deploy/churn.sh --rate 1000 --from-peers
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

quick='' nodes=3 extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --nodes)
        [ $# -ge 2 ] || fatal "--nodes needs a number"
        nodes=$2
        shift
        ;;
    -h | --help)
        sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
        exit 0
        ;;
    *) extra+=("$1") ;;
    esac
    shift
done

CHURN_DIR="$REPO_ROOT/.deploy/churn"
export REX_DEPLOY_DIR="$CHURN_DIR/cluster"
set_state_dir "$REX_DEPLOY_DIR"
CLUSTER_SH="$DEPLOY_SCRIPTS_DIR/cluster.sh"

finish() {
    local status=$?
    trap - EXIT INT TERM
    "$CLUSTER_SH" down >/dev/null 2>&1 || warn "deploy/cluster.sh down failed while cleaning up"
    if [ "$status" -eq 0 ]; then
        ok "churn: every invariant held — $CHURN_DIR/result.json, $CHURN_DIR/latency.svg"
    else
        error "churn: exit $status (node logs in ${REX_DEPLOY_DIR#"$PWD"/}/logs)"
    fi
    exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_system_packages
build_if_stale

"$CLUSTER_SH" down >/dev/null 2>&1 || true
rm -rf "$CHURN_DIR"
mkdir -p "$CHURN_DIR"
"$CLUSTER_SH" up "$nodes" >&2

if [ -n "$quick" ]; then
    defaults=(--follows 30 --rate 400 --duration 5s --sweep 100,800 --sweep-duration 3s)
else
    defaults=(--follows 100 --rate 2000 --duration 60s --sweep 250,500,1000,2000,3000 --sweep-duration 12s)
fi
log "rexctl load churn ${defaults[*]} ${extra[*]:-}"
set +e
"$REXCTL" load churn "${defaults[@]}" "${extra[@]}" \
    --result "$CHURN_DIR/result.json" --svg "$CHURN_DIR/latency.svg"
status=$?
set -e
exit "$status"
