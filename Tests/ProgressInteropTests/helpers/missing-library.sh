#!/bin/sh
# The package's programs with a drawing library made unreadable: run by as-installed.sh (as
# root in a private mount namespace, with a clean environment), it bind-mounts an empty file
# over LIBRARY's real file, which the dynamic loader then refuses ("file too short"), and
# runs one case. Prints what a test compares, one "key: value" a line.
#
#   missing-library.sh LIBRARY render
#       progress-render --fraction 0.5 -o FILE: its status and stderr, whether FILE exists.
#   missing-library.sh LIBRARY service WATCHER XML
#       progress-render --service, started by the bus: two Renders, an Introspect and a
#       Render with a wrong key, each answer's first line.
#   missing-library.sh LIBRARY tray WATCHER XML
#       progressd with a StatusNotifierWatcher (WATCHER, python3, checked against XML): the
#       tray item's IconName and IconPixmap, then more tasks, and the daemon's pid throughout.
set -eu
library=$1 case=$2
if [ "$case" != on-bus ]; then
    real=$(readlink -f "$(/sbin/ldconfig -p | awk -v name="$library" '$1 == name { print $NF; exit }')")
    [ -f "$real" ] || { echo "missing-library.sh: no $library in ldconfig's cache" >&2; exit 2; }
    : >"$HOME/empty"
    mount --bind "$HOME/empty" "$real"
    echo "hidden: $real"
fi

first_line() { sed -n 1p; }

case $case in
render)
    status=0
    progress-render --fraction 0.5 -o "$HOME/bar.png" 2>"$HOME/render.err" || status=$?
    echo "status: $status"
    echo "stderr: $(cat "$HOME/render.err" | tr '\n' ' ')"
    echo "written: $([ -e "$HOME/bar.png" ] && echo yes || echo no)"
    ;;
service | tray)
    exec dbus-run-session -- sh "$0" "$library" on-bus "$case" "$3" "$4"
    ;;
on-bus)
    mode=$3 watcher=$4 xml=$5
    call() { gdbus call --session "$@" 2>&1 | first_line; }
    if [ "$mode" = service ]; then
        for attempt in 1 2; do
            echo "render: $(call --dest org.progressd.Renderer1 --object-path /org/progressd/Renderer1 \
                --method org.progressd.Renderer1.Render "{'fraction': <0.5>}")"
        done
        echo "introspect: $(call --dest org.progressd.Renderer1 --object-path /org/progressd/Renderer1 \
            --method org.freedesktop.DBus.Introspectable.Introspect | grep -c 'org.progressd.Renderer1' || true)"
        echo "invalid: $(call --dest org.progressd.Renderer1 --object-path /org/progressd/Renderer1 \
            --method org.progressd.Renderer1.Render "{'colour': <'red'>}")"
        exit 0
    fi
    # The watcher quits at the end of its input: a pipe that stays open until this script ends.
    tail -f /dev/null | python3 "$watcher" "$xml" >"$HOME/watcher.out" 2>&1 &
    trap 'kill $! 2>/dev/null || true' EXIT
    tries=0
    until gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetNameOwner org.kde.StatusNotifierWatcher >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -lt 100 ] || { echo "no watcher: $(cat "$HOME/watcher.out")" >&2; exit 3; }
        sleep 0.1
    done
    daemon_pid() {
        gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.GetConnectionUnixProcessID org.progressd.Progress1 2>/dev/null |
            sed -n 's/.*uint32 \([0-9]*\).*/\1/p'
    }
    progressctl start copy --title Copying
    progressctl set copy 40%
    echo "pid: $(daemon_pid)"
    item=""
    tries=0
    while [ -z "$item" ] && [ $tries -lt 100 ]; do
        item=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.ListNames | grep -o 'org.kde.StatusNotifierItem-[0-9]*-1' || true)
        tries=$((tries + 1))
        [ -n "$item" ] || sleep 0.1
    done
    echo "item: ${item:+present}"
    get() {
        call --dest "$item" --object-path /StatusNotifierItem \
            --method org.freedesktop.DBus.Properties.Get org.kde.StatusNotifierItem "$1"
    }
    echo "icon-pixmap: $(get IconPixmap)"
    echo "icon-name: $(get IconName)"
    echo "attention-icon-name: $(get AttentionIconName)"
    echo "pid: $(daemon_pid)"
    progressctl fail copy "disk gone"
    # Redraws are paced (four a second at most): the failed picture comes with the next one.
    tries=0
    until get IconName | grep -q dialog-error || [ $tries -ge 100 ]; do
        tries=$((tries + 1))
        sleep 0.1
    done
    echo "icon-name: $(get IconName)"
    progressctl start backup --title Backup
    progressctl set backup 75%
    echo "list: $(progressctl list | sed 1d | awk '{ print $1 "=" $2 }' | sort | tr '\n' ' ')"
    echo "pid: $(daemon_pid)"
    ;;
*)
    echo "missing-library.sh: render, service or tray, not $case" >&2
    exit 2
    ;;
esac
