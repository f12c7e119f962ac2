#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make install / make uninstall for a server without the Debian package.
#   boot/install.sh install DESTDIR PREFIX SBINDIR CONFIG HV_ELF TOOL GUEST_ELF...
#   boot/install.sh uninstall DESTDIR PREFIX
#
# install puts the hypervisor and the guests in DESTDIR/PREFIX (/boot/tempo),
# 20_tempo in DESTDIR/etc/grub.d, tempo-config in DESTDIR/SBINDIR and, where
# there is none yet, /etc/default/tempo and PREFIX/partitions.cfg (from
# CONFIG). An existing partitions.cfg is the admin's: it is kept, CONFIG is
# written beside it as partitions.cfg.new, and install says so. Every file
# written is listed with its checksum in PREFIX/.install-manifest.
#
# uninstall removes what the manifest lists, except a file changed since
# (an edited partitions.cfg or /etc/default/tempo): that is kept, and said.
set -euo pipefail

cmd=${1:-}
case $cmd in
install) [ $# -ge 7 ] || { echo "usage: $0 install DESTDIR PREFIX SBINDIR CONFIG HV TOOL GUEST..." >&2; exit 2; } ;;
uninstall) [ $# -eq 3 ] || { echo "usage: $0 uninstall DESTDIR PREFIX" >&2; exit 2; } ;;
*) echo "usage: $0 install|uninstall ..." >&2; exit 2 ;;
esac
dest=$2 prefix=$3
manifest=$dest$prefix/.install-manifest

# put MODE SRC PATH: install SRC as DESTDIR/PATH (atomically) and list it
put() {
	install -D -m "$1" "$2" "$dest$3.tmp"
	mv -f "$dest$3.tmp" "$dest$3"
	record "$3"
}
record() {
	printf '%s  %s\n' "$(md5sum < "$dest$1" | cut -d' ' -f1)" "$1" >> "$manifest.new"
}

if [ "$cmd" = install ]; then
	sbindir=$4 config=$5 hv=$6 tool=$7
	shift 7
	install -d "$dest$prefix" "$dest/etc/grub.d" "$dest/etc/default" "$dest$sbindir"
	: > "$manifest.new"
	# what an earlier install wrote and this one does not write again stays listed
	if [ -f "$manifest" ]; then
		grep -E '  (/etc/default/tempo|'"$prefix"'/partitions\.cfg(\.new)?)$' "$manifest" \
			>> "$manifest.new" || true
	fi
	put 644 "$hv" "$prefix/tempo.elf"
	for g in "$@"; do
		put 644 "$g" "$prefix/$(basename "$g")"
	done
	sed "s|^tempo_default_root=.*|tempo_default_root=$prefix|" boot/grub.d/20_tempo \
		> "$dest/etc/grub.d/20_tempo.tmp"
	chmod 755 "$dest/etc/grub.d/20_tempo.tmp"
	mv -f "$dest/etc/grub.d/20_tempo.tmp" "$dest/etc/grub.d/20_tempo"
	record /etc/grub.d/20_tempo
	put 755 "$tool" "$sbindir/tempo-config"
	if [ ! -e "$dest/etc/default/tempo" ]; then
		sed "s|/boot/tempo|$prefix|g" boot/grub.d/tempo.default > "$dest/etc/default/tempo"
		record /etc/default/tempo
	fi
	cfg=$dest$prefix/partitions.cfg
	if [ ! -e "$cfg" ]; then
		install -m 644 "$config" "$cfg"
		record "$prefix/partitions.cfg"
	elif cmp -s "$config" "$cfg"; then
		:
	else
		install -m 644 "$config" "$cfg.new"
		grep -v "  $prefix/partitions\.cfg\.new$" "$manifest.new" > "$manifest.tmp" || true
		mv -f "$manifest.tmp" "$manifest.new"
		record "$prefix/partitions.cfg.new"
		echo "install: kept your $cfg; $config is beside it as partitions.cfg.new"
	fi
	sort -k2 -u "$manifest.new" > "$manifest"
	rm -f "$manifest.new"
	exit 0
fi

# uninstall
if [ ! -f "$manifest" ]; then
	echo "uninstall: no $manifest: nothing installed by make install in $dest$prefix" >&2
	exit 1
fi
kept=0
while read -r sum path; do
	f=$dest$path
	[ -e "$f" ] || continue
	if [ "$(md5sum < "$f" | cut -d' ' -f1)" != "$sum" ]; then
		echo "uninstall: kept $f: changed since make install wrote it"
		kept=1
		continue
	fi
	rm -f "$f"
done < "$manifest"
rm -f "$manifest"
# partitions.cfg written by the admin (never listed) stays too
[ -e "$dest$prefix/partitions.cfg" ] && [ $kept = 0 ] &&
	echo "uninstall: kept $dest$prefix/partitions.cfg: not written by make install"
rmdir "$dest$prefix" 2> /dev/null || true
exit 0
