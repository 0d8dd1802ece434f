#!/usr/bin/env bash
# The README's "test" command: installs what is missing, checks the format (swift-format lint),
# builds and runs the unit tests (swift build --build-tests && swift test), the API docs
# (deploy/docs.sh), the example packages (Countdown, Chat) built against a tagged clone by version
# (deploy/example.sh), the examples of README.md and docs/ run against real nodes
# (deploy/docs-check.sh), the Prometheus rules (deploy/prometheus/check.sh), the systemd unit
# (deploy/systemd/check.sh), an image of rexnode and rexctl with 3 nodes run from it and the unit
# run under systemd (deploy/image.sh check and systemd, the Swift runtime shared: they reuse the
# release build), the Kubernetes set played by podman (deploy/k8s/play.sh check: 3 pods from that
# image, killed, replaced, upgraded), the deterministic simulation's batch of seeds
# (deploy/sim.sh), then the end-to-end suite against a real multi-process cluster
# (deploy/e2e/run.sh), then the short churn load test (deploy/churn.sh --quick).
# Prints a timing table; exits non-zero on any failure.
#
#   deploy/test.sh              everything
#   deploy/test.sh --e2e        only the end-to-end suite
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

unit=1
case "${1:-}" in
"") ;;
--e2e) unit='' ;;
*) fatal "usage: deploy/test.sh [--e2e]" ;;
esac

phases=() failed=0
# phase NAME CMD…: runs CMD, records its time and result.
phase() {
    local name=$1 started status=0
    shift
    log "$name: $*"
    started=$SECONDS
    "$@" || status=$?
    if [ "$status" -eq 0 ]; then
        phases+=("$name"$'\t'"$((SECONDS - started))"$'\t'ok)
    else
        phases+=("$name"$'\t'"$((SECONDS - started))"$'\t'"FAILED (exit $status)")
        failed=$((failed + 1))
    fi
    return "$status"
}

summary() {
    {
        printf 'PHASE\tSECONDS\tRESULT\n'
        printf '%s\n' "${phases[@]}"
    } | print_table >&2
}

phase "system packages" ensure_system_packages || { summary; exit 1; }
if [ -n "$unit" ]; then
    # The style every Swift file keeps (.swift-format); `swift-format format -i -r Sources Tests
    # Package.swift Examples` fixes what this reports.
    phase "format (swift-format lint --strict)" swift-format lint --strict --recursive Sources Tests Package.swift Examples || true
    phase "build (debug, tests)" swift build --build-tests || { summary; exit 1; }
    # One test at a time. A node's watches no longer wait for Swift's cooperative pool (ticks and
    # rounds run on Dispatch queues), but its timers (follow settles, feed intervals, heartbeats:
    # clock sleeps resume through the pool) and its state/keep/metrics replies still do, and Swift
    # Testing runs blocking socket tests on that pool: in parallel on 2 cores a node can stall for
    # seconds (3 of 3 parallel runs, 38-46 s each on a loaded machine, had a timeout; serial about 70 s).
    phase "unit tests" swift test --no-parallel || true
    phase "API docs (docc, warnings as errors)" "$DEPLOY_SCRIPTS_DIR/docs.sh" || true
    phase "public API (against deploy/api/)" "$DEPLOY_SCRIPTS_DIR/api-check.sh" || true
fi
phase "build (rexnode, rexctl: $REX_BUILD)" build_if_stale || { summary; exit 1; }
if [ -n "$unit" ]; then
    phase "example packages (Countdown, Chat: SwiftRex 0.1.0 by version, release)" "$DEPLOY_SCRIPTS_DIR/example.sh" || true
    phase "README and docs/ examples (deploy/docs-check.sh)" "$DEPLOY_SCRIPTS_DIR/docs-check.sh" || true
    phase "Prometheus rules (promtool check and test; metrics a node serves)" "$DEPLOY_SCRIPTS_DIR/prometheus/check.sh" || true
    phase "systemd unit (systemd-analyze verify, security)" "$DEPLOY_SCRIPTS_DIR/systemd/check.sh" || true
    # The static-runtime image (deploy/image.sh check without --runtime) needs a release build of
    # its own, 5-6 min more here: a separate command.
    phase "image (mmdebstrap, podman import; 3 nodes from it)" "$DEPLOY_SCRIPTS_DIR/image.sh" check --runtime shared || true
    phase "systemd (3 rexnode@ units under systemd in podman)" "$DEPLOY_SCRIPTS_DIR/image.sh" systemd --runtime shared || true
    phase "Kubernetes set (render check; 3 pods by podman kube play: kill, replace, rolling upgrade)" \
        "$DEPLOY_SCRIPTS_DIR/k8s/play.sh" check || true
fi
if [ -n "$unit" ]; then
    # 200 seeds of a 5-node cluster under faults, 55 simulated seconds each (about a minute).
    phase "simulation (deploy/sim.sh: rexsim, 200 seeds)" "$DEPLOY_SCRIPTS_DIR/sim.sh" || true
fi
# The suite's closing line is repeated last, after the timing table, for whoever reads the end.
e2e_result=$(mktemp)
trap 'rm -f "$e2e_result"' EXIT
e2e() { "$DEPLOY_SCRIPTS_DIR/e2e/run.sh" | tee "$e2e_result"; }
phase "end-to-end" e2e || true
phase "across hosts (network namespaces)" "$DEPLOY_SCRIPTS_DIR/e2e/hosts/run.sh" || true
phase "churn load test (quick)" "$DEPLOY_SCRIPTS_DIR/churn.sh" --quick || true
summary
closing=$(grep '^E2E: ' "$e2e_result" | tail -n 1 || true)
echo "${closing:-E2E: 0 passed, 1 failed}"
[ "$failed" -eq 0 ]
