#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make run-kvm: boot a Tempo ISO in QEMU with KVM and nested VMX, on an Intel
# host whose kvm_intel module has nested=1. Checks the host first and says
# what to change when it cannot work; exit status 1 then.
#
#   boot/run-kvm.sh --iso IMAGE --config FILE [--dry-run]
#     --iso       the image (build/tempo.iso)
#     --config    the partition config inside it: QEMU gets 1 + the highest
#                 CPU index any [partition] uses
#     --dry-run   check and print the QEMU command, do not run it
# With `exit=emu` on Tempo's command line (make iso puts it there) the run
# ends QEMU through isa-debug-exit; status 33 (Tempo's "ok") becomes 0.
#
# For tests, TEMPO_KVM_CPUINFO, TEMPO_KVM_DEV and TEMPO_KVM_NESTED replace
# /proc/cpuinfo, /dev/kvm and /sys/module/kvm_intel/parameters/nested.
set -uo pipefail

iso="" config="" dry=0
while [ $# -gt 0 ]; do
	case $1 in
	--iso) iso=$2; shift 2 ;;
	--config) config=$2; shift 2 ;;
	--dry-run) dry=1; shift ;;
	*) echo "run-kvm: unknown option $1" >&2; exit 2 ;;
	esac
done
if [ -z "$iso" ] || [ -z "$config" ]; then
	echo "usage: $0 --iso IMAGE --config FILE [--dry-run]" >&2
	exit 2
fi

cpuinfo=${TEMPO_KVM_CPUINFO:-/proc/cpuinfo}
kvm=${TEMPO_KVM_DEV:-/dev/kvm}
nested=${TEMPO_KVM_NESTED:-/sys/module/kvm_intel/parameters/nested}

problems=()
say() { problems+=("$*"); }

# 1. the CPU: Intel VT-x, visible to this kernel
if grep -qw vmx "$cpuinfo" 2>/dev/null; then
	:
elif grep -qw svm "$cpuinfo" 2>/dev/null || grep -q AuthenticAMD "$cpuinfo" 2>/dev/null; then
	say "no VMX on this host: it has an AMD CPU (SVM). AMD hosts are not supported: Tempo needs Intel VT-x, and KVM on AMD nests SVM, not VMX"
else
	say "no VMX on this host: $cpuinfo has no 'vmx' flag. Enable Intel VT-x (\"Intel Virtualization Technology\") in the firmware setup; if this machine is itself a virtual machine, its hypervisor must expose nested VMX to it"
fi

# 2. KVM itself
if [ ! -e "$kvm" ]; then
	say "$kvm does not exist: load KVM (sudo modprobe kvm_intel) on a host with VT-x"
elif [ ! -r "$kvm" ] || [ ! -w "$kvm" ]; then
	say "$kvm is not readable and writable by $(id -un): sudo usermod -aG kvm $(id -un), then log in again"
fi

# 3. nested VMX in kvm_intel (only meaningful where kvm_intel is loaded)
if [ -r "$nested" ]; then
	case $(cat "$nested") in
	Y | y | 1) ;;
	*) say "nested VMX is off in kvm_intel ($nested = $(cat "$nested")): sudo modprobe -r kvm_intel && sudo modprobe kvm_intel nested=1 (to keep it: echo 'options kvm_intel nested=1' | sudo tee /etc/modprobe.d/kvm-nested.conf)" ;;
	esac
elif [ -e "$kvm" ]; then
	say "kvm_intel is not loaded ($nested missing): sudo modprobe kvm_intel nested=1"
fi

command -v qemu-system-x86_64 >/dev/null || say "qemu-system-x86_64 is missing: make deps (package qemu-system-x86)"

if [ ${#problems[@]} -gt 0 ]; then
	echo "run-kvm: cannot run Tempo under QEMU/KVM on this host:" >&2
	for p in "${problems[@]}"; do
		echo "run-kvm:   - $p" >&2
	done
	echo "run-kvm: without nested VMX, 'make run' boots Tempo in Bochs instead." >&2
	exit 1
fi

[ -f "$iso" ] || { echo "run-kvm: image $iso not found (make iso)" >&2; exit 1; }
[ -f "$config" ] || { echo "run-kvm: config $config not found" >&2; exit 1; }

# The highest CPU index a [partition]'s cpus key names (lists and ranges).
max_cpu=$(awk '
	{ sub(/\r$/, "") }
	/^[ \t]*\[/ { h = $0; sub(/#.*/, "", h); gsub(/[][]/, " ", h); split(h, w, " ")
		      in_part = (w[1] == "partition"); next }
	in_part && /^[ \t]*cpus[ \t]*=/ {
		v = $0; sub(/#.*/, "", v); sub(/^[^=]*=/, "", v); gsub(/[ \t]/, "", v)
		n = split(v, items, ",")
		for (i = 1; i <= n; i++) {
			m = split(items[i], r, "-")
			if (items[i] !~ /^[0-9]+(-[0-9]+)?$/) { bad = items[i]; exit 1 }
			x = r[m] + 0
			if (x > max) max = x
			seen = 1
		}
	}
	END { if (bad != "") { print "\047" bad "\047 is not a CPU number or range N-M"; exit 1 } if (!seen) exit 1; print max }
' "$config") || {
	echo "run-kvm: $config: cannot tell the CPUs: ${max_cpu:-no 'cpus =' in a [partition] section}" >&2
	exit 1
}
smp=$((max_cpu + 1))

# shellcheck disable=SC2054  # the commas are QEMU's
cmd=(qemu-system-x86_64 -accel kvm -cpu host,+vmx,+invtsc,+x2apic,+tsc-deadline
	-smp "$smp" -m 1024 -cdrom "$iso" -serial stdio -display none -no-reboot -net none
	-device isa-debug-exit,iobase=0xf4,iosize=0x04)
echo "run-kvm: ${cmd[*]}"
[ $dry -eq 1 ] && exit 0
"${cmd[@]}"
status=$?
case $status in
33) echo "run-kvm: Tempo ended: ok"; exit 0 ;;
35) echo "run-kvm: Tempo ended: failure"; exit 1 ;;
37) echo "run-kvm: Tempo ended: no-vmx (the guest CPU shows no VMX: is nested on?)"; exit 1 ;;
*) exit $status ;;
esac
