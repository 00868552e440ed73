#!/bin/sh
# Does Orca speak progressd's tasks? Orca 43 (Debian's `orca`) headless under Xvfb, on a
# private session bus and accessibility bus, its speech written to its debug log, with
# progressBarVerbosity 0 ("all"; 1, Orca's default, would say nothing) and a 1 s interval.
# progressctl drives one task from 5 % to done; the script prints what Orca said.
# Usage: sh scripts/orca-check.sh [BUILD_DIR] [VERBOSITY]   (needs: orca xvfb at-spi2-core)
# (BUILD_DIR /usr/bin: the installed package's; ORCA_DISPLAY: another X display than :93.)
set -u
BIN=$(cd "${1:-.build/debug}" && pwd)
VERBOSITY=${2:-0}
D=$(mktemp -d)
mkdir -p "$D/home" "$D/run" "$D/prefs"
chmod 700 "$D/run"
# GSETTINGS_BACKEND=memory: the launcher keeps IsEnabled without a dconf service.
export HOME="$D/home" XDG_RUNTIME_DIR="$D/run" GSETTINGS_BACKEND=memory DISPLAY=:${ORCA_DISPLAY:-93} LC_ALL=C.UTF-8
cat > "$D/prefs/user-settings.conf" <<JSON
{"general": {"progressBarVerbosity": $VERBOSITY, "progressBarUpdateInterval": 1, "speakProgressBarUpdates": true,
             "enableSpeech": true, "activeProfile": ["Default", "default"], "startingProfile": ["Default", "default"]},
 "profiles": {"default": {"profile": ["Default", "default"], "progressBarVerbosity": $VERBOSITY,
                          "progressBarUpdateInterval": 1, "speakProgressBarUpdates": true}},
 "keybindings": {}, "pronunciations": {}}
JSON
cat > "$D/bus.conf" <<XML
<busconfig><type>session</type><listen>unix:dir=$D</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
XML
pids=""
Xvfb "$DISPLAY" -screen 0 1024x768x24 -nolisten tcp >"$D/xvfb.log" 2>&1 & pids="$! $pids"
sleep 1
dbus-daemon --config-file="$D/bus.conf" --nofork --nopidfile --print-address=1 >"$D/address" 2>/dev/null & pids="$! $pids"
sleep 0.5
export DBUS_SESSION_BUS_ADDRESS="$(head -1 "$D/address")"
/usr/libexec/at-spi-bus-launcher >"$D/launcher.log" 2>&1 & pids="$! $pids"
sleep 0.5
gdbus call --session -d org.a11y.Bus -o /org/a11y/bus \
    -m org.freedesktop.DBus.Properties.Set org.a11y.Status IsEnabled '<true>' >/dev/null
"$BIN/progressd" --state-directory "$D/state" >"$D/progressd.log" 2>&1 & pids="$! $pids"
sleep 1
orca -u "$D/prefs" --debug-file="$D/orca.out" >"$D/orca.log" 2>&1 & pids="$! $pids"
sleep 8
"$BIN/progressctl" start backup --title "Backing up home" >>"$D/progressctl.log" 2>&1
for percent in 5 10 20 35 50 65 80 95; do
    "$BIN/progressctl" set backup "$percent%" >>"$D/progressctl.log" 2>&1
    sleep 1.5
done
"$BIN/progressctl" finish backup >>"$D/progressctl.log" 2>&1
sleep 6
# Orca first (its debug log is buffered and written out as it quits), then the rest.
for pid in $pids; do kill "$pid" 2>/dev/null; sleep 0.3; done
wait
grep -o "SPEECH OUTPUT: '[^']*'" "$D/orca.out"
echo "(Orca's debug log: $D/orca.out)"
