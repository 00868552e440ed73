#!/bin/sh
# An upgrade and a purge of progressd's package, as a user lives them (run by as-installed.sh
# overlay, as root, with a clean environment and a scratch HOME):
#
#   upgrade-package.sh PREVIOUS.deb NEW.deb
#
# apt installs PREVIOUS; on a private session bus the activated daemon gets a task from
# progressctl and two from `progressctl run`, whose commands keep running (`caller` tasks, bound
# to progressctl's connections); apt installs NEW over it, and nobody restarts the daemon: it
# notices its program was replaced and runs the new one in its own process, with the tasks
# and their bindings (a job killed afterwards fails its task). Then `apt-get purge`.
# Prints what the test compares, one "key: value" a line; stops at the first thing that fails.
set -eu
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive
work=$HOME/upgrade
fail() { echo "upgrade-package.sh: $*" >&2; exit 1; }
# Polls until COMMAND succeeds, for at most 20 s.
wait_for() {
    tries=0
    until eval "$1" >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ "$tries" -lt 400 ] || fail "timed out waiting for: $1"
        sleep 0.05
    done
}
apt_get() { apt-get -y -q "$@" >>"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get $* failed"; }; }
manager() {
    gdbus call --session --dest org.progressd.Progress1 --object-path /org/progressd/Progress1 "$@"
}
daemon_pid() {
    reply=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetConnectionUnixProcessID org.progressd.Progress1)
    pid=${reply#*uint32 }
    echo "${pid%,)}"
}
task() { progressctl list | awk -v name="$1" '$1 == name { print $2, $3 }'; }

if [ "${1:-}" = "--on-bus" ]; then
    shift
    new=$1
    progressctl start backup --title Sicherung
    progressctl set backup 42%
    mkfifo "$work/step" "$work/end"
    # The job reports 10 %, then waits for the test twice: its command is still running (and
    # progressctl connected) when the daemon restarts.
    progressctl run job -- sh -c "echo 10%; read x <'$work/step'; echo 50%; read x <'$work/end'; echo done" \
        >"$work/job.log" 2>&1 &
    job=$!
    progressctl run doomed -- sh -c "echo 20%; exec sleep 60" >/dev/null 2>&1 &
    doomed=$!
    wait_for '[ "$(task job)" = "running 10%" ] && [ "$(task doomed)" = "running 20%" ]'
    old=$(daemon_pid)
    echo "before: $(manager --method org.freedesktop.DBus.Properties.Get org.progressd.Progress1.Manager Version)"
    echo "before-tasks: $(task backup) / $(task job)"

    apt_get install "$new"
    installed=$(date +%s%N)
    version=$(dpkg-query --showformat '${Version}' --show progressd)
    # Nobody restarts it: within seconds the running daemon answers with the new version.
    wait_for '[ "$(manager --method org.freedesktop.DBus.Properties.Get org.progressd.Progress1.Manager Version)" = "(<'"'$version'"'>,)" ]'
    echo "milliseconds-to-new-version: $((($(date +%s%N) - installed) / 1000000))"
    echo "after: $(manager --method org.freedesktop.DBus.Properties.Get org.progressd.Progress1.Manager Version)"
    echo "new-daemon: $(readlink "/proc/$(daemon_pid)/exe")"
    echo "same-process: $([ "$(daemon_pid)" = "$old" ] && echo yes || echo "no: $old, then $(daemon_pid)")"
    echo "after-tasks: $(task backup) / $(task job)"
    echo "after-backup-title: $(progressctl get backup | sed -n 's/^Title *//p')"
    # Bindings came across: a job killed now fails its task at once.
    kill -KILL $(pgrep -P "$doomed" 2>/dev/null) "$doomed"
    wait_for '[ "$(task doomed | cut -d" " -f1)" = failed ]'
    echo "doomed-after-kill: $(task doomed)"
    # The job goes on after the restart: its next report and its end reach the new daemon.
    echo go >"$work/step"
    wait_for '[ "$(task job | cut -d" " -f2)" = 50% ]'
    echo "job-after-step: $(task job)"
    echo go >"$work/end"
    status=0
    wait "$job" || status=$?
    echo "job-exit: $status"
    echo "job-end: $(task job)"
    exit 0
fi

previous=$1 new=$2
mkdir -p "$work"
# What both packages hold, and which of it the machine had before: after the purge, what was
# not there before must be gone.
{ dpkg-deb --fsys-tarfile "$previous" | tar -t; dpkg-deb --fsys-tarfile "$new" | tar -t; } |
    sed -e 's|^\./|/|' -e 's|/$||' | grep -v '^/\?$' | sort -u >"$work/paths"
while read -r path; do [ -e "$path" ] || [ -L "$path" ] || echo "$path"; done <"$work/paths" >"$work/new-paths"

apt_get install "$previous"
echo "installed: $(dpkg-query --showformat '${Version}' --show progressd)"
dbus-run-session -- sh "$0" --on-bus "$new" 2>"$work/bus.log" || { cat "$work/bus.log" >&2; fail "the bus session failed"; }
echo "upgraded: $(dpkg-query --showformat '${Version}' --show progressd)"
echo "state-directory: $(ls "$HOME/.local/state/progressd" | tr '\n' ' ')"

# Where the package put its files: /usr, and /etc only for conffiles.
conffiles=$(dpkg-query --showformat '${Conffiles}\n' --show progressd | awk '{ print $1 }')
dpkg -L progressd >"$work/listed"
while read -r path; do
    case $path in
    /. | /usr | /usr/*) ;;
    /etc | /etc/*) [ -d "$path" ] || echo "$conffiles" | grep -qx "$path" || echo "outside: $path (not a conffile)" ;;
    *) echo "outside: $path" ;;
    esac
done <"$work/listed"
echo "listed: $(wc -l <"$work/listed")"

# What the maintainer scripts made (deb-systemd-helper's links and state), to see it go too.
made_by_scripts() {
    find /etc /var/lib/systemd \( -name '*progressd*' -o -name '*progress-render*' -o -name '*org.progressd*' \) -print 2>/dev/null
}
made_by_scripts | sed 's/^/made: /'
apt_get purge progressd
echo "purged: $(dpkg-query --showformat '${Status}' --show progressd 2>/dev/null || echo gone)"
while read -r path; do
    if [ -e "$path" ] || [ -L "$path" ]; then echo "left: $path"; fi
done <"$work/new-paths"
made_by_scripts | sed 's/^/left: /'
echo "done: yes"
