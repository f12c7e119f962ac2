/* SPDX-License-Identifier: MIT */
/*
 * What a guest finds in its memory at entry, written the way GRUB (and the
 * firmware) would leave it: a multiboot1 or multiboot2 information block and
 * ACPI tables (RSDP, RSDT, MADT) that list only the partition's CPUs.
 *
 * The builders write into a host view of guest memory (@mem, mapping
 * guest-physical 0 up) and only below the MMIO window; @mem_size is the
 * partition's RAM, laid out as hv/core/guest_ram.h says (RAM past the
 * window continues at 4 GiB, and only the memory maps mention it). Pure and
 * host-testable.
 */
#ifndef TEMPO_HV_GUEST_BOOT_H
#define TEMPO_HV_GUEST_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fixed guest-physical layout of what the hypervisor writes (documented). */
#define GUEST_INFO_GPA		0x1000ull	/* multiboot info block, up to ... */
#define GUEST_INFO_MAX		0x7000ul	/* ... 28 KiB (0x1000-0x7fff) */
#define GUEST_ACPI_GPA		0xe0000ull	/* RSDP here (BIOS area, found by scanning) */
#define GUEST_ACPI_MAX		0x10000ull
#define GUEST_LOW_USABLE_END	0x9f000ull	/* 0..0x9efff usable, then reserved to 1 MiB */
#define GUEST_HIGH_START	0x100000ull

#define GUEST_MAX_CPUS		64
#define GUEST_MAX_MODULES	4

/*
 * The I/O port of the sleep control register a Linux guest's FADT names
 * (the status register is the next port). A guest writes SLP_TYP 5 (S5) << 2
 * | SLP_EN (bit 5), 0x34, there to power off.
 */
#define GUEST_ACPI_PM_PORT	0x600
#define GUEST_ACPI_S5_SLP_TYP	5	/* the DSDT's \_S5 value */

/* A write of @value to the sleep control register asks for power-off. */
static inline bool guest_acpi_is_poweroff(uint8_t value)
{
	return (value & 0x20) && ((value >> 2) & 7) == GUEST_ACPI_S5_SLP_TYP;
}

struct guest_module {
	uint64_t start;		/* guest-physical */
	uint64_t end;		/* exclusive */
	const char *string;	/* module string, NUL-terminated */
};

/* The 64-bit windows a PCI host bridge may list (one per channel, at most). */
#define GUEST_PCI_MEM64_MAX	8
#define GUEST_PCI_IO_MAX	16
#define GUEST_PCI_MEM_MAX	16
#define GUEST_PCI_INTX_MAX	16

struct guest_range {
	uint64_t start;
	uint64_t end;		/* exclusive */
};

#define GUEST_IOAPIC_ADDR		0xfec00000u
#define GUEST_IRQ_OVERRIDES_MAX		16

/* An ISA IRQ wired to another GSI (MADT type 2: bus 0, MPS INTI flags). */
struct guest_irq_override {
	uint8_t source;
	uint32_t gsi;
	uint16_t flags;
};

/* An assigned function's INTx on the guest's bus 0: device @device's pin @pin reaches @gsi. */
struct guest_pci_intx {
	uint8_t device;		/* 0-31 */
	uint8_t pin;		/* 0-3: INTA-INTD */
	uint32_t gsi;
};

struct guest_platform {
	uint64_t mem_size;		/* guest RAM (hv/core/guest_ram.h) */
	uint32_t cpu_count;
	uint32_t apic_ids[GUEST_MAX_CPUS];	/* x2APIC ids; [0] is the boot vCPU */
	const char *cmdline;		/* NUL-terminated */
	const char *loader_name;	/* e.g. "Tempo 0.1" */
	uint32_t module_count;
	struct guest_module modules[GUEST_MAX_MODULES];
	uint16_t acpi_pm_port;		/* 0: no FADT/DSDT; else the sleep control port */
	/*
	 * A virtual PCI bus (hv/core/vpci.h): the DSDT gets a host bridge,
	 * \_SB.PCI0, whose _CRS lists bus 0, ports 0xCF8-0xCFF, the BAR0
	 * window [TEMPO_PCI_BAR0_BASE, TEMPO_PCI_MMIO_WINDOW_END) and one
	 * 64-bit window per non-empty pci_mem64 range, where the BAR2s are
	 * (vpci_bar2_size() of each channel at its address, so that BAR2's
	 * padding past the channel is inside too). Only where there is a
	 * DSDT (acpi_pm_port): a guest without one finds the bus by probing
	 * 0xCF8 itself.
	 */
	bool pci_bus;
	uint32_t pci_mem64_count;	/* 0..GUEST_PCI_MEM64_MAX */
	struct guest_range pci_mem64[GUEST_PCI_MEM64_MAX];
	/*
	 * Assigned functions' BARs where firmware put them (hv/dev/pcifn.c):
	 * a WordIO window per non-empty I/O range (ports below 0x10000) and a
	 * non-cacheable QWordMemory window per non-empty memory range, so that
	 * the guest claims those BARs where they are. Neither may overlap the
	 * BAR0 window (memory) or the configuration ports (I/O).
	 */
	uint32_t pci_io_count;		/* 0..GUEST_PCI_IO_MAX */
	struct guest_range pci_io[GUEST_PCI_IO_MAX];
	uint32_t pci_mem_count;		/* 0..GUEST_PCI_MEM_MAX */
	struct guest_range pci_mem[GUEST_PCI_MEM_MAX];
	/*
	 * Their INTx: \_SB.PCI0._PRT gets an entry per item, device's pin to
	 * the GSI (the source Zero: a GSI, level and active low, ACPI 6.5
	 * 6.2.13). A guest with an IOAPIC and no 8259 (this MADT's) routes a
	 * PCI interrupt only through _PRT: Linux's fallback to the line
	 * register takes ISA IRQs, which it has none of then.
	 */
	uint32_t pci_intx_count;	/* 0..GUEST_PCI_INTX_MAX */
	struct guest_pci_intx pci_intx[GUEST_PCI_INTX_MAX];
	/*
	 * A virtual IOAPIC (irqs =): the MADT lists it, id 0 at
	 * GUEST_IOAPIC_ADDR with GSIs from 0, and the machine's ISA interrupt
	 * source overrides, so that the guest routes ISA IRQs as on the PC.
	 */
	bool ioapic;
	uint32_t irq_override_count;	/* 0..GUEST_IRQ_OVERRIDES_MAX */
	struct guest_irq_override irq_overrides[GUEST_IRQ_OVERRIDES_MAX];
};

/*
 * ACPI 2.0 tables at GUEST_ACPI_GPA: RSDP (revision 2, with both RSDT and
 * XSDT), RSDT, XSDT and a MADT with one x2APIC entry (type 9) per CPU, or a
 * type 0 local APIC entry when the id fits in 8 bits, flags enabled; with
 * ioapic an I/O APIC entry and the ISA overrides. With acpi_pm_port set
 * (not 0xffff: the status register is the next port) also a DSDT defining
 * \_S5 and a hardware-reduced revision 6 FADT pointing at it, whose sleep
 * control and status registers are the 8-bit I/O ports acpi_pm_port and
 * acpi_pm_port + 1; the RSDT and XSDT then list
 * the MADT and the FADT. With pci_bus as well the DSDT also holds the PCI
 * host bridge. All checksums valid. Returns the RSDP's guest-physical
 * address, or 0 if it does not fit or with pci_bus, a pci_mem64_count over
 * GUEST_PCI_MEM64_MAX or a range that ends before it starts or overlaps the
 * BAR0 window.
 */
uint64_t guest_build_acpi(uint8_t *mem, uint64_t mem_size, const struct guest_platform *p);

/* MPS INTI flags (ACPI 6.5, table 5.50): polarity bits 1:0, trigger mode bits 3:2 */
#define GUEST_INTI_ACTIVE_LOW		0x3
#define GUEST_INTI_LEVEL		0xc

/*
 * An assigned PCI function's INTx reaches GSI @gsi below 16: @p gets an
 * interrupt source override from ISA IRQ @gsi to GSI @gsi, level-triggered
 * and active low (PCI INTx# lines are level-sensitive and asserted low,
 * PCI 3.0, 2.2.6), as firmware's MADT says for PCI interrupts routed below
 * 16, so that the guest programs the pin for it before any driver asks.
 * It replaces every override of that source IRQ or to that GSI (an ISA
 * device's edge there would be wrong for the PCI line). False, @p left
 * alone, for a GSI of 16 or more (no ISA IRQ: a guest takes PCI GSIs as
 * level and low anyway) or no room left.
 */
bool guest_irq_override_pci(struct guest_platform *p, uint32_t gsi);

/*
 * Multiboot2 information at GUEST_INFO_GPA with tags: command line (1), boot
 * loader name (2), modules (3), basic meminfo (4), memory map (6: usable
 * 0..GUEST_LOW_USABLE_END, reserved to 1 MiB, usable 1 MiB up to the MMIO
 * window and from 4 GiB for the rest of mem_size, if any), ACPI
 * new RSDP (15, a copy of the 36-byte RSDP at @rsdp_gpa, which must be what
 * guest_build_acpi() returned), end. Returns its guest-physical address, or 0
 * if it does not fit in GUEST_INFO_MAX.
 */
uint64_t guest_build_mb2_info(uint8_t *mem, uint64_t mem_size, const struct guest_platform *p,
			      uint64_t rsdp_gpa);

/*
 * Multiboot1 information at GUEST_INFO_GPA: flags MEM (mem_lower/upper in
 * KiB), CMDLINE, MODS, MMAP (same map as above, entries size 20 + 4),
 * BOOT_LOADER_NAME; strings and tables placed after the structure. Returns its
 * guest-physical address, or 0 if it does not fit.
 */
uint64_t guest_build_mb1_info(uint8_t *mem, uint64_t mem_size, const struct guest_platform *p);

#endif
