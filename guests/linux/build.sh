#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the Linux test guest from Debian packages, without installing any:
#   guests/linux/build.sh OUTDIR
# makes OUTDIR/bzImage (the kernel that linux-image-rt-amd64 depends on today)
# and OUTDIR/initrd.cpio.gz (busybox-static, cyclictest from rt-tests, the
# shared libraries cyclictest needs, guests/linux/init.sh as /init, and the
# channel module tempo_chan.ko with its static user program tempo-chan, and
# the PCI NE2000's driver, 8390.ko and ne2k-pci.ko, from the kernel package).
# The module is built against that kernel's Debian headers, extracted into
# OUTDIR/kheaders (their one absolute /usr/src path rewritten), in
# OUTDIR/module.
# The .deb files are kept in OUTDIR/debs and reused; delete it to refresh.
# Needs: apt-get, apt-cache, dpkg-deb, readelf and objcopy (binutils), gzip,
# make, gcc-12 (the kernel's compiler) and libelf1 (objtool). The cpio
# archive is written by the busybox from the extracted busybox-static.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
debs=$out/debs
mkdir -p "$debs"

for tool in apt-get apt-cache dpkg-deb readelf objcopy gzip make gcc-12; do
	command -v "$tool" >/dev/null || { echo "$0: $tool missing" >&2; exit 1; }
done

# The kernel package: what the rt metapackage depends on now.
kernel_pkg() {
	apt-cache depends linux-image-rt-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*-rt-amd64\)$/\1/p' | head -n 1
}

# Download PKG into $debs unless a PKG_*.deb is already there.
fetch() {
	local p
	local want=()
	for p in "$@"; do
		ls "$debs/${p}_"*.deb >/dev/null 2>&1 || want+=("$p")
	done
	[ ${#want[@]} -eq 0 ] && return 0
	echo "build.sh: downloading ${want[*]}"
	(cd "$debs" && apt-get download -q "${want[@]}") && return 0
	if [ "$(id -u)" -eq 0 ]; then
		echo "build.sh: download failed; running apt-get update and retrying" >&2
		apt-get update -qq
		(cd "$debs" && apt-get download -q "${want[@]}") && return 0
	fi
	echo "$0: could not download ${want[*]} (apt-get update as root may help)" >&2
	return 1
}

kpkg=$(kernel_pkg)
if [ -z "$kpkg" ] && [ "$(id -u)" -eq 0 ]; then
	apt-get update -qq
	kpkg=$(kernel_pkg)
fi
if [ -z "$kpkg" ]; then
	# No package lists: fall back to a kernel deb already in the cache.
	kpkg=$(ls "$debs"/linux-image-*-rt-amd64_*.deb 2>/dev/null | sed -n 's|.*/\(linux-image-[^_]*\)_.*|\1|p' | tail -n 1)
fi
[ -n "$kpkg" ] || { echo "$0: cannot resolve linux-image-rt-amd64 (apt-get update?)" >&2; exit 1; }
echo "build.sh: kernel package $kpkg"

# libc6 and libnuma1 provide every library cyclictest needs (checked below).
fetch "$kpkg" busybox-static rt-tests libc6 libnuma1

# Download PKG at exactly VERSION (no epoch) into $debs unless it is there.
fetch_version() {
	local p=$1 v=$2
	ls "$debs/${p}_${v}_"*.deb >/dev/null 2>&1 && return 0
	echo "build.sh: downloading $p=$v"
	(cd "$debs" && apt-get download -q "$p=$v") && return 0
	if [ "$(id -u)" -eq 0 ]; then
		apt-get update -qq
		(cd "$debs" && apt-get download -q "$p=$v") && return 0
	fi
	echo "$0: could not download $p=$v (the headers of the cached $kpkg; delete $debs to refresh both)" >&2
	return 1
}

# The headers an out-of-tree module needs, at the version of the kernel
# package in the cache (which may be older than the archive's newest):
# linux-headers-KVER (.config, Module.symvers, the arch's generated headers),
# the flavour's common headers it includes, and linux-kbuild (scripts/,
# modpost, objtool). linux-compiler-gcc-12-x86 only depends on gcc-12.
# the last of the files a glob matched (in sorted order), or nothing
last_of() {
	local f
	for f in "$@"; do :; done
	[ -e "$f" ] && echo "$f"
}
kdeb=$(last_of "$debs/${kpkg}_"*.deb)
kpkg_version=$(dpkg-deb -f "$kdeb" Version)
kver=${kpkg#linux-image-}
kcommon=$(apt-cache depends "linux-headers-$kver" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-headers-.*-common.*\)$/\1/p' | head -n 1)
# Without package lists: Debian's name for it, e.g. linux-headers-6.1.0-57-common-rt
# for 6.1.0-57-rt-amd64.
if [ -z "$kcommon" ]; then
	kflavour=${kver#*-*-}
	kcommon=linux-headers-${kver%-*-*}-common-${kflavour%-amd64}
fi
kbuild=linux-kbuild-$(echo "$kver" | cut -d. -f1-2)
hpkgs=("linux-headers-$kver" "$kcommon" "$kbuild")
for p in "${hpkgs[@]}"; do
	fetch_version "$p" "$kpkg_version"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
x=$work/x
mkdir -p "$x"
for p in "$kpkg" busybox-static rt-tests libc6 libnuma1; do
	deb=$(ls "$debs/${p}_"*.deb | tail -n 1)
	dpkg-deb -x "$deb" "$x"
done

[ -f "$x/boot/vmlinuz-$kver" ] || { echo "$0: no /boot/vmlinuz-$kver in $kpkg" >&2; exit 1; }

# The initramfs tree.
r=$work/root
mkdir -p "$r/bin" "$r/sbin" "$r/usr/bin" "$r/usr/sbin" "$r/lib/x86_64-linux-gnu" \
	"$r/lib64" "$r/dev" "$r/proc" "$r/sys" "$r/tmp" "$r/root"
cp "$x/bin/busybox" "$r/bin/busybox"
ln -s busybox "$r/bin/sh"
cp "$x/usr/bin/cyclictest" "$r/usr/bin/cyclictest"
cp "$here/init.sh" "$r/init"
# tempo-stats: CPUID 0x40000011 from user space, so Tempo prints this vCPU's
# counters around cyclictest (no libc: tempo_stats.c)
${CC:-gcc} -static -nostdlib -O2 -fno-stack-protector -I"$here/../.." -o "$r/bin/tempo-stats" \
	"$here/tempo_stats.c"
chmod 755 "$r/init" "$r/bin/busybox" "$r/usr/bin/cyclictest" "$r/bin/tempo-stats"

# The kernel headers, under OUTDIR only. linux-headers-KVER/Makefile is one
# line, "include /usr/src/linux-headers-...-common.../Makefile": point it into
# the extracted tree. Everything else links relatively (scripts and tools to
# ../../lib/linux-kbuild-6.1) or goes through $(srctree).
kh=$out/kheaders
rm -rf "$kh"
mkdir -p "$kh"
for p in "${hpkgs[@]}"; do
	dpkg-deb -x "$(last_of "$debs/${p}_${kpkg_version}_"*.deb)" "$kh"
done
kdir=$kh/usr/src/linux-headers-$kver
sed -i "s|^include /usr/src/|include $kh/usr/src/|" "$kdir/Makefile"
kinc=$(sed -n 's/^include //p' "$kdir/Makefile")
case $kinc in
"$kh"/*) [ -f "$kinc" ] ;;
*) false ;;
esac || { echo "$0: $kdir/Makefile includes '$kinc', not a file under $kh" >&2; exit 1; }

# tempo_chan.ko, built where kbuild writes its objects: a copy of the sources
# in OUTDIR/module (M= writes next to them). TEMPO_ROOT is for the includes.
# The compiler is the one the kernel was built with (.kernelvariables: gcc-12).
m=$out/module
rm -rf "$m"
mkdir -p "$m"
cp "$here/Kbuild" "$here/tempo_chan.c" "$m/"
# Not the caller's MAKEFLAGS: a CC=... given to the top-level make is not the kernel's.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$kdir" M="$m" TEMPO_ROOT="$here/../.." modules
# A file, not /dev/stdout: objcopy writes through a temporary file, and
# one run of it into /dev/stdout that failed ("Illegal seek") left the
# /dev/stdout link a regular file on a build machine (as root), after
# which this read an empty vermagic.
objcopy -O binary --only-section=.modinfo "$m/tempo_chan.ko" "$m/modinfo.bin"
vermagic=$(tr '\0' '\n' < "$m/modinfo.bin" | sed -n 's/^vermagic=//p')
case $vermagic in
"$kver "*) ;;
*) echo "$0: tempo_chan.ko has vermagic '$vermagic', the kernel is $kver" >&2; exit 1 ;;
esac
mkdir -p "$r/lib/modules"
cp "$m/tempo_chan.ko" "$r/lib/modules/tempo_chan.ko"
# The PCI NE2000's driver and the 8390 core it needs, for a partition that
# owns Bochs' card (tempo.ne2k=1, init.sh): decompressed if the package
# ships them compressed, since busybox insmod loads plain ELF only.
for ko in 8390 ne2k-pci; do
	src=$(find "$x/lib/modules/$kver/kernel/drivers/net/ethernet/8390" -name "$ko.ko*" | head -n 1)
	[ -n "$src" ] || { echo "$0: $ko.ko is not in $kpkg" >&2; exit 1; }
	case $src in
	*.ko.xz) xz -dc "$src" > "$r/lib/modules/$ko.ko" ;;
	*.ko.zst) zstd -qdc "$src" > "$r/lib/modules/$ko.ko" ;;
	*.ko.gz) gzip -dc "$src" > "$r/lib/modules/$ko.ko" ;;
	*) cp "$src" "$r/lib/modules/$ko.ko" ;;
	esac
done
# tempo-chan: the channels from user space (static, glibc)
${CC:-gcc} -std=gnu11 -static -O2 -Wall -Wextra -Werror -I"$here/../.." -o "$r/bin/tempo-chan" \
	"$here/tempo_chan_tool.c"
echo "build.sh: tempo_chan.ko ($vermagic), tempo-chan"

# Copy the shared-library closure of cyclictest into /lib/x86_64-linux-gnu,
# a directory ld.so searches without a cache.
find_lib() {
	local d
	for d in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu lib64 lib usr/lib; do
		[ -e "$x/$d/$1" ] && { echo "$x/$d/$1"; return 0; }
	done
	return 1
}
needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}
interp=$(readelf -l "$x/usr/bin/cyclictest" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
[ "$interp" = /lib64/ld-linux-x86-64.so.2 ] || { echo "$0: unexpected interpreter $interp" >&2; exit 1; }
queue=$(needed "$x/usr/bin/cyclictest")
queue="$queue ld-linux-x86-64.so.2"
done_libs=" "
while [ -n "${queue// /}" ]; do
	set -- $queue
	lib=$1
	shift
	queue="$*"
	case $done_libs in *" $lib "*) continue ;; esac
	done_libs+="$lib "
	src=$(find_lib "$lib") || { echo "$0: $lib (needed by cyclictest) is in none of the extracted packages" >&2; exit 1; }
	cp -L "$src" "$r/lib/x86_64-linux-gnu/$lib"
	queue="$queue $(needed "$src" | tr '\n' ' ')"
done
ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$r/lib64/ld-linux-x86-64.so.2"
echo "build.sh: libraries:$done_libs"

# Device nodes for the kernel's initial console; /init mounts devtmpfs over /dev.
if [ "$(id -u)" -eq 0 ]; then
	mknod -m 600 "$r/dev/console" c 5 1
	mknod -m 666 "$r/dev/null" c 1 3
fi

bb=$x/bin/busybox
(cd "$r" && find . -mindepth 1 | LC_ALL=C sort | "$bb" cpio -o -H newc -R 0:0 2>/dev/null) |
	gzip -9 -n > "$out/initrd.cpio.gz.tmp"
mv "$out/initrd.cpio.gz.tmp" "$out/initrd.cpio.gz"
cp "$x/boot/vmlinuz-$kver" "$out/bzImage.tmp"
mv "$out/bzImage.tmp" "$out/bzImage"
echo "$kver" > "$out/kernel-version"
echo "build.sh: $out/bzImage ($kver, $(stat -c %s "$out/bzImage") bytes)," \
	"$out/initrd.cpio.gz ($(stat -c %s "$out/initrd.cpio.gz") bytes)"
