# SPDX-License-Identifier: MIT
# Emulator tests: devices. The boot's PCI enumeration (drivers/pci.c,
# docs/devices.md) through the 0xCF8 ports on Bochs' i440FX, with and without
# a card, and through ECAM where QEMU's q35 has an ACPI MCFG.

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
	need "$1" "^ERROR: config: partitions:16: mmio: 0xfee00000\+0x1000 overlaps the LAPIC registers" \
		"the LAPIC's page" || return 1
	[ "$(count_lines "$1" '^ERROR: config: ')" = 6 ] ||
		{ echo "$(count_lines "$1" '^ERROR: config: ') config errors, expected 6"; return 1; }
	! serial "$1" | grep '^Partition ' > /dev/null || { echo "a partition was built"; return 1; }
}
