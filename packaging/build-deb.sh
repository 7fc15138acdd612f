#!/usr/bin/env bash
# Builds the Debian package of Herald from a release binary (docs/packaging.md):
#
#   packaging/build-deb.sh [BINARY]      # default .build-package/release/herald
#
# writes herald_<version>_<arch>.deb into OUT_DIR (default .build-package/). The version is
# what `BINARY --version` prints; when the binary has no --version, HERALD_VERSION, else 0.16.0.
# The Debian revision (HERALD_DEB_REVISION, default 1) is added: herald_0.16.0-1_amd64.deb.
# Depends is what dpkg-shlibdeps finds for the binary's shared libraries, plus adduser (the
# postinst makes the herald user) and ca-certificates (the trust roots APNs and FCM are
# reached with). Needs dpkg-deb, strip, gzip and dpkg-shlibdeps (dpkg-dev); no root.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BINARY=${1:-$REPO/.build-package/release/herald}
OUT_DIR=${OUT_DIR:-$REPO/.build-package}
REVISION=${HERALD_DEB_REVISION:-1}
MAINTAINER="Herald maintainers <maintainers@users.noreply.a-seed-26808c83.example>"

die() { echo "build-deb: $*" >&2; exit 1; }
[ -x "$BINARY" ] || die "no executable at $BINARY (make package builds it)"
for tool in dpkg-deb strip gzip dpkg-shlibdeps objdump; do
    command -v "$tool" >/dev/null || die "$tool is missing (apt-get install dpkg-dev binutils)"
done

# The version: from the binary first; `herald --version` of a binary without the flag runs
# `serve --version`, which exits 78, so only a zero exit with a version in it counts.
version=""
if printed=$("$BINARY" --version 2>/dev/null); then
    version=$(printf '%s\n' "$printed" | grep -oE '[0-9]+\.[0-9]+\.[0-9]+([~+.-][0-9A-Za-z.~+-]*)?' | head -n1 || true)
fi
if [ -n "$version" ]; then
    source="herald --version"
else
    version=${HERALD_VERSION:-0.16.0}
    source=${HERALD_VERSION:+HERALD_VERSION}
    source=${source:-default}
fi
[[ $version =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || die "not a Debian upstream version: $version"
deb_version="$version-$REVISION"
arch=$(dpkg --print-architecture)
echo "build-deb: herald $deb_version ($arch), version from $source"

# Reproducible dates: the last commit's, else now.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || date +%s)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
install -d -m 0755 "$root/DEBIAN" "$root/usr/bin" "$root/etc/herald" "$root/lib/systemd/system" \
    "$root/usr/share/doc/herald" "$root/usr/share/man/man1" "$root/usr/share/lintian/overrides"

# The executable, stripped as dh_strip strips one: no symbol tables, no .comment or .note.
install -m 0755 "$BINARY" "$root/usr/bin/herald"
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/herald"
echo "build-deb: /usr/bin/herald $(stat -c %s "$BINARY") bytes, stripped $(stat -c %s "$root/usr/bin/herald")"

install -m 0644 "$HERE/herald.yaml" "$root/etc/herald/herald.yaml"
install -m 0644 "$HERE/herald.service" "$root/lib/systemd/system/herald.service"
install -m 0644 "$HERE/debian/copyright" "$root/usr/share/doc/herald/copyright"
install -m 0644 "$HERE/debian/lintian-overrides" "$root/usr/share/lintian/overrides/herald"
for doc in "$REPO/README.md" "$REPO/docs/configuration.md" "$REPO/docs/security.md" "$REPO/docs/packaging.md"; do
    [ -f "$doc" ] || continue
    gzip -9n -c "$doc" >"$root/usr/share/doc/herald/$(basename "$doc").gz"
done
gzip -9n -c "$HERE/herald.1" >"$root/usr/share/man/man1/herald.1.gz"
chmod 0644 "$root"/usr/share/doc/herald/*.gz "$root/usr/share/man/man1/herald.1.gz"

changelog_date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
cat >"$work/changelog.Debian" <<EOF
herald ($deb_version) unstable; urgency=medium

  * Herald $version as a Debian package: /usr/bin/herald, herald.service run as
    the herald system user under systemd's sandboxing, and a starting
    configuration in /etc/herald/herald.yaml.

 -- $MAINTAINER  $changelog_date
EOF
gzip -9n -c "$work/changelog.Debian" >"$root/usr/share/doc/herald/changelog.Debian.gz"
chmod 0644 "$root/usr/share/doc/herald/changelog.Debian.gz"

# Shared libraries: dpkg-shlibdeps maps each NEEDED library to its package and the lowest
# version the binary's symbols need (from the packages' symbols files).
echo "build-deb: shared libraries the binary needs:"
objdump -p "$BINARY" | awk '/NEEDED/ {print $2}' | while read -r lib; do
    # awk reads ldconfig's whole list: leaving early would kill ldconfig with SIGPIPE, which pipefail makes fatal.
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x86_64/ && !found {print $NF; found = 1}')
    owner=$( { [ -n "$path" ] && dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null; } | head -n1 | cut -d: -f1 || true)
    printf '  %-28s %-45s %s\n' "$lib" "${path:-?}" "${owner:-(not from a package)}"
done
mkdir -p "$work/src/debian"
cat >"$work/src/debian/control" <<EOF
Source: herald

Package: herald
Architecture: any
EOF
shlibs=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/herald" 2>"$work/shlibdeps.err" \
    | sed -n 's/^shlibs:Depends=//p') || { cat "$work/shlibdeps.err" >&2; die "dpkg-shlibdeps failed"; }
sed 's/^/build-deb: /' "$work/shlibdeps.err" >&2
depends="adduser, ca-certificates, $shlibs"

installed_size=$(du -k -s --apparent-size --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: herald
Version: $deb_version
Architecture: $arch
Maintainer: $MAINTAINER
Installed-Size: $installed_size
Depends: $depends
Section: net
Priority: optional
Description: push-notification gateway for APNs and FCM
 Herald keeps the device tokens of messengers, wallets and sync apps and
 wakes their devices through Apple Push Notification service (APNs) and
 Firebase Cloud Messaging (FCM), for any number of configured apps.
 .
 It speaks the protocols real clients already use: gorush's /api/push, the
 Status push-notification server protocol, a Web Push relay compatible with
 Mastodon's toot-relay, the Aries push-notification protocols and
 NotifyMe-style silent sync. A node keeps a crash-safe LMDB registry with
 tokens sealed at rest, and several nodes can share one command log in etcd.
 .
 This package runs one node as herald.service, configured by
 /etc/herald/herald.yaml.
EOF
printf '/etc/herald/herald.yaml\n' >"$root/DEBIAN/conffiles"
install -m 0755 "$HERE/debian/postinst" "$HERE/debian/prerm" "$HERE/debian/postrm" "$root/DEBIAN/"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z \
    | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

mkdir -p "$OUT_DIR"
deb="$OUT_DIR/herald_${deb_version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "build-deb: $deb ($(stat -c %s "$deb") bytes)"
echo "build-deb: Depends: $depends"
