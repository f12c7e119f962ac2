# SPDX-License-Identifier: MIT
# Emulator tests, sourced by tests/run_tests.sh. Each test_NAME gets an output
# directory, boots an image through tests/emu/run.sh (which checks the exit
# status and the TEMPO_EXIT marker) and then checks what the hypervisor
# printed. A test prints why it failed and returns non-zero.

EMU_TESTS="bochs_1cpu bochs_4cpu bochs_ips_20m bochs_pit bochs_cpuid15_mismatch bochs_no_x2apic bochs_fault
	qemu_bios qemu_uefi qemu_ud qemu_many_cpus
	bochs_partitions bochs_stall_guard bochs_stop_oob bochs_stop_triple bochs_stop_vmxon bochs_bad_syntax
	bochs_bad_cpu bochs_all_cpus bochs_console_cut
	bochs_timer_direct bochs_timer_inject bochs_timer_emulated
	bochs_attacks_direct bochs_attacks_emulated bochs_shared bochs_shared_attacks bochs_pv_lazy
	bochs_watchdog bochs_hv_fault bochs_restart bochs_console_input bochs_console_busy
	bochs_channel bochs_channel_edge bochs_channel_shared bochs_channel_restart bochs_channel_pci
	bochs_testdev bochs_xapic bochs_high_mem bochs_console_drop bochs_apicv bochs_posted_soft bochs_many_vcpus
	bochs_dev_pci_enum qemu_dev_pci_ecam"
# Long and not interactive: in a background lane beside the others (tests/run_tests.sh).
EMU_BG_TEST=bochs_large_mem
# Each names its own CPU model (the feature it tests is that model's), or
# tests the harness, not the CPU: the CPU-model matrix does not run them
# again under another model's name.
EMU_PINNED="bochs_cpuid15_mismatch bochs_no_x2apic bochs_apicv bochs_posted_soft bochs_stall_guard"

DEMO_ISO=${BUILD:-build}/tempo.iso
TEST_ISO_DIR=${BUILD:-build}/test
ISO=$TEST_ISO_DIR/platform.iso	# no partition config: the platform report only

# The serial log without carriage returns and terminal escapes.
serial() {
	tr -d '\r' < "$1/serial.txt" | sed 's/\x1b\[[0-9;=]*[A-Za-z]//g'
}

# need OUT REGEX WHAT: the serial log must have a line matching REGEX. (No grep -q
# after a pipe: under pipefail its early exit fails the pipeline by SIGPIPE.)
need() {
	serial "$1" | grep -E -- "$2" > /dev/null && return 0
	echo "missing: $3 (/$2/)"
	return 1
}

# count_lines OUT REGEX
count_lines() {
	serial "$1" | grep -Ec -- "$2"
}

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

bochs() { tests/emu/run.sh --emu bochs --timeout 120 --out "$@"; }
qemu() { tests/emu/run.sh --timeout 120 --out "$@"; }

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

no_vmx_report() {
	banner "$1" && need "$1" '^Memory: [0-9]+ KiB usable' "memory map" &&
		need "$1" '^ACPI: RSDP found, revision [0-9]+' "RSDP" && cpus_listed "$1" 2 &&
		need "$1" '^FATAL: no VMX here: this CPU lacks vmx' "the no-VMX line"
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

# ---- PCI enumeration at boot (drivers/pci.c, docs/devices.md) ----

# pci_lines OUT: the report's per-function lines
pci_lines() {
	count_lines "$1" '^PCI: [0-9a-f]{2}:[0-9a-f]{2}\.[0-7] '
}

# Bochs' i440FX with and without a PCI NE2000 in slot 1 (ethmod=null: no
# frame leaves the emulator): the function appears, with its I/O BAR sized,
# only when it is there, and everything else is reported the same.
test_bochs_dev_pci_enum() {
	local plain=$1/plain card=$1/ne2k bdf
	bochs "$plain" --cpus 1 --iso "$ISO" --expect ok || return 1
	bochs "$card" --cpus 1 --iso "$ISO" --expect ok \
		--bochsrc 'pci: enabled=1, chipset=i440fx, slot1=ne2k' \
		--bochsrc 'ne2k: ioaddr=0x300, irq=10, mac=52:54:00:12:34:56, ethmod=null' || return 1
	for out in "$plain" "$card"; do
		need "$out" '^PCI: configuration mechanism #1 \(ports 0xcf8/0xcfc\), buses 00-ff$' \
			"mechanism #1 over every bus" &&
		need "$out" '^PCI: 00:00\.0 8086:1237 class 0x060000 type 0$' "the i440FX host bridge" &&
		need "$out" '^PCI: 00:01\.0 8086:7000 class 0x060100 type 0$' "the PIIX3 ISA bridge" &&
		need "$out" '^PCI: 00:01\.1 8086:7010 class 0x010180 type 0 bar4=io:0x[0-9a-f]+\+0x10$' \
			"the IDE controller's bus-master BAR, 16 ports" || return 1
	done
	[ "$(pci_lines "$plain")" = 5 ] && need "$plain" '^PCI: 5 functions \(3 bridges\)$' "5 functions" ||
		{ echo "without the card: $(pci_lines "$plain") function lines"; return 1; }
	serial "$plain" | grep -E '10ec:8029' > /dev/null && { echo "an NE2000 without one"; return 1; }
	need "$card" '^PCI: 00:02\.0 10ec:8029 class 0x020000 type 0 pin A line [0-9]+ bar0=io:0x[0-9a-f]+\+0x20$' \
		"the NE2000 in slot 1: 32 ports, INTA" || return 1
	[ "$(pci_lines "$card")" = 6 ] && need "$card" '^PCI: 6 functions \(3 bridges\)$' "6 functions" ||
		{ echo "with the card: $(pci_lines "$card") function lines"; return 1; }
	# the report comes before the CPU report, and the boot goes on to its end
	bdf=$(serial "$card" | grep -nE '^PCI: 6 functions' | cut -d: -f1)
	[ "$bdf" -lt "$(serial "$card" | grep -nE '^Platform report complete' | cut -d: -f1)" ] ||
		{ echo "the PCI report is not part of the platform report"; return 1; }
}

# QEMU's q35 has ECAM and an MCFG: the enumeration uses it (the boot then
# stops at "no VMX here", after the report); QEMU's edu device shows its
# 1 MiB BAR and its MSI capability.
test_qemu_dev_pci_ecam() {
	qemu "$1" --emu qemu-bios --cpus 1 --iso "$ISO" --expect no-vmx \
		--qemu-arg -machine --qemu-arg q35 --qemu-arg -device --qemu-arg edu || return 1
	need "$1" '^ACPI: RSDP found, .* MCFG' "the MCFG listed" &&
	need "$1" '^PCI: ECAM at 0xb0000000 \(ACPI MCFG\), buses 00-ff$' "ECAM from the MCFG" &&
	need "$1" '^PCI: 00:00\.0 8086:29c0 class 0x060000 type 0$' "the Q35 host bridge" &&
	need "$1" '^PCI: 00:1f\.0 8086:2918 class 0x060100 type 0$' "the ICH9 LPC bridge" &&
	need "$1" '^PCI: 00:[0-9a-f]{2}\.0 1234:11e8 class 0x00ff00 type 0 pin A line [0-9]+ bar0=mem32:0x[0-9a-f]+\+0x100000 caps=msi64x1$' \
		"edu: 1 MiB BAR0, 64-bit MSI" &&
	need "$1" '^PCI: [0-9]+ functions \([0-9]+ bridges\)$' "the summary" &&
	need "$1" '^FATAL: no VMX here' "the boot goes on after the report" || return 1
	[ "$(pci_lines "$1")" -ge 5 ] || { echo "only $(pci_lines "$1") functions"; return 1; }
}

# ---- partitions (issue: SMP, VMX on every core, EPT-isolated guests) ----

aps_online() {
	local i
	for ((i = 1; i < $2; i++)); do
		need "$1" "^SMP: CPU $i \\(APIC id $i\\) online, VMX on" "CPU $i online with VMX" ||
			return 1
	done
}

# exits OUT PARTITION VCPU REASON: the count the hypervisor printed, or empty
exits() {
	serial "$1" | grep -E "^EXITS partition=$2 vcpu=$3 " | grep -oE " $4=[0-9]+" | cut -d= -f2
}

# hello_ran OUT NAME MB CPUS APIC_IDS: a hello guest ran to its end in NAME
hello_ran() {
	need "$1" "^\\[$2\\] hello: start \\(multiboot$3\\) " "[$2] started as multiboot$3" &&
	need "$1" "^\\[$2\\] hello: under Tempo$" "[$2] detects Tempo by CPUID" &&
	need "$1" "^\\[$2\\] hello: partition=$2 vcpus=$4 memory=[0-9]+$" "[$2] info hypercall" &&
	need "$1" "^\\[$2\\] hello: hypercall console ok$" "[$2] console hypercall" &&
	need "$1" "^\\[$2\\] hello: cpus=$4 apic_ids=$5$" "[$2] sees only its CPUs ($5)" &&
	need "$1" "^\\[$2\\] hello: all $4 CPUs online$" "[$2] started its APs" &&
	need "$1" "^\\[$2\\] hello: done$" "[$2] finished" &&
	need "$1" "^PARTITION_END name=$2 state=shutdown exit_code=0$" "[$2] shut down cleanly"
}

# ends_whole OUT: the serial log ends with the TEMPO_EXIT line and its newline
# (the emulator quits at once: Tempo waits for the UART to drain first)
ends_whole() {
	[ "$(tail -c 1 "$1/serial.txt" | od -An -c | tr -d ' ')" = '\n' ] &&
		tr -d '\r' < "$1/serial.txt" | tail -n 1 | grep '^TEMPO_EXIT ' > /dev/null && return 0
	echo "the log's end was cut: $(tail -c 40 "$1/serial.txt" | od -An -c | tr -s ' ' | tr -d '\n')"
	return 1
}

# The stall guard (tests/emu/run.sh): Bochs' own screen pseudo-terminal is
# drained while it runs (its /dev/ptmx and the reader of the other end are
# both there), and a Bochs stopped on purpose (SIGSTOP: no output, no CPU
# time) is ended and named "stalled" within the guard's window (10 s here,
# checked every 2 s), not after the run's 120 s timeout.
test_bochs_stall_guard() {
	local rpid epid pts start i msg dir
	# the process list first, for the pipelines below (pipefail: an ls that
	# met a process ending between its read and its stat must not fail them)
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
	# Bochs holds the master, and some process (the drain) the terminal named
	held_by() {	# FILE PID...: one of the PIDs has FILE open
		local f p
		for p in "${@:2}"; do
			for f in /proc/"$p"/fd/*; do
				[ "$(readlink "$f" 2> /dev/null)" = "$1" ] && return 0
			done
		done
		return 1
	}
	held_by /dev/ptmx "$epid" && [ -n "$pts" ] &&
		held_by "$pts" $(ls /proc | grep -E '^[0-9]+$') ||
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

test_bochs_partitions() {
	local io
	bochs "$1" --cpus 4 --iso "$DEMO_ISO" --expect ok || return 1
	aps_online "$1" 4 &&
		hello_ran "$1" rt0 2 2 "1,2" && hello_ran "$1" rt1 1 1 "3" &&
		need "$1" '^\[rt0\] hello: AP apic_id=2 online$' "rt0's AP started by SIPI" &&
		need "$1" '^TEMPO_EXIT code=16 status=ok reason="all partitions ended"' "clean end" &&
		ends_whole "$1" || return 1
	# every vCPU's exits were counted and printed; the console path exits per byte
	io=$(exits "$1" rt0 0 io)
	[ -n "$io" ] && [ "$io" -gt 100 ] || { echo "rt0 vCPU 0: no io exit count ($io)"; return 1; }
	[ -n "$(exits "$1" rt0 0 vmcall)" ] && [ -n "$(exits "$1" rt0 1 cpuid)" ] &&
		[ -n "$(exits "$1" rt1 0 vmcall)" ] || { echo "missing EXITS lines"; return 1; }
	# nobody was stopped
	! serial "$1" | grep '^PARTITION_STOP' > /dev/null || { echo "unexpected PARTITION_STOP"; return 1; }
}

# stopped OUT REASON DETAIL_REGEX: 'bad' was stopped, 'good' ran to its end
bad_stopped_good_ran() {
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/$2.iso" --expect ok || return 1
	need "$1" "^PARTITION_STOP name=bad reason=$3 rip=0x[0-9a-f]+ qual=0x[0-9a-f]+ vcpu=0 cpu=1 detail=\"$4\"" \
		"bad stopped: $3" &&
		need "$1" '^PARTITION_END name=bad state=stopped ' "bad ended as stopped" &&
		hello_ran "$1" good 1 1 "2" &&
		! serial "$1" | grep '^\[bad\] hello: done' > /dev/null ||
		{ echo "bad was not stopped before its end"; return 1; }
}

test_bochs_stop_oob() {
	bad_stopped_good_ran "$1" stop-oob ept_violation 'gpa=0x2000000' &&
		need "$1" '^\[bad\] hello: oob write to 0x2000000 ' "the write that faulted"
}

test_bochs_stop_triple() {
	bad_stopped_good_ran "$1" stop-triple triple_fault 'the guest triple-faulted'
}

test_bochs_stop_vmxon() {
	bad_stopped_good_ran "$1" stop-vmxon vmx_instruction vmxon
}

test_bochs_bad_syntax() {
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/bad-syntax.iso" --expect failure || return 1
	need "$1" "^ERROR: config: partitions:6: timer: expected direct, inject, emulated or pv-lazy, found 'fast'" \
		"line-numbered config error" &&
		! serial "$1" | grep '^Partition ' > /dev/null || { echo "a partition was built"; return 1; }
}

test_bochs_bad_cpu() {
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/bad-cpu.iso" --expect failure || return 1
	need "$1" "^ERROR: config: partitions:7: partition 'p1': CPU 7 does not exist" \
		"refused before any guest starts" &&
		! serial "$1" | grep '^\[p0\]' > /dev/null || { echo "a guest ran"; return 1; }
}

# The boot CPU runs a guest too, and no core is left free for the consoles.
test_bochs_all_cpus() {
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/all-cpus.iso" --expect ok || return 1
	need "$1" '^WARNING: every CPU runs a partition' "the console fallback warning" &&
		need "$1" '^Partition .first.: 1 vCPU \(CPUs 0\)' "CPU 0 given to a partition" &&
		hello_ran "$1" first 2 1 "0" && hello_ran "$1" second 1 1 "1"
}

# 65 vCPUs on 10 CPUs (8 partitions, 8 shared cores): more vCPUs than
# the old static pool of 64 held; its overrun wrote over the channels and
# the hypervisor died of a #PF at the end of the run. Every hello starts
# all its CPUs and ends cleanly.
test_bochs_many_vcpus() {
	bochs "$1" --cpus 10 --iso "$TEST_ISO_DIR/many-vcpus.iso" --expect ok --timeout 600 ||
		return 1
	need "$1" "^SMP: 10 of 10 CPUs online with VMX" "all 10 CPUs up with VMX" &&
	need "$1" "^Partition 'a': 9 vCPUs \(CPUs 1 2 3 4 5 6 7 8 9\)" "a on CPUs 1-9" &&
		hello_ran "$1" a 2 9 "1,2,3,4,5,6,7,8,9" || return 1
	for p in b c d e f g h; do
		need "$1" "^Partition '$p': 8 vCPUs \(CPUs 2 3 4 5 6 7 8 9\)" "$p on CPUs 2-9" &&
			hello_ran "$1" $p 2 8 "2,3,4,5,6,7,8,9" || return 1
	done
	for c in 2 3 4 5 6 7 8 9; do
		need "$1" "^SCHED cpu=$c windows=8 " "CPU $c's schedule of 8" || return 1
	done
	if serial "$1" | grep -E '^EXCEPTION' > /dev/null; then
		echo "the hypervisor took an exception"
		return 1
	fi
}

# One partition's end (shut down, or stopped) prints the partial lines of
# that partition only: the line another is half-way through stays whole. No
# console core here (3 CPUs, 3 partitions): the ending cores drain.
test_bochs_console_cut() {
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/console-cut.iso" --expect ok || return 1
	need "$1" '^Partition .quick. shut down' "quick shut down" &&
		need "$1" '^PARTITION_STOP name=bad reason=ept_violation ' "bad stopped" &&
		need "$1" '^\[slow\] hello: slow line 0123456789abcdefghijklmnopqrstuvwxyz0123456789$' \
			"slow's line whole" &&
		[ "$(count_lines "$1" '^\[slow\] ')" -eq "$(count_lines "$1" '^\[slow\] hello: ')" ] ||
		{ echo "a line of slow's cut: $(serial "$1" | grep '^\[slow\] ' | grep -v '^\[slow\] hello: ' | head -n 3)"; return 1; }
	# and both ends came while the line was being written (printed before it)
	serial "$1" | awk '/^\[slow\] hello: slow line/ { l = NR }
		/^Partition .quick. shut down|^PARTITION_STOP name=bad/ { e[++n] = NR }
		END { exit !(l && n == 2 && e[2] < l) }' ||
		{ echo "quick and bad did not end while slow wrote its line"; return 1; }
}

# ---- restarts (restart = never | on-failure | always; tests/emu/configs/restart.cfg) ----

# restarted OUT NAME REASON N: NAME was restarted N times for REASON, counted 1..N in order
restarted() {
	local got want
	got=$(serial "$1" | sed -n "s/^PARTITION_RESTART name=$2 reason=$3 count=\([0-9]*\) .*/\1/p" |
		tr '\n' ' ' | sed 's/ $//')
	want=$(seq -s ' ' 1 "$4")
	[ "$got" = "$want" ] || { echo "$2: restarts for $3 counted '$got', want '$want'"; return 1; }
	[ "$(count_lines "$1" "^PARTITION_RESTART name=$2 ")" -eq "$4" ] ||
		{ echo "$2: restarted for another reason too"; return 1; }
	# every instance started from its image with its boot information, on RAM zeroed
	[ "$(count_lines "$1" "^\\[$2\\] hello: start \\(multiboot[12]\\) cmdline=")" -eq $(($4 + 1)) ] &&
		[ "$(count_lines "$1" "^\\[$2\\] hello: ram clean$")" -eq $(($4 + 1)) ] &&
		[ "$(count_lines "$1" "^\\[$2\\] hello: cpus=1 apic_ids=")" -eq $(($4 + 1)) ] ||
		{ echo "$2: not $(($4 + 1)) clean starts"; return 1; }
	! serial "$1" | grep "^\\[$2\\] hello: ram holds" > /dev/null ||
		{ echo "$2: a restart left the old instance's RAM"; return 1; }
}

# A partition that triple-faults 200 ms after each start is restarted up to its
# limit and then stopped; a reset through 0xCF9 restarts (on-failure) or stops
# (never); a clean shutdown restarts only under always; a partition on a shared
# core restarts in its windows beside its neighbour. The real-time partition
# beside them loses nothing and keeps its quiet figures: the same rtbench alone
# (restart-quiet.cfg, same CPUs) within 10 ticks; Bochs' interleaving of its
# CPUs moves the average by a few ticks when others are busy, and one exit costs
# about 500.
test_bochs_restart() {
	local q l k
	mkdir -p "$1/quiet"
	bochs "$1/quiet" --cpus 7 --iso "$TEST_ISO_DIR/restart-quiet.iso" --expect ok --timeout 300 &&
		bochs "$1" --cpus 7 --iso "$TEST_ISO_DIR/restart.iso" --expect ok --timeout 300 || return 1
	restarted "$1" crash triple_fault 3 &&
		need "$1" "^Partition 'crash': restart limit reached \\(3 restarts in this run\\), not restarted$" \
			"crash: the limit's end said" &&
		need "$1" '^PARTITION_STOP name=crash reason=triple_fault .*detail="the guest triple-faulted"' \
			"crash stopped at its limit" &&
		need "$1" '^PARTITION_END name=crash state=stopped exit_code=0 restarts=3$' "crash: 3 restarts" &&
		restarted "$1" reboot reset 2 &&
		need "$1" "^Partition 'reboot': restart limit reached \\(2 restarts within 60 s\\)" "reboot's limit" &&
		need "$1" '^PARTITION_STOP name=reboot reason=reset .*detail="the guest asked for a reset \(reset control, port 0xcf9\)"' \
			"reboot stopped at its limit" &&
		need "$1" '^PARTITION_END name=reboot state=stopped exit_code=0 restarts=2$' "reboot: 2 restarts" &&
		restarted "$1" again shutdown 1 &&
		[ "$(count_lines "$1" '^\[again\] hello: done$')" -eq 2 ] &&
		need "$1" '^PARTITION_END name=again state=shutdown exit_code=0 restarts=1$' "again: shut down after one restart" &&
		restarted "$1" once reset 0 &&
		need "$1" '^PARTITION_STOP name=once reason=reset ' "once: a reset under never stops it" &&
		need "$1" '^PARTITION_END name=once state=stopped exit_code=0$' "once stopped" &&
		restarted "$1" scrash triple_fault 2 &&
		need "$1" '^PARTITION_END name=scrash state=stopped exit_code=0 restarts=2$' \
			"scrash: 2 restarts on its shared core" &&
		need "$1" '^\[sgood\] hello: done$' "sgood ran on beside it" &&
		need "$1" '^PARTITION_END name=sgood state=shutdown exit_code=0$' "sgood shut down" &&
		rtbench_clean "$1" 10000 && rtbench_clean "$1/quiet" 10000 && ends_whole "$1" || return 1
	q=$(rtbench_line "$1/quiet" rt) l=$(rtbench_line "$1" rt)
	rt_undisturbed "$1" "$1/quiet" "the restarts" || return 1
	echo "rt beside 6 restarts: p99 $(kv "$l" lat_p99_ticks) max $(kv "$l" lat_max_ticks) avg $(kv "$l" lat_avg_ticks) ticks; quiet p99 $(kv "$q" lat_p99_ticks) max $(kv "$q" lat_max_ticks) avg $(kv "$q" lat_avg_ticks)"
}

# ---- channels (docs/channels.md; tests/emu/configs/channel*.cfg) ----

# chan_line OUT PARTITION ROLE [PHASE]: its CHANTEST line (without PHASE: the one with no phase=)
chan_line() {
	local l
	l=$(serial "$1" | grep -E "^\\[$2\\] CHANTEST role=$3 " | sed "s/^\\[$2\\] //")
	if [ -n "${4:-}" ]; then
		echo "$l" | grep -E "^CHANTEST role=$3 phase=$4 " | head -n 1
	else
		echo "$l" | grep -v ' phase=' | head -n 1
	fi
}

# ping_pong_clean LOG N RTT: ping's N one-way doorbells and pong's RTT
# answers all arrived, once each, the receiver took no exit for them and the
# sender one a ring, and the channel's counts agree; the run ended whole
ping_pong_clean() {
	local r s ex tick n=$2 rtt=$3 recv_exits=${4:-0}
	r=$(chan_line "$1" pong recv) s=$(chan_line "$1" ping send)
	[ -n "$r" ] && [ -n "$s" ] || { echo "no CHANTEST lines"; return 1; }
	[ "$(kv "$r" received)" = "$n" ] && [ "$(kv "$r" doorbells)" = "$n" ] &&
		[ "$(kv "$r" lost)" = 0 ] && [ "$(kv "$r" doubled)" = 0 ] &&
		[ "$(kv "$r" checksum_ok)" = 1 ] && [ "$(kv "$r" strays)" = 0 ] &&
		[ "$(kv "$s" lost)" = 0 ] && [ "$(kv "$s" dropped)" = 0 ] ||
		{ echo "one-way doorbells not clean: $r / $s"; return 1; }
	r=$(chan_line "$1" pong recv rtt) s=$(chan_line "$1" ping send rtt)
	[ "$(kv "$r" answered)" = "$rtt" ] && [ "$(kv "$s" lost)" = 0 ] && [ "$(kv "$s" strays)" = 0 ] ||
		{ echo "round trips not clean: $r / $s"; return 1; }
	ex=$(stats_delta "$1" pong exits) tick=$(stats_delta "$1" pong tick_exits) || return 1
	[ $((ex - tick - 1)) -eq "$recv_exits" ] || { echo "the receiver took $((ex - tick - 1)) exits besides host ticks for $n doorbells"; return 1; }
	ex=$(stats_delta "$1" ping exits) tick=$(stats_delta "$1" ping tick_exits) || return 1
	[ $((ex - tick)) -eq $((n + 1)) ] || { echo "the sender took $((ex - tick - 1)) exits for $n rings"; return 1; }
	need "$1" "^CHANNEL name=link peer=ping access=rw rings=$((n + rtt)) throttled=0 delivered=$rtt dropped=0\$" "ping's counts" &&
		need "$1" "^CHANNEL name=link peer=pong access=rw rings=$rtt throttled=0 delivered=$((n + rtt)) dropped=0\$" "pong's counts" &&
		ends_whole "$1"
}

# stats_delta OUT PARTITION KEY: KEY's growth between the partition's two VCPU_STATS lines
stats_delta() { window "$1" "$3" "$2"; }

# Two direct partitions on their own cores: 100,000 doorbells one way, each
# with a message whose number and data the receiver checks (none lost, none
# doubled, the checksum right), then 2,000 round trips. The receiver takes no
# exit per doorbell (its exits between its two VCPU_STATS are host ticks and the
# closing CPUID); the sender one (its ring). A partition on no channel has
# every channel call refused and is stopped by its read of the peers' address.
test_bochs_channel() {
	local r s lat ex tick
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/channel.iso" --expect ok --timeout 900 || return 1
	need "$1" "^Channel 'link': 64 KiB at 0x[0-9a-f]+, doorbell_limit 1000/ms$" "the channel's boot line" &&
		need "$1" "^Channel 'link': peer 0 'ping' rw at gpa 0x1000000-0x100ffff$" "ping's view" &&
		need "$1" "^Channel 'link': peer 1 'pong' rw at gpa 0x1000000-0x100ffff$" "pong's view" &&
		need "$1" '^\[other\] CHANTEST role=nonpeer channels=0 info=-22 bind=-22 ring=-22 ring_all=-22$' \
			"a non-peer's channel calls refused" &&
		need "$1" '^PARTITION_STOP name=other reason=ept_violation .*detail="gpa=0x1000000"$' \
			"a non-peer's read of the channel's address stopped" &&
		! serial "$1" | grep '^\[other\] chan: read 0x' > /dev/null || { echo "other read the channel"; return 1; }
	ping_pong_clean "$1" 100000 2000 || return 1
	lat=$(serial "$1" | grep -E '^\[pong\] CHANTEST_LAT ' | sed 's/^\[pong\] //')
	[ "$(kv "$lat" lat_max_ticks)" -le 2000 ] && [ "$(kv "$lat" lat_avg_ticks)" -le 1000 ] ||
		{ echo "one-way latency over budget: $lat"; return 1; }
	echo "100,000 doorbells: one-way avg $(kv "$lat" lat_avg_ticks) p99 $(kv "$lat" lat_p99_ticks) max $(kv "$lat" lat_max_ticks) ticks; receiver exits 0, sender 1 per doorbell"
}

# Output faster than the console drains: 'burst' offers 2,000 64-byte lines
# at once through the console hypercall. Tempo keeps what fits in the ring,
# drops the rest in whole lines and says so: the CONSOLE_DROP counts add up
# to every byte the guest saw refused, each line that came out is whole, and
# as many came out as the guest saw taken. 'rt' beside it is clean.
test_bochs_console_drop() {
	local drops total sum refused taken whole
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/console-drop.iso" --expect ok || return 1
	rtbench_clean "$1" 2000 && ends_whole "$1" || return 1
	drops=$(serial "$1" | grep '^CONSOLE_DROP partition=burst ')
	[ -n "$drops" ] || { echo "no CONSOLE_DROP line"; return 1; }
	sum=$(($(echo "$drops" | sed 's/.* bytes=\([0-9]*\) .*/\1/' | paste -sd+)))
	total=$(kv "$(echo "$drops" | tail -n 1)" total_bytes)
	refused=$(serial "$1" | sed -n 's/^\[burst\] hello: burst refused_bytes=\([0-9]*\)$/\1/p')
	taken=$(serial "$1" | sed -n 's/^\[burst\] hello: burst done lines=2000 taken=\([0-9]*\)$/\1/p')
	[ -n "$refused" ] && [ -n "$taken" ] && [ "$taken" -gt 0 ] && [ "$taken" -lt 2000 ] ||
		{ echo "the guest's counts: refused ${refused:-?} taken ${taken:-?}"; return 1; }
	[ "$sum" = "$total" ] && [ "$total" = "$refused" ] ||
		{ echo "dropped: lines add to $sum, total $total, the guest saw $refused refused"; return 1; }
	whole=$(serial "$1" | grep -cE '^\[burst\] hello: burst [0-9]{5} 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH$')
	[ "$whole" = "$taken" ] &&
		[ "$(serial "$1" | grep -c '^\[burst\] hello: burst [0-9]')" = "$taken" ] ||
		{ echo "$whole whole burst lines of $taken taken, or some cut"; return 1; }
	echo "2,000 lines offered: $taken out whole, $total bytes dropped and reported"
}

# RAM above 4 GiB (issue 15): Bochs with 6 GiB. It is mapped and counted
# free for partitions; a fixed base at 5 GiB and two carved partitions (top
# down: above 4 GiB) run there, the timer guest included; 4 GiB in one
# partition, more than any one free range, is refused with the ranges named.
test_bochs_high_mem() {
	local usable free hpa n
	bochs "$1" --cpus 4 --mem 6144 --iso "$TEST_ISO_DIR/high-mem.iso" --expect ok --timeout 300 ||
		return 1
	need "$1" '^Memory: [0-9]+ MiB above 4 GiB mapped \((1 GiB|2 MiB) pages\), up to 0x1[0-9a-f]{8}$' \
		"the map above 4 GiB" || return 1
	usable=$(serial "$1" | sed -n 's/^Memory: \([0-9]*\) KiB usable$/\1/p')
	free=$(serial "$1" | sed -n 's/^SMP: 4 of 4 CPUs online with VMX; \([0-9]*\) MiB free for partitions$/\1/p')
	# all of it but the low 1 MiB, Tempo's image and 8 MiB pool, the modules
	[ -n "$usable" ] && [ -n "$free" ] && [ $((usable / 1024)) -gt 5000 ] &&
		[ "$free" -ge $((usable / 1024 - 64)) ] ||
		{ echo "free for partitions: ${free:-none} MiB of ${usable:-?} KiB usable"; return 1; }
	need "$1" "^Partition 'fixed': 1 vCPU \(CPUs 1\), 16 MiB at 0x140000000, " "fixed at 5 GiB" ||
		return 1
	for n in auto rt; do
		hpa=$(serial "$1" | sed -n "s/^Partition '$n': .* MiB at \(0x[0-9a-f]*\), .*/\1/p")
		[ -n "$hpa" ] && [ $((hpa)) -ge $((1 << 32)) ] ||
			{ echo "$n carved at ${hpa:-?}, not above 4 GiB"; return 1; }
	done
	hello_ran "$1" fixed 2 1 "1" && hello_ran "$1" auto 1 1 "2" && rtbench_clean "$1" 2000 &&
		need "$1" '^TEMPO_EXIT code=16 status=ok reason="all partitions ended"' "clean end" &&
		! serial "$1" | grep '^PARTITION_STOP' > /dev/null || { echo "a partition was stopped"; return 1; }
	mkdir -p "$1/big"
	bochs "$1/big" --cpus 2 --mem 6144 --iso "$TEST_ISO_DIR/high-mem-big.iso" --expect failure ||
		return 1
	need "$1/big" "^ERROR: partitions: partition 'big' \(line 3\): no 4096 MiB of free RAM in one range \([0-9]+ MiB left, at most [0-9]+ MiB in one range\)" \
		"the refusal of 4 GiB in one partition"
}

# Bochs with 10 GiB: a partition of 4200 MiB, more than fits below its MMIO
# window, carved above 4 GiB; its guest's memory map goes on at 4 GiB with
# the other 126 MiB, which hello reads and writes through PAE paging (zeros,
# then its pattern, no alias of the low RAM); its write 16 MiB past that
# end stops it (ept_violation at that gpa); the timer guest beside it runs
# clean. About 5 minutes: Bochs zeroes 4 GiB one instruction per 8 bytes,
# in its 2 GiB of host memory and a swap file beyond it (351-506 s in the
# background lane on a quiet machine, 17.8 x 10^9 ticks; at 900 s it timed
# out once with other work on the cores, so it has 1,500).
test_bochs_large_mem() {
	bochs "$1" --cpus 3 --mem 10240 --iso "$TEST_ISO_DIR/high-mem-large.iso" --expect ok \
		--timeout 2700 || return 1
	need "$1" "^Partition 'bad': 1 vCPU \(CPUs 1\), 4200 MiB at 0x1[0-9a-f]{8}, " \
		"4200 MiB carved above 4 GiB" &&
		need "$1" '^\[bad\] hello: himem range 0x100000000-0x107dfffff \(126 MiB\) ok$' \
			"the RAM from 4 GiB, checked by the guest" &&
		[ "$(count_lines "$1" '^\[bad\] hello: himem ')" -eq 1 ] &&
		need "$1" '^\[bad\] hello: oob write to 0x108e00000 \(top of RAM 0x107e00000 \+ 16 MiB\)$' \
			"the write past the top" &&
		need "$1" '^PARTITION_STOP name=bad reason=ept_violation rip=0x[0-9a-f]+ qual=0x[0-9a-f]+ vcpu=0 cpu=1 detail="gpa=0x108e00000"$' \
			"bad stopped at its write" &&
		! serial "$1" | grep '^\[bad\] hello: oob write survived' > /dev/null &&
		rtbench_clean "$1" 2000 &&
		need "$1" '^TEMPO_EXIT code=16 status=ok reason="all partitions ended"' "clean end"
}

# A flood of rings is held to doorbell_limit, and the flood's target gets only
# those; a call into a channel stops the caller (never executable); a ro peer
# reads the channel and is stopped by its write; the
# real-time partition beside them keeps its quiet figures within 10 ticks.
test_bochs_channel_edge() {
	local f k d q l
	mkdir -p "$1/quiet"
	bochs "$1/quiet" --cpus 5 --iso "$TEST_ISO_DIR/channel-quiet.iso" --expect ok --timeout 300 &&
		bochs "$1" --cpus 5 --iso "$TEST_ISO_DIR/channel-edge.iso" --expect ok --timeout 300 || return 1
	f=$(chan_line "$1" flood flood) k=$(chan_line "$1" sink sink)
	[ -n "$f" ] && [ -n "$k" ] || { echo "no flood/sink lines"; return 1; }
	# at most 10 a millisecond: 50 ms, the one it began in, and the one
	# its last ring (sent before the 50 ms were up) reached Tempo in
	# (measured: 508)
	[ "$(kv "$f" rings)" -ge 400 ] && [ "$(kv "$f" rings)" -le 520 ] &&
		[ "$(kv "$f" throttled)" -gt "$(kv "$f" rings)" ] && [ "$(kv "$f" errors)" = 0 ] ||
		{ echo "the flood was not held to 10/ms: $f"; return 1; }
	d=$(serial "$1" | sed -n 's/^CHANNEL name=bell peer=sink access=rw rings=0 throttled=0 delivered=\([0-9]*\) dropped=0$/\1/p')
	[ "$d" = "$(kv "$f" rings)" ] && [ "$(kv "$k" doorbells)" = "$d" ] ||
		{ echo "the sink got $(kv "$k" doorbells) doorbells, Tempo delivered '$d', the flood sent $(kv "$f" rings)"; return 1; }
	need "$1" "^CHANNEL name=bell peer=flood access=rw rings=$(kv "$f" rings) throttled=$(kv "$f" throttled) delivered=0 dropped=0$" \
			"the flood's counts" &&
		need "$1" '^PARTITION_STOP name=flood reason=ept_violation .*detail="gpa=0x1000800"$' \
			"the flood's call into the channel stopped" &&
		[ $(($(serial "$1" | sed -n 's/^PARTITION_STOP name=flood .* qual=\(0x[0-9a-f]*\) .*/\1/p') & 4)) = 4 ] ||
		{ echo "the flood's stop was no instruction fetch"; return 1; }
	! serial "$1" | grep '^\[flood\] chan: returned from the channel' > /dev/null ||
		{ echo "code ran from a channel"; return 1; }
	need "$1" "^Channel 'notice': peer 1 'reader' ro at gpa 0x2000000-0x21fffff$" "the ro peer's view" &&
		need "$1" '^\[reader\] chan: read 0x0 from the channel; writing it \(ro\)$' "the ro peer read it" &&
		need "$1" '^PARTITION_STOP name=reader reason=ept_violation .*detail="gpa=0x2000004"$' \
			"the ro peer's write stopped" &&
		! serial "$1" | grep '^\[reader\] chan: write done' > /dev/null || { echo "the ro write went through"; return 1; }
	rtbench_clean "$1" 10000 && rtbench_clean "$1/quiet" 10000 && ends_whole "$1" || return 1
	q=$(rtbench_line "$1/quiet" rt) l=$(rtbench_line "$1" rt)
	rt_undisturbed "$1" "$1/quiet" "the flood" || return 1
	echo "flood held to $(kv "$f" rings) rings in 50 ms ($(kv "$f" throttled) refused); rt p99 $(kv "$l" lat_p99_ticks) max $(kv "$l" lat_max_ticks), quiet $(kv "$q" lat_p99_ticks)/$(kv "$q" lat_max_ticks)"
}

# A receiver on a shared core (inject, 300 us windows beside a busy neighbour):
# a doorbell in its window comes with an NMI kick and is taken at once, so
# most of them cost about what a dedicated inject receiver pays; only those
# rung outside its window wait for it. Each kick is an NMI exit. Before the
# NMI blocking an NMI exit leaves was ended (nmi_unblock), only the first kick
# of the run got through: 1 NMI exit, and an average of 24,838 ticks.
test_bochs_channel_shared() {
	local r lat nmi
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/channel-shared.iso" --expect ok --timeout 300 || return 1
	r=$(chan_line "$1" pong recv)
	[ "$(kv "$r" received)" = 2000 ] && [ "$(kv "$r" lost)" = 0 ] && [ "$(kv "$r" doubled)" = 0 ] &&
		[ "$(kv "$r" checksum_ok)" = 1 ] || { echo "doorbells not clean: $r"; return 1; }
	[ "$(kv "$(chan_line "$1" pong recv rtt)" answered)" = 200 ] || { echo "round trips not all answered"; return 1; }
	nmi=$(serial "$1" | sed -n 's/^EXITS partition=pong vcpu=0 .* exception_nmi=\([0-9]*\).*/\1/p')
	lat=$(serial "$1" | grep -E '^\[pong\] CHANTEST_LAT ' | sed 's/^\[pong\] //')
	[ "${nmi:-0}" -ge 1000 ] || { echo "only ${nmi:-0} NMI kicks reached the receiver's core"; return 1; }
	[ "$(kv "$lat" lat_avg_ticks)" -le 6000 ] || { echo "shared-core doorbells wait for the window: $lat"; return 1; }
	ends_whole "$1" || return 1
	echo "shared-core receiver: $nmi NMI kicks, one-way avg $(kv "$lat" lat_avg_ticks) max $(kv "$lat" lat_max_ticks) ticks"
}

# A peer's restart zeroes its RAM but keeps the channel, and forgets its
# doorbell: the new instance finds what the old one wrote there, and the
# other peer's rings are dropped (counted) until it binds again, which it
# never does here: none may reach it.
test_bochs_channel_restart() {
	local g r d
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/channel-restart.iso" --expect ok --timeout 300 || return 1
	need "$1" '^\[phoenix\] chan: the channel holds generation 0$' "the first instance" &&
		need "$1" '^\[phoenix\] chan: generation 0 took [1-9][0-9]* doorbells; triple-faulting$' \
			"the first instance took a doorbell" &&
		need "$1" '^PARTITION_RESTART name=phoenix reason=triple_fault count=1 ' "the restart" &&
		need "$1" '^\[phoenix\] chan: the channel holds generation 1$' "the channel kept across the restart" &&
		need "$1" '^PARTITION_END name=phoenix state=shutdown exit_code=0 restarts=1$' "the second instance ended" ||
		return 1
	g=$(chan_line "$1" phoenix restart) r=$(chan_line "$1" ringer ringer)
	[ "$(kv "$g" generation)" = 1 ] && [ "$(kv "$g" doorbells)" = 0 ] && [ "$(kv "$g" strays)" = 0 ] ||
		{ echo "a doorbell reached the unbound instance: $g"; return 1; }
	[ "$(kv "$r" delivered)" -ge 1 ] && [ "$(kv "$r" dropped)" -ge 1 ] && [ "$(kv "$r" errors)" = 0 ] ||
		{ echo "the ringer's counts: $r"; return 1; }
	d=$(serial "$1" | sed -n 's/^CHANNEL name=life peer=phoenix access=rw rings=0 throttled=0 delivered=\([0-9]*\) dropped=\([0-9]*\)$/\1 \2/p')
	[ "$d" = "$(kv "$r" delivered) $(kv "$r" dropped)" ] ||
		{ echo "Tempo counted '$d' for phoenix, the ringer $(kv "$r" delivered) $(kv "$r" dropped)"; return 1; }
	ends_whole "$1"
}

# The channel as a PCI function (channel-pci.cfg): both bare guests find it
# through 0xCF8/0xCFC, take doorbells on the vector in its MSI capability and
# ring with a MOV to BAR0 (an EPT violation Tempo decodes and emulates). Every
# message arrives once, the receiver takes no exit per doorbell, the sender
# one (its MOV), and the function agrees with the channel-info hypercall.
test_bochs_channel_pci() {
	local r s ex tick
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/channel-pci.iso" --expect ok --timeout 300 || return 1
	need "$1" '^\[ping\] CHANTEST_PCI host=1b36:0008 fn=1af4:1110 bar0=0xfeb00000 bar2=0x1000000 magic=0x4f504d54 version=1 name=link self=0 peers=2 size=65536 msi_vector=0x40$' \
		"ping's function: IDs, BARs, registers" &&
		need "$1" '^\[pong\] CHANTEST_PCI .* self=1 peers=2 size=65536 msi_vector=0x51$' "pong's function" ||
		return 1
	ping_pong_clean "$1" 20000 1000 || return 1
	echo "20,000 doorbells through BAR0: one-way $(serial "$1" | grep -E '^\[pong\] CHANTEST_LAT ' | sed 's/^\[pong\] //')"
}

# xAPIC-mode guests (xapic.cfg, docs/xapic.md): rtbench leaves x2APIC mode
# through disabled and drives its APIC through the xAPIC page. In direct mode
# its deadline writes still never exit and each event's one exit is its EOI
# (an MMIO write Tempo decodes); in emulated mode the vLAPIC serves the page.
test_bochs_xapic() {
	local d e ex
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/xapic.iso" --expect ok --timeout 240 || return 1
	need "$1" '^\[xdirect\] rtbench: xAPIC mode, registers at 0xfee00000, version 0x[0-9a-f]+$' "direct: xAPIC mode" &&
		need "$1" '^\[xemul\] rtbench: xAPIC mode, registers at 0xfee00000' "emulated: xAPIC mode" &&
		rtbench_clean "$1" 5000 xdirect && rtbench_clean "$1" 5000 xemul || return 1
	d=$(window "$1" deadline_write_exits xdirect) || return 1
	[ "$d" -eq 0 ] || { echo "$d deadline-write exits in direct xAPIC mode"; return 1; }
	ex=$(serial "$1" | sed -n 's/^EXITS partition=xdirect vcpu=0 .* ept_violation=\([0-9]*\).*/\1/p')
	[ -n "$ex" ] && [ "$ex" -ge 5000 ] && [ "$ex" -le 5010 ] ||
		{ echo "direct: '$ex' MMIO exits for 5,000 EOIs and the set-up"; return 1; }
	e=$(rtbench_line "$1" xdirect)
	[ "$(kv "$e" lat_p99_ticks)" -le 10 ] || { echo "direct xAPIC latency: $e"; return 1; }
	ends_whole "$1"
}

# debug_exit and fw_cfg, per partition and off by default (testdev.cfg)
test_bochs_testdev() {
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/testdev.iso" --expect ok --timeout 120 || return 1
	need "$1" '^\[ex\] hello: fw_cfg signature=0x554d4551 cpus=1 ram=16777216$' "fw_cfg on: QEMU, 1 CPU, 16 MiB" &&
		need "$1" '^PARTITION_END name=ex state=shutdown exit_code=7$' "debug-exit 3: exit code 7" &&
		need "$1" '^\[plain\] hello: fw_cfg signature=0xffffffff cpus=65535 ram=18446744073709551615$' \
			"fw_cfg off: the ports float" &&
		need "$1" '^\[plain\] hello: debug-exit write ignored$' "debug_exit off: the write dropped" &&
		need "$1" '^PARTITION_END name=plain state=shutdown exit_code=0$' "plain ran to its end" &&
		! serial "$1" | grep '^\[ex\] hello: debug-exit write ignored' > /dev/null &&
		ends_whole "$1"
}

# ---- console input and the monitor (tests/emu/console.script) ----

# COM1 is a TCP server on loopback; tests/emu/console_drive.py types the script
# into it (a partition's line, the monitor's commands and errors, a restart,
# a flood) and writes serial.txt. The real-time partition beside it loses
# nothing and stays within 10 ticks of the 0 it measures alone.
# console_run OUT SCRIPT TIMEOUT RUN_SH_ARGS...: Bochs with COM1 on a loopback
# socket that tests/emu/console_drive.py types SCRIPT into; every step must pass
console_run() {
	local out=$1 script=$2 limit=$3 port drv
	shift 3
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
		{ echo "no free loopback port"; return 1; }
	mkdir -p "$out"
	rm -f "$out/serial.done" "$out/drive.txt"
	timeout $((limit + 60)) python3 tests/emu/console_drive.py "$port" "$out" "$script" &
	drv=$!
	bochs "$out" --timeout "$limit" --com1-socket "$port" "$@" ||
		{ wait $drv; grep 'ok=0' "$out/drive.txt"; return 1; }
	wait $drv || { grep 'ok=0' "$out/drive.txt"; return 1; }
	grep -q '^DRIVE done ok=1$' "$out/drive.txt" || { echo "the console script did not finish"; return 1; }
}

test_bochs_console_input() {
	local line
	console_run "$1" tests/emu/console.script 300 --cpus 4 --iso "$TEST_ISO_DIR/console.iso" \
		--expect ok || return 1
	rtbench_clean "$1" 20000 && ends_whole "$1" || return 1
	line=$(rtbench_line "$1" rt)
	# The console never exits rt's core: its exits in the window are host
	# ticks, tick deferrals and the one that ends the window (VCPU_STATS).
	[ $(($(window "$1" exits) - $(window "$1" tick_exits) - $(window "$1" tick_defer_exits))) -le 1 ] ||
		{ echo "rt's core exited for more than its ticks: $(window "$1" exits) exits"; return 1; }
	# p99 undisturbed; the max too, unless a tick deferral met one of rt's
	# deadlines (issue 14: where the first deferral falls against rt's
	# phase depends on the code's length: 0 at 8b1698b, 105 ticks with one
	# deferral after it), which costs at most that short exit: about 350
	# instructions in Bochs from the exit to the entry, when the deadline
	# fired at the exit's first instruction (tick_guest_fired)
	[ "$(kv "$line" lat_p99_ticks)" -le 10 ] && { [ "$(kv "$line" lat_max_ticks)" -le 10 ] ||
		{ [ "$(window "$1" tick_defer_exits)" -gt 0 ] && [ "$(kv "$line" lat_max_ticks)" -le 400 ]; }; } ||
		{ echo "rt disturbed by the console: $line"; return 1; }
	echo "console script: $(grep -c 'ok=1 what=expect' "$1/drive.txt") answers checked; rt max $(kv "$line" lat_max_ticks) ticks, $(window "$1" tick_defer_exits) tick deferrals"
}

# No core is free: input and the monitor are served at the guests' exits, as
# the boot says; the latency guest still loses nothing.
test_bochs_console_busy() {
	console_run "$1" tests/emu/console-busy.script 300 --cpus 2 \
		--iso "$TEST_ISO_DIR/console-busy.iso" --expect ok &&
		rtbench_clean "$1" 20000 && ends_whole "$1"
}

# ---- the timer (direct / inject / emulated; host ticks on the preemption timer) ----

# kv LINE KEY
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# window OUT KEY [PARTITION]: KEY's growth between the two VCPU_STATS lines of
# the partition's vCPU 0 (rtbench takes them around its measurement loop)
window() {
	local a b p=${3:-rt}
	a=$(serial "$1" | grep -E "^VCPU_STATS partition=$p vcpu=0 " | sed -n 1p)
	b=$(serial "$1" | grep -E "^VCPU_STATS partition=$p vcpu=0 " | sed -n 2p)
	[ -n "$a" ] && [ -n "$b" ] || { echo "no VCPU_STATS pair" >&2; return 1; }
	echo $(($(kv "$b" "$2") - $(kv "$a" "$2")))
}

# rtbench_extra OUT PARTITION KEY: KEY from its "rewrite_raced=... postponed=..." line
rtbench_extra() {
	kv "$(serial "$1" | grep -E "^\\[$2\\] rtbench:   rewrite_raced=" | head -n 1)" "$3"
}

# rtbench_line OUT PARTITION: its RTBENCH line
rtbench_line() {
	serial "$1" | grep -E "^\\[$2\\] RTBENCH " | sed "s/^\\[$2\\] //"
}

# late_events OUT PARTITION MIN: how many of the partition's events rtbench's
# log2 histogram puts at MIN ticks late or more (MIN a power of two)
late_events() {
	serial "$1" | awk -v p="[$2]" -v min="$3" '
		$1 == p && $2 == "rtbench:" && $3 ~ /^[0-9]+\.\.[0-9]+$/ {
			split($3, r, "\\.\\."); if (r[1] + 0 >= min) n += $4 }
		END { print n + 0 }'
}

# rt_undisturbed OUT QUIET WHAT: rt's 10,000 random events beside WHAT (OUT)
# against the same run without it (QUIET): p99 within 10 ticks, and no
# more than 15 more events 8 ticks late or more. The max was compared
# (within 40) until the tick step-aside (issue 14): rt's worst events meet a
# host tick whose steps ran out (its 50-150 µs deadlines keep falling in
# the windows), and where in that exit depends on how Bochs interleaves
# the busy CPUs (453 quiet / 608 beside on CI's tigerlake, with 11 and 12
# late events). A kick or a flush WHAT caused on rt's core would cost
# hundreds of ticks on a share of the events, not a few.
rt_undisturbed() {
	local q l late_l late_q
	q=$(rtbench_line "$2" rt) l=$(rtbench_line "$1" rt)
	[ "$(late_events "$1" rt 0)" = 10000 ] && [ "$(late_events "$2" rt 0)" = 10000 ] ||
		{ echo "rt's latency histogram does not hold its 10,000 events"; return 1; }
	late_l=$(late_events "$1" rt 8) late_q=$(late_events "$2" rt 8)
	[ $(($(kv "$l" lat_p99_ticks) - $(kv "$q" lat_p99_ticks))) -le 10 ] &&
		[ "$late_l" -le $((late_q + 15)) ] ||
		{ echo "rt beside $3: $late_l events 8+ ticks late, $late_q quiet: $l; quiet: $q"; return 1; }
}

# rtbench_clean OUT EVENTS [PARTITION]: all events measured, none lost, early or doubled
rtbench_clean() {
	local line
	line=$(rtbench_line "$1" "${3:-rt}")
	[ -n "$line" ] || { echo "no RTBENCH line"; return 1; }
	[ "$(kv "$line" events)" = "$2" ] && [ "$(kv "$line" lost)" = 0 ] &&
		[ "$(kv "$line" early)" = 0 ] && [ "$(kv "$line" dup)" = 0 ] ||
		{ echo "timer events not clean: $line"; return 1; }
}

# ticks_on_time OUT CPU MIN_TICKS [LATE]: host ticks kept coming, none later than LATE
# (1000) TSC ticks past the slack a dedicated core may place them by (slack_ticks, issue 14)
ticks_on_time() {
	local h slack late=${4:-1000}
	h=$(serial "$1" | grep -E "^HOSTTICK cpu=$2 ")
	[ -n "$h" ] || { echo "no HOSTTICK line for CPU $2"; return 1; }
	slack=$(kv "$h" slack_ticks)
	[ -n "$slack" ] && [ "$(kv "$h" offset_max_ticks)" -le "$slack" ] ||
		{ echo "tick placed past its slack: $h"; return 1; }
	[ "$(kv "$h" missed)" = 0 ] && [ "$(kv "$h" late_max_ticks)" -lt $((slack + late)) ] &&
		[ "$(kv "$h" ticks)" -ge "$3" ] || { echo "host ticks late or missing: $h"; return 1; }
}

# APIC virtualization (issue 15), on the model that has it: inject and
# emulated mode with every event clean, no EOI exit, and at most 1.25 and
# 2.25 exits per timer event (host ticks included, 1 ms tick, 100 us events).
test_bochs_apicv() {
	local m exits max
	for m in inject emulated; do
		mkdir -p "$1/$m"
		bochs "$1/$m" --cpus 2 --model tigerlake --iso "$TEST_ISO_DIR/timer-$m.iso" --expect ok ||
			return 1
		apicv_on "$1/$m" || { echo "$m: no 'APIC virtualization on' at boot"; return 1; }
		rtbench_clean "$1/$m" 2000 || return 1
		exits=$(window "$1/$m" exits)
		max=$([ $m = inject ] && echo 2500 || echo 4500)
		[ "$(window "$1/$m" eoi_exits)" = 0 ] && [ "$exits" -le "$max" ] ||
			{ echo "$m: $exits exits, $(window "$1/$m" eoi_exits) EOI exits for 2000 events"; return 1; }
		echo "$m: $exits exits for 2000 events, 0 EOI exits"
	done
}

# Posted interrupts, Tempo's half (posted=soft on tigerlake, which has APIC
# virtualization but, like every Bochs 2.7 model, no posted interrupts): two
# inject-mode partitions on a channel, 20,000 doorbells one way and 2,000
# round trips. Each doorbell goes through the target's posted-interrupt
# descriptor: none lost, doubled or stray, every one taken from the
# descriptor by Tempo before an entry (posted_taken), the receiver's only
# exits besides host ticks one notification a doorbell (on hardware the CPU
# takes it with no exit). A vCPU taking posted interrupts is refused direct
# mode (-22) and stays in inject (1).
test_bochs_posted_soft() {
	local n=20000 rtt=2000 taken
	bochs "$1" --cpus 3 --model tigerlake --iso "$TEST_ISO_DIR/posted-soft.iso" --expect ok \
		--timeout 600 || return 1
	need "$1" '^VMX: posted interrupts soft ' "posted=soft at boot" &&
		need "$1" '^\[ping\] CHANTEST_MODE role=send asked=direct ret=-22 mode=1$' \
			"direct mode refused to a vCPU taking posted interrupts" &&
		ping_pong_clean "$1" $n $rtt $n || return 1
	taken=$(stats_delta "$1" pong posted_taken) || return 1
	[ "$taken" = $n ] || { echo "pong took $taken posted vectors for $n doorbells"; return 1; }
	echo "$((n + rtt)) doorbells to pong and $rtt to ping, each taken from its descriptor; direct mode refused"
}

# apicv_on OUT: Tempo said it uses APIC virtualization (a model that has it)
apicv_on() { serial "$1" | grep '^VMX: APIC virtualization on' > /dev/null; }

timer_run() {	# OUT MODE
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/timer-$2.iso" --expect ok --timeout 300 || return 1
	need "$1" "^VCPU_STATS partition=rt vcpu=0 mode=$2 " "the vCPU ran in $2 mode"
}

# direct: 10,000 timer events, and the measured vCPU's only exits are host
# ticks (the closing stats hypercall aside), about one per ms.
test_bochs_timer_direct() {
	local exits ticks tsc defer
	timer_run "$1" direct && rtbench_clean "$1" 10000 || return 1
	exits=$(window "$1" exits) ticks=$(window "$1" tick_exits) tsc=$(window "$1" tsc)
	defer=$(window "$1" tick_defer_exits)
	# besides the ticks, only the exits that moved a tick past a guest deadline:
	# the exit stub's steps (five margins apart, each with a margin to spare,
	# within the slack: four a tick at most with its default, tick_us / 4)
	# and hv's own deferral
	[ $((exits - 1)) -eq $((ticks + defer)) ] && [ "$defer" -le $((6 * ticks)) ] ||
		{ echo "exits $exits besides $ticks ticks and $defer deferrals"; return 1; }
	# 50,000 TSC ticks a host tick (1 ms at ips 50M); allow one either side
	[ $((ticks - tsc / 50000)) -le 1 ] && [ $((tsc / 50000 - ticks)) -le 1 ] ||
		{ echo "$ticks host ticks in $tsc TSC ticks"; return 1; }
	[ "$(window "$1" deadline_write_exits)" = 0 ] || { echo "deadline writes exited"; return 1; }
	ticks_on_time "$1" 1 100
}

# inject: one exit per fire (the hypervisor's vector) and none per deadline
# write; without APIC-register virtualization (Bochs has none) the guest's
# EOI to its virtual LAPIC is one more.
test_bochs_timer_inject() {
	local exits ticks ext eoi defer want_eoi=2000
	timer_run "$1" inject && rtbench_clean "$1" 2000 || return 1
	exits=$(window "$1" exits) ticks=$(window "$1" tick_exits)
	ext=$(window "$1" extint_exits) eoi=$(window "$1" eoi_exits)
	defer=$(window "$1" tick_defer_exits)
	# with APIC virtualization (tigerlake) the guest's EOI takes no exit
	apicv_on "$1" && want_eoi=0
	[ "$ext" = 2000 ] && [ "$eoi" = "$want_eoi" ] ||
		{ echo "extint exits $ext, EOI exits $eoi for 2000 fires"; return 1; }
	[ "$(window "$1" deadline_write_exits)" = 0 ] || { echo "deadline writes exited"; return 1; }
	[ $((exits - 1)) -eq $((ticks + defer + ext + eoi)) ] && [ "$defer" -le "$ticks" ] ||
		{ echo "$exits exits: $ticks ticks + $defer + $ext + $eoi + 1 expected"; return 1; }
	ticks_on_time "$1" 1 100
}

# emulated: every deadline write exits and is counted; expiries come on the
# preemption timer.
test_bochs_timer_emulated() {
	local writes timer ticks
	timer_run "$1" emulated && rtbench_clean "$1" 2000 || return 1
	writes=$(window "$1" deadline_write_exits)
	timer=$(window "$1" timer_exits) ticks=$(window "$1" tick_exits)
	[ "$writes" = 2000 ] || { echo "$writes deadline-write exits for 2000 writes"; return 1; }
	# every deadline write and expiry went the fast path (hv/exit/exit.c)
	[ "$(window "$1" fast_exits)" -ge $((writes + timer - ticks)) ] ||
		{ echo "only $(window "$1" fast_exits) fast-path exits"; return 1; }
	need "$1" '^TRACE partition=rt vcpu=0 seq=[0-9]+ tsc=[0-9]+ event=(deadline_write|inject|lvt) ' \
		"the timer trace ring at the partition's end" || return 1
	[ "$(window "$1" fired)" = 2000 ] || { echo "fired $(window "$1" fired) of 2000"; return 1; }
	# the guest's EOIs: one exit each, none with APIC virtualization
	[ "$(window "$1" eoi_exits)" = "$(apicv_on "$1" && echo 0 || echo 2000)" ] ||
		{ echo "$(window "$1" eoi_exits) EOI exits for 2000 fires"; return 1; }
	# an expiry may also be found at another exit's end: never more timer exits than fires
	[ $((timer - ticks)) -le 2000 ] && [ $((timer - ticks)) -ge 1900 ] ||
		{ echo "$((timer - ticks)) deadline-expiry exits for 2000 fires"; return 1; }
	ticks_on_time "$1" 1 100
}

# Every attack of rtbench (IF=0 spin, no EOI, TPR 15, masked LVT, deadline 0,
# all-ones, rewrite storm, CPUID storm; 20 ms each): host ticks stay on time
# and the guest's timer still works afterwards.
attacks_run() {	# OUT MODE
	local a
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/attacks-$2.iso" --expect ok --timeout 300 || return 1
	for a in cli_spin no_eoi tpr15 mask_lvt deadline_zero deadline_ones deadline_storm cpuid_storm; do
		need "$1" "^\\[rt\\] rtbench: attack=$a loops=[0-9]+ irqs=[0-9]+ timer_after=ok$" \
			"$a: the guest's timer works after it" &&
			need "$1" "^\\[rt\\] rtbench: attack=$a end survived$" "$a survived" || return 1
	done
	rtbench_clean "$1" 100 && ticks_on_time "$1" 1 160 &&
		need "$1" '^PARTITION_END name=rt state=shutdown exit_code=0$' "clean end"
}

test_bochs_attacks_direct() { attacks_run "$1" direct; }
test_bochs_attacks_emulated() { attacks_run "$1" emulated; }

# ---- UEFI without GRUB: OVMF boots BOOTX64.EFI from a FAT ESP (boot/efi/loader.c) ----

EMU_TESTS="$EMU_TESTS qemu_esp qemu_esp_missing"
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

# ---- time partitioning (shared cores) and pv-lazy ----

# a (inject) and b (emulated) share CPU 1 in 400/400/200 us windows; c has
# CPU 2 alone. Every timer interrupt arrives, every window comes on time
# (on average within 400 ticks, at worst within one long exit) and as often
# as the schedule says, and c's figures are
# those it has with no neighbour at all (Bochs is deterministic).
test_bochs_shared() {
	local solo="$1/solo" w starts frames
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/shared.iso" --expect ok --timeout 300 || return 1
	rtbench_clean "$1" 400 a && rtbench_clean "$1" 400 b && rtbench_clean "$1" 1500 c ||
		return 1
	need "$1" '^SCHED cpu=1 windows=3 frame_ticks=50000 ' "the schedule ran" &&
		need "$1" '^TRACE partition=a vcpu=0 .* event=(save|restore|window_in|hw_fire|inject) ' \
			"a's switches traced" || return 1
	frames=$(kv "$(serial "$1" | grep '^SCHED cpu=1 ')" frames)
	for w in 0 1 2; do
		local line
		line=$(serial "$1" | grep -E "^WINDOW cpu=1 index=$w ")
		starts=$(kv "$line" starts)
		# a start waits for the exit in progress when its window comes:
		# 118-328 ticks late on average, and once in a few hundred up to
		# 2,055 (995-1,435 on other builds and models: where that rare
		# meeting falls moves with the image), so the worst case is bounded
		# by one long exit and the average held tight
		[ "$(kv "$line" skipped)" = 0 ] && [ "$(kv "$line" start_late_max_ticks)" -lt 2500 ] &&
			[ "$(kv "$line" start_late_avg_ticks)" -lt 400 ] &&
			[ $((starts - frames)) -le 2 ] && [ $((frames - starts)) -le 2 ] ||
			{ echo "window $w off schedule: $line (frames $frames)"; return 1; }
	done
	# CPU 1's frame is the tick period: each tick meets a window switch, whose
	# path it waits for (950 ticks at most measured, 1,050 with APIC
	# virtualization on tigerlake: the virtual-APIC page's copies)
	ticks_on_time "$1" 1 100 1200 && ticks_on_time "$1" 2 100 || return 1
	mkdir -p "$solo"
	bochs "$solo" --cpus 3 --iso "$TEST_ISO_DIR/shared-solo.iso" --expect ok --timeout 300 ||
		return 1
	# the same to the tick, except the worst case: which event meets a host-tick exit
	# depends on the phase of c's start, which moves with the boot's work
	local with alone k
	with=$(rtbench_line "$1" c) alone=$(rtbench_line "$solo" c)
	for k in events lost early dup lat_min_ticks; do
		[ "$(kv "$with" $k)" = "$(kv "$alone" $k)" ] ||
			{ echo "c's $k differs with neighbours: $with / alone: $alone"; return 1; }
	done
	# Late events (8 ticks or more) are those a host tick's exit meets:
	# random deadlines, ticks on a 50,000-tick grid, an exit of about 400
	# ticks, so about 0.8% of 1,500, 12 give or take 4, and which ones
	# moves with the phase of c's start. The p99 (the 1,485th event) sits
	# on that edge and flipped between 4 and 82 with a few instructions'
	# change on the exit path (9ee0460, 37974a0, the NMI/INIT tail, and
	# 2cb9810: 16 late beside the neighbours, 11 alone), so count the late
	# events instead: no more than 15 over alone (3 standard deviations of
	# the difference). A neighbour that reached c's core would cost
	# hundreds of ticks on a share of the events, not a few.
	local late_with late_alone
	[ "$(late_events "$1" c 0)" = 1500 ] && [ "$(late_events "$solo" c 0)" = 1500 ] ||
		{ echo "c's latency histogram does not hold its 1,500 events"; return 1; }
	late_with=$(late_events "$1" c 8) late_alone=$(late_events "$solo" c 8)
	[ "$late_with" -le $((late_alone + 15)) ] ||
		{ echo "c has $late_with events 8+ ticks late with neighbours, $late_alone alone: $with / alone: $alone"; return 1; }
	# and nothing of theirs reaches c's core: its exits other than port I/O
	# (its prints) and its core's host ticks are the CPUID and hypercalls it
	# takes alone, and every preemption-timer exit it took was one of those
	# ticks; a neighbour that made c exit once a frame would add about 150.
	# The tick count itself follows the run's length, which its prints
	# stretch when the console is busy with the neighbours' output (244
	# ticks against 240 alone once the VCPU_STATS lines grew a field)
	local ex_with ex_alone run ex pt cpu hticks
	for run in "$1" "$solo"; do
		ex=$(serial "$run" | grep -E '^EXITS partition=c vcpu=0 ')
		pt=$(kv "$ex" preemption_timer)
		cpu=$(serial "$run" | sed -n "s/^Partition 'c': 1 vCPU (CPUs \([0-9]*\)).*/\1/p")
		hticks=$(kv "$(serial "$run" | grep -E "^HOSTTICK cpu=$cpu ")" ticks)
		[ -n "$pt" ] && [ -n "$hticks" ] && [ "$pt" = "$hticks" ] ||
			{ echo "c's preemption-timer exits ($pt) are not its core's host ticks (cpu $cpu: $hticks) in $run"; return 1; }
		ex=$(($(kv "$ex" total) - $(kv "$ex" io) - pt))
		if [ "$run" = "$1" ]; then ex_with=$ex; else ex_alone=$ex; fi
	done
	[ "$ex_with" = "$ex_alone" ] ||
		{ echo "c took $ex_with exits (not port I/O or host ticks) with neighbours, $ex_alone alone"; return 1; }
	# the average within 4 ticks: c waits in HLT, and Bochs wakes a halted CPU
	# at once when every CPU is halted (alone: idle cores sleep) but at its
	# next time slice when another CPU runs (the shared core's guests)
	[ $(($(kv "$with" lat_avg_ticks) - $(kv "$alone" lat_avg_ticks))) -le 4 ] &&
		[ $(($(kv "$alone" lat_avg_ticks) - $(kv "$with" lat_avg_ticks))) -le 4 ] ||
		{ echo "c's lat_avg_ticks moved by more than 4: $with / alone: $alone"; return 1; }
	# within one tick exit: an event whose deadline falls inside a host
	# tick's exit is late by the rest of that exit, anything from 0 to its
	# whole length (direct-random in docs/benchmarks.md: 416 ticks); which
	# of c's few hits lands where depends on the phase of c's start
	[ $(($(kv "$with" lat_max_ticks) - $(kv "$alone" lat_max_ticks))) -le 450 ] &&
		[ $(($(kv "$alone" lat_max_ticks) - $(kv "$with" lat_max_ticks))) -le 450 ] ||
		{ echo "c's worst case moved by more than a tick exit: $with / alone: $alone"; return 1; }
}

# survived OUT PARTITION ATTACK OBSERVED: the hostile guest's own report
survived() {
	need "$1" "^\\[$2\\] ATTACK_SURVIVED name=$3 observed=$4\$" "$2: $3 $4"
}

# A hostile guest on a shared core (inject) beside a latency guest (inject)
# and a probe (emulated): CR0.CD and DR0-3 it sets stay its own, its
# SELF_IPIs sent with IF=0 across window ends reach only itself, the LAPIC
# count-down timer it starts fires in its own vLAPIC only; the latency guest gets every
# event and no stray vector, the probe never sees CD or the DRs.
test_bochs_shared_attacks() {
	local line
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/shared-attacks.iso" --expect ok --timeout 300 ||
		return 1
	survived "$1" attacker leave_msrs ok && survived "$1" late probe_late_sibling clean &&
		survived "$1" attacker cr0_cd_spin shadowed && survived "$1" attacker dr_spin kept &&
		survived "$1" attacker self_ipi_windows own &&
		survived "$1" attacker lvt_periodic_tmict fired_virtual &&
		survived "$1" probe probe_neighbour clean && rtbench_clean "$1" 400 victim || return 1
	line=$(rtbench_line "$1" victim)
	[ "$(kv "$line" stray)" = 0 ] || { echo "stray vectors reached the victim: $line"; return 1; }
	! serial "$1" | grep '^PARTITION_STOP' || { echo "a partition was stopped"; return 1; }
}

# test=exit_fault: a fault in one partition's exit handler stops it
# (hv_fault), and the latency guest beside it finishes clean.
test_bochs_hv_fault() {
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/hv-fault.iso" --expect ok --timeout 300 || return 1
	need "$1" '^PARTITION_STOP name=faulty reason=hv_fault rip=0x[0-9a-f]+ qual=0x6 .*detail="exception 6 ' \
		"faulty stopped: hv_fault" &&
		need "$1" '^EXCEPTION: vector 6 ' "the fault's dump" &&
		rtbench_clean "$1" 2000 victim && ticks_on_time "$1" 1 10
}

# pv-lazy: rewriting later traps once per event (the first write, with
# nothing armed) instead of four times; rewriting earlier traps (all but a
# few, below); no
# interrupt is lost, early or doubled either way. A rewrite-later event's
# first deadline, postponed on the page but read at the exit armed for it,
# fires as well (rtbench counts it as postponed: fired = events + postponed).
# rewrite-passed publishes after the first deadline expired, before the
# exit for it: that one's interrupt must not be lost.
test_bochs_pv_lazy() {
	local l p
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/pv-lazy.iso" --expect ok --timeout 400 || return 1
	need "$1" '^\[later\] rtbench: pv-lazy deadline page at 0x' "later registered its page" &&
		rtbench_clean "$1" 1000 later && rtbench_clean "$1" 1000 earlier &&
		rtbench_clean "$1" 300 passed || return 1
	[ "$(window "$1" deadline_write_exits later)" = 1000 ] ||
		{ echo "later: $(window "$1" deadline_write_exits later) write exits for 4000 writes"; return 1; }
	# Rewriting earlier traps unless an exit Tempo armed already comes
	# first (armed <= the new deadline: a host tick that could not step past
	# the guest's deadlines within its slack), which the page then covers.
	# Where ticks fall moves with the image: 2,000 of 2,000 trapped at
	# eb7d588, 1,999 once the XSS change moved the phase. Almost all trap
	# (at most 1% lazy); the fires, none lost or early, are the check that
	# a lazy one was right.
	l=$(window "$1" deadline_write_exits earlier)
	[ "$l" -le 2000 ] && [ "$l" -ge 1980 ] ||
		{ echo "earlier: $l write exits for 2000 writes"; return 1; }
	p=$(rtbench_extra "$1" later postponed)
	p=${p:-0}
	[ "$(window "$1" fired later)" = $((1000 + p)) ] && [ "$(window "$1" fired earlier)" = 1000 ] ||
		{ echo "fires: later $(window "$1" fired later) (postponed $p), earlier $(window "$1" fired earlier)"; return 1; }
	l=$(rtbench_extra "$1" passed rewrite_raced)
	[ "${l:-0}" -ge 250 ] ||
		{ echo "passed: only ${l:-0} of 300 published after the first expired"; return 1; }
	[ "$(window "$1" fired passed)" = 600 ] ||
		{ echo "passed: $(window "$1" fired passed) fires for 2 x 300 deadlines"; return 1; }
}

# Tickless, 5 ms watchdog, a 30 ms IF=0 spin: no host tick at all, and the
# watchdog (on the preemption timer too) notices the vCPU that does not exit.
test_bochs_watchdog() {
	local h
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/watchdog.iso" --expect ok --timeout 300 || return 1
	need "$1" '^Host tick: 0 us = 0 TSC ticks .*\(tickless\)' "tickless" &&
		rtbench_clean "$1" 50 || return 1
	h=$(serial "$1" | grep -E '^HOSTTICK cpu=1 ')
	[ "$(kv "$h" ticks)" = 0 ] && [ "$(kv "$h" watchdog_fired)" -ge 5 ] ||
		{ echo "watchdog did not notice the 30 ms spin: $h"; return 1; }
}
