#!/bin/sh
# Debian's fwupd with its test devices, and polkitd with an allow-all rule, on the bus that
# DBUS_SYSTEM_BUS_ADDRESS names, in a private mount namespace: fwupd's configuration, state
# and cache and polkit's rules are scratch directories under $1, bind-mounted over the real
# ones. fwupd.conf turns the test devices on and slows their update down (decompress 1 s,
# write 3 s, verify 1 s), as fwupd's own installed tests do. Run as root.
set -eu
dir=$1
mkdir -p "$dir/rules" "$dir/etc" "$dir/lib" "$dir/cache" "$dir/run"
echo 'polkit.addRule(function(action, subject) { return polkit.Result.YES; });' > "$dir/rules/00-allow-all.rules"
cp -r /etc/fwupd/. "$dir/etc/"
cat > "$dir/etc/fwupd.conf" <<CONF
[fwupd]
TestDevices=true
OnlyTrusted=false
DisabledPlugins=
[test]
DecompressDelay=1000
WriteDelay=3000
VerifyDelay=1000
CONF
chmod 0640 "$dir/etc/fwupd.conf"
exec unshare -m sh -c '
    set -eu
    mount --bind "$1/rules" /etc/polkit-1/rules.d
    mount --bind "$1/etc" /etc/fwupd
    # The package creates them when fwupd first runs; bind mounts need them to exist.
    mkdir -p /var/lib/fwupd /var/cache/fwupd
    mount --bind "$1/lib" /var/lib/fwupd
    mount --bind "$1/cache" /var/cache/fwupd
    /usr/lib/polkit-1/polkitd --no-debug & polkit=$!
    /usr/libexec/fwupd/fwupd --verbose & fwupd=$!
    echo "fwupd-pid $fwupd"
    # fwupd starts a gpg-agent for signed metadata, which outlives it unless told.
    trap "kill $polkit $fwupd 2>/dev/null; gpgconf --homedir /var/lib/fwupd/gnupg --kill gpg-agent 2>/dev/null" EXIT INT TERM
    wait $fwupd
' fwupd-system "$dir"
