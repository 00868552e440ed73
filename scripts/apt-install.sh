#!/bin/sh
# Installs Debian packages, as root or through sudo, quietly: the one place both dependency
# scripts (install-deps.sh, install-interop-deps.sh) call apt from. $1 names the caller
# in its messages; the rest are the packages.
set -eu
who=$1
shift
echo "$who: installing: $*"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "$who: not root and no sudo: install $* yourself" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# Several builds may install at once (a developer's and its helpers'): wait for dpkg's lock.
lock="-o DPkg::Lock::Timeout=600"
$sudo apt-get $lock update -qq
$sudo apt-get $lock install -y -qq --no-install-recommends "$@" >/dev/null
echo "$who: done"
