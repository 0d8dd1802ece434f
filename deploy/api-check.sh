#!/usr/bin/env bash
# Semantic versioning, enforced: compares the public API of the library products SwiftRex and
# SwiftRexTesting with the newest version tag reachable from HEAD (swift package
# diagnose-api-breaking-changes, which builds the baseline in a scratch checkout) and fails on a
# breaking change. The policy (README, "Using the library"): a break needs a new major version
# (before 1.0, a new minor); once that version is tagged, the check compares against it.
# With no version tag yet there is nothing to compare: it says so and succeeds.
#
#   deploy/api-check.sh            against the newest tag vX.Y.Z / X.Y.Z reachable from HEAD
#   deploy/api-check.sh TREEISH    against TREEISH (a tag, branch or commit)
#   deploy/api-check.sh --prove    shows the check can fail: in a scratch clone of HEAD tagged
#                                  0.0.0, an unchanged API passes and a changed signature of a
#                                  public method (Store.waitUntilIdle) is reported as a break
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

if [ "${1:-}" = "--prove" ]; then
    scratch=$(mktemp -d /tmp/rex-api-prove.XXXXXX)
    trap 'rm -rf "$scratch"' EXIT
    git clone -q "$REPO_ROOT" "$scratch/repo"
    cd "$scratch/repo"
    git -c user.name=api-check -c user.email=api-check@localhost tag 0.0.0
    ./deploy/api-check.sh 0.0.0 || fatal "prove: the unchanged API was reported as broken"
    file=Sources/SwiftRex/Store/Store.swift
    grep -q 'public func waitUntilIdle() async' "$file" || fatal "prove: $file no longer has waitUntilIdle(); pick another public method"
    sed -i 's/public func waitUntilIdle() async/public func waitUntilIdle(rounds: Int = 1) async/' "$file"
    git -c user.name=api-check -c user.email=api-check@localhost commit -qam "a breaking change"
    if ./deploy/api-check.sh 0.0.0; then
        fatal "prove: a changed public signature passed the check"
    fi
    ok "prove: the check passes an unchanged API and fails a changed public signature"
    exit 0
fi

baseline=${1:-$(git describe --tags --abbrev=0 --match 'v[0-9]*' --match '[0-9]*' HEAD 2>/dev/null || true)}
if [ -z "$baseline" ]; then
    ok "no version tag yet: the API check starts with the first tag (see README, Using the library)"
    exit 0
fi
git rev-parse --verify --quiet "$baseline^{commit}" >/dev/null || fatal "no such revision: $baseline"

log "public API of SwiftRex and SwiftRexTesting against $baseline"
swift package diagnose-api-breaking-changes "$baseline" --products SwiftRex SwiftRexTesting
ok "no breaking change against $baseline"
