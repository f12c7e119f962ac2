#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a FAT EFI system partition image that boots Tempo without GRUB:
# \EFI\BOOT\BOOTX64.EFI (the Tempo EFI loader), \EFI\tempo\tempo.conf, the
# hypervisor and one file per module, all in \EFI\tempo.
#   boot/mkesp.sh [--missing NAME] [--shutdown] OUT.img LOADER.efi HV.elf "CMDLINE" \
#       [FILE:MODULE_STRING ...]
#     --missing NAME  also name \EFI\tempo\NAME as a module without copying it
#                     (to test the loader's error path)
#     --shutdown      add \startup.nsh with "reset -s": when the loader returns
#                     to the firmware, OVMF's next boot option (its shell) powers
#                     the machine off, which ends an emulator run
set -euo pipefail

missing="" shutdown=0
while [ $# -gt 0 ]; do
	case $1 in
	--missing) missing=$2; shift 2 ;;
	--shutdown) shutdown=1; shift ;;
	*) break ;;
	esac
done
if [ $# -lt 4 ]; then
	echo "usage: $0 [--missing NAME] [--shutdown] OUT.img LOADER.efi HV.elf \"CMDLINE\"" \
		"[FILE:MODULE_STRING ...]" >&2
	exit 2
fi
out=$1 loader=$2 elf=$3 cmdline=$4
shift 4

for tool in mformat mmd mcopy; do
	command -v "$tool" >/dev/null || { echo "$0: $tool missing: run 'make deps'" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
conf=$work/tempo.conf
{
	echo "# Tempo EFI loader configuration (boot/efi/efiboot.h), made by boot/mkesp.sh"
	printf '%s\n' 'hypervisor = \EFI\tempo\tempo.elf' "cmdline = $cmdline"
} > "$conf"

files=()
for m in "$@"; do
	file=${m%%:*}
	string=${m#*:}
	[ -f "$file" ] || { echo "$0: module file $file not found" >&2; exit 1; }
	name=$(basename "$file")
	files+=("$file")
	printf 'module = \\EFI\\tempo\\%s %s\n' "$name" "$string" >> "$conf"
done
[ -n "$missing" ] && printf 'module = \\EFI\\tempo\\%s %s\n' "$missing" "$missing" >> "$conf"

# 64 MiB, FAT16 without a partition table: firmware mounts the whole disk.
img=$work/esp.img
truncate -s 64M "$img"
mformat -i "$img" -v TEMPO-ESP -T 131072 -h 16 -s 63 ::
mmd -i "$img" ::/EFI ::/EFI/BOOT ::/EFI/tempo
mcopy -i "$img" "$loader" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$img" "$conf" ::/EFI/tempo/tempo.conf
mcopy -i "$img" "$elf" ::/EFI/tempo/tempo.elf
for f in "${files[@]}"; do
	mcopy -i "$img" "$f" "::/EFI/tempo/$(basename "$f")"
done
if [ $shutdown -eq 1 ]; then
	printf 'reset -s\r\n' > "$work/startup.nsh"
	mcopy -i "$img" "$work/startup.nsh" ::/startup.nsh
fi

mkdir -p "$(dirname "$out")"
mv "$img" "$out"
