#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the Debian packages Tempo needs to build, boot in the emulators and
# test, but only those that are missing (a second run does nothing).
set -euo pipefail

packages=(
	gcc make binutils clang			# hypervisor, unit tests, fuzzers
	libcmocka-dev				# unit test framework
	grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools	# hybrid ISO
	bochs bochsbios vgabios bochs-term	# VMX emulation
	qemu-system-x86 ovmf			# BIOS/UEFI boot paths
	gnu-efi					# the UEFI loader (BOOTX64.EFI)
	dpkg-dev				# make deb: dpkg-shlibdeps
	coreutils				# timeout(1)
	parallel				# tests/run_tests.sh: two emulator tests at a time
	python3-matplotlib			# tests/bench/plot.py (make bench)
	python3					# tests/emu/console_drive.py (console input tests)
	gcc-12 libc6-dev libelf1		# make linux-image: tempo_chan.ko (the kernel's compiler, objtool), static tempo-chan
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
