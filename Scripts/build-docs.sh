#!/usr/bin/env bash
# Builds Syringe's DocC documentation (Sources/Syringe/Syringe.docc plus the
# doc comments of the Syringe module) and fails on any DocC warning: a broken
# symbol link, a parameter documented that does not exist, a parameter left
# undocumented next to documented ones.
#
#   bash Scripts/build-docs.sh
#
# Environment:
#   DOCS_SCRATCH_PATH   SwiftPM's build folder (default: a temporary folder,
#                       removed afterwards). Keep one between runs to build
#                       incrementally; never point it at .build, which other
#                       builds of the tree use.
#   DOCS_OUTPUT_PATH    where the documentation archive goes (default: a new
#                       temporary folder, printed at the end).
#   DOCS_COVERAGE       set to 1 to also print DocC's documentation coverage
#                       (experimental) and write documentation-coverage.json
#                       into the archive.
#
# Needs the xxHash header to build, as every build of Syringe does
# (`./dev test` installs it); docc ships with the Swift toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/syringe-docs.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

scratch=${DOCS_SCRATCH_PATH:-$work/build}
output=${DOCS_OUTPUT_PATH:-$(mktemp -d "${TMPDIR:-/tmp}/syringe-docs-output.XXXXXX")/Syringe.doccarchive}
# docc replaces whatever is at the output path, so a path that holds anything
# but an earlier archive (DOCS_OUTPUT_PATH=. say) is refused, before building,
# rather than wiped.
if [ -e "$output" ] && [ -n "$(ls -A "$output" 2>/dev/null)" ] && [ ! -e "$output/metadata.json" ]; then
    echo "build-docs: $output is not empty and not a documentation archive; docc would replace it" >&2
    exit 1
fi

# docc ships with the toolchain: on the PATH or next to swift on Linux, through
# xcrun with Xcode.
docc=$(command -v docc || true)
if [ -z "$docc" ] && [ -x "$(dirname "$(command -v swift)")/docc" ]; then
    docc=$(dirname "$(command -v swift)")/docc
fi
if [ -z "$docc" ] && command -v xcrun >/dev/null; then
    docc=$(xcrun --find docc 2>/dev/null || true)
fi
if [ -z "$docc" ]; then
    echo "build-docs: docc not found; it ships with the Swift toolchain" >&2
    exit 1
fi

# 1. The module's symbol graph, emitted by the compiler while it builds the
# Syringe target. The graph folder is new on every run on purpose: it is part
# of the compiler's command line, so a new one makes SwiftPM compile the
# module again even when nothing else changed, and the graph is always there
# and current (an up-to-date build emits nothing, and would leave an empty or
# stale folder behind).
#   -symbol-graph-minimum-access-level public   the public API only (the default, stated)
#   -symbol-graph-skip-synthesized-members      no pages for members the standard library
#       and Foundation supply (`!=`, `LocalizedError.failureReason`, …): they have no
#       documentation here, and coverage then counts Syringe's own symbols only
graphs=$work/symbol-graphs
mkdir -p "$graphs"
echo "==> building the Syringe module's symbol graph (scratch path: $scratch)" >&2
swift build --target Syringe --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
    -Xswiftc -symbol-graph-skip-synthesized-members >&2

# 2. Only Syringe's graphs go to docc: Syringe.symbols.json and the graphs of
# its extensions to other modules' types (Syringe@Module.symbols.json). Any
# other graph in the folder would become a second module in the archive: the
# C table's (CSyringeTable, with every xxHash function its header inlines) is
# an implementation detail behind `public import`, not API, and a future Swift
# dependency's belongs to its own documentation.
module_graphs=$work/module-graphs
mkdir -p "$module_graphs"
shopt -s nullglob
for graph in "$graphs"/Syringe.symbols.json "$graphs"/Syringe@*.symbols.json; do
    cp "$graph" "$module_graphs/"
done
shopt -u nullglob
if [ ! -e "$module_graphs/Syringe.symbols.json" ]; then
    echo "build-docs: the build emitted no Syringe.symbols.json in $graphs" >&2
    exit 1
fi

# 3. The archive. --warnings-as-errors makes docc exit non-zero on any
# warning; parameter validation (on by default) is what catches a doc
# comment's parameter list drifting from the signature.
coverage=()
if [ "${DOCS_COVERAGE:-0}" = 1 ]; then
    coverage=(--experimental-documentation-coverage --coverage-summary-level brief)
fi
mkdir -p "$(dirname "$output")"
echo "==> docc convert" >&2
"$docc" convert Sources/Syringe/Syringe.docc \
    --additional-symbol-graph-dir "$module_graphs" \
    --fallback-display-name Syringe \
    --fallback-bundle-identifier org.syringe.Syringe \
    --warnings-as-errors \
    ${coverage[@]+"${coverage[@]}"} \
    --output-path "$output"

echo "Documentation archive: $output"
echo "Preview it with a static file server, e.g.: python3 -m http.server --directory \"$output\" 8000, then open http://localhost:8000/documentation/syringe"
