#!/usr/bin/env bash
# The public API of every library product, checked against a committed baseline: deploy/api/
# holds one text file per module (one declaration per line with its full signature, sorted; see
# deploy/lib/api_text.py), made from the build by swift-api-digester. Any difference fails, with
# the lines gone or changed (breaking) and the lines added, so the baseline always is the API.
# SwiftRex and SwiftRexTesting follow semantic versioning (README, "Using the library"): a break
# there needs a new major version (before 1.0, a new minor). ZMQ, RexControl, RexMembership,
# RexCluster, RexFeeds, RexNode and RexActors make no such promise, but a change to them is recorded the
# same way. An intended change is recorded with --update and committed with it.
#
#   deploy/api-check.sh            compare the debug build's modules with deploy/api/*.txt
#   deploy/api-check.sh --update   write deploy/api/*.txt from the debug build
#   deploy/api-check.sh --prove    shows the check can fail: in a scratch clone of HEAD, a changed
#                                  signature of a public method (Store.waitUntilIdle) is reported
#                                  as breaking, and a new public method as an addition
#
# Builds the modules first (debug, `swift build`) when one is missing or older than a source.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

API_DIR="$REPO_ROOT/deploy/api"
API_TEXT="$DEPLOY_LIB_DIR/api_text.py"
SEMVER_MODULES=(SwiftRex SwiftRexTesting)
OTHER_MODULES=(ZMQ RexControl RexMembership RexCluster RexFeeds RexNode RexActors)
MODULES=("${SEMVER_MODULES[@]}" "${OTHER_MODULES[@]}")

mode=check
case "${1:-}" in
"") ;;
--update) mode=update ;;
--prove) mode=prove ;;
*) fatal "usage: deploy/api-check.sh [--update | --prove]" ;;
esac

if [ "$mode" = prove ]; then
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/rex-api-prove.XXXXXX")
    trap 'rm -rf "$scratch"' EXIT
    git clone -q "$REPO_ROOT" "$scratch/repo"
    cd "$scratch/repo"
    ./deploy/api-check.sh || fatal "prove: the unchanged API of HEAD does not match its baseline"
    file=Sources/SwiftRex/Store/Store.swift
    grep -q 'public func waitUntilIdle() async {' "$file" || fatal "prove: $file no longer has waitUntilIdle(); pick another public method"
    sed -i 's/public func waitUntilIdle() async {/public func waitUntilIdle(rounds: Int = 1) async {/' "$file"
    status=0
    out=$(./deploy/api-check.sh 2>&1) || status=$?
    printf '%s\n' "$out" >&2
    [ "$status" -ne 0 ] || fatal "prove: a changed public signature passed the check"
    grep -qF -- '- final func Store.waitUntilIdle() async -> ()' <<<"$out" || fatal "prove: the old signature is not reported as gone"
    grep -qF -- '+ final func Store.waitUntilIdle(rounds: Int = default) async -> ()' <<<"$out" || fatal "prove: the new signature is not reported"
    git checkout -q -- "$file"
    printf '\nextension Store {\n    /// Added by api-check --prove.\n    public func proveAddition() {}\n}\n' >>"$file"
    status=0
    out=$(./deploy/api-check.sh 2>&1) || status=$?
    printf '%s\n' "$out" >&2
    [ "$status" -ne 0 ] || fatal "prove: a new public method passed the check"
    grep -qF -- '+ final func Store.proveAddition() -> ()' <<<"$out" && ! grep -q BREAKING <<<"$out" \
        || fatal "prove: a new public method is not reported as an addition alone"
    ok "prove: the check passes HEAD's API, fails a changed public signature (breaking) and a new public method (an addition)"
    exit 0
fi

command -v swift-api-digester >/dev/null 2>&1 || fatal "no swift-api-digester (it comes with the Swift toolchain)"

modules_dir="$(swift build --show-bin-path)/Modules"
# The debug build's modules, rebuilt when missing or older than a source or Package.swift.
stale=''
for module in "${MODULES[@]}"; do
    swiftmodule="$modules_dir/$module.swiftmodule"
    if ! [ -f "$swiftmodule" ] || [ -n "$(find Sources Package.swift -newer "$swiftmodule" -print -quit)" ]; then
        stale=$module
        break
    fi
done
if [ -n "$stale" ]; then
    log "building the library modules (debug; $stale is missing or older than the sources)"
    swift build >&2 || fatal "swift build failed (see above)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rex-api.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The C modules (CZMQ, CSQLite, CGlibcMalloc) are module maps under Sources/.
includes=(-I "$modules_dir")
for map in Sources/*/module.modulemap; do includes+=(-I "$(dirname "$map")"); done

# api_text MODULE: the module's API text into $work/MODULE.txt.
api_text() {
    swift-api-digester -dump-sdk -module "$1" "${includes[@]}" -o "$work/$1.json" \
        -avoid-location -avoid-tool-args -swift-only -abort-on-module-fail >"$work/$1.log" 2>&1 \
        || fatal "swift-api-digester could not read module $1: $(tail -n 3 "$work/$1.log")"
    "$PYTHON" -S "$API_TEXT" render "$work/$1.json" >"$work/$1.txt" || fatal "api_text.py could not render $1"
}

if [ "$mode" = update ]; then
    mkdir -p "$API_DIR"
    for module in "${MODULES[@]}"; do
        api_text "$module"
        if cmp -s "$work/$module.txt" "$API_DIR/$module.txt"; then
            info "$module: unchanged ($(($(wc -l <"$work/$module.txt") - 1)) declarations)"
        else
            mv "$work/$module.txt" "$API_DIR/$module.txt"
            ok "$module: deploy/api/$module.txt written ($(($(wc -l <"$API_DIR/$module.txt") - 1)) declarations)"
        fi
    done
    info "commit deploy/api/ with the change"
    exit 0
fi

failed=()
for module in "${MODULES[@]}"; do
    [ -f "$API_DIR/$module.txt" ] || {
        error "$module: no baseline deploy/api/$module.txt (deploy/api-check.sh --update makes it)"
        failed+=("$module")
        continue
    }
    api_text "$module"
    status=0
    report=$("$PYTHON" -S "$API_TEXT" compare "$API_DIR/$module.txt" "$work/$module.txt") || status=$?
    case $status in
    0) ok "$module: public API as recorded ($(($(wc -l <"$work/$module.txt") - 1)) declarations)" ;;
    1 | 2)
        failed+=("$module")
        error "$module: the public API differs from deploy/api/$module.txt"
        printf '%s\n' "$report" | sed 's/^/    /' >&2
        if printf '%s\n' "${SEMVER_MODULES[@]}" | grep -qxF "$module"; then
            if [ "$status" -eq 2 ]; then
                info "a break in $module needs a new major version (before 1.0, a new minor)"
            else
                info "additions to $module need a new minor version"
            fi
        fi
        ;;
    *) fatal "api_text.py compare failed on $module (exit $status)" ;;
    esac
done
if [ ${#failed[@]} -gt 0 ]; then
    error "public API changed: ${failed[*]}. If intended, record it: deploy/api-check.sh --update, and commit deploy/api/ with the change"
    exit 1
fi
ok "the public API of ${MODULES[*]} matches deploy/api/"
