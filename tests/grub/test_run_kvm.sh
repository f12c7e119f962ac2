#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# boot/run-kvm.sh (make run-kvm): its host checks and the QEMU command it
# builds. On this host as it is (the build machines have no VMX) it must
# refuse with a message that says so; with TEMPO_KVM_* pointing at made-up
# /proc/cpuinfo, /dev/kvm and kvm_intel "nested" files it must refuse or
# accept as a real host would, and size -smp from the config.
#   tests/grub/test_run_kvm.sh
# One line per test: PASS name / FAIL name: why. Exit status 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/tempo-kvm.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

iso=$work/fake.iso
: > "$iso"
out=$work/out.txt

# kvm VAR=value... -- ARGS: run the script, stdout+stderr in $out
kvm() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" boot/run-kvm.sh "$@" > "$out" 2>&1
}

# ---- this host, as it is ----
if grep -qw vmx /proc/cpuinfo && [ -r /sys/module/kvm_intel/parameters/nested ] &&
	grep -qE '^(Y|1)$' /sys/module/kvm_intel/parameters/nested; then
	echo "SKIP this_host_refused: this host has VMX and nested KVM"
else
	kvm X=1 -- --iso "$iso" --config guests/demo.cfg --dry-run
	status=$?
	if [ $status -eq 0 ]; then
		fail this_host_refused "exit status 0 on a host without (nested) VMX: $(cat "$out")"
	elif ! grep -qw vmx /proc/cpuinfo && ! grep -q 'no VMX' "$out"; then
		fail this_host_refused "the message does not say 'no VMX': $(cat "$out")"
	elif grep -q '^run-kvm: qemu' "$out"; then
		fail this_host_refused "printed a QEMU command anyway"
	else
		pass this_host_refused
	fi
fi

# ---- a made-up Intel host with nested KVM ----
printf 'vendor_id\t: GenuineIntel\nflags\t\t: fpu tsc msr vmx x2apic tsc_deadline_timer\n' > "$work/intel"
printf 'vendor_id\t: AuthenticAMD\nflags\t\t: fpu tsc msr svm x2apic\n' > "$work/amd"
printf 'vendor_id\t: GenuineIntel\nflags\t\t: fpu tsc msr x2apic\n' > "$work/novmx"
: > "$work/kvm"
echo Y > "$work/nested_y"
echo N > "$work/nested_n"
good=(TEMPO_KVM_CPUINFO="$work/intel" TEMPO_KVM_DEV="$work/kvm" TEMPO_KVM_NESTED="$work/nested_y")

if kvm "${good[@]}" -- --iso "$iso" --config guests/demo.cfg --dry-run &&
	grep -q -- "-accel kvm -cpu host,+vmx,+invtsc,+x2apic,+tsc-deadline -smp 4 -m 1024 -cdrom $iso -serial stdio -display none -no-reboot" "$out"; then
	pass nested_host_demo_smp4
else
	fail nested_host_demo_smp4 "$(cat "$out")"
fi

printf '[hypervisor]\ntick_us = 0\n[partition a]\ncpus = 0, 5-6   # x\n[partition b]\ncpus=2\n' > "$work/c.cfg"
if kvm "${good[@]}" -- --iso "$iso" --config "$work/c.cfg" --dry-run && grep -q -- '-smp 7 ' "$out"; then
	pass nested_host_smp_from_ranges
else
	fail nested_host_smp_from_ranges "$(cat "$out")"
fi

# refused: status 1, the hint in the message
# refused NAME PATTERN VAR=value...
refused() {
	local name=$1 pattern=$2
	shift 2
	kvm "$@" -- --iso "$iso" --config guests/demo.cfg --dry-run
	local status=$?
	if [ $status -ne 1 ]; then
		fail "$name" "exit status $status: $(cat "$out")"
	elif ! grep -qF -- "$pattern" "$out"; then
		fail "$name" "no '$pattern' in: $(cat "$out")"
	else
		pass "$name"
	fi
}
refused nested_off "sudo modprobe -r kvm_intel && sudo modprobe kvm_intel nested=1" \
	TEMPO_KVM_CPUINFO="$work/intel" TEMPO_KVM_DEV="$work/kvm" TEMPO_KVM_NESTED="$work/nested_n"
refused kvm_intel_not_loaded "modprobe kvm_intel nested=1" \
	TEMPO_KVM_CPUINFO="$work/intel" TEMPO_KVM_DEV="$work/kvm" TEMPO_KVM_NESTED="$work/none"
refused no_dev_kvm "does not exist" \
	TEMPO_KVM_CPUINFO="$work/intel" TEMPO_KVM_DEV="$work/none" TEMPO_KVM_NESTED="$work/nested_y"
refused amd_host "AMD hosts are not supported" \
	TEMPO_KVM_CPUINFO="$work/amd" TEMPO_KVM_DEV="$work/kvm" TEMPO_KVM_NESTED="$work/nested_y"
refused vtx_off "Enable Intel VT-x" \
	TEMPO_KVM_CPUINFO="$work/novmx" TEMPO_KVM_DEV="$work/kvm" TEMPO_KVM_NESTED="$work/nested_y"
if [ "$(id -u)" -ne 0 ]; then
	chmod 000 "$work/kvm"
	refused dev_kvm_permissions "usermod -aG kvm" \
		TEMPO_KVM_CPUINFO="$work/intel" TEMPO_KVM_DEV="$work/kvm" TEMPO_KVM_NESTED="$work/nested_y"
	chmod 644 "$work/kvm"
fi

printf '[partition a]\ncpus = one\n' > "$work/bad.cfg"
kvm "${good[@]}" -- --iso "$iso" --config "$work/bad.cfg" --dry-run
if [ $? -eq 1 ] && grep -q "'one' is not a CPU number" "$out"; then
	pass bad_cpus
else
	fail bad_cpus "$(cat "$out")"
fi

exit $failed
