#!/bin/sh
# Makes the Debian 13 ("trixie") root that `make deb DEBIAN=13` builds in and `make interop`
# tests in, with mmdebstrap from Debian's archive, holding only what they need:
#
#   debian13-root.sh ROOT          a root with the packages below (ROOT.stamp once it is whole)
#   debian13-root.sh ROOT --bare   apt and the essential packages only: the "clean Debian 13"
#                                  on which AptInteropTests installs the package with apt
#
# Runs as root (mmdebstrap's root mode); the roots are never changed afterwards: every build
# and test runs on a throwaway overlay of them (scripts/in-root.sh).
set -eu
root=$1 bare=${2:-}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The build: what debian/control's Build-Depends names, build-essential, lintian, and the
# libraries the Swift toolchain's own programs load (it is bind-mounted from this machine).
build="build-essential debhelper fakeroot gettext libcairo2-dev libglib2.0-dev libicu-dev libpango1.0-dev
libpng-dev pkg-config python3 rsync scdoc lintian libcurl4t64 libncurses6 libsqlite3-0 libxml2"
# The package's DEP-8 tests (debian/tests/control's Depends) and their runner.
dep8="autopkgtest dbus-daemon libglib2.0-bin man-db systemd"
# The real clients: GNOME Shell 48 with pyatspi to read it (and json-glib's typelib, which the
# package's extension needs), KF6's kioclient (kde-cli-tools 6, kio6's workers) with Python
# for its slow web server, Orca 48 under Xvfb.
clients="gnome-shell gir1.2-json-1.0 gjs at-spi2-core gir1.2-atspi-2.0 python3-pyatspi python3-gi python3-dbus fonts-dejavu-core
kde-cli-tools kio6 orca xvfb xauth"

command -v mmdebstrap >/dev/null 2>&1 || sh "$(dirname "$0")/apt-install.sh" debian13-root mmdebstrap
rm -rf "$root" "$root.stamp"
mkdir -p "$(dirname "$root")"
if [ "$bare" = --bare ]; then
    include=""
else
    include=$(echo $build $dep8 $clients | tr ' ' ,)
fi
# --variant=apt: the essential packages and apt; Recommends are not installed.
mmdebstrap --quiet --variant=apt ${include:+--include="$include"} trixie "$root" "$mirror"
touch "$root.stamp"
