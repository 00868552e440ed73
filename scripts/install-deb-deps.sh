#!/bin/sh
# Installs the Debian packages `make deb` builds and checks the package with, when any is
# missing: debhelper and dpkg-dev (dpkg-buildpackage, dh), fakeroot, lintian, and rsync (which
# copies the tree to build in). Called by `make deb`; quiet when all is there.
set -eu

missing=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd dh || missing="$missing debhelper"
have_cmd dpkg-buildpackage || missing="$missing dpkg-dev"
have_cmd fakeroot || missing="$missing fakeroot"
have_cmd lintian || missing="$missing lintian"
have_cmd rsync || missing="$missing rsync"
[ -z "$missing" ] && exit 0

# shellcheck disable=SC2086 # one word per package
exec sh "$(dirname "$0")/apt-install.sh" install-deb-deps $missing
