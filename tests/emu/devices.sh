# SPDX-License-Identifier: MIT
# Emulator tests: devices. The boot's PCI enumeration (drivers/pci.c,
# docs/devices.md) through the 0xCF8 ports on Bochs' i440FX, with and without
# a card, and through ECAM where QEMU's q35 has an ACPI MCFG; device keys
# the machine refuses; partitions that own devices: COM2 by port I/O and
# its interrupt through the virtual IOAPIC, a neighbour stopped at its ports,
# the HPET; VT-d DMA and interrupt remapping under QEMU's intel-iommu
# (drivers/vtd.c).

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

# Device keys the machine refuses: every refusal with its line, nothing built
# (the IOAPIC report comes first: its GSIs are what the check counts).
test_bochs_dev_bad_assign() {
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/bad-device.iso" --expect failure || return 1
	need "$1" '^IOAPIC: id [0-9]+ at 0xfec00000 version 0x[0-9a-f]+, GSIs 0-23, masked$' \
		"the IOAPIC, its inputs masked" &&
	need "$1" "^ERROR: config: partitions:8: irqs: GSI 30: no IOAPIC input has it \(this machine has GSIs 0-23\)$" \
		"a GSI the machine lacks" &&
	need "$1" "^ERROR: config: partitions:9: pci: 00:01.0 is a bridge" "a bridge" &&
	need "$1" "^ERROR: config: partitions:15: ports: 0x2fc-0x300 overlaps a range given to partition 'p0'" \
		"ports given twice" &&
	need "$1" "^ERROR: config: partitions:15: ports: 0x3f8-0x3f8 overlaps Tempo's console UART" \
		"Tempo's console" &&
	need "$1" "^ERROR: config: partitions:15: ports: 0xb2-0xb2 overlaps the FADT's SMI command port \(it enters SMM\) \(0xb2-0xb2\): Tempo keeps it$" \
		"the SMI command port Bochs' FADT names" &&
	need "$1" "^ERROR: config: partitions:16: mmio: 0xfee00000\+0x1000 overlaps the LAPIC registers" \
		"the LAPIC's page" || return 1
	[ "$(count_lines "$1" '^ERROR: config: ')" = 7 ] ||
		{ echo "$(count_lines "$1" '^ERROR: config: ') config errors, expected 7"; return 1; }
	! serial "$1" | grep '^Partition ' > /dev/null || { echo "a partition was built"; return 1; }
}

# com2_run OUT ISO CPUS [SCRIPT]: Bochs with COM2 a loopback TCP server that
# tests/emu/console_drive.py reads and types SCRIPT (default
# tests/emu/com2.script) into (its output in OUT/com2/serial.txt); every
# step must pass
com2_run() {
	local out=$1 iso=$2 cpus=$3 script=${4:-tests/emu/com2.script} port drv
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
		{ echo "no free loopback port"; return 1; }
	rm -rf "$out/com2"
	mkdir -p "$out/com2"
	timeout 240 python3 tests/emu/console_drive.py "$port" "$out/com2" "$script" &
	drv=$!
	bochs "$out" --cpus "$cpus" --iso "$iso" --expect ok \
		--bochsrc "com2: enabled=1, mode=socket-server, dev=127.0.0.1:$port" ||
		{ wait $drv; grep 'ok=0' "$out/com2/drive.txt"; return 1; }
	wait $drv || { grep 'ok=0' "$out/com2/drive.txt"; return 1; }
	grep -q '^DRIVE done ok=1$' "$out/com2/drive.txt" || { echo "the COM2 script did not finish"; return 1; }
}

# key LINE NAME: NAME's value in a KEY=VALUE line
key() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<< "$1"; }

# A bare guest owns COM2 (ports 0x2f8-0x2ff and GSI 3): its text comes out
# of Bochs' COM2 and a typed line comes back by interrupt. direct: no exit
# for either (no port exit there, no external-interrupt exit at all);
# inject: one external-interrupt exit for each interrupt. Beside the direct
# one a neighbour given nothing writes to COM2's transmitter: it is stopped
# there, naming the owner, and its byte never reaches COM2.
test_bochs_dev_com2() {
	local d=$1/direct i=$1/inject exits dev n
	com2_run "$d" "$TEST_ISO_DIR/dev-com2.iso" 3 && com2_run "$i" "$TEST_ISO_DIR/dev-com2-inject.iso" 2 ||
		return 1
	need "$d" '^PARTITION_STOP name=nb reason=assigned_port rip=0x[0-9a-f]+ qual=0x2f8 vcpu=0 cpu=[0-9]+ detail="port 0x2f8 is given to .com."$' \
		"the neighbour stopped at COM2's port, the owner named" &&
		need "$d" '^\[nb\] devirq: writing .X. to port 0x2f8$' "the neighbour's write" || return 1
	! serial "$d" | grep '^\[nb\] devirq: port 0x2f8 survived' > /dev/null ||
		{ echo "the neighbour went on past COM2's port"; return 1; }
	! grep -q X "$d/com2/serial.txt" || { echo "the neighbour's byte reached COM2"; return 1; }
	for out in "$d" "$i"; do
		need "$out" '^\[com\] DEVIO role=com2 tx_bytes=82 rx_bytes=12 rx_irqs=[0-9]+ strays=0 text="hello tempo "$' \
			"the line typed into COM2, taken by interrupt" &&
		need "$out" '^\[com\] devirq: IOAPIC version 0x20, 24 inputs; input 3 to APIC id 1 vector 0x50$' \
			"the virtual IOAPIC" || return 1
		grep -qx 'devirq: hello out of COM2, by port I/O' <(tr -d '\r' < "$out/com2/serial.txt") ||
			{ echo "$out: the guest's text did not come out of COM2"; return 1; }
	done
	# direct: the input's interrupts never exit, nor do the ports
	exits=$(serial "$d" | grep '^EXITS partition=com ')
	dev=$(serial "$d" | grep '^DEVICES partition=com ')
	n=$(key "$(serial "$d" | grep 'DEVIO')" rx_irqs)
	[ "${n:-0}" -ge 1 ] || { echo "direct: no interrupt"; return 1; }
	[[ "$exits" != *external_interrupt=* ]] ||
		{ echo "direct: external-interrupt exits: $exits"; return 1; }
	[ "$(key "$dev" port_exits)" = 0 ] && [ "$(key "$dev" irq_exits)" = 0 ] &&
		[ "$(key "$dev" irq_path)" = direct ] ||
		{ echo "direct: $dev"; return 1; }
	# inject: exactly one exit for each interrupt the guest took
	exits=$(serial "$i" | grep '^EXITS partition=com ')
	dev=$(serial "$i" | grep '^DEVICES partition=com ')
	n=$(key "$(serial "$i" | grep 'DEVIO')" rx_irqs)
	[ "$(key "$exits" external_interrupt)" = "$n" ] && [ "$(key "$dev" irq_exits)" = "$n" ] &&
		[ "$(key "$dev" port_exits)" = 0 ] && [ "$(key "$dev" irq_path)" = exit ] ||
		{ echo "inject: $n interrupts: $exits / $dev"; return 1; }
}

# A COM2 script that fails ends its run then, as COM1's does
# (bochs_console_gives_up): the guest waits for its line for ever, and
# before tests/emu/run.sh read OUT/com2/drive.txt too the run held its
# slot of the suite until its timeout (120 s, 360 s on the checking build).
test_bochs_dev_com2_gives_up() {
	local msg
	msg=$(com2_run "$1" "$TEST_ISO_DIR/dev-com2-inject.iso" 2 tests/emu/com2-miss.script 2>&1) &&
		{ echo "a COM2 script that failed passed: $msg"; return 1; }
	script_gave_up "$1" com2 "$msg"
}

# A bare guest owns the HPET (Tempo calibrates with the PIT: tsc_calibrate=pit):
# its registers mapped at their own address, a comparator on GSI 20 through
# the virtual IOAPIC, 200 one-shot interrupts each timed from the comparator
# to the handler. direct, edge: no exit for any (its latency that of bare
# metal but where a host tick falls: Bochs figures min 4, avg 14 TSC ticks;
# bare 10 and 14), and more than half its core's host ticks taken by the
# exit stub itself; inject, level: one exit per interrupt, the input masked
# from the exit to the guest's EOI (min 1394 ticks), none lost.
test_bochs_dev_hpet() {
	local d=$1/direct i=$1/inject out rd ri dev exits
	bochs "$d" --cpus 2 --iso "$TEST_ISO_DIR/dev-hpet.iso" --expect ok &&
		bochs "$i" --cpus 2 --iso "$TEST_ISO_DIR/dev-hpet-inject.iso" --expect ok || return 1
	for out in "$d" "$i"; do
		need "$out" '^TSC: [0-9]+ kHz \(source pit;' "Tempo off the HPET" &&
		need "$out" '^\[hpet\] devirq: HPET id 0x[0-9a-f]+, period 10000000 fs, ' \
			"the HPET's registers, read through the mapping" &&
		need "$out" '^\[hpet\] devirq: IOAPIC version 0x20, 24 inputs; input 20 to APIC id 1 vector 0x50$' \
			"the virtual IOAPIC" &&
		need "$out" '^\[hpet\] DEVIRQ label=hpet-[a-z]+ mode=tempo trigger=[a-z]+ events=200 lost=0 strays=0 ' \
			"200 interrupts, none lost or stray" || return 1
	done
	rd=$(serial "$d" | grep '^\[hpet\] DEVIRQ ')
	ri=$(serial "$i" | grep '^\[hpet\] DEVIRQ ')
	[ "$(key "$rd" trigger)" = edge ] && [ "$(key "$ri" trigger)" = level ] ||
		{ echo "triggers: $rd / $ri"; return 1; }
	# direct: no exit for the interrupts, so faster on average than inject's fastest
	dev=$(serial "$d" | grep '^DEVICES partition=hpet ')
	exits=$(serial "$d" | grep '^EXITS partition=hpet ')
	[ "$(key "$dev" mmio)" = 1 ] && [ "$(key "$dev" irq_path)" = direct ] &&
		[ "$(key "$dev" irq_exits)" = 0 ] && [[ "$exits" != *external_interrupt=* ]] ||
		{ echo "direct: $dev / $exits"; return 1; }
	[ "$(key "$rd" lat_avg_ticks)" -lt "$(key "$ri" lat_min_ticks)" ] ||
		{ echo "direct's average latency is not below inject's least: $rd / $ri"; return 1; }
	# direct: its deadline far or 0 while it waits, the exit stub takes most
	# of its core's host ticks itself (struct vmx_stub_tick): the interrupts
	# that land in a tick's exit wait some 60 instructions, not 600
	local ht
	ht=$(serial "$d" | grep '^HOSTTICK cpu=1 ')
	[ -n "$(key "$ht" stub_ticks)" ] && [ "$(key "$ht" ticks)" -gt 0 ] &&
		[ $(($(key "$ht" stub_ticks) * 2)) -gt "$(key "$ht" ticks)" ] ||
		{ echo "direct: the stub took too few of the core's ticks: $ht"; return 1; }
	# inject: exactly one exit per interrupt
	dev=$(serial "$i" | grep '^DEVICES partition=hpet ')
	exits=$(serial "$i" | grep '^EXITS partition=hpet ')
	[ "$(key "$dev" irq_path)" = exit ] && [ "$(key "$dev" irq_exits)" = 200 ] &&
		[ "$(key "$exits" external_interrupt)" = 200 ] && [ "$(key "$dev" irq_storms)" = 0 ] ||
		{ echo "inject: $dev / $exits"; return 1; }
}

# The same inject guest on a core shared with a busy neighbour (300 us
# windows each): its comparator fires in the neighbour's windows too, and a
# device vector pending when the core switches out is taken in root mode,
# where it must reach its owner as the exit path's does. 100 interrupts,
# none lost; some waited for the guest's window (irq_waited > 0); one exit
# or root-mode take per interrupt.
test_bochs_dev_hpet_shared() {
	local out=$1 r dev
	bochs "$out" --cpus 2 --timeout 300 --iso "$TEST_ISO_DIR/dev-hpet-shared.iso" \
		--expect ok || return 1
	need "$out" '^\[hpet\] DEVIRQ label=hpet-shared mode=tempo trigger=edge events=100 lost=0 strays=0 ' \
		"100 interrupts on the shared core, none lost or stray" &&
		need "$out" '^\[busy\] RTBENCH label=busy ' "the neighbour ran to its end" || return 1
	r=$(serial "$out" | grep '^\[hpet\] DEVIRQ ')
	dev=$(serial "$out" | grep '^DEVICES partition=hpet ')
	[ "$(key "$dev" irq_path)" = exit ] && [ "$(key "$dev" irq_exits)" = 100 ] &&
		[ "$(key "$dev" irq_waited)" -gt 0 ] && [ "$(key "$dev" irq_storms)" = 0 ] ||
		{ echo "shared: $r / $dev"; return 1; }
}

# ---- VT-d (drivers/vtd.c, hv/start/iommu_test.c, docs/devices.md) ----

# QEMU's q35 with its VT-d unit (interrupt remapping on, xAPIC destinations)
# and the edu DMA test device; Tempo runs the self-test named on its command
# line in root mode and ends the run (STOP_OK only when every check passed).
IOMMU_QEMU=(--qemu-arg -machine --qemu-arg q35,kernel-irqchip=split
	--qemu-arg -device --qemu-arg intel-iommu,intremap=on,eim=off
	--qemu-arg -device --qemu-arg edu)

# iommu_ok OUT CHECK WHAT: the self-test's check passed
iommu_ok() {
	need "$1" "^IOMMU_TEST check=$2 ok=1( |\$)" "$3"
}

# iommu_common OUT: the unit found and taken, edu found, nothing failed
iommu_common() {
	need "$1" '^VT-d: unit 0 at 0xfed90000 \(segment 0\): version 1\.0, SAGAW 0x2, MGAW 39, .*queued invalidation, interrupt remapping yes \(xAPIC only\)' \
		"QEMU's unit and its capabilities" &&
	need "$1" '^VT-d: 1 unit ready: 3-level tables' "the unit taken" &&
	need "$1" '^test=iommu-(dma|ir): edu at [0-9a-f]{2}:[0-9a-f]{2}\.[0-7], id 0x10000ed' "edu" &&
	need "$1" '^IOMMU_TEST done failed=0$' "no check failed" || return 1
	serial "$1" | grep -E '^IOMMU_TEST check=.* ok=0' && { echo "a check failed"; return 1; }
	return 0
}

# iommu_dma_checks OUT: what test=iommu-dma must have shown (below)
iommu_dma_checks() {
	local bdf guard
	iommu_common "$1" || return 1
	bdf=$(serial "$1" | sed -n 's/^test=iommu-dma: edu at \([0-9a-f:.]*\),.*/\1/p')
	guard=$(serial "$1" | sed -n 's/^IOMMU_TEST check=dma_write_blocked ok=1 addr=\(0x[0-9a-f]*\) .*/\1/p')
	[ -n "$guard" ] || { echo "no dma_write_blocked line with its address"; return 1; }
	iommu_ok "$1" dma_allowed "the copy through the domain arrived, no fault" &&
	need "$1" '^IOMMU_TEST check=dma_allowed ok=1 bytes=256 iova=0x101000 hpa=0x[0-9a-f]+ faults=0$' \
		"256 bytes at DMA address 0x101000" &&
	iommu_ok "$1" dma_write_blocked "a write outside the domain left the page alone" &&
	need "$1" "^DMA_FAULT partition=iommu-test bdf=$bdf addr=$guard access=write reason=write-denied\$" \
		"the write's fault record" &&
	iommu_ok "$1" dma_read_blocked "a read outside the domain" &&
	need "$1" "^DMA_FAULT partition=iommu-test bdf=$bdf addr=$guard access=read reason=read-denied\$" \
		"the read's fault record" &&
	iommu_ok "$1" dma_readonly_blocked "a write to a read-only page" &&
	need "$1" "^DMA_FAULT partition=iommu-test bdf=$bdf addr=0x102000 access=write reason=write-denied\$" \
		"the read-only page's fault record" &&
	iommu_ok "$1" dma_detached_blocked "detached: the allowed address is blocked too" &&
	need "$1" "^DMA_FAULT partition=none bdf=$bdf addr=0x101000 access=write reason=context-not-present\$" \
		"the detached function's fault record" || return 1
	# a partition's domain as the hypervisor builds it (hv/dev/dma.c): 2 MiB of RAM
	iommu_ok "$1" partition_dma_allowed "a copy inside the partition's RAM, by guest-physical address" &&
	iommu_ok "$1" partition_dma_outside_blocked "a write just past the partition's RAM" &&
	need "$1" "^DMA_FAULT partition=part-test bdf=$bdf addr=0x200000 access=write reason=write-denied\$" \
		"the partition's fault record, in its name" || return 1
	[ "$(count_lines "$1" '^DMA_FAULT ')" = 5 ] ||
		{ echo "$(count_lines "$1" '^DMA_FAULT ') DMA_FAULT lines, expected 5"; return 1; }
}

# DMA remapping: edu copies through its domain's table; a write and a read
# outside the domain, and a write to a read-only page, are blocked (the
# memory untouched) and come back as DMA_FAULT lines naming the partition,
# the function, the address, the access and the reason; after detach the
# allowed address faults as context-not-present. Run again with the unit in
# caching mode (CAP.CM, as QEMU's caching-mode=on and hypervisors' virtual
# units report), where the driver also invalidates after each map: QEMU
# caches no absent entries, so this run shows that path does no harm, not
# that it is needed. About 3 s of wall time each.
test_qemu_iommu_dma() {
	local plain=$1/plain cm=$1/caching-mode
	qemu "$plain" --emu qemu-bios --cpus 1 --iso "$TEST_ISO_DIR/iommu-dma.iso" --expect ok \
		"${IOMMU_QEMU[@]}" || return 1
	need "$plain" '^VT-d: unit 0 .*, caching mode off,' "caching mode off by default" &&
	iommu_dma_checks "$plain" || return 1
	qemu "$cm" --emu qemu-bios --cpus 1 --iso "$TEST_ISO_DIR/iommu-dma.iso" --expect ok \
		"${IOMMU_QEMU[@]/%eim=off/eim=off,caching-mode=on}" || return 1
	need "$cm" '^VT-d: unit 0 .*, caching mode on,' "QEMU's caching mode seen" &&
	need "$cm" '^VT-d: 1 unit ready: .*, caching mode$' "caching mode taken into account" &&
	iommu_dma_checks "$cm"
}

# Interrupt remapping: edu's MSI through the entry Tempo wrote arrives with
# that entry's vector on this CPU (the message's own data names another
# vector, which must not arrive); through an index never written, a cleared
# entry, an entry for another requester or one aimed at another CPU,
# nothing arrives. QEMU 7.2 records no interrupt-remapping faults; it
# reports the blocked requests on its own stderr (emu.log), checked too.
test_qemu_iommu_ir() {
	qemu "$1" --emu qemu-bios --cpus 1 --iso "$TEST_ISO_DIR/iommu-ir.iso" --expect ok \
		"${IOMMU_QEMU[@]}" || return 1
	iommu_common "$1" &&
	iommu_ok "$1" ir_compat_blocked "GSTS: remapping on, compatibility format blocked" &&
	need "$1" '^IOMMU_TEST check=msi_remapped ok=1 index=5 vector=0x61 apic_id=0 stray=0x0$' \
		"the remapped MSI: vector 0x61 on APIC 0, nothing else" &&
	iommu_ok "$1" msi_unprogrammed_blocked "an index never written" &&
	iommu_ok "$1" msi_cleared_blocked "an entry written, then cleared" &&
	iommu_ok "$1" msi_other_source_blocked "an entry for another requester (source-id check)" &&
	iommu_ok "$1" msi_other_cpu_not_here "an entry aimed at another CPU" || return 1
	# edu's MSI as the filter composes a partition's (hv/dev/dma.c): the
	# first block after the GSIs' 128 entries, SHV with sub-handle 0
	need "$1" '^IOMMU_TEST check=msi_hv_remapped ok=1 index=128 vector=0x65 address=0xfee01018 data=0x0 ' \
		"the hypervisor's remappable MSI delivers its entry's vector" &&
	iommu_ok "$1" msi_hv_outside_block "an index or vector count past the block is refused" || return 1
	# edu's INTx through the IOAPIC entry the hypervisor's writer makes
	# (hv/dev/dma.c): q35 puts 00:02.0's INTA on PIRQG, GSI 22
	need "$1" '^VT-d: IOAPIC id 0 \(GSIs 0-23\): requester ff:00\.0$' \
		"the IOAPIC's requester id from the DMAR (QEMU: its platform pseudo-bus 0xff)" &&
	need "$1" '^IOMMU_TEST check=intx_remapped ok=1 gsi=22 vector=0x86 hits=1 rte=0x2d00000000c086 stray=0x0$' \
		"INTx by the remappable entry (index 22, IRTE vector 0x86), remote IRR set" &&
	iommu_ok "$1" intx_level_eoi "the IOAPIC's EOI of the IRTE's vector ends the entry" &&
	iommu_ok "$1" intx_masked_silent "a masked remappable entry delivers nothing" &&
	iommu_ok "$1" intx_rerouted "a new route rewrites the IRTE and the entry's vector" &&
	need "$1" '^IOMMU_TEST compat_format_intx delivered=[01] ' \
		"the compatibility-format entry's outcome reported" || return 1
	grep -E 'vtd_irte_get: detected non-present IRTE \(index=9,' "$1/emu.log" > /dev/null ||
		{ echo "QEMU did not report the unwritten entry 9"; return 1; }
	grep -E 'vtd_irte_get: invalid IRTE SID \(index=6,' "$1/emu.log" > /dev/null ||
		{ echo "QEMU did not report the source-id mismatch at entry 6"; return 1; }
}

# A Linux partition (direct) owns Bochs' PCI NE2000 (linux-ne2k.cfg; make
# linux-image first): the card is 00:01.0 of its virtual bus, ne2k-pci binds
# it, eth0 goes up and sends 50 frames into Bochs' null network (ethmod=null:
# no peer, nothing answers), each raising a TX-complete interrupt on INTA,
# GSI 9, which the guest routes level/active-low by the _PRT Tempo adds.
# Linux's CPU 0 takes at least one interrupt per frame sent, with no
# external-interrupt exit; nothing is stopped, Linux powers off.
test_bochs_dev_ne2k_linux() {
	local line tx irqs exits dev
	bochs "$1" --cpus 2 --mem 512 --timeout 900 --iso "$TEST_ISO_DIR/linux-ne2k.iso" --expect ok \
		--bochsrc 'pci: enabled=1, chipset=i440fx, slot1=ne2k' \
		--bochsrc 'ne2k: ioaddr=0x300, irq=10, mac=52:54:00:12:34:56, ethmod=null' || return 1
	need "$1" "^Partition 'linux': pci 00:02\\.0 10ec:8029 is its 00:01\\.0, INTx line 9$" \
		"the NE2000 on the partition's bus" || return 1
	line=$(serial "$1" | grep -E '^(\[linux\] )?(\[ *[0-9.]+\] )?NE2K ' | head -n 1 |
		sed -E 's/^(\[linux\] )?(\[ *[0-9.]+\] )?NE2K //')
	tx=$(kv "$line" tx_packets) irqs=$(kv "$line" interrupts_cpu0)
	[ "$(kv "$line" bound)" = 1 ] && [ "$(kv "$line" slot)" = 0000:00:01.0 ] &&
		[ "$(kv "$line" up)" = 1 ] &&
		[ -n "$(kv "$line" irq)" ] && [ "${tx:-0}" -gt 0 ] && [ "${irqs:-0}" -ge "$tx" ] ||
		{ echo "the guest's card: '$line'"; return 1; }
	# every frame went, and the line never stormed: Linux disables an IRQ
	# whose handler finds nothing 99,900 times in 100,000
	[ "$tx" -ge 50 ] && ! serial "$1" | grep -q 'nobody cared' ||
		{ echo "$tx of 50 frames sent, $irqs interrupts: the line stormed ('nobody cared')"; return 1; }
	# one interrupt a frame (56 for 56 measured): a line delivered again
	# after its thread quieted the card shows as one more a frame
	[ "$irqs" -le $((tx + tx / 8 + 2)) ] ||
		{ echo "$irqs interrupts for $tx frames: the line fired with the card quiet"; return 1; }
	# Linux's IRQ number is its own; the line is on IOAPIC pin 9, level (fasteoi)
	need "$1" '^\[linux\] .*LINUX_NE2K_IRQ +[0-9]+: +[0-9]+ +IO-APIC +9-fasteoi +eth0' \
		"eth0's interrupt on the virtual IOAPIC's pin 9, level-triggered" || return 1
	need "$1" '^PARTITION_END name=linux state=shutdown exit_code=0' "Linux powered off" || return 1
	! serial "$1" | grep '^PARTITION_STOP' > /dev/null || { echo "a partition was stopped"; return 1; }
	exits=$(serial "$1" | grep '^EXITS partition=linux ')
	dev=$(serial "$1" | grep '^DEVICES partition=linux ')
	[ -n "$exits" ] && [[ "$exits" != *external_interrupt=* ]] ||
		{ echo "external-interrupt exits in direct mode: $exits"; return 1; }
	[ "$(kv "$dev" pci)" = 1 ] && [ "$(kv "$dev" irq_path)" = direct ] &&
		[ "$(kv "$dev" irq_exits)" = 0 ] || { echo "the devices line: $dev"; return 1; }
	echo "ne2k: $tx frames sent, $irqs interrupts on CPU 0, 0 external-interrupt exits"
}
