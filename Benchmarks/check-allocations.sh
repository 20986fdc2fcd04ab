#!/usr/bin/env bash
# Syringe's allocation check, for CI.
#
# Runs the package-benchmark suite in Benchmarks/Benchmarks/Allocations and
# compares each benchmark's malloc count with the thresholds checked in under
# Benchmarks/Thresholds/ (one <Target>.<Benchmark>.p90.json per benchmark).
#
#   exit 0   every benchmark allocates exactly what its threshold says (AsyncNewChain5
#            and ScopeRequest: within 500 per 1 000, see Allocations.swift for why)
#   exit 1   a benchmark allocates MORE (a regression), or fewer (then tighten
#            the threshold, see below), or the build/run failed
#
# Usable from any directory: `bash Benchmarks/check-allocations.sh`.
#
# To accept new counts on purpose (e.g. after removing an allocation):
#   swift package --package-path Benchmarks --allow-writing-to-package-directory \
#       benchmark thresholds update --path "$PWD/Benchmarks/Thresholds"
#
# Requirements: Swift 6.3 or later. package-benchmark 1.38.1 counts mallocs
# with its own interposer (the malloc-interposer package) on Swift 6.3+, so no
# system package is needed (jemalloc was only needed on Swift <= 6.2).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
thresholds="$here/Thresholds"

version="$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p' | head -n 1)"
read -r major minor <<< "${version:-0 0}"
if (( major < 6 || (major == 6 && minor < 3) )); then
    echo "check-allocations: needs Swift 6.3 or later (found: ${major}.${minor})" >&2
    exit 1
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

echo "check-allocations: building and running Benchmarks/Benchmarks/Allocations (release)…"
swift package --package-path "$here" \
    benchmark thresholds check --path "$thresholds" --target Allocations --no-progress 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

if (( status == 0 )); then
    echo "check-allocations: OK — allocation counts equal the thresholds in Benchmarks/Thresholds."
    exit 0
fi
if grep -q "is WORSE than the defined thresholds" "$log"; then
    echo "check-allocations: FAILED — a resolve allocates more than its threshold allows (see the table above)." >&2
elif grep -q "is BETTER than the defined thresholds" "$log"; then
    echo "check-allocations: FAILED — a resolve allocates less than its threshold: tighten the threshold with" >&2
    echo "  swift package --package-path Benchmarks --allow-writing-to-package-directory benchmark thresholds update --path \"\$PWD/Benchmarks/Thresholds\"" >&2
else
    echo "check-allocations: FAILED — the benchmark did not build or run (exit status $status)." >&2
fi
exit 1
