#!/usr/bin/env bash
# Builds the API documentation of SwiftRex, SwiftRexTesting, RexCluster and RexNode with the toolchain's own docc:
# symbol graphs from the debug build (swift package dump-symbol-graph), then `docc convert` of each
# module's catalog with warnings as errors (a broken symbol link or a parameter documented under
# the wrong name fails the build). Prints the coverage summary of each module.
#
#   deploy/docs.sh            archives in .build/docs/<Module>.doccarchive
#   deploy/docs.sh --static   the same, transformed for static hosting (open
#                             .build/docs/<Module>/documentation/<module>/index.html via a web server)
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

static=''
case "${1:-}" in
"") ;;
--static) static=1 ;;
*) fatal "usage: deploy/docs.sh [--static]" ;;
esac

command -v docc >/dev/null 2>&1 || fatal "docc not found: it ships with the Swift toolchain (swift.org); put the toolchain's usr/bin on PATH"

log "symbol graphs (public API)"
graphs=$(swift package dump-symbol-graph --minimum-access-level public 2>&1 | sed -n 's/^Files written to //p' | tail -n 1)
[ -n "$graphs" ] && [ -d "$graphs" ] || fatal "swift package dump-symbol-graph wrote no symbol graphs"

# Every public symbol declared in the two modules' sources carries a doc comment (what the
# compiler synthesises, such as == of an Equatable conformance, has no source location here).
undocumented=$(py - "$graphs" <<'PY'
import json, sys
for module in ("SwiftRex", "SwiftRexTesting", "RexCluster", "RexNode"):
    with open(f"{sys.argv[1]}/{module}.symbols.json") as file:
        graph = json.load(file)
    for symbol in graph["symbols"]:
        uri = symbol.get("location", {}).get("uri", "")
        if f"/Sources/{module}/" in uri and not symbol.get("docComment"):
            line = symbol["location"]["position"]["line"] + 1
            print(f"{uri.split('/Sources/', 1)[1]}:{line}: {'.'.join(symbol['pathComponents'])}")
PY
)
[ -z "$undocumented" ] || fatal "public symbols without a doc comment:"$'\n'"$undocumented"

out="$REPO_ROOT/.build/docs"
mkdir -p "$out"
for module in SwiftRex SwiftRexTesting RexCluster RexNode; do
    catalog="Sources/$module/$module.docc"
    staged=$(mktemp -d)
    # docc reads every graph in the directory: give it this module's own (and its extension
    # graphs such as SwiftRex@_Concurrency), not the ones of the modules it re-exports.
    cp "$graphs/$module".symbols.json "$staged/"
    cp "$graphs/$module"@*.symbols.json "$staged/" 2>/dev/null || true
    archive="$out/$module.doccarchive"
    rm -rf "$archive"
    log "docc convert $catalog"
    docc convert "$catalog" --additional-symbol-graph-dir "$staged" --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.swiftrex.$module" \
        --warnings-as-errors --experimental-documentation-coverage --coverage-summary-level brief
    rm -rf "$staged"
    if [ -n "$static" ]; then
        rm -rf "$out/$module"
        docc process-archive transform-for-static-hosting "$archive" --output-path "$out/$module"
    fi
    ok "$module: $archive"
done
