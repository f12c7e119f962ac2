#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a hybrid BIOS+UEFI GRUB ISO that boots a multiboot (v1) kernel bare
# metal: boot/mkiso.sh's counterpart for the hello-mb1.elf flavour.
#   guests/hello/mkiso-mb1.sh OUT.iso KERNEL.elf "CMDLINE"
set -euo pipefail

if [ $# -ne 3 ]; then
	echo "usage: $0 OUT.iso KERNEL.elf \"CMDLINE\"" >&2
	exit 2
fi
out=$1 elf=$2 cmdline=$3

for tool in grub-mkrescue xorriso mformat; do
	command -v "$tool" >/dev/null || { echo "$0: $tool missing: run 'make deps'" >&2; exit 1; }
done
[ -f "$elf" ] || { echo "$0: $elf not found" >&2; exit 1; }

root=$(mktemp -d)
# The log lives outside the ISO tree: xorriso would pack it while it grows.
log=$(mktemp)
trap 'rm -rf "$root" "$log"' EXIT
mkdir -p "$root/boot/grub" "$root/boot/guest"
cp "$elf" "$root/boot/guest/kernel.elf"

cat > "$root/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
set gfxpayload=text
menuentry "guest (multiboot1)" {
	multiboot /boot/guest/kernel.elf $cmdline
	boot
}
CFG

mkdir -p "$(dirname "$out")"
grub-mkrescue -o "$out" "$root" >"$log" 2>&1 || {
	cat "$log" >&2
	exit 1
}
