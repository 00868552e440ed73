#!/bin/sh
# Builds the Debian package in a copy of a tree (what its .gitignore does not exclude):
#
#   build-deb.sh SOURCE STAGE [VERSION [ROOT]]
#
# copies SOURCE into STAGE and runs dpkg-buildpackage there, which writes the .deb (and the
# -dbgsym .deb) into STAGE's parent; with ROOT, inside that Debian root (scripts/in-root.sh:
# a throwaway overlay, STAGE's parent and the Swift toolchain seen at their paths), so that the
# package is built with, and depends on, that release's libraries. STAGE keeps its own .build, so that the next build there
# compiles only what changed. `make deb` builds the tree itself; make interop builds that copy
# again in another folder (two builds must give the same bytes, wherever they ran), and the
# tree as VERSION, the version an upgrade starts from: debian/changelog's first entry and
# ProgressVersion.current (which debian/rules holds equal) say VERSION in the copy; a VERSION
# such as 0.1.0+deb13 (a build for Debian 13) leaves ProgressVersion.current at 0.1.0.
set -eu
source=$1 stage=$2 version=${3:-} root=${4:-}
changelog=debian/changelog
version_file=Sources/ProgressModel/ProgressVersion.swift
mkdir -p "$stage"
if [ -z "$version" ]; then
    rsync -a --delete --exclude=/.git --filter=':- .gitignore' "$source/" "$stage/"
else
    # The two files are written only when they change, so that an unchanged tree is not
    # compiled again from its version file on.
    rsync -a --delete --exclude=/.git --exclude="/$changelog" --exclude="/$version_file" \
        --filter=':- .gitignore' "$source/" "$stage/"
    write_if_changed() {
        if ! cmp -s "$1.new" "$1"; then mv "$1.new" "$1"; else rm "$1.new"; fi
    }
    sed "1s/^progressd ([^)]*)/progressd ($version)/" "$source/$changelog" >"$stage/$changelog.new"
    write_if_changed "$stage/$changelog"
    sed "s/\(current = \"\)[^\"]*\"/\1${version%%+deb*}\"/" "$source/$version_file" >"$stage/$version_file.new"
    write_if_changed "$stage/$version_file"
fi
if [ -z "$root" ]; then
    cd "$stage"
    exec dpkg-buildpackage -b --no-sign
fi
scripts=$(cd "$(dirname "$0")" && pwd)
stage=$(cd "$stage" && pwd)
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v "${SWIFT:-swift}")")")")")
exec sh "$scripts/in-root.sh" "$root" --bind "$(dirname "$stage")" --bind-ro "$toolchain" \
    --env "PATH=$toolchain/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" -- \
    sh -c 'cd "$1" && exec dpkg-buildpackage -b --no-sign' build "$stage"
