#!/usr/bin/env bash
# Builds the table fuzzer with ASan + UBSan and runs it on a scratch copy of
# the seed corpus. FUZZ_SECONDS (default 60) bounds the run. Exits non-zero
# when the fuzzer finds a crash, leak, sanitizer report or model mismatch.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLANG="${CLANG:-$(command -v clang || echo /opt/swift/usr/bin/clang)}"
OUT=Fuzz/out
WORK=Fuzz/corpus-work

if ! { command -v pkg-config >/dev/null && pkg-config --exists libxxhash; }; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq libxxhash-dev pkg-config
    else
        echo "run.sh: libxxhash is missing (Debian: apt-get install libxxhash-dev)" >&2
        exit 1
    fi
fi

# The Swift toolchain's clang links with gold by default, which prints a
# warning for every ASan symbol; the lld shipped beside it links quietly.
LINKER=()
if [[ -x "$(dirname "$CLANG")/ld.lld" ]]; then
    LINKER=(-fuse-ld=lld)
fi

mkdir -p "$OUT/crashes" "$WORK"
# -fno-sanitize-recover: a UBSan report must fail the run, not just print.
# SYR_INTERNAL_CHECKS: every writer operation also checks its own invariants.
"$CLANG" "${LINKER[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1 \
    -DSYR_INTERNAL_CHECKS -I include $(pkg-config --cflags libxxhash) \
    Fuzz/table_fuzzer.c Sources/CSyringeTable/syringe_table.c Sources/CSyringeTable/syringe_reclaim.c \
    -pthread -o "$OUT/table_fuzzer"

# The checked-in seeds stay read-only; new inputs accumulate in the work copy.
cp Fuzz/corpus/* "$WORK"/

# Crash, leak and timeout inputs land in Fuzz/out/crashes/.
ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
"$OUT/table_fuzzer" \
    -max_total_time="${FUZZ_SECONDS:-60}" \
    -max_len=4096 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -print_final_stats=1 \
    -artifact_prefix="$OUT/crashes/" \
    "$WORK"
