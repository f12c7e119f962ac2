#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the Debian package from a staged tree with Debian's own dpkg-deb
# (no debhelper: the package is a handful of files, and the build needs no
# source package). The maintainer scripts, control file, copyright, man page
# and lintian overrides are in boot/deb/.
#   boot/mkdeb.sh OUT.deb VERSION STAGE_DIR HV_ELF TOOL EFI_LOADER EXAMPLE_CFG GUEST_ELF...
#
# The Maintainer is whoever builds it, as dch has it: DEBFULLNAME and
# DEBEMAIL, else git's user.name and user.email.
set -euo pipefail

[ $# -ge 8 ] || { echo "usage: mkdeb.sh OUT.deb VERSION STAGE HV TOOL EFI EXAMPLE GUEST..." >&2; exit 2; }
out=$1 version=$2 stage=$3 hv=$4 tool=$5 efi=$6 example=$7
shift 7
name=${DEBFULLNAME:-$(git config user.name 2>/dev/null || true)}
email=${DEBEMAIL:-$(git config user.email 2>/dev/null || true)}
if [ -z "$name" ] || [ -z "$email" ]; then
	echo "mkdeb.sh: who maintains this build? set DEBFULLNAME and DEBEMAIL (or git's" \
		"user.name and user.email)" >&2
	exit 2
fi
maintainer="$name <$email>"
deb=boot/deb
doc=usr/share/doc/tempo

rm -rf "$stage"
root=$stage/root
install -d "$root/DEBIAN" "$root/boot/tempo" "$root/etc/grub.d" "$root/etc/default" \
	"$root/usr/sbin" "$root/usr/lib/tempo" "$root/$doc" "$root/usr/share/man/man8" \
	"$root/usr/share/lintian/overrides"

# /boot/tempo: what 20_tempo hands GRUB. No partitions.cfg: that is the
# admin's to write (tempo-config create, or from example.cfg), and until it
# is there 20_tempo adds no entry and says how to make one.
install -m 644 "$hv" "$root/boot/tempo/tempo.elf"
install -m 644 "$@" "$root/boot/tempo/"
install -m 644 "$example" "$root/boot/tempo/example.cfg"

install -m 755 boot/grub.d/20_tempo "$root/etc/grub.d/20_tempo"
install -m 644 boot/grub.d/tempo.default "$root/etc/default/tempo"

install -m 755 "$tool" "$root/usr/sbin/tempo-config"
strip --remove-section=.comment --remove-section=.note "$root/usr/sbin/tempo-config"
install -m 644 "$efi" "$root/usr/lib/tempo/BOOTX64.EFI"

# Documentation, compressed as dh_compress would (-n: no time stamp, so
# two builds of one commit are the same).
install -m 644 README.md docs/*.md "$root/$doc/"
gzip -9n "$root/$doc"/*.md
install -m 644 "$deb/copyright" "$root/$doc/copyright"
{
	printf 'tempo (%s) unstable; urgency=medium\n\n' "$version"
	printf '  * Built from git commit %s.\n\n' \
		"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	printf ' -- %s  %s\n' "$maintainer" \
		"$(git log -1 --format=%aD 2>/dev/null || date -R)"
} | gzip -9n > "$root/$doc/changelog.gz"
gzip -9n < "$deb/tempo-config.8" > "$root/usr/share/man/man8/tempo-config.8.gz"
install -m 644 "$deb/lintian-overrides" "$root/usr/share/lintian/overrides/tempo"

# The C library version tempo-config needs, as dpkg-shlibdeps works it out.
mkdir -p "$stage/shlibs/debian"
printf 'Source: tempo\n\nPackage: tempo\nArchitecture: amd64\n' > "$stage/shlibs/debian/control"
# Without dpkg-dev (no dpkg-shlibdeps) the package says libc6 alone.
depends=$(cd "$stage/shlibs" &&
	dpkg-shlibdeps -O "$(readlink -f "../root/usr/sbin/tempo-config")" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p') || true
depends=${depends:-libc6}

# /etc/grub.d/20_tempo is a conffile too (policy: every file in /etc), as
# grub's own scripts are; the packaged copy exits quietly once tempo.elf
# is gone, so update-grub works after `dpkg -r`.
printf '/etc/default/tempo\n/etc/grub.d/20_tempo\n' > "$root/DEBIAN/conffiles"
install -m 755 "$deb/postinst" "$deb/postrm" "$root/DEBIAN/"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
	-e "s|@MAINTAINER@|$maintainer|" \
	"$deb/control.in" > "$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
	xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/md5sums" "$root/DEBIAN/conffiles" "$root/DEBIAN/control"

dpkg-deb --root-owner-group -Zxz --build "$root" "$out" > /dev/null
echo "  DEB     $out"
