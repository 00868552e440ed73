#!/bin/sh
# Installs the Debian packages `make interop` runs its real clients with, when any is missing:
# kde-cli-tools (kioclient5, a real KIO client of org.kde.JobViewServer) and Debian's python3
# with dbus and gi (the slow HTTP source and the V1-only KDE job).
# Called by `make interop`; quiet when all is there. (Branch issue-16 adds the LauncherEntry
# and notification clients to this same list.)
set -eu

missing=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd kioclient5 || missing="$missing kde-cli-tools"
/usr/bin/python3 -c 'import dbus, dbus.mainloop.glib, gi' 2>/dev/null || missing="$missing python3-dbus python3-gi"
[ -z "$missing" ] && exit 0

echo "install-interop-deps: installing:$missing"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    have_cmd sudo || { echo "install-interop-deps: not root and no sudo: install$missing yourself" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086 # one word per package
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-interop-deps: done"
