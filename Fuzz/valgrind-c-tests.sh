#!/usr/bin/env bash
# Runs Fuzz/table_smoke.c twice: built plainly under valgrind, and built with
# AddressSanitizer (LeakSanitizer on) + UBSan. Exits non-zero on any leak,
# memory error, sanitizer report or failed check.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLANG="${CLANG:-$(command -v clang || echo /opt/swift/usr/bin/clang)}"
OUT=Fuzz/out
SOURCES=(Fuzz/table_smoke.c Sources/CSyringeTable/syringe_table.c Sources/CSyringeTable/syringe_reclaim.c -pthread)
# SYR_INTERNAL_CHECKS: every writer operation also checks its own invariants.
CFLAGS=(-std=c11 -Wall -Wextra -Werror -DSYR_INTERNAL_CHECKS -I include $(pkg-config --cflags libxxhash))

# The Swift toolchain's clang links with gold by default, which prints a
# warning for every ASan symbol; the lld shipped beside it links quietly.
LINKER=()
if [[ -x "$(dirname "$CLANG")/ld.lld" ]]; then
    LINKER=(-fuse-ld=lld)
fi

command -v valgrind >/dev/null || { echo "valgrind-c-tests.sh: valgrind is not installed" >&2; exit 1; }
mkdir -p "$OUT"

# DWARF 4: valgrind 3.19 gives up on the DWARF 5 that clang 21 emits by default.
"$CLANG" "${CFLAGS[@]}" -g -gdwarf-4 -O0 "${SOURCES[@]}" -o "$OUT/table_smoke"
echo "== valgrind"
# Every leak kind counts, "still reachable" included: the driver frees all.
valgrind --quiet --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
    --error-exitcode=1 "$OUT/table_smoke"

"$CLANG" "${CFLAGS[@]}" "${LINKER[@]}" -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
    -fno-omit-frame-pointer "${SOURCES[@]}" -o "$OUT/table_smoke_asan"
echo "== AddressSanitizer + LeakSanitizer + UBSan"
ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$OUT/table_smoke_asan"
