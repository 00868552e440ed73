#!/bin/sh
# Installs the Debian packages progressd builds, tests and runs with, when any is missing.
# Called by `make deps` (and so by `make run` and `make test`); quiet when all is there.
set -eu

missing=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd pkg-config || missing="$missing pkg-config"
have_pc gio-unix-2.0 || missing="$missing libglib2.0-dev"
have_pc dbus-1 || missing="$missing libdbus-1-dev"
have_pc cairo || missing="$missing libcairo2-dev"
have_pc pangocairo || missing="$missing libpango1.0-dev"
have_pc libpng || missing="$missing libpng-dev"
have_pc icu-i18n || missing="$missing libicu-dev"
have_cmd gdbus || missing="$missing libglib2.0-bin"
have_cmd dbus-daemon || missing="$missing dbus-daemon"
have_cmd dbus-run-session || missing="$missing dbus-bin"
have_cmd msgfmt || missing="$missing gettext"
# The KDE forwarding tests' JobViewServer is a Python script (Debian's python3 with dbus and gi).
/usr/bin/python3 -c 'import dbus, dbus.mainloop.glib, gi' 2>/dev/null || missing="$missing python3-dbus python3-gi"
have_cmd systemd-analyze || missing="$missing systemd"
# The system-job tests' fake packagekitd and fwupd serve the interfaces these packages install.
[ -f /usr/share/dbus-1/interfaces/org.freedesktop.PackageKit.Transaction.xml ] || missing="$missing packagekit"
[ -f /usr/share/dbus-1/interfaces/org.freedesktop.fwupd.xml ] || missing="$missing fwupd"
# progressctl run's terminal tests: script(1) as a real terminal, bash for SIGWINCH traps.
have_cmd script || missing="$missing bsdutils"
have_cmd bash || missing="$missing bash"
# The manual pages: scdoc writes them (make man), groff checks them (the tests run groff -ww).
have_cmd scdoc || missing="$missing scdoc"
have_cmd groff || missing="$missing groff-base"
# The sandbox tests build a Flatpak-style sandbox from Debian's parts: bwrap, with
# xdg-dbus-proxy inside it, as Flatpak runs them.
have_cmd bwrap || missing="$missing bubblewrap"
have_cmd xdg-dbus-proxy || missing="$missing xdg-dbus-proxy"
# The accessibility tests: a private accessibility bus (launcher and registry) and
# pyatspi, Debian's own python3, looking at it as an assistive tool would.
[ -x /usr/libexec/at-spi-bus-launcher ] && [ -x /usr/libexec/at-spi2-registryd ] || missing="$missing at-spi2-core"
/usr/bin/python3 -c 'import pyatspi' 2>/dev/null || missing="$missing python3-pyatspi"
# The GNOME Shell extension's pure modules are tested with gjs (make test's first step).
have_cmd gjs || missing="$missing gjs"
# docs/api.md's C example is compiled by its test (ApiExampleTests) with cc and gio-2.0.
have_cmd cc || missing="$missing gcc"
# The renderer's labels need a font; DejaVu is what the tests are written against.
fc-list 2>/dev/null | grep -q "DejaVu Sans" || missing="$missing fonts-dejavu-core fontconfig"

if ! have_cmd swift; then
    echo "install-deps: no 'swift' on PATH: install the Swift 6 toolchain (swift.org) first" >&2
    exit 1
fi
[ -z "$missing" ] && exit 0

# shellcheck disable=SC2086 # one word per package
exec sh "$(dirname "$0")/apt-install.sh" install-deps $missing
