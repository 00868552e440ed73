#!/bin/sh
# A short real use of the installed package (run by as-installed.sh, with a clean environment):
# each program's --version, progress-render drawing with a locale's digits, and, on a private
# session bus that starts progressd by D-Bus activation, progressctl reporting a task and reading
# it back in German and Arabic. Prints what a test compares, one "key: value" a line.
# The bus is a standard session bus (dbus-run-session's session.conf), which finds the
# package's activation file in /usr/share/dbus-1/services.
set -eu
if [ "${1:-}" = "--on-bus" ]; then
    progressctl start backup --title Sicherung
    progressctl set backup 42%
    echo "list: $(progressctl list | grep '^backup')"
    echo "de: $(LANG=de_DE.UTF-8 progressctl get backup | sed -n 's/^AccessibleText *//p')"
    echo "ar: $(LANG=ar_EG.UTF-8 progressctl get backup | sed -n 's/^Label *//p')"
    owner=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetConnectionUnixProcessID org.progressd.Progress1)
    pid=${owner#*uint32 }
    pid=${pid%,)}
    echo "daemon: $(readlink "/proc/$pid/exe")"
    echo "daemon-swift-mappings: $(grep -c -i -e swift -e libFoundation "/proc/$pid/maps" || true)"
    exit 0
fi

for program in progressd progressctl progress-render; do
    echo "version: $($program --version)"
done
progress-render --fraction 0.42 --percent-label --locale ar -o "$HOME/bar.png"
echo "png: $(head -c 4 "$HOME/bar.png" | tail -c 3)"
echo "man: $(man -w progressctl)"

exec dbus-run-session -- sh "$0" --on-bus
