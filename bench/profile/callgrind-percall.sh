#!/bin/sh
# Instructions per SetFraction, progressd against the C reference server, under callgrind:
# unlike time, instruction counts repeat on a loaded machine. Each server runs under
# callgrind on its own private bus; its counters are zeroed after start-up and the first
# Start, then COUNT calls of each mode are made and dumped on their own.
# Under valgrind a call takes some fifty times as long, so the signals and the once-a-second
# save, paced by the clock, would fall on every few calls instead of every thousand: the
# daemon runs with one signal a second a task, and what its timers still ran (the save,
# the trailing signals) is given apart as timers_per_call and left out of call_path
# (at full speed it is some fifty times less a call).
# With THREADS=yes each thread is dumped on its own (KIND-MODE-threadN.callgrind; thread 1 is
# the main loop's, where progressd's own layers run, the others GDBus's) and its call path given.
# Usage: [KINDS="progressd ..."] [THREADS=yes] callgrind-percall.sh BUILD_DIR [COUNT] [OUT_DIR]
# BUILD_DIR holds progressd (release), reference-server and load-client (make bench builds them).
set -eu
build=$(cd "$1" && pwd)
count=${2:-2000}
out=${3:-$(mktemp -d /tmp/progressd-callgrind-XXXXXX)}
mkdir -p "$out"
scratch=$(mktemp -d /tmp/progressd-callgrind-run-XXXXXX)
threads=${THREADS:-no}
bus_pid=""
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT INT TERM
total_of() {
    callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 + 0 }'
}
# What progressd's main-loop timers ran, inclusive (0 for the reference, which has none).
timers_of() {
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
        awk '/TimerSource.*runDue/ { gsub(",", "", $1); if ($1 + 0 > most) most = $1 + 0 } END { print most + 0 }'
}

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
        # Without its DWARF: valgrind 3.19 gives up on Swift's (DWARF 5) and reads the
        # functions' names from the symbol table anyway.
        strip --strip-debug -o "$scratch/progressd" "$build/progressd"
        set -- "$scratch/progressd" --state-directory "$scratch/state" --max-signals-per-second 1
    else
        name=org.progressd.Reference
        set -- "$build/reference-server"
        [ "$kind" = reference-empty ] && set -- "$@" --empty-replies
    fi
    valgrind --tool=callgrind --callgrind-out-file="$out/$kind.%p" --dump-instr=no \
        --separate-threads="$threads" "$@" 2>"$out/$kind.valgrind.log" &
    server_pid=$!
    "$build/load-client" owner "$name" >/dev/null
    "$build/load-client" start "$name" 1 >/dev/null
    for mode in call pipeline noreply; do
        callgrind_control -z "$server_pid" >/dev/null 2>&1
        case $mode in
            pipeline) "$build/load-client" pipeline "$name" "$count" 64 >/dev/null ;;
            *) "$build/load-client" "$mode" "$name" "$count" >/dev/null ;;
        esac
        callgrind_control -d "$mode" "$server_pid" >/dev/null 2>&1
        sleep 1.5
        if [ "$threads" = yes ]; then
            # Each thread's call path, its timers left out as below (they run on thread 1).
            line="$kind $mode"
            for dump in "$out/$kind".*.*-*; do
                thread=${dump##*-}
                mv "$dump" "$out/$kind-$mode-thread$thread.callgrind"
                total=$(total_of "$out/$kind-$mode-thread$thread.callgrind")
                timers=$(timers_of "$out/$kind-$mode-thread$thread.callgrind")
                line="$line thread$thread=$(((total - timers) / count))"
            done
            echo "$line"
        else
            dump=$(ls -t "$out/$kind".*.* 2>/dev/null | grep -v valgrind | head -n1)
            mv "$dump" "$out/$kind-$mode.callgrind"
            total=$(total_of "$out/$kind-$mode.callgrind")
            timers=$(timers_of "$out/$kind-$mode.callgrind")
            echo "$kind $mode instructions_per_call=$((total / count)) timers_per_call=$((timers / count)) call_path=$(((total - timers) / count))"
        fi
    done
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
    kill "$bus_pid"; wait "$bus_pid" 2>/dev/null || true; bus_pid=""
    rm -f "$scratch/address"
done
echo "profiles in $out (callgrind_annotate FILE)"
