# What loadtest.sh and profile.sh share: the server built, started with a
# fresh database of 100 todos, stopped, wrk run and its summary read, both
# stopped at once by a signal, and the wirings' order per round.
# Sourced, not run; the sourcing script has `set -euo pipefail` and sets
# `work` (its temporary directory) before calling these.

server_pid=
server_url=
wrk_pid=

# Builds TodoServer in release mode; sets `server` to its path.
build_server() {
    echo "==> swift build -c release --product TodoServer" >&2
    swift build -c release --product TodoServer >&2
    server=$(swift build -c release --show-bin-path)/TodoServer
}

# Writes $work/post.lua, wrk's script for the write route.
write_post_script() {
    cat > "$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"title": "load"}'
wrk.headers["Content-Type"] = "application/json"
LUA
}

# start_server <wiring> <name>: starts the server on a free port with the
# database $work/<name>.sqlite and the log $work/<name>.log, waits for it
# to listen, and adds 100 todos; sets `server_pid` and `server_url`.
start_server() {
    local wiring=$1 log="$work/$2.log"
    # Made here, not by the background job's redirection, which can come
    # after the first read below: sed then fails on a missing file, and
    # `set -e` ends the script.
    : > "$log"
    "$server" --wiring "$wiring" --port 0 --database "$work/$2.sqlite" --log-level notice > "$log" 2>&1 &
    server_pid=$!
    local port=
    for _ in $(seq 300); do
        port=$(sed -n 's/^listening on \([0-9]*\)$/\1/p' "$log")
        [ -n "$port" ] && break
        kill -0 "$server_pid" 2>/dev/null || { cat "$log" >&2; echo "the $wiring server did not start" >&2; exit 1; }
        sleep 0.1
    done
    [ -n "$port" ] || { echo "the $wiring server printed no port" >&2; exit 1; }
    server_url="http://127.0.0.1:$port"
    for i in $(seq 100); do
        curl -sSf -o /dev/null -X POST "$server_url/todos" -H 'Content-Type: application/json' -d "{\"title\": \"todo $i\"}"
    done
}

# stop_server <wiring> <name>: SIGTERM, and the server must exit 0 having
# closed its database (its log says so).
stop_server() {
    local log="$work/$2.log" status=0
    # A server that has died already is reported below, with its log: the
    # failed `kill` must not end the script first under `set -e`.
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" || status=$?
    server_pid=
    if [ "$status" -ne 0 ] || ! grep -q "database closed" "$log"; then
        cat "$log" >&2
        echo "the $1 server did not shut down cleanly (exit $status)" >&2
        exit 1
    fi
}

# check_server <wiring> <name>: ends the run, with the end of the server's
# log, if the server has died (a crash under load, say). Its /proc entry
# goes once bash has reaped it; a zombie's is checked too.
check_server() {
    local state status=0
    state=$(awk '{ print $3 }' "/proc/$server_pid/stat" 2>/dev/null) || state=
    if [ -z "$state" ] || [ "$state" = Z ]; then
        wait "$server_pid" || status=$?
        server_pid=
        tail -n 30 "$work/$2.log" >&2
        echo "the $1 server died (exit $status); above, the end of its log" >&2
        exit 1
    fi
}

# The server left running by an interrupted script, stopped, and its last
# writes waited for before $work goes.
stop_server_on_exit() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
}

# run_wrk <wrk arguments>: runs wrk, its report going to $work/wrk.out. In
# the background and waited for, not in a command substitution: bash runs a
# signal's trap only once the command in the foreground has ended, but
# `wait` returns as soon as a signal comes, and `stop_wrk_on_exit` kills wrk.
run_wrk() {
    local status=0
    wrk_pid=starting
    wrk "$@" > "$work/wrk.out" &
    wrk_pid=$!
    wait "$wrk_pid" || status=$?
    # Cleared before a failure ends the script: `stop_wrk_on_exit` must not
    # kill a pid that, reaped, may be another process's.
    wrk_pid=
    return "$status"
}

# The wrk of an interrupted script, stopped.
stop_wrk_on_exit() {
    # A signal between wrk's start and `wrk_pid=$!` (see run_wrk) leaves
    # "starting": `$!` is then wrk, or still the server, stopped anyway.
    if [ "$wrk_pid" = starting ]; then wrk_pid=$!; fi
    if [ -n "$wrk_pid" ]; then kill "$wrk_pid" 2>/dev/null || true; fi
}

# Makes SIGHUP, SIGINT and SIGTERM exit with 128 + the signal's number, so
# that the EXIT trap stops wrk and the server at once. Without them, a
# SIGTERM or SIGHUP ended the script without a word to wrk, which ran on
# for the rest of its duration.
exit_on_signals() {
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# wrk's summary (run with --latency) to "requests/s p50_ms p99_ms requests";
# fails, saying so, when some responses were not 2xx or some requests met a
# socket error (connect, read, write or timeout).
parse_wrk() {
    awk '
        function ms(v) {
            if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
            if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
            if (v ~ /s$/)  { sub(/s$/, "", v);  return v * 1000 }
            return v
        }
        $1 == "50%" { p50 = ms($2) }
        $1 == "99%" { p99 = ms($2) }
        $1 == "Requests/sec:" { rps = $2 }
        / requests in / { requests = $1 }
        /Non-2xx or 3xx responses/ { bad = $NF }
        # "Socket errors: connect 0, read 0, write 0, timeout 12": a request
        # that timed out, or whose connection failed, is missing from the
        # numbers, not counted slow: any of them fails the run.
        /Socket errors:/ {
            gsub(/,/, "")
            for (i = 3; i < NF; i += 2) if ($(i + 1) > 0) errors = errors " " $(i + 1) " " $i
        }
        END {
            if (bad > 0) { print "wrk: " bad " responses were not 2xx" > "/dev/stderr"; exit 1 }
            if (errors != "") { print "wrk: socket errors:" errors > "/dev/stderr"; exit 1 }
            printf "%s %s %s %s\n", rps, p50, p99, requests
        }'
}

# round_order <round> <wirings>: the wirings, reversed in even rounds, so
# that no wiring always runs first.
round_order() {
    if [ $(($1 % 2)) -eq 0 ]; then
        echo "$2" | awk '{ for (i = NF; i >= 1; i--) printf "%s%s", $i, (i > 1 ? " " : "") }'
    else
        echo "$2"
    fi
}
