#!/usr/bin/env bash
# Where the server's time goes under wrk, per request, for each wiring: the
# whole HTTP request, which request-cost.sh (the request's own work, no
# HTTP) does not see, sampled by `perf record` on the running server.
#
#   ./profile.sh [--duration 8] [--rounds 3] [--connections 64] [--route read|write]
#                [--wirings "hand syringe"] [--top 25]
#
# Builds TodoServer in release mode; for each round and each wiring
# (interleaved as in loadtest.sh, in reverse order every other round)
# starts a server with a fresh database of 100 todos, warms it up for two
# seconds, and samples it (cpu-clock, 2 kHz; the kernel too where
# kernel.perf_event_paranoid allows it, as root does) for exactly as long
# as wrk runs against the route. Prints, per wiring, the CPU samples per
# 1 000 requests summed over the rounds, split into Syringe's own functions
# (those of its module; its @inlinable code inlined into the app's
# functions counts as the app's), reference counting, the concurrency
# runtime, allocation, the kernel and everything else, each also as a
# share of the first wiring's total; then the functions whose samples per
# request grew most against the first wiring. On a shared machine the
# totals swing from run to run as requests/s do; more rounds narrow them.
# Stopped by SIGINT, SIGTERM or SIGHUP, it stops wrk, perf and the server
# at once and exits with 128 + the signal's number.
# Needs perf (Debian: linux-perf), wrk and curl.
set -euo pipefail
cd "$(dirname "$0")"

duration=8 rounds=3 connections=64 route=read wirings="hand syringe" top=25
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --route) route=$2; shift 2 ;;
        --wirings) wirings=$2; shift 2 ;;
        --top) top=$2; shift 2 ;;
        *) echo "usage: $0 [--duration s] [--rounds n] [--connections n] [--route read|write] [--wirings \"hand syringe\"] [--top n]" >&2; exit 2 ;;
    esac
done
case "$route" in read|write) ;; *) echo "--route is read or write" >&2; exit 2 ;; esac
for tool in perf wrk curl; do
    command -v "$tool" >/dev/null || { echo "profile.sh needs $tool (Debian: apt-get install linux-perf wrk curl)" >&2; exit 1; }
done
wirings=$(echo $wirings)   # words, single-spaced
perf record -q -e cpu-clock -o /dev/null -- true 2>/dev/null || {
    echo "perf cannot sample here: run as root, or sysctl kernel.perf_event_paranoid=1 (perf record says:)" >&2
    perf record -q -e cpu-clock -o /dev/null -- true >&2 || true
    exit 1
}

source ./server-runs.sh
build_server

work=$(mktemp -d "${TMPDIR:-/tmp}/todo-profile.XXXXXX")
perf_pid=
cleanup() {
    if [ -n "$perf_pid" ]; then kill "$perf_pid" 2>/dev/null || true; fi
    stop_wrk_on_exit
    stop_server_on_exit
    rm -rf "$work"
}
trap cleanup EXIT
exit_on_signals
write_post_script

profile_round() {  # profile_round <round> <wiring>: appends "<wiring> <requests>" to $work/requests
    local round=$1 wiring=$2
    start_server "$wiring" "$wiring-$round"
    local url=$server_url
    local wrk_args=(-t2 -c"$connections" "$url/todos/42")
    [ "$route" = write ] && wrk_args=(-t2 -c"$connections" -s "$work/post.lua" "$url/todos")
    run_wrk -d2s "${wrk_args[@]}"

    # Sampling from before wrk starts until it has stopped: started with
    # no command of its own, perf samples the server until interrupted.
    perf record -q -e cpu-clock -F 2000 -p "$server_pid" -o "$work/$wiring-$round.data" > /dev/null 2> "$work/perf.err" &
    perf_pid=$!
    sleep 0.5
    kill -0 "$perf_pid" 2>/dev/null || { cat "$work/perf.err" >&2; echo "perf record did not start" >&2; exit 1; }
    local requests
    run_wrk -d"${duration}s" --latency "${wrk_args[@]}"
    requests=$(parse_wrk < "$work/wrk.out" | awk '{ print $4 }')
    kill -INT "$perf_pid"
    wait "$perf_pid" || true   # perf exits non-zero when interrupted
    perf_pid=
    [ -n "$requests" ] && [ "$requests" -gt 0 ] || { echo "wrk made no requests against the $wiring server" >&2; exit 1; }
    printf '%s\t%s\n' "$wiring" "$requests" >> "$work/requests"

    stop_server "$wiring" "$wiring-$round"
    # "<wiring>\t<samples>\t<dso>\t<[.] or [k]>\t<symbol>" per sampled function
    perf report -i "$work/$wiring-$round.data" --no-children --sort dso,sym -n --stdio -g none > "$work/report" 2> "$work/report.err" ||
        { cat "$work/report.err" >&2; echo "perf report failed" >&2; exit 1; }
    awk -v wiring="$wiring" -v OFS='\t' '!/^#/ && NF >= 5 { s = $5; for (i = 6; i <= NF; i++) s = s " " $i; print wiring, $2, $3, $4, s }' \
        "$work/report" >> "$work/samples"
}

: > "$work/requests"
: > "$work/samples"
for round in $(seq "$rounds"); do
    for wiring in $(round_order "$round" "$wirings"); do
        echo "==> round $round/$rounds: $wiring (${duration}s of $route under perf)" >&2
        profile_round "$round" "$wiring"
    done
done

echo
echo "TodoServer under wrk and perf: $route route, $connections connections, ${duration}s per run, $rounds rounds"
echo "CPU samples (cpu-clock, 2 kHz: one per 0.5 ms) per 1000 requests; % of the ${wirings%% *} wiring's total"
echo
awk -F'\t' -v wirings="$wirings" -v top="$top" '
    function group(dso, mark, sym) {
        if (mark == "[k]") return "kernel"
        if (sym ~ /^\$s7Syringe/ || sym ~ /^syr_/) return "Syringe"
        if (sym ~ /^_?swift_(retain|release|bridgeObjectRetain|bridgeObjectRelease|unknownObjectRetain|unknownObjectRelease|release_dealloc)/ || sym ~ /RefCounts/) return "reference counting"
        if (dso ~ /libswift_Concurrency/) return "concurrency runtime"
        if (sym ~ /^swift_(allocObject|deallocObject|deallocClassInstance|slowAlloc|slowDealloc)$/ ||
            (dso ~ /libc\.so/ && sym ~ /^(malloc|calloc|realloc|free|cfree|posix_memalign|aligned_alloc|_int_malloc|_int_free|_int_realloc|malloc_consolidate|__malloc_usable_size)/)) return "allocation"
        return "everything else"
    }
    FILENAME ~ /requests$/ { requests[$1] += $2; next }
    {
        sym = $5; samples[$1, group($3, $4, sym)] += $2; total[$1] += $2
        fn[$1, $3 " " sym] += $2; names[$3 " " sym] = 1
    }
    END {
        n = split(wirings, w, " "); base = w[1]
        split("Syringe|reference counting|concurrency runtime|allocation|kernel|everything else", groups, "|")
        for (i = 1; i <= n; i++) if (requests[w[i]] <= 0 || total[w[i]] <= 0) { print "no samples for " w[i] > "/dev/stderr"; exit 1 }
        printf "%-22s", "per 1000 requests"
        for (i = 1; i <= n; i++) printf " %18s", w[i]
        printf "\n"
        for (g = 1; g <= 6; g++) {
            printf "%-22s", groups[g]
            for (i = 1; i <= n; i++) {
                per = samples[w[i], groups[g]] * 1000 / requests[w[i]]
                printf " %9.1f (%5.1f%%)", per, per * 100 / (total[base] * 1000 / requests[base])
            }
            printf "\n"
        }
        printf "%-22s", "total"
        for (i = 1; i <= n; i++) {
            per = total[w[i]] * 1000 / requests[w[i]]
            printf " %9.1f (%5.1f%%)", per, per * 100 / (total[base] * 1000 / requests[base])
        }
        printf "\n%-22s", "requests sampled"
        for (i = 1; i <= n; i++) printf " %18d", requests[w[i]]
        printf "\n"
        if (n == 1) print "\n(one wiring: nothing to compare it with)"
        for (i = 2; i <= n; i++) {
            printf "\nfunctions whose samples per request grew most, %s against %s (%% of %s'"'"'s total):\n", w[i], base, base
            m = 0
            for (name in names) {
                d = fn[w[i], name] / requests[w[i]] - fn[base, name] / requests[base]
                if (d > 0) { m++; diff[m] = d; label[m] = name }
            }
            # the largest `top`, by selection
            for (k = 1; k <= top && k <= m; k++) {
                best = k
                for (j = k + 1; j <= m; j++) if (diff[j] > diff[best]) best = j
                t = diff[k]; diff[k] = diff[best]; diff[best] = t
                t = label[k]; label[k] = label[best]; label[best] = t
                printf "  %+6.2f%%  %s\n", diff[k] * 100 / (total[base] / requests[base]), substr(label[k], 1, 150)
            }
            delete diff; delete label
        }
    }' "$work/requests" "$work/samples"
