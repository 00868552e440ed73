#!/bin/sh
# Runs a command inside a Debian root (one that scripts/debian13-root.sh made) without changing
# it or this machine: in a private mount namespace, on a writable overlay of the root whose
# upper layer is a tmpfs, so that whatever the command installs or writes there vanishes with it.
#
#   in-root.sh ROOT [--bind DIR]... [--install DEB] [--update] [--env NAME=VALUE]... -- COMMAND...
#
# /proc, /dev (with /dev/shm, where the tests' buses listen), /sys and a fresh /run are mounted,
# and /tmp is this machine's (the tests' scratch folders and sockets keep their paths). Each
# --bind DIR is seen at the same path inside (read-only with --bind-ro). --update runs
# `apt-get update` (the root's package lists are cleaned when it is made); --install DEB
# installs DEB with `apt install ./…`, as a user would. COMMAND then runs as root with a clean
# environment (env -i): PATH, HOME=/root, LANG=C.UTF-8, and the --env values.
set -eu
# Always in a mount namespace of its own: /proc/1's namespace may be unreadable (a container),
# so the marker, not a comparison with it, says that this is the copy unshare started.
[ "${IN_ROOT_NAMESPACE:-}" = "$$" ] || IN_ROOT_NAMESPACE='' exec unshare -m --propagation private \
    sh -c 'export IN_ROOT_NAMESPACE=$$; exec sh "$0" "$@"' "$0" "$@"

root=$(cd "$1" && pwd)
shift
binds="" binds_ro="" deb="" update="" environment=""
while [ $# -gt 0 ]; do
    case $1 in
    --bind) binds="$binds $2"; shift 2 ;;
    --bind-ro) binds_ro="$binds_ro $2"; shift 2 ;;
    --install) deb=$2; shift 2 ;;
    --update) update=1; shift ;;
    --env) environment="$environment $2"; shift 2 ;;
    --) shift; break ;;
    *) echo "in-root.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

# The layers on a tmpfs over this namespace's /mnt: gone, with all they hold, when it ends.
layers=/mnt
mount -t tmpfs tmpfs "$layers"
mkdir -p "$layers/upper" "$layers/work" "$layers/merged"
mount -t overlay overlay -o "lowerdir=$root,upperdir=$layers/upper,workdir=$layers/work" "$layers/merged"
merged=$layers/merged
mount -t proc proc "$merged/proc"
mount --rbind /dev "$merged/dev"
mount -t sysfs sys "$merged/sys"
mount -t tmpfs tmpfs "$merged/run"
mount --rbind /tmp "$merged/tmp"
# apt inside resolves the archive's name with this machine's resolver.
[ ! -f /etc/resolv.conf ] || { touch "$merged/etc/resolv.conf" && mount --bind /etc/resolv.conf "$merged/etc/resolv.conf"; }
for dir in $binds $binds_ro; do
    mkdir -p "$merged$dir"
    mount --rbind "$dir" "$merged$dir"
done
for dir in $binds_ro; do mount -o remount,bind,ro "$merged$dir"; done

inside() { chroot "$merged" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
if [ -n "$update" ]; then
    inside apt-get update -qq </dev/null >"$layers/apt.log" 2>&1 || { cat "$layers/apt.log" >&2; exit 3; }
fi
if [ -n "$deb" ]; then
    cp "$deb" "$merged/root/"
    inside apt-get install -y -q --no-install-recommends "./root/$(basename "$deb")" </dev/null >"$layers/apt.log" 2>&1 ||
        { cat "$layers/apt.log" >&2; exit 3; }
fi
# shellcheck disable=SC2086 # one NAME=VALUE a word
exec chroot "$merged" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 $environment "$@"
