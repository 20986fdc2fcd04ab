#!/usr/bin/env bash
# Instructions per operation of each resolve scenario, counted by callgrind.
#
# Wall-clock time on a shared VM varies by 1.5x between runs of one binary;
# callgrind's instruction counts do not, so they are what proves that a change
# did not make a resolve slower. Only the timed loops (`loopS…`, `loopG…`,
# `loopW…`) are counted.
#
#   bash Benchmarks/callgrind-counts.sh                    # S1–S7, SC2 and G1–G3, Syringe's column
#   bash Benchmarks/callgrind-counts.sh S1 S5              # some scenarios
#   CONTENDER=swift-frozen bash Benchmarks/callgrind-counts.sh
#   CONTENDER=syringe-swinject bash Benchmarks/callgrind-counts.sh W1 W2 W3 W4 W5 W6
#                                                          # Swinject's API on Syringe (W rows; the
#                                                          # default contender gives the native API's)
#   BINARY=/path/to/benchmarks bash Benchmarks/callgrind-counts.sh   # another build
#
# Prints one line per scenario: its id and instructions per operation (S6: per
# operation of one thread, as its two threads run S2's loop). Needs valgrind.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
contender="${CONTENDER:-syringe}"
ops=100000
graph_ops=100
scenarios=("$@")
if (( ${#scenarios[@]} == 0 )); then
    scenarios=(S1 S2 S3 S4 S5 S6 S7 SC2 G1 G2 G3)
fi

binary="${BINARY:-}"
if [[ -z "$binary" ]]; then
    swift build -c release --package-path "$here" --product benchmarks >&2
    binary="$(swift build -c release --package-path "$here" --show-bin-path)/benchmarks"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that Swift emits: strip it; symbols stay.
objcopy --strip-debug "$binary" "$work/benchmarks"

for scenario in "${scenarios[@]}"; do
    threads=1 count=$ops loops=('--toggle-collect=*loopS*')
    if [[ "$scenario" == S6 ]]; then threads=2; fi
    # A graph resolve is a hundred to a thousand resolves: fewer of them.
    if [[ "$scenario" == G* || "$scenario" == W6 ]]; then count=$graph_ops loops=('--toggle-collect=*loopG*'); fi
    # W rows: the Swinject-API loops (loopW…, in SwinjectShapes and
    # SyringeSwinjectShapes) and, for Syringe's column, the S or G row's loop.
    if [[ "$scenario" == W* ]]; then loops+=('--toggle-collect=*loopW*'); fi
    # Every loop of the kind: the compiler merges identical ones (S1's and
    # S2's call the same resolve) under one name, and --filter runs one
    # scenario's only.
    valgrind --tool=callgrind "${loops[@]}" \
        --callgrind-out-file="$work/$scenario.out" \
        "$work/benchmarks" --filter "$scenario" --contender "$contender" --reps 1 --ops "$ops" --no-pairs \
        --graph-ops "$graph_ops" >/dev/null 2>"$work/$scenario.log"
    total="$(sed -n 's/^summary: //p' "$work/$scenario.out")"
    # One warm-up of ops/5 plus one repetition of ops, on each thread.
    awk -v id="$scenario" -v total="$total" -v ops="$count" -v threads="$threads" \
        'BEGIN { printf "%-3s %8.1f instructions/op\n", id, total / (ops * 1.2 * threads) }'
done
