#!/bin/sh
# Installs the Debian packages `make interop` runs its real clients with, when any is missing:
# kde-cli-tools (kioclient5, a real KIO client of org.kde.JobViewServer); Debian's python3
# with dbus and gi (the slow HTTP source, the V1-only KDE job, and the LauncherEntry scripts);
# libunity's typelib (a real LauncherEntry sender); dunst under Xvfb (a real notification
# server, read with dunstctl, which calls busctl); libnotify's notify-send for trying it by hand;
# packagekitd with pkcon, fwupd with its test devices and polkitd (real system services on a
# private system bus, in a private mount namespace made with util-linux's unshare);
# the terminal tools `progressctl run` reads progress from (rsync, curl, wget, git, pv, ffmpeg);
# dpkg-dev's dpkg-scanpackages (a local apt repository of .debs built in the test); tmux;
# sway, waybar and grim (a real StatusNotifierItem host in a headless compositor, and its screenshots);
# gnome-shell and gjs (GNOME Shell 43 headless with progressd's extension; gnome-extensions needs gjs);
# autopkgtest (runs the package's DEP-8 tests) and diffoscope (says where two builds of the
# package differ; diffoscope-minimal, without the hundreds of MB of tools it can also call).
# Called by `make interop`; quiet when all is there.
set -eu

missing=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_typelib() { ls /usr/lib/*/girepository-1.0/"$1".typelib >/dev/null 2>&1; }
have_cmd kioclient5 || missing="$missing kde-cli-tools"
/usr/bin/python3 -c 'import dbus, dbus.mainloop.glib, gi' 2>/dev/null || missing="$missing python3-dbus python3-gi"
have_typelib Unity-7.0 || missing="$missing gir1.2-unity-7.0"
have_typelib Gio-2.0 || missing="$missing gir1.2-glib-2.0"
{ have_cmd dunst && have_cmd dunstctl; } || missing="$missing dunst"
have_cmd Xvfb || missing="$missing xvfb"
have_cmd xauth || missing="$missing xauth"
have_cmd busctl || missing="$missing systemd"
have_cmd notify-send || missing="$missing libnotify-bin"
[ -x /usr/libexec/packagekitd ] || missing="$missing packagekit"
have_cmd pkcon || missing="$missing packagekit-tools"
[ -x /usr/lib/polkit-1/polkitd ] || missing="$missing polkitd"
[ -x /usr/libexec/fwupd/fwupd ] && have_cmd fwupdmgr || missing="$missing fwupd"
[ -f /usr/share/installed-tests/fwupd/fakedevice124.cab ] || missing="$missing fwupd-tests"
have_cmd unshare && have_cmd setpriv || missing="$missing util-linux"
have_cmd dpkg-scanpackages || missing="$missing dpkg-dev"
for tool in rsync curl wget git pv ffmpeg tmux; do have_cmd "$tool" || missing="$missing $tool"; done
have_cmd sway || missing="$missing sway"
have_cmd waybar || missing="$missing waybar"
have_cmd grim || missing="$missing grim"
have_cmd gnome-shell || missing="$missing gnome-shell"
have_cmd gjs || missing="$missing gjs"
have_cmd autopkgtest || missing="$missing autopkgtest"
have_cmd diffoscope || missing="$missing diffoscope-minimal"
[ -z "$missing" ] && exit 0

# shellcheck disable=SC2086 # one word per package
exec sh "$(dirname "$0")/apt-install.sh" install-interop-deps $missing
