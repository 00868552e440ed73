#!/bin/sh
# Runs a command ($2…) in a private mount namespace where apt and dpkg see only the
# throwaway state apt-repository.sh made under $1: /etc/apt, /var/lib/dpkg, /var/lib/apt/lists,
# /var/cache/apt and /var/log are mounted over, and /srv is an empty tmpfs (where the test
# packages put their files). The machine's own apt configuration (its hooks), dpkg database
# and files are neither read nor changed, and the mounts vanish with the command.
# Run as root (unshare -m and mounts need it).
set -eu
dir=$1
shift
exec unshare -m --propagation private sh -c '
    set -eu
    dir=$1
    shift
    mount --bind "$dir/etc-apt" /etc/apt
    mount --bind "$dir/dpkg" /var/lib/dpkg
    mount --bind "$dir/lists" /var/lib/apt/lists
    mount --bind "$dir/cache" /var/cache/apt
    mount --bind "$dir/log" /var/log
    mount -t tmpfs progressd-apt-test /srv
    exec "$@"
' apt-sandbox "$dir" "$@"
