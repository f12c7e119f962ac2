# SPDX-License-Identifier: MIT
# Emulator tests: the platform. Boot (GRUB with SeaBIOS or OVMF, and OVMF
# straight into Tempo's own EFI loader), the CPUs from the MADT, the TSC's
# calibration, the VMX report, the refusals where VMX or x2APIC is missing,
# exception dumps, the reset after a stop (reboot=N) or from the monitor,
# and the emulator runs themselves (tests/emu/run.sh's stall guard). Each
# test_NAME gets an output directory, boots an image and checks what the
# hypervisor printed; it prints why it failed and returns non-zero.

# tsc_close OUT KHZ: the TSC frequency in force is within 1% of KHZ.
tsc_close() {
	local khz
	khz=$(serial "$1" | sed -n 's/^TSC: \([0-9]*\) kHz.*/\1/p' | head -n 1)
	[ -n "$khz" ] || { echo "no 'TSC: N kHz' line"; return 1; }
	if [ $((khz * 100)) -lt $(($2 * 99)) ] || [ $((khz * 100)) -gt $(($2 * 101)) ]; then
		echo "TSC $khz kHz is not within 1% of $2 kHz"
		return 1
	fi
}

banner() { need "$1" '^Tempo hypervisor [^ ]+: ' "banner"; }

# cpus_listed OUT N: the MADT report lists CPUs 0..N-1 with APIC ids 0..N-1.
cpus_listed() {
	local i
	need "$1" "^ACPI: MADT: local APIC at 0x[0-9a-f]+, $2 CPUs" "$2 CPUs from the MADT" || return 1
	for ((i = 0; i < $2; i++)); do
		need "$1" "^  cpu $i: apic_id $i acpi_uid [0-9]+ enabled" "cpu $i" || return 1
	done
	[ "$(count_lines "$1" '^  cpu [0-9]+: ')" -eq "$2" ] || { echo "CPU count differs"; return 1; }
}

vmx_report() {
	need "$1" '^VMX: IA32_VMX_BASIC 0x[0-9a-f]{16}: revision 0x[0-9a-f]+, VMCS [0-9]+ bytes' \
		"IA32_VMX_BASIC" &&
	need "$1" '^VMX: pin-based  0x[0-9a-f]{16}' "pin-based controls" &&
	need "$1" '^VMX: proc-based 0x[0-9a-f]{16}' "proc-based controls" &&
	need "$1" '^VMX: exit       0x[0-9a-f]{16}' "exit controls" &&
	need "$1" '^VMX: entry      0x[0-9a-f]{16}' "entry controls" &&
	need "$1" '^VMX: IA32_VMX_MISC 0x[0-9a-f]{16}: preemption timer rate 0 ' \
		"preemption-timer rate (Bochs: 0)" &&
	need "$1" '^VMX: preemption_timer=yes ' "preemption timer available"
}

no_vmx_report() {
	banner "$1" && need "$1" '^Memory: [0-9]+ KiB usable' "memory map" &&
		need "$1" '^ACPI: RSDP found, revision [0-9]+' "RSDP" && cpus_listed "$1" 2 &&
		need "$1" '^FATAL: no VMX here: this CPU lacks vmx' "the no-VMX line"
}

test_bochs_1cpu() {
	bochs "$1" --cpus 1 --iso "$ISO" --expect ok || return 1
	banner "$1" && cpus_listed "$1" 1 && tsc_close "$1" 50000 && vmx_report "$1" &&
		need "$1" '^Memory: [0-9]+ KiB usable' "memory map" &&
		need "$1" '^No partition config \(a module2 whose string is "partitions"\): nothing' \
			"no config: platform report only"
}

test_bochs_4cpu() {
	bochs "$1" --cpus 4 --iso "$ISO" --expect ok || return 1
	banner "$1" && cpus_listed "$1" 4 && tsc_close "$1" 50000 && vmx_report "$1"
}

# The TSC figure is measured, not assumed: at another ips it follows.
test_bochs_ips_20m() {
	bochs "$1" --cpus 2 --ips 20000000 --iso "$ISO" --expect ok || return 1
	cpus_listed "$1" 2 && tsc_close "$1" 20000 &&
		need "$1" '^TSC: [0-9]+ kHz \(source hpet;' "HPET calibration"
}

test_bochs_pit() {
	bochs "$1" --cpus 1 --iso "$TEST_ISO_DIR/pit.iso" --expect ok || return 1
	tsc_close "$1" 50000 && need "$1" '^TSC: [0-9]+ kHz \(source pit;' "PIT calibration"
}

# Tiger Lake's model reports a CPUID 0x15 figure that is not Bochs' clock:
# the cross-check must notice, warn and use the measured figure.
test_bochs_cpuid15_mismatch() {
	bochs "$1" --cpus 1 --model tigerlake --iso "$ISO" --expect ok || return 1
	need "$1" '^WARNING: TSC: CPUID 0x15 says [0-9]+ Hz but hpet measures [0-9]+ Hz' \
		"the mismatch warning" && tsc_close "$1" 50000 &&
		need "$1" '^TSC: [0-9]+ kHz \(source hpet; cpuid_hz=[1-9][0-9]* ' "CPUID figure shown"
}

# Sandy Bridge has VMX but no x2APIC: refused before anything starts, with
# the feature named.
test_bochs_no_x2apic() {
	bochs "$1" --cpus 2 --model corei7_sandy_bridge_2600k --iso "$ISO" --expect no-vmx || return 1
	banner "$1" && need "$1" '^CPU: vmx=yes x2apic=no ' "the CPU line" &&
		need "$1" '^FATAL: this CPU lacks x2apic; ' "the refusal naming x2APIC"
}

test_bochs_fault() {
	bochs "$1" --cpus 1 --iso "$TEST_ISO_DIR/fault.iso" --expect failure || return 1
	need "$1" '^EXCEPTION: vector 14 \(#PF page fault\) error_code 0x0' "#PF dump" &&
		need "$1" '^  RSP [0-9a-f]{16} SS 0010 CR2 0000100000000000 ' "CR2 of the fault" &&
		need "$1" '^  RAX [0-9a-f]{16} RBX' "registers" &&
		need "$1" 'TEMPO_EXIT code=17 status=failure reason="unhandled exception"' "exit line"
}

test_qemu_bios() {
	qemu "$1" --emu qemu-bios --cpus 2 --iso "$ISO" --expect no-vmx || return 1
	no_vmx_report "$1"
}

test_qemu_uefi() {
	qemu "$1" --emu qemu-uefi --cpus 2 --iso "$ISO" --expect no-vmx || return 1
	no_vmx_report "$1" && need "$1" '^EFI: 64-bit system table at 0x' "EFI system table tag" &&
		need "$1" '^ACPI: RSDP found, revision 2, .* XSDT' "ACPI 2.0 RSDP from OVMF"
}

# As many CPUs as QEMU gives without KVM (255: past that it wants x2APIC,
# which its TCG lacks in 7.2): the platform report lists every one.
test_qemu_many_cpus() {
	qemu "$1" --emu qemu-bios --cpus 255 --iso "$ISO" --expect no-vmx || return 1
	cpus_listed "$1" 255
}

test_qemu_ud() {
	qemu "$1" --emu qemu-bios --cpus 1 --iso "$TEST_ISO_DIR/ud.iso" --expect failure || return 1
	need "$1" '^EXCEPTION: vector 6 \(#UD invalid opcode\)' "#UD dump"
}

# ---- UEFI without GRUB: OVMF boots BOOTX64.EFI from a FAT ESP (boot/efi/loader.c) ----

ESP_IMG=${BUILD:-build}/esp.img

# The demo ESP: the loader loads Tempo and the modules and enters Tempo's
# 64-bit entry, which reports the platform as on the GRUB path.
test_qemu_esp() {
	qemu "$1" --emu qemu-uefi-esp --cpus 2 --iso "$ESP_IMG" --expect no-vmx --timeout 60 ||
		return 1
	need "$1" '^Tempo EFI loader: exiting boot services, entering the hypervisor at 0x' \
		"the loader's hand-over" &&
		need "$1" '^Boot: loader "Tempo EFI loader", command line "exit=emu loglevel=3"' \
			"boot info from the loader" &&
		need "$1" '^  module 0: \[[0-9a-f]+-[0-9a-f]+\) [1-9][0-9]* bytes "partitions"' \
			"the config module" &&
		need "$1" '^  module 1: \[[0-9a-f]+-[0-9a-f]+\) [1-9][0-9]* bytes "hello-mb2"' \
			"a guest module" &&
		no_vmx_report "$1" && need "$1" '^EFI: 64-bit system table at 0x' "EFI system table" &&
		need "$1" '^ACPI: RSDP found, revision 2, .* XSDT' "ACPI 2.0 RSDP from OVMF"
}

# tempo.conf names a missing module: the loader says which, returns to the
# firmware, and OVMF's next boot option (its shell) runs the ESP's
# startup.nsh, "reset -s", which powers off.
test_qemu_esp_missing() {
	qemu "$1" --emu qemu-uefi-esp --cpus 1 --iso "$TEST_ISO_DIR/esp-missing.img" \
		--expect poweroff --timeout 60 || return 1
	need "$1" '^Tempo EFI loader: ERROR: cannot open \\EFI\\tempo\\nothere\.cfg: not found' \
		"the error naming the file" &&
		need "$1" '^Tempo EFI loader: returning to the firmware' "the return to the firmware"
}

# ---- the machine comes back: a stop resets it after reboot=N seconds ----

# The machine comes back after a stop (reboot=1, no exit=emu): the stop's
# report, the reboot line, one reset (tests/emu/run.sh --expect-reboot).
test_bochs_reboot_after_end() {
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/reboot-end.iso" --expect ok --expect-reboot ||
		return 1
	need "$1" '^\[rt0\] hello: done' "the partition ran to its end" &&
		need "$1" '^PARTITION_END name=rt0 state=shutdown' "the end-of-run report" &&
		need "$1" '^Tempo: rebooting in 1 s \(reboot=1 on the command line' "the reboot line" &&
		need "$1" '^Tempo: reset through ' "a reset tried"
}

test_bochs_reboot_bad_config() {
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/reboot-bad-config.iso" --expect failure \
		--expect-reboot || return 1
	need "$1" "^ERROR: config: partitions:6: timer: expected direct, inject, emulated or pv-lazy, found 'fast'" \
		"the config error" &&
		need "$1" '^Tempo: rebooting in 1 s ' "the reboot line" || return 1
	! serial "$1" | grep '^Partition ' > /dev/null || { echo "a partition was built"; return 1; }
}

# all_ended = monitor: the end of the last partition leaves the monitor up;
# it starts the partition again on its own core (twice), and its reboot
# resets the machine at once (reboot=1 is for stops, not for the monitor).
# The script (tests/emu/reboot-monitor.script) is typed by console_drive.py.
test_bochs_reboot_from_monitor() {
	console_run "$1" tests/emu/reboot-monitor.script 300 --cpus 2 \
		--iso "$TEST_ISO_DIR/reboot-monitor.iso" --expect ok --expect-reboot || return 1
	local run	# the first boot's lines (Bochs may have begun a second)
	run=$(serial "$1" | awk '{ print } /^Tempo: rebooting now/ { exit }')
	[ "$(echo "$run" | grep -c '^TEMPO_EXIT ')" -eq 1 ] ||
		{ echo "the run stopped before the monitor's reboot"; return 1; }
	[ "$(echo "$run" | grep -c '^\[rt0\] hello: done$')" -eq 3 ] ||
		{ echo "rt0 did not run three times"; return 1; }
	! echo "$run" | grep '^Tempo: rebooting in ' > /dev/null ||
		{ echo "the monitor's reboot waited for reboot=1"; return 1; }
	echo "reboot from the monitor: $(grep -c 'ok=1 what=expect' "$1/drive.txt") answers checked"
}

# all_ended = halt: the end of the last partition halts the machine even
# with reboot=1 on the command line; the halt line names the config key, and
# no reset follows (tests/emu/run.sh --expect-halt watches 3 s after it).
test_bochs_halt_after_end() {
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/halt-end.iso" --expect ok --expect-halt || return 1
	need "$1" '^\[rt0\] hello: done' "the partition ran to its end" &&
		need "$1" '^PARTITION_END name=rt0 state=shutdown' "the end-of-run report" &&
		need "$1" '^TEMPO_EXIT code=16 status=ok reason="all partitions ended"' "the stop" &&
		need "$1" '^Tempo: halted \(all_ended = halt\)\.' "the halt line naming the key"
}

# QEMU has no VMX: a boot failure. -no-reboot turns the reset into QEMU's exit 0.
test_qemu_reboot_no_vmx() {
	qemu "$1" --emu qemu-bios --cpus 2 --iso "$TEST_ISO_DIR/reboot-no-vmx.iso" --expect no-vmx \
		--expect-reboot || return 1
	need "$1" '^Tempo: rebooting in 1 s ' "the reboot line" &&
		need "$1" '^Tempo: reset through port 0xcf9' "the chipset reset (SeaBIOS' FADT has no reset register)"
}

# q35's FADT has a reset register (I/O 0xcf9, value 0xf): it is used first.
test_qemu_reboot_fadt() {
	qemu "$1" --emu qemu-uefi --cpus 2 --iso "$TEST_ISO_DIR/reboot-no-vmx.iso" --expect no-vmx \
		--expect-reboot || return 1
	need "$1" '^ACPI: FADT reset register: space 1 address 0xcf9 value 0xf' "the FADT's register" &&
		need "$1" '^Tempo: reset through the FADT reset register \(I/O port 0xcf9 = 0xf\)' \
			"the reset through it" || return 1
	! serial "$1" | grep '^Tempo: reset through port 0xcf9' > /dev/null ||
		{ echo "fell through to port 0xcf9"; return 1; }
}

# ---- the emulator runs themselves ----

# The stall guard (tests/emu/run.sh): Bochs' own screen pseudo-terminal is
# drained while it runs (its /dev/ptmx and the reader of the other end are
# both there), and a Bochs stopped on purpose (SIGSTOP: no output, no CPU
# time) is ended and named "stalled" within the guard's window (10 s here,
# checked every 2 s), not after the run's 120 s timeout.
test_bochs_stall_guard() {
	local rpid epid pts start i msg dir
	dir=$(readlink -f "$1")	# run.sh names the bochsrc by its absolute path
	bochs "$1" --cpus 4 --iso "$DEMO_ISO" --expect ok --stall 10 > "$1/run.out" 2>&1 &
	rpid=$!
	for ((i = 0; i < 300; i++)); do
		epid=$(pgrep -f "bochs-bin .*-f $dir/bochsrc" | head -n 1)
		[ -n "$epid" ] && [ -s "$1/screen.log" ] && break
		sleep 0.2
	done
	[ -n "$epid" ] || { kill "$rpid"; echo "no Bochs process for $1"; return 1; }
	[ -s "$1/screen.log" ] || { kill "$rpid"; echo "the screen terminal was not drained"; return 1; }
	pts=$(sed -n 's/^Bochs connected to screen "\(.*\)".*/\1/p' "$1/emu.log")
	# Bochs holds the master, and some process (the drain) the terminal
	# named. One find reads every process's links, in well under a second: a
	# shell loop reading them one by one takes about 6 s for 90 processes
	# here, and the demo can end before it does. A process that ends while
	# find reads it only makes find complain.
	[ -n "$(find /proc/"$epid"/fd -maxdepth 1 -lname /dev/ptmx 2> /dev/null)" ] && [ -n "$pts" ] &&
		[ -n "$(find /proc/[0-9]*/fd -maxdepth 1 -lname "$pts" 2> /dev/null)" ] ||
		{ kill "$rpid"; echo "Bochs' terminal $pts has no reader (drain: $(cat "$1/.drain.pid" 2> /dev/null), screen.log $(stat -c %s "$1/screen.log") bytes)"; return 1; }
	kill -STOP "$epid"
	start=$SECONDS
	wait "$rpid"
	msg=$(cat "$1/run.out")
	kill -KILL "$epid" 2> /dev/null
	case $msg in
	*"fail (stalled: no serial output and no CPU time for "*) ;;
	*) echo "not reported as stalled: $msg"; return 1 ;;
	esac
	[ $((SECONDS - start)) -le 20 ] ||
		{ echo "stalled run took $((SECONDS - start)) s to end (guard: 10 s)"; return 1; }
	grep -q '^state: T' "$1/stall.txt" && grep -q 'open files:' "$1/stall.txt" ||
		{ echo "stall.txt lacks the state or the open files"; return 1; }
	echo "stalled Bochs ended after $((SECONDS - start)) s"
}
