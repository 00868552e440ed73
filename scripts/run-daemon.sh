#!/bin/sh
# `make run`: serves progressd on the session bus; with none, on a private bus that
# dbus-run-session ends when the daemon exits. Arguments go to progressd.
set -eu
daemon="$1"
shift

if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] &&
    gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetId >/dev/null 2>&1; then
    exec "$daemon" "$@"
fi

exec dbus-run-session -- sh -c '
cat <<MESSAGE
progressd: no session bus was running, so this is a private one:

    export DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS

In another terminal, after that export, try:

    gdbus call --session --dest org.progressd.Progress1 --object-path /org/progressd/Progress1 \\
        --method org.progressd.Progress1.Manager.Start demo "{'"'title'"': <'"'Demo'"'>}"

MESSAGE
exec "$@"' progressd-run "$daemon" "$@"
