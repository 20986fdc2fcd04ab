#!/usr/bin/env bash
# Compares Syringe's reclaimer (include/syringe_reclaim.h,
# Sources/CSyringeTable/syringe_reclaim.c) with liburcu 0.13 on read-side and
# write-side cost. Not part of the Swift package: plain `cc -O2`.
#
#   Benchmarks/Reclamation/compare.sh            # everything, ~1-2 minutes
#   RUNS=3 TIME_N=2000000 Benchmarks/Reclamation/compare.sh   # quicker look
#
# Needs: cc, pkg-config, liburcu-dev (0.13), valgrind (callgrind), binutils
# (objdump); strace is optional (syscalls per retire).
#
# Instructions are callgrind's, user space only, deterministic: the loop
# functions alone (--toggle-collect), divided by the number of sections. The
# ns numbers are the median of $RUNS timed runs and depend on the machine's
# load; the instruction counts do not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

missing=()
command -v cc >/dev/null || missing+=("a C compiler (cc)")
command -v pkg-config >/dev/null || missing+=("pkg-config")
command -v valgrind >/dev/null || missing+=("valgrind (apt-get install valgrind)")
command -v objdump >/dev/null || missing+=("objdump (apt-get install binutils)")
if command -v pkg-config >/dev/null && ! pkg-config --exists liburcu-memb liburcu-bp liburcu-qsbr; then
    missing+=("liburcu-dev (apt-get install liburcu-dev; Homebrew: userspace-rcu)")
fi
if [ "${#missing[@]}" -gt 0 ]; then
    printf 'compare.sh needs:\n' >&2
    printf '  - %s\n' "${missing[@]}" >&2
    exit 1
fi
if [ "$(uname -s)" != Linux ]; then
    echo "compare.sh runs on Linux only (membarrier, valgrind, x86-64 or arm64 objdump)" >&2
    exit 1
fi

RUNS=${RUNS:-7}            # timed runs per number; the median is printed
TIME_N=${TIME_N:-10000000} # sections per timed run
CG_N=${CG_N:-1000000}      # sections under callgrind
W_TIME_N=${W_TIME_N:-20000}
W_CG_N=${W_CG_N:-2000}

build=$(mktemp -d "${TMPDIR:-/tmp}/syringe-reclaim.XXXXXX")
trap 'rm -rf "$build"' EXIT

CFLAGS=(-O2 -std=gnu11 -Wall -Wextra -I "$root/include" $(pkg-config --cflags liburcu-memb))
LIBS=($(pkg-config --libs liburcu-memb liburcu-bp liburcu-qsbr) -lpthread)
others=("$here/compare.c" "$here/v_empty.c" "$here/v_memb.c" "$here/v_memb_call.c" "$here/v_bp.c" "$here/v_qsbr.c")
reclaim_c="$root/Sources/CSyringeTable/syringe_reclaim.c"

# compare: everything in one executable, as SwiftPM links a Linux app.
cc "${CFLAGS[@]}" -o "$build/compare" "${others[@]}" "$here/v_ours.c" "$reclaim_c" "${LIBS[@]}"
# compare-so: ours built -fPIC into a shared library (a `.dynamic` product):
# its thread-local is then reached through __tls_get_addr, as liburcu's .so is.
cc "${CFLAGS[@]}" -fPIC -shared -o "$build/libsyrreclaim.so" "$here/v_ours.c" "$reclaim_c" -lpthread
cc "${CFLAGS[@]}" -o "$build/compare-so" "${others[@]}" -L"$build" -lsyrreclaim -Wl,-rpath,"$build" "${LIBS[@]}"
# compare-fenced: ours built as for a platform without membarrier (Darwin):
# the reader's outermost enter runs a full fence. Simulated on Linux by
# undefining __linux__ for our two files only.
cc "${CFLAGS[@]}" -U__linux__ -c -o "$build/v_ours_fenced.o" "$here/v_ours.c"
cc "${CFLAGS[@]}" -U__linux__ -c -o "$build/reclaim_fenced.o" "$reclaim_c"
cc "${CFLAGS[@]}" -o "$build/compare-fenced" "${others[@]}" "$build/v_ours_fenced.o" "$build/reclaim_fenced.o" "${LIBS[@]}"

# callgrind_ir <binary> <function> <args...>: instructions executed inside <function>.
callgrind_ir() {
    local binary=$1 function=$2
    shift 2
    valgrind --tool=callgrind --toggle-collect="$function" --callgrind-out-file="$build/cg.out" \
        "$build/$binary" "$@" >/dev/null 2>"$build/cg.err" || { cat "$build/cg.err" >&2; exit 1; }
    awk '/^summary:/ {print $2}' "$build/cg.out"
}
per() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%+.2f", a - b}'; }

echo "# Reclamation: read- and write-side cost"
echo
echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, kernel $(uname -r)"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min; the ns columns are noisy when this is high)"
echo "cc:       $(cc --version | head -1)"
echo "liburcu:  $(pkg-config --modversion liburcu-memb); $(valgrind --version)"
echo "counting: callgrind, $CG_N sections per read row, $W_CG_N retires per write row;"
echo "          timing: median of $RUNS runs of $TIME_N sections ($W_TIME_N retires)"
echo

# The read-side rows: label | binary | variant name in compare.c | its functions' prefix.
rows=(
    "empty loop (the floor)|compare|empty|empty"
    "ours: syr_read_enter/exit|compare|ours|ours"
    "ours, while a retired object waits for another thread's section|compare|ours pending|ours"
    "urcu-memb, _LGPL_SOURCE inline|compare|urcu-memb|memb"
    "urcu-memb, calls into the .so (non-LGPL code)|compare|urcu-memb (calls)|memb_call"
    "urcu-bp, inline (self-registering)|compare|urcu-bp|bp"
    "urcu-qsbr read_lock/unlock (quiescent states not counted)|compare|urcu-qsbr|qsbr"
    "urcu-qsbr, online/offline around each section|compare|urcu-qsbr online/offline|qsbr_online"
    "ours, built -fPIC into a shared library|compare-so|ours|ours"
    "ours, readers fence (Darwin's protocol; x86 fence)|compare-fenced|ours|ours"
    "urcu-memb inline, without membarrier (as on Darwin)|compare|urcu-memb fenced|memb"
)

echo "## Read side, per section (enter + exit)"
echo
echo "| Variant | Ir outermost | net of floor | Ir nested | net of floor | ns outermost | ns nested |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
floor_outer= floor_nested=
for row in "${rows[@]}"; do
    IFS='|' read -r label binary name prefix <<<"$row"
    outer=$(per "$(callgrind_ir "$binary" "${prefix}_outer" read "$name" outer "$CG_N")" "$CG_N")
    nested=$(per "$(callgrind_ir "$binary" "${prefix}_nested" read "$name" nested "$CG_N")" "$CG_N")
    if [ -z "$floor_outer" ]; then floor_outer=$outer floor_nested=$nested; fi
    read -r ns_outer ns_nested < <("$build/$binary" time-read "$name" "$TIME_N" "$RUNS")
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$outer" "$(minus "$outer" "$floor_outer")" \
        "$nested" "$(minus "$nested" "$floor_nested")" "$ns_outer" "$ns_nested"
done
echo
echo "A qsbr reader must also announce quiescent states (urcu_qsbr_quiescent_state, or go"
echo "offline) from code that knows it holds nothing; only the application knows that."

writers=(
    "ours: syr_reclaim_retire + syr_reclaim_poll|ours retire+poll|ours_writer"
    "urcu-memb call_rcu (freed by its helper thread)|urcu-memb call_rcu|memb_call_rcu_writer"
    "urcu-memb synchronize_rcu, then free (blocks)|urcu-memb synchronize_rcu|memb_synchronize_writer"
)
echo
echo "## Write side, per retired object (malloc'd 32-48 B, no reader in flight)"
echo
echo "| Writer | Ir in the writer's thread | syscalls (all threads) | ns until the writer returns | ns until freed |"
echo "| --- | ---: | ---: | ---: | ---: |"
for row in "${writers[@]}"; do
    IFS='|' read -r label name function <<<"$row"
    ir=$(per "$(callgrind_ir compare "$function" write "$name" "$W_CG_N")" "$W_CG_N")
    syscalls="n/a"
    if command -v strace >/dev/null; then
        strace -f -c -o "$build/strace.out" "$build/compare" write "$name" "$W_CG_N" >/dev/null 2>&1 || true
        total=$(awk '$NF == "total" {print $4}' "$build/strace.out")
        # Subtract a run with no retires: start-up, thread creation, exit.
        strace -f -c -o "$build/strace0.out" "$build/compare" write "$name" 0 >/dev/null 2>&1 || true
        base=$(awk '$NF == "total" {print $4}' "$build/strace0.out")
        syscalls=$(per "$((total - base))" "$W_CG_N")
    fi
    read -r ns_return ns_freed < <("$build/compare" time-write "$name" "$W_TIME_N" "$RUNS")
    printf '| %s | %s | %s | %s | %s |\n' "$label" "$ir" "$syscalls" "$ns_return" "$ns_freed"
done
echo
echo "Callgrind counts user-space instructions only: a membarrier(2) or futex(2) call"
echo "costs far more than its few instructions; the syscalls column and the ns show it."

# disassemble <binary> <function>: its instructions, without the nops that pad
# between blocks.
disassemble() {
    [ -f "$build/$1.dis" ] || objdump -d --no-show-raw-insn "$build/$1" >"$build/$1.dis"
    awk -v f="<$2>:" '$2 == f {p = 1; next} p && /^$/ {exit} p {print}' "$build/$1.dis" |
        cut -f2- | grep -Ev '^((data16 |cs )*nop|xchg +%ax,%ax$)' || true
}
# Instructions that are a full barrier or an atomic read-modify-write on x86-64
# and arm64 (`xchg %ax,%ax` is a two-byte nop the assembler pads with).
heavy() { grep -E '\block\b|mfence|lfence|sfence|\bxchg|cmpxchg|xadd|dmb|ldaxr|stlxr|\bcas|ldadd|swp' | grep -Ev 'xchg +%ax,%ax' || true; }

echo
echo "## Generated code of one outermost section"
for pair in "compare ours_one" "compare memb_one"; do
    read -r binary function <<<"$pair"
    echo
    echo "### $function ($binary)"
    echo
    echo '```'
    disassemble "$binary" "$function"
    echo '```'
done
echo
echo "## Barriers and atomic read-modify-writes on the read side"
echo
for pair in "compare ours_one" "compare ours_outer" "compare ours_nested" "compare-so ours_one" \
            "compare-fenced ours_one" "compare memb_one" "compare bp_one" "compare qsbr_online_one"; do
    read -r binary function <<<"$pair"
    found=$(disassemble "$binary" "$function" | heavy | tr -s ' ' | paste -sd';' -)
    printf -- '- %s in %s: %s\n' "$function" "$binary" "${found:-none}"
done
echo
echo "These are the inline fast paths. Ours goes out of line (syr_read_enter_unregistered)"
echo "only at a thread's first section; while a retired object is pending, readers run the"
echo "same fast path (the reclaimer's thread polls): the \"while a retired object waits\" row."
echo "liburcu's mfence are on the branches taken when membarrier(2) is unavailable;"
echo "qsbr's online/offline run theirs always. Ours (Linux) has none: its ordering is the"
echo "scanner's membarrier(2); the fenced build shows the fence Darwin pays instead."
