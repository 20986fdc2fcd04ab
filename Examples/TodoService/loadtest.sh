#!/usr/bin/env bash
# The load comparison: the same TodoService wired three ways, under wrk.
#
#   ./loadtest.sh [--duration 10] [--threads 2] [--connections 64] [--rounds 3]
#                 [--wirings "syringe hand swinject"]
#
# Builds TodoServer in release mode, then for each round and each wiring
# (interleaved, in reverse order every other round, so that the machine's
# drift falls on all of them alike)
# starts a server on 127.0.0.1 on a free port with a fresh database of 100
# todos, runs wrk against the read route (GET /todos/:id) and the write route
# (POST /todos), and stops the server with SIGTERM (it must exit 0 after
# closing its database). Prints each wiring's median over the rounds:
# requests/s, p50 and p99 latency, and the server's CPU time per request, and
# each against the hand-wired app (no container); then each wiring's
# requests/s against the hand-wired app's run of the same round (median,
# lowest and highest), from which the machine's drift between rounds
# largely cancels out (not its drift within a round). Stopped by SIGINT,
# SIGTERM or SIGHUP, it stops wrk and the server at once and exits with
# 128 + the signal's number.
set -euo pipefail
cd "$(dirname "$0")"

duration=10 threads=2 connections=64 rounds=3 wirings="syringe hand swinject"
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --wirings) wirings=$2; shift 2 ;;
        *) echo "usage: $0 [--duration s] [--threads n] [--connections n] [--rounds n] [--wirings \"syringe hand swinject\"]" >&2; exit 2 ;;
    esac
done

if ! command -v wrk >/dev/null; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        echo "==> apt-get install wrk" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null ||
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
    else
        echo "loadtest.sh needs wrk: sudo apt-get install wrk (Debian/Ubuntu), brew install wrk (macOS)" >&2
        exit 1
    fi
fi
command -v curl >/dev/null || { echo "loadtest.sh needs curl" >&2; exit 1; }

source ./server-runs.sh
build_server

work=$(mktemp -d "${TMPDIR:-/tmp}/todo-load.XXXXXX")
cleanup() {
    stop_wrk_on_exit
    stop_server_on_exit
    rm -rf "$work"
}
trap cleanup EXIT
exit_on_signals
write_post_script

clock_ticks=$(getconf CLK_TCK)
cpu_ticks() {  # utime + stime of a process, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

run_round() {  # run_round <round> <wiring>
    local round=$1 wiring=$2
    start_server "$wiring" "$wiring-$round"
    local url=$server_url

    local route before after result
    for route in read write; do
        check_server "$wiring" "$wiring-$round"
        before=$(cpu_ticks "$server_pid")
        if [ "$route" = read ]; then
            run_wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "$url/todos/42"
        else
            run_wrk -t"$threads" -c"$connections" -d"${duration}s" --latency -s "$work/post.lua" "$url/todos"
        fi
        check_server "$wiring" "$wiring-$round"
        result=$(parse_wrk < "$work/wrk.out")
        after=$(cpu_ticks "$server_pid")
        # requests/s p50 p99, the server's CPU µs per request, and the round
        echo "$wiring $route $result $(( (after - before) * 1000000 / clock_ticks )) $round" |
            awk '{ printf "%s %s %s %s %s %.1f %s\n", $1, $2, $3, $4, $5, $7 / $6, $8 }' >> "$work/results"
    done

    stop_server "$wiring" "$wiring-$round"
}

: > "$work/results"
for round in $(seq "$rounds"); do
    for wiring in $(round_order "$round" "$wirings"); do
        echo "==> round $round/$rounds: $wiring (${duration}s read, ${duration}s write)" >&2
        run_round "$round" "$wiring"
    done
done

echo
echo "TodoService under wrk: $threads threads, $connections connections, ${duration}s per run, median of $rounds rounds"
echo "read: GET /todos/42; write: POST /todos; CPU: the server's user+system time per request"
echo
awk -v wirings="$wirings" '
    function median(list,    n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { key = $1 " " $2; rps[key] = rps[key] " " $3; p50[key] = p50[key] " " $4; p99[key] = p99[key] " " $5; cpu[key] = cpu[key] " " $6
      round_rps[key, $7] = $3; rounds[$7] = 1 }
    END {
        printf "%-9s %-6s %12s %10s %10s %14s %16s %12s\n", "wiring", "route", "requests/s", "p50 ms", "p99 ms", "CPU µs/req", "req/s vs hand", "p99 vs hand"
        n = split(wirings, w, " ")
        split("read write", routes, " ")
        for (r = 1; r <= 2; r++) for (i = 1; i <= n; i++) {
            key = w[i] " " routes[r]; hand = "hand " routes[r]
            m_rps = median(rps[key]); m_p99 = median(p99[key])
            vs_rps = (hand in rps) ? sprintf("%+.1f%%", (m_rps / median(rps[hand]) - 1) * 100) : "-"
            vs_p99 = (hand in p99) ? sprintf("%+.1f%%", (m_p99 / median(p99[hand]) - 1) * 100) : "-"
            printf "%-9s %-6s %12.0f %10.2f %10.2f %14.1f %16s %12s\n", w[i], routes[r], m_rps, median(p50[key]), m_p99, median(cpu[key]), vs_rps, vs_p99
        }
        print ""
        for (r = 1; r <= 2; r++) for (i = 1; i <= n; i++) {
            key = w[i] " " routes[r]; hand = "hand " routes[r]
            if (w[i] == "hand" || !(hand in cpu)) continue
            printf "container cost per request, %s route, %s: %+.1f µs of server CPU (%+.1f%% of the hand-wired app'"'"'s)\n", routes[r], w[i], median(cpu[key]) - median(cpu[hand]), (median(cpu[key]) / median(cpu[hand]) - 1) * 100
        }
        # Each round against the hand-wired app'"'"'s run of the same round:
        # the machine'"'"'s drift between rounds largely cancels out of these.
        header = 0
        for (r = 1; r <= 2; r++) for (i = 1; i <= n; i++) {
            key = w[i] " " routes[r]; hand = "hand " routes[r]
            if (w[i] == "hand" || !(hand in rps)) continue
            list = ""; low = ""; high = ""
            for (round in rounds) {
                if (!((key, round) in round_rps) || !((hand, round) in round_rps)) continue
                change = (round_rps[key, round] / round_rps[hand, round] - 1) * 100
                list = list " " change
                if (low == "" || change < low) low = change
                if (high == "" || change > high) high = change
            }
            if (list == "") continue
            if (!header) { print ""; print "requests/s against the hand-wired app'"'"'s in the same round: median [lowest, highest]"; header = 1 }
            printf "  %s route, %s: %+.1f%% [%+.1f%%, %+.1f%%]\n", routes[r], w[i], median(list), low, high
        }
    }' "$work/results"
echo
echo "every server exited 0 after SIGTERM, having closed its database"
