#!/usr/bin/env bash
# Model-checks the reclaimer's protocol (Model/reclaim.pml) with spin:
# every safety and liveness property, exhaustively. Prints one line per
# property and exits non-zero if any check finds an error or does not
# complete. Needs spin (Debian: apt-get install spin) and a C compiler.
#
#   bash Model/check.sh                 the properties (what CI runs)
#   bash Model/check.sh --experiments   the experiments, each of which must
#                                       make spin find a counterexample
#                                       (proof that the model can fail)
#
# Everything runs in a temporary directory; no pan* file is left anywhere.
set -euo pipefail

model="$(cd "$(dirname "$0")" && pwd)/reclaim.pml"
mode=${1:-}
case "$mode" in
    ""|--experiments) ;;
    *) echo "usage: bash Model/check.sh [--experiments]" >&2; exit 2 ;;
esac

command -v spin >/dev/null || { echo "spin is not installed (Debian: apt-get install spin)" >&2; exit 1; }
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "no C compiler ($cc) for spin's verifiers" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/syringe-spin.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$model" "$work/reclaim.pml"
cd "$work"

failures=0

# check <expect: pass|fail> <name> <spin -D flags> <cc flags> <pan flags>
check() {
    local expect=$1 name=$2 spin_flags=$3 cc_flags=$4 pan_flags=$5
    local start end errors states verdict
    rm -f pan pan.* ./*.trail
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    if ! spin $spin_flags -a reclaim.pml >spin.log 2>&1; then
        echo "FAIL  $name: spin -a failed"; cat spin.log; failures=$((failures + 1)); return
    fi
    # shellcheck disable=SC2086
    if ! "$cc" -w -O2 $cc_flags -o pan pan.c >cc.log 2>&1; then
        echo "FAIL  $name: compiling the verifier failed"; cat cc.log; failures=$((failures + 1)); return
    fi
    # shellcheck disable=SC2086
    ./pan $pan_flags >pan.log 2>&1 || true
    end=$(date +%s.%N)
    errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.log | tail -1)
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.log | tail -1)
    if [ -z "$errors" ]; then
        verdict="no result"
    elif grep -q "max search depth too small\|search not completed\|out of memory" pan.log; then
        verdict="incomplete search"
    elif [ "$errors" -eq 0 ]; then
        verdict="pass"
    else
        verdict="fail"
    fi
    local timing
    timing=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f s", b - a }')
    if [ "$verdict" = "$expect" ]; then
        if [ "$expect" = pass ]; then
            echo "ok    $name: no error, ${states:-?} states, $timing"
        else
            echo "ok    $name: counterexample found as expected ($(grep -m1 -o 'assertion violated.*\|acceptance cycle\|invalid end state' pan.log)), $timing"
        fi
    else
        echo "FAIL  $name: expected $expect, got $verdict ($timing)"
        grep -E "pan:|error|violated|cycle" pan.log | head -5 || true
        if [ -f reclaim.pml.trail ]; then
            echo "  the counterexample (spin $spin_flags -t -p -g reclaim.pml), last steps:"
            # shellcheck disable=SC2086
            spin $spin_flags -t -p -g reclaim.pml 2>&1 | grep -E '^ *[0-9]+:|assert|CYCLE' | tail -40 | sed 's/^/  /'
        fi
        failures=$((failures + 1))
    fi
}

safety="-DSAFETY -DNOCLAIM -DCOLLAPSE"
liveness="-DCOLLAPSE -DNFAIR=3"

if [ -z "$mode" ]; then
    check pass "safety: no use after free (membarrier; 2 readers, 3 retires, unbounded thread exit and record reuse)" \
        "" "$safety" "-m200000"
    check pass "safety: no use after free (reader-fenced, non-Linux; 2 readers, 2 retires)" \
        "-DREADER_FENCED -DNW=2" "$safety" "-m200000"
    check pass "quiescence: once the writer is done and every reader thread has exited, the reclaimer's next poll frees everything (1 round each, 3 retires)" \
        "-DREADER_ROUNDS=1" "$safety" "-m200000"
    check pass "liveness: <> everything retired is freed, weak fairness (1 retire, unbounded thread churn)" \
        "-DLIVENESS -DNW=1" "$liveness" "-a -f -m200000"
    check pass "liveness: <> everything retired is freed, weak fairness (2 retires, no thread exits)" \
        "-DLIVENESS -DNW=2 -DMAX_EXITS=0" "$liveness" "-a -f -m200000"
else
    check fail "experiment: heavy fence removed -> use after free" \
        "-DNO_FENCE" "$safety -DBFS" ""
    check fail "experiment: a section that never ends -> nothing freed, even under weak fairness" \
        "-DLIVENESS -DNW=2 -DMAX_EXITS=0 -DSTUCK" "$liveness" "-a -f -m200000"
    check fail "experiment: a retire whose writer cannot poll (inside a section) while the reclaimer's thread waits -> stays pending" \
        "-DREADER_ROUNDS=1 -DSKIP_POLL" "$safety" "-m200000"
fi

if [ "$failures" -ne 0 ]; then
    echo "model check: $failures check(s) failed" >&2
    exit 1
fi
