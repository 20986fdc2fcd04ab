#!/usr/bin/env bash
# What the container costs per request, in instructions: each wiring's read
# request (RequestCost: the request's objects made as its middleware makes
# them, GET /todos/42's work, the request ended; no HTTP) counted by
# callgrind. Instruction counts do not move with the machine's load, so
# this is the number to compare across changes; loadtest.sh gives the
# throughput and latency under wrk.
#
#   ./request-cost.sh [--wirings "hand syringe swinject"] [--in-flight 32]
#
# Each wiring runs twice, with 500 and 1500 requests, and the difference
# over 1000 is its instructions per request (start-up and shutdown cancel
# out). The requests run one after another, or --in-flight of them at once,
# as concurrent connections run them. Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")"

wirings="hand syringe swinject"
in_flight=1
while [ $# -gt 0 ]; do
    case "$1" in
        --wirings) wirings=$2; shift 2 ;;
        --in-flight) in_flight=$2; shift 2 ;;
        *) echo "usage: $0 [--wirings \"hand syringe swinject\"] [--in-flight N]" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || { echo "request-cost.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }

echo "==> swift build -c release --product RequestCost" >&2
swift build -c release --product RequestCost >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/request-cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that Swift emits: strip it; symbols stay.
objcopy --strip-debug "$(swift build -c release --show-bin-path)/RequestCost" "$work/RequestCost"

count() {  # count <wiring> <requests>: instructions of the whole run
    local status=0
    # RequestCost's own output (its usage, or the error it stopped with) is
    # kept apart from valgrind's report, and shown when the run fails: a
    # failure inside this command substitution would otherwise end the
    # script under `set -e` without a word.
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/RequestCost" "$1" "$2" "$work/db.sqlite" --in-flight "$in_flight" \
        > "$work/stdout" 2> "$work/valgrind" || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$work/stdout" >&2
        tail -n 15 "$work/valgrind" >&2
        echo "RequestCost $1 $2 --in-flight $in_flight failed (exit $status)" >&2
        exit "$status"
    fi
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/valgrind"
}

echo "requests in flight: $in_flight"
printf '%-9s %22s\n' wiring "instructions/request"
hand=
for wiring in $wirings; do
    echo "==> callgrind: $wiring" >&2
    small=$(count "$wiring" 500)
    large=$(count "$wiring" 1500)
    per=$(( (large - small) / 1000 ))
    [ "$wiring" = hand ] && hand=$per
    if [ -n "$hand" ] && [ "$wiring" != hand ]; then
        awk -v w="$wiring" -v per="$per" -v hand="$hand" 'BEGIN {
            printf "%-9s %22d   container: %+d (%+.0f%% of the hand-wired request)\n", w, per, per - hand, (per - hand) * 100 / hand
        }'
    else
        printf '%-9s %22d\n' "$wiring" "$per"
    fi
done
