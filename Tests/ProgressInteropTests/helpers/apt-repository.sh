#!/bin/sh
# A local apt repository of small packages built here, and a throwaway apt and dpkg state
# for it, under $1: repo/ (the .debs and their Packages index), etc-apt/ (a sources.list
# naming repo/ as a trusted file: source, nothing else), dpkg/ (an empty dpkg database),
# lists/, cache/ and log/. apt-sandbox.sh mounts them over the machine's.
#   progressd-test-alpha 1.0 and 2.0, -beta, -gamma: 300 kB of random bytes each (so that a
#     slow server takes seconds to send them), a postinst and a postrm that take 0.3 s
#     (so that dpkg's work is long enough to be seen from the bus);
#   progressd-test-broken: its preinst says "broken refuses to install" and exits 1;
#   progressd-test-clash: ships alpha's file.
# Every file a package installs is under /srv/progressd-apt-test, a tmpfs in the sandbox.
# $2, when given, is the source's URL instead of file:$1/repo.
set -eu
dir=$1
mkdir -p "$dir/build" "$dir/repo" "$dir/etc-apt/apt.conf.d" "$dir/etc-apt/sources.list.d" "$dir/etc-apt/preferences.d" \
    "$dir/dpkg/info" "$dir/dpkg/updates" "$dir/dpkg/triggers" "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/log"
: > "$dir/dpkg/status"
# name version owner-of-the-file [preinst]
package() {
    root="$dir/build/$1-$2"
    mkdir -p "$root/DEBIAN" "$root/srv/progressd-apt-test/$3"
    printf 'Package: progressd-test-%s\nVersion: %s\nArchitecture: all\nMaintainer: progressd tests <tests@progressd.invalid>\nDescription: %s, for progressd tests\n' \
        "$1" "$2" "$1" > "$root/DEBIAN/control"
    head -c 300000 /dev/urandom > "$root/srv/progressd-apt-test/$3/data"
    for script in postinst postrm; do
        printf '#!/bin/sh\nsleep 0.3\n' > "$root/DEBIAN/$script"
        chmod 755 "$root/DEBIAN/$script"
    done
    if [ -n "${4:-}" ]; then
        printf '#!/bin/sh\n%s\n' "$4" > "$root/DEBIAN/preinst"
        chmod 755 "$root/DEBIAN/preinst"
    fi
    dpkg-deb --root-owner-group -Zgzip --build "$root" "$dir/repo/" >/dev/null
}
package alpha 1.0 alpha
package alpha 2.0 alpha
package beta 1.0 beta
package gamma 1.0 gamma
package broken 1.0 broken 'echo "broken refuses to install" >&2; exit 1'
package clash 1.0 alpha
(cd "$dir/repo" && dpkg-scanpackages --multiversion . /dev/null > Packages 2>/dev/null)
echo "deb [trusted=yes] ${2:-file:$dir/repo} ./" > "$dir/etc-apt/sources.list"
