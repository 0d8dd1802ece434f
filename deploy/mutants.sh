#!/usr/bin/env bash
# A mutation pass over the domain and durability (RexFeeds, RexCluster's durability and operator
# actions, RexNode/Durability) and RexMembership: each mutant of deploy/mutants/mutants.txt (a
# flipped comparison, a dropped revision bump, a skipped fsync, an off-by-one…) is applied to its
# file, the package is built incrementally (swift build --build-tests), the mutant's focused tests
# run (swift test --skip-build --filter, bounded by MUTANT_TEST_TIMEOUT seconds, default 300), and
# the file is restored, always (a trap; checked against its hash, and with git diff at the end).
# Each mutant's original text must occur exactly once in its file, or the run refuses to start:
# the list stays true as the code changes.
#
#   deploy/mutants.sh                 every mutant (31–51 min on 2 shared cores)
#   deploy/mutants.sh F03 M12         the mutants named
#   deploy/mutants.sh --list          the list, checked against the code, without running it
#   deploy/mutants.sh --no-baseline … skip the first check that each filter passes unmutated
#
# Prints a table (id, where, result, the tests that failed) and a summary line; the logs go to
# .build/mutants/. Exits 1 when a mutant survives that the list does not accept as equivalent
# (with its reason), when a mutant listed as equivalent is killed, or when a mutant does not
# build; 2 when the list does not match the code. Not a phase of deploy/test.sh: too slow for CI.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

mutate() { py deploy/mutants/mutate.py "$@"; }
timeout_s=${MUTANT_TEST_TIMEOUT:-300}
out_dir=.build/mutants
baseline=1 only_list='' ids=()
for arg in "$@"; do
    case "$arg" in
    --list) only_list=1 ;;
    --no-baseline) baseline='' ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    -*) fatal "unknown option $arg (see --help)" ;;
    *) ids+=("$arg") ;;
    esac
done

mutate check "${ids[@]}" || { error "deploy/mutants/mutants.txt does not match the code (above): fix the list"; exit 2; }
listing=$(mutate list "${ids[@]}")
if [ -n "$only_list" ]; then
    { printf 'ID\tWHERE\tTESTS\tACCEPTED\tMUTANT\n%s\n' "$listing"; } | print_table
    exit 0
fi

mapfile -t files < <(cut -f2 <<<"$listing" | sed 's/:[0-9]*$//' | sort -u)
git diff --quiet -- "${files[@]}" ||
    fatal "uncommitted changes in the mutated files (git diff -- ${files[*]}): the mutants apply to committed code"

mkdir -p "$out_dir"
backup=$(mktemp -d)
build_holds_mutant=''
cleanup() {
    local status=$?
    mutate restore "$backup" || status=1
    rm -rf "$backup"
    if ! git diff --quiet -- "${files[@]}"; then
        error "a mutated file differs from the commit after the run: git diff -- ${files[*]}"
        status=1
    fi
    [ -z "$build_holds_mutant" ] || warn "the build holds the last mutant: run swift build --build-tests"
    exit "$status"
}
# Builds and tests run in the background and are waited for: a signal runs its trap at once (a
# foreground command would be waited for to its end first), which ends the child before the EXIT
# trap restores the file.
child=''
# in_background LOG CMD…: CMD, its output to LOG (only its own: a trap's goes to the terminal).
in_background() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 </dev/null &
    child=$!
    local status=0
    wait "$child" || status=$?
    child=''
    return "$status"
}
on_signal() {
    [ -z "$child" ] || { kill -TERM "$child" 2>/dev/null && wait "$child"; } || true
    exit 130
}
trap cleanup EXIT
trap on_signal INT TERM HUP

build() { in_background "$1" swift build --build-tests; }
focused() { in_background "$2" timeout -k 10 "$timeout_s" swift test --skip-build --filter "$1"; }
# The tests a log shows run: Swift Testing's and XCTest's counts, summed.
tests_run() {
    py - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
swift_testing = sum(int(n) for n in re.findall(r"Test run with (\d+) tests?", text))
xctest = sum(int(n) for n in re.findall(r"Executed (\d+) tests?", text))
print(swift_testing + xctest)
EOF
}

started=$SECONDS
if [ -n "$baseline" ]; then
    log "baseline: the build and every focused filter, unmutated"
    build "$out_dir/baseline.build.log" || fatal "the unmutated build fails: $out_dir/baseline.build.log"
    mapfile -t filters < <(cut -f3 <<<"$listing" | sort -u)
    for index in "${!filters[@]}"; do
        filter=${filters[$index]} test_log="$out_dir/baseline.$index.test.log" t0=$SECONDS
        focused "$filter" "$test_log" || fatal "the focused tests fail unmutated ($filter): $test_log"
        count=$(tests_run "$test_log")
        [ "$count" -gt 0 ] || fatal "the filter $filter matches no test: $test_log"
        info "$filter: $count tests, $((SECONDS - t0)) s"
    done
fi

rows=() killed=0 accepted=0 survived=0 broken=0 total=0
while IFS=$'\t' read -r id where filter _ what; do
    total=$((total + 1))
    equivalent=$(mutate field "$id" equivalent)
    build_log="$out_dir/$id.build.log" test_log="$out_dir/$id.test.log"
    log "$id ($where): $what"
    mutate apply "$id" "$backup"
    build_holds_mutant=1
    t0=$SECONDS status=0
    build "$build_log" || status=$?
    t1=$SECONDS
    if [ "$status" -ne 0 ]; then
        result="BUILD FAILED" detail="$build_log"
        broken=$((broken + 1))
    else
        focused "$filter" "$test_log" || status=$?
        if [ "$status" -eq 0 ]; then
            if [ -n "$equivalent" ]; then
                result="equivalent" detail="$equivalent"
                accepted=$((accepted + 1))
            else
                result="SURVIVED" detail="$filter passes"
                survived=$((survived + 1))
            fi
        else
            case "$status" in
            124 | 137) result="killed" detail="timed out after ${timeout_s} s" ;;
            *)
                result="killed" detail=$(mutate failures "$test_log")
                [ -n "$detail" ] || detail="crashed: $(grep -m1 -oE 'Fatal error: .*|unexpected signal code [0-9]+|error: .*' "$test_log" | cut -c1-100 || echo "exit $status")"
                ;;
            esac
            if [ -n "$equivalent" ]; then
                result="KILLED (listed as equivalent)"
                broken=$((broken + 1))
            else
                killed=$((killed + 1))
            fi
        fi
    fi
    mutate restore "$backup"
    info "$result in $((t1 - t0)) + $((SECONDS - t1)) s: $detail"
    rows+=("$id"$'\t'"$where"$'\t'"$result"$'\t'"$((t1 - t0))"$'\t'"$((SECONDS - t1))"$'\t'"$what"$'\t'"$detail")
done <<<"$listing"

log "rebuilding the unmutated sources"
build "$out_dir/final.build.log" || fatal "the unmutated build fails: $out_dir/final.build.log"
build_holds_mutant=''

elapsed=$((SECONDS - started))
summary="mutants: $total run, $killed killed, $accepted accepted as equivalent, $survived survived, $broken broken (build failed or an equivalent killed) in $((elapsed / 60)) min $((elapsed % 60)) s"
{
    printf 'ID\tWHERE\tRESULT\tBUILD_S\tTEST_S\tMUTANT\tKILLED BY / REASON\n'
    printf '%s\n' "${rows[@]}"
} | print_table | tee "$out_dir/report.txt"
echo "$summary" | tee -a "$out_dir/report.txt"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ]
