#!/bin/sh
# Runs a command as on a Debian machine that has progressd's package and no Swift toolchain,
# without changing this machine: run it under `unshare -m` (as root), so that its mounts are
# its own and end with it.
#
#   as-installed.sh unpacked DEB SCRATCH TOOLCHAIN COMMAND...
#       The package unpacked (dpkg-deb -x) into SCRATCH/root, whose usr is laid over /usr
#       (read-only overlay): the paths the package's files name are the package's files.
#   as-installed.sh apt DEB SCRATCH TOOLCHAIN COMMAND...
#       /usr, /etc and /var get writable overlays on a tmpfs, and `apt-get install ./DEB`
#       installs the package into them, maintainer scripts and all.
#   as-installed.sh overlay - SCRATCH TOOLCHAIN COMMAND...
#       The same writable overlays, with nothing installed: COMMAND installs (autopkgtest,
#       apt-get, dpkg), and whatever it changes vanishes with the namespace.
#
# Then TOOLCHAIN (the Swift toolchain's prefix) is covered by an empty directory, and COMMAND
# runs with a clean environment (env -i): PATH=/usr/bin:/bin, HOME=SCRATCH/home,
# XDG_RUNTIME_DIR=SCRATCH/run, LANG=C.UTF-8.
set -eu
mode=$1 deb=$2 scratch=$3 toolchain=$4
shift 4
[ "$(readlink /proc/self/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ] || {
    echo "as-installed.sh: run me under unshare -m, not in the machine's own mount namespace" >&2
    exit 2
}
mkdir -p "$scratch/home" "$scratch/run" "$scratch/empty" "$scratch/layers"
chmod 700 "$scratch/run"

case $mode in
unpacked)
    dpkg-deb -x "$deb" "$scratch/root"
    mount -t overlay overlay -o "lowerdir=$scratch/root/usr:/usr" /usr
    ;;
apt | overlay)
    mount -t tmpfs tmpfs "$scratch/layers"
    for dir in usr etc var; do
        mkdir -p "$scratch/layers/$dir/upper" "$scratch/layers/$dir/work"
        mount -t overlay overlay \
            -o "lowerdir=/$dir,upperdir=$scratch/layers/$dir/upper,workdir=$scratch/layers/$dir/work" "/$dir"
    done
    # (What it depends on is installed here already; apt would fetch what is not, into the overlay.)
    [ "$mode" = overlay ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$scratch/apt.log" 2>&1 || {
        cat "$scratch/apt.log" >&2
        exit 3
    }
    ;;
*)
    echo "as-installed.sh: unpacked, apt or overlay, not $mode" >&2
    exit 2
    ;;
esac

mount --bind "$scratch/empty" "$toolchain"
exec env -i PATH=/usr/bin:/bin HOME="$scratch/home" XDG_RUNTIME_DIR="$scratch/run" LANG=C.UTF-8 "$@"
