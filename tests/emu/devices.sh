# SPDX-License-Identifier: MIT
# Emulator tests: devices. The boot's PCI enumeration (drivers/pci.c,
# docs/devices.md) through the 0xCF8 ports on Bochs' i440FX, with and without
# a card, and through ECAM where QEMU's q35 has an ACPI MCFG; VT-d DMA and
# interrupt remapping under QEMU's intel-iommu (drivers/vtd.c).

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
	[ "$(count_lines "$1" '^DMA_FAULT ')" = 4 ] ||
		{ echo "$(count_lines "$1" '^DMA_FAULT ') DMA_FAULT lines, expected 4"; return 1; }
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
	need "$1" '^IOMMU_TEST check=msi_remapped ok=1 index=5 vector=0x61 apic_id=0 stray=0x0$' \
		"the remapped MSI: vector 0x61 on APIC 0, nothing else" &&
	iommu_ok "$1" msi_unprogrammed_blocked "an index never written" &&
	iommu_ok "$1" msi_cleared_blocked "an entry written, then cleared" &&
	iommu_ok "$1" msi_other_source_blocked "an entry for another requester (source-id check)" &&
	iommu_ok "$1" msi_other_cpu_not_here "an entry aimed at another CPU" || return 1
	grep -E 'vtd_irte_get: detected non-present IRTE \(index=9,' "$1/emu.log" > /dev/null ||
		{ echo "QEMU did not report the unwritten entry 9"; return 1; }
	grep -E 'vtd_irte_get: invalid IRTE SID \(index=6,' "$1/emu.log" > /dev/null ||
		{ echo "QEMU did not report the source-id mismatch at entry 6"; return 1; }
}
