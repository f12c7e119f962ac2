#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a hybrid BIOS+UEFI GRUB ISO that boots Tempo the Xen way: one
# multiboot2 line for the hypervisor and one module2 line per extra file.
#   boot/mkiso.sh OUT.iso HV.elf "CMDLINE" [FILE:MODULE_STRING ...]
set -euo pipefail

if [ $# -lt 3 ]; then
	echo "usage: $0 OUT.iso HV.elf \"CMDLINE\" [FILE:MODULE_STRING ...]" >&2
	exit 2
fi
out=$1 elf=$2 cmdline=$3
shift 3

for tool in grub-mkrescue xorriso mformat objcopy; do
	command -v "$tool" >/dev/null || { echo "$0: $tool missing: run 'make deps'" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/iso
mkdir -p "$root/boot/grub" "$root/boot/tempo"
# The image boots from the loadable segments alone: the debug sections stay
# in the build's ELF (for gdb and addr2line), not in every ISO.
objcopy --strip-debug "$elf" "$root/boot/tempo/tempo.elf"

modules=""
for m in "$@"; do
	file=${m%%:*}
	string=${m#*:}
	[ -f "$file" ] || { echo "$0: module file $file not found" >&2; exit 1; }
	name=$(basename "$file")
	cp "$file" "$root/boot/tempo/$name"
	modules+="	module2 /boot/tempo/$name $string"$'\n'
done

cat > "$root/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
set gfxpayload=text
menuentry "Tempo" {
	multiboot2 /boot/tempo/tempo.elf $cmdline
$modules	boot
}
CFG

mkdir -p "$(dirname "$out")"
# Only the modules the menu entry needs (and what they depend on), no fonts,
# locales or themes: 23 MB an image became 5, and make test builds about 150
# of them (CI once ran out of disk at 4 GB of images).
slim=(--install-modules="normal configfile multiboot2 all_video" --fonts= --locales= --themes=)
# xorriso was seen to die with SIGSEGV once in many runs here: one retry.
for try in 1 2; do
	grub-mkrescue "${slim[@]}" -o "$out" "$root" >"$work/mkrescue.log" 2>&1 && exit 0
	echo "$0: grub-mkrescue failed (try $try)" >&2
done
cat "$work/mkrescue.log" >&2
exit 1
