#!/bin/sh
# Debian's polkitd (with an allow-all rule) and packagekitd (dummy backend) on the bus that
# DBUS_SYSTEM_BUS_ADDRESS names, in a private mount namespace: the rule and PackageKit's state
# and cache directories are scratch directories under $1, bind-mounted over the real ones, so
# nothing of the machine's is read or changed. Prints "packagekitd-pid N"; on TERM (or when
# either daemon ends) both stop. Run as root (unshare -m and bind mounts need it).
set -eu
dir=$1
mkdir -p "$dir/rules" "$dir/lib" "$dir/cache"
echo 'polkit.addRule(function(action, subject) { return polkit.Result.YES; });' > "$dir/rules/00-allow-all.rules"
exec unshare -m sh -c '
    set -eu
    mount --bind "$1/rules" /etc/polkit-1/rules.d
    mount --bind "$1/lib" /var/lib/PackageKit
    mount --bind "$1/cache" /var/cache/PackageKit
    /usr/lib/polkit-1/polkitd --no-debug & polkit=$!
    # --keep-environment: without it packagekitd forgets DBUS_SYSTEM_BUS_ADDRESS and
    # cannot reach polkit; --disable-timer: it would quit when idle.
    /usr/libexec/packagekitd --backend=dummy --disable-timer --keep-environment & packagekit=$!
    echo "packagekitd-pid $packagekit"
    trap "kill $polkit $packagekit 2>/dev/null" EXIT INT TERM
    wait $packagekit
' packagekit-system "$dir"
