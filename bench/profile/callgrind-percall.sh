#!/bin/sh
# Instructions per SetFraction, progressd against the C reference server, under callgrind:
# unlike time, instruction counts repeat on a loaded machine. Each server runs under
# callgrind on its own private bus; its counters are zeroed after start-up and the first
# Start, then COUNT calls of each mode are made and dumped on their own.
# Under valgrind a call takes some fifty times as long, so the signals and the once-a-second
# save, paced by the clock, would fall on every few calls instead of every thousand: the
# daemon runs with one signal a second a task, which leaves the call path itself.
# Usage: [KINDS="progressd ..."] callgrind-percall.sh BUILD_DIR [COUNT] [OUT_DIR]
# BUILD_DIR holds progressd (release), reference-server and load-client (make bench builds them).
set -eu
build=$(cd "$1" && pwd)
count=${2:-2000}
out=${3:-$(mktemp -d /tmp/progressd-callgrind-XXXXXX)}
mkdir -p "$out"
scratch=$(mktemp -d /tmp/progressd-callgrind-run-XXXXXX)
bus_pid=""
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT INT TERM

# reference-empty is the reference answering SetFraction as progressd does (a reply with no
# body): the difference between progressd and it is what progressd's own layers cost.
for kind in ${KINDS:-progressd reference reference-empty}; do
    dbus-daemon --session --nofork --nopidfile --print-address=1 >"$scratch/address" 2>/dev/null &
    bus_pid=$!
    while [ ! -s "$scratch/address" ]; do sleep 0.05; done
    DBUS_SESSION_BUS_ADDRESS=$(head -n1 "$scratch/address")
    export DBUS_SESSION_BUS_ADDRESS
    if [ "$kind" = progressd ]; then
        name=org.progressd.Progress1
        mkdir -p "$scratch/state"
        set -- "$build/progressd" --state-directory "$scratch/state" --max-signals-per-second 1
    else
        name=org.progressd.Reference
        set -- "$build/reference-server"
        [ "$kind" = reference-empty ] && set -- "$@" --empty-replies
    fi
    valgrind --tool=callgrind --callgrind-out-file="$out/$kind.%p" --dump-instr=no \
        --separate-threads=no "$@" 2>"$out/$kind.valgrind.log" &
    server_pid=$!
    "$build/load-client" owner "$name" >/dev/null
    "$build/load-client" start "$name" 1 >/dev/null
    for mode in call pipeline noreply; do
        callgrind_control -z "$server_pid" >/dev/null
        case $mode in
            pipeline) "$build/load-client" pipeline "$name" "$count" 64 >/dev/null ;;
            *) "$build/load-client" "$mode" "$name" "$count" >/dev/null ;;
        esac
        callgrind_control -d "$mode" "$server_pid" >/dev/null
        sleep 0.5
        dump=$(ls -t "$out/$kind".*.* 2>/dev/null | grep -v valgrind | head -n1)
        mv "$dump" "$out/$kind-$mode.callgrind"
        total=$(callgrind_annotate "$out/$kind-$mode.callgrind" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
        echo "$kind $mode instructions_per_call=$((total / count))"
    done
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
    kill "$bus_pid"; wait "$bus_pid" 2>/dev/null || true; bus_pid=""
    rm -f "$scratch/address"
done
echo "profiles in $out (callgrind_annotate FILE)"
