#!/bin/sh
# Installs the Debian packages `make interop` runs its real clients with, when any is missing:
# libunity's typelib and PyGObject (the LauncherEntry emitter and dock-like listener), dunst
# under Xvfb (a real notification server), and libnotify's notify-send for trying it by hand.
# Called by `make interop`; quiet when all is there.
set -eu

missing=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_typelib() { ls /usr/lib/*/girepository-1.0/"$1".typelib >/dev/null 2>&1; }
/usr/bin/python3 -c 'import gi' 2>/dev/null || missing="$missing python3-gi"
have_typelib Unity-7.0 || missing="$missing gir1.2-unity-7.0"
have_typelib Gio-2.0 || missing="$missing gir1.2-glib-2.0"
have_cmd dunst || missing="$missing dunst"
have_cmd dunstctl || missing="$missing dunst"; case "$missing" in *" dunst dunst"*) missing=$(echo "$missing" | sed 's/ dunst dunst/ dunst/');; esac
have_cmd Xvfb || missing="$missing xvfb"
have_cmd xauth || missing="$missing xauth"
have_cmd busctl || missing="$missing systemd"
have_cmd notify-send || missing="$missing libnotify-bin"
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
