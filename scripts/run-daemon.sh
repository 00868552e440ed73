#!/bin/sh
# `make run`: serves progressd on the session bus; with none, on a private bus that
# dbus-run-session ends when the daemon exits. Arguments go to progressd.
# It also says where progressctl is, which is not on PATH until `make install`.
set -eu
daemon="$1"
shift
bindir=$(cd "$(dirname "$daemon")" && pwd)

if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] &&
    gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetId >/dev/null 2>&1; then
    cat >&2 <<MESSAGE
progressd: progressctl is in $bindir; for the README's examples, in another terminal:

    export PATH="$bindir:\$PATH"

MESSAGE
    exec "$daemon" "$@"
fi

exec dbus-run-session -- sh -c '
cat <<MESSAGE
progressd: no session bus was running, so this is a private one. In another terminal:

    export DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS
    export PATH="$1:\$PATH"

then try the README'"'"'s examples, such as:

    progressctl start demo --title Demo --total 4 --unit files
    progressctl set demo --completed 2
    progressctl list

MESSAGE
shift
exec "$@"' progressd-run "$bindir" "$daemon" "$@"
