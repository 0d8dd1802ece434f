#!/usr/bin/env bash
# What CURVE costs, measured in one run: PUB->SUB throughput of 16-byte messages over tcp
# loopback, plain and CURVE, for raw libzmq (curve_thr.c, built here with gcc -O2), the Swift ZMQ
# layer (zmqbench thr tcp) and two nodes end to end (nodebench thr: node a publishes, node b
# follows). Each case runs REPS times, the cases interleaved so all see the same machine; prints
# the medians and the ratios the issue asks for (node secured / raw CURVE, secured / plain).
#
#   deploy/bench/curve.sh [REPS] [COUNT]      defaults: 5 repetitions of 200,000 messages
set -euo pipefail
# shellcheck source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

reps=${1:-5}
count=${2:-200000}
[[ "$reps" =~ ^[1-9][0-9]?$ ]] || fatal "REPS is 1 to 99 (got '$reps')"
[[ "$count" =~ ^[1-9][0-9]{0,7}$ ]] || fatal "COUNT is 1 to 99,999,999 (got '$count')"
ensure_system_packages
out="$REPO_ROOT/.deploy/bench"
mkdir -p "$out"
log "building (release): zmqbench nodebench, and curve_thr.c"
swift build -c release --product zmqbench >/dev/null
swift build -c release --product nodebench >/dev/null
gcc -O2 -Wall -o "$out/curve_thr" "$DEPLOY_SCRIPTS_DIR/bench/curve_thr.c" -lzmq -lpthread

declare -A results=()
run_case() {
    local name=$1 line value
    shift
    line=$(timeout 120 "$@" 2>>"$out/curve.err" | grep -E '^(CURVETHR|THR|NODETHR)' | tail -n 1) || true
    value=$(sed -n 's/.* msg_s=\([0-9]*\).*/\1/p' <<<"$line")
    printf '%s\t%s\n' "$name" "${line:-FAILED}" >>"$out/curve.log"
    [ -n "$value" ] && results[$name]+="$value "
    return 0
}

: >"$out/curve.log"
for ((rep = 1; rep <= reps; rep++)); do
    info "repetition $rep/$reps"
    run_case "C plain" "$out/curve_thr" plain 16 "$count"
    run_case "C curve" "$out/curve_thr" curve 16 "$count"
    run_case "Swift ZMQ plain" .build/release/zmqbench thr tcp 16 "$count" 0
    run_case "Swift ZMQ curve" .build/release/zmqbench thr tcp 16 "$count" 0 curve
    run_case "node plain" .build/release/nodebench thr "$count"
    run_case "node curve" .build/release/nodebench thr "$count" 50000 curve
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%d\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A med=()
printf '\n| case (16 B, tcp loopback, %d msgs) | plain msg/s | CURVE msg/s | CURVE / plain |\n|---|---:|---:|---:|\n' "$count"
for what in "C" "Swift ZMQ" "node"; do
    med["$what plain"]=$(median <<<"${results["$what plain"]:-}")
    med["$what curve"]=$(median <<<"${results["$what curve"]:-}")
    printf '| %s | %s | %s | %s |\n' "$what" "${med["$what plain"]}" "${med["$what curve"]}" \
        "$(awk -v a="${med["$what curve"]}" -v b="${med["$what plain"]}" 'BEGIN { if (b > 0) printf "%.0f %%", 100 * a / b; else print "-" }')"
done
printf '\nnode secured / raw libzmq CURVE: %s (target: at least 50 %%); medians of %d runs; raw lines in %s\n' \
    "$(awk -v a="${med["node curve"]}" -v b="${med["C curve"]}" 'BEGIN { if (b > 0) printf "%.0f %%", 100 * a / b; else print "-" }')" \
    "$reps" "${out#"$REPO_ROOT"/}/curve.log"
