/* SPDX-License-Identifier: MIT */
/*
 * PCI enumeration at boot: which functions the machine has, with their
 * IDs, class, header type, BARs and their sizes, interrupt pin and line,
 * capabilities (MSI, MSI-X, power management, PCI Express) and, for
 * bridges, the buses behind them.
 *
 * The walk (pci_enumerate) is pure: it reads and writes configuration
 * space through struct pci_cfg_ops (hv/lib/pci_defs.h), so the host tests
 * run it over a fake segment, and the boot over configuration mechanism #1
 * (ports 0xCF8/0xCFC) or ECAM where the ACPI MCFG gives it
 * (drivers/pci_cfg.c). It is bounded: every bus of the range given, 32
 * devices, functions 1-7 only where function 0's header type says
 * multi-function, at most PCI_MAX_FUNCTIONS recorded; it follows no
 * pointer but the capability list, whose walk is bounded and loop-safe
 * (hv/lib/pci_cap.h).
 *
 * Sizing a BAR writes it (all ones, then the value it had: PCI 3.0,
 * 6.2.5.1) with the function's decoding turned off meanwhile, as Linux
 * does, except on host bridges (class 0x0600), whose decoding may carry
 * the very accesses being made; the command register is put back after.
 * A 64-bit BAR is sized as one. The expansion ROM is not sized.
 */
#ifndef TEMPO_DRIVERS_PCI_H
#define TEMPO_DRIVERS_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/lib/pci_defs.h"

/* Functions recorded: a server's few hundred fit; more are counted, not kept. */
#define PCI_MAX_FUNCTIONS	512

enum pci_bar_kind {
	PCI_BAR_NONE,		/* not implemented, or the upper half of a 64-bit BAR */
	PCI_BAR_IO,
	PCI_BAR_MEM32,
	PCI_BAR_MEM64,		/* this register and the next */
};

struct pci_bar {
	enum pci_bar_kind kind;
	bool prefetch;
	uint64_t addr;		/* as firmware left it (0: not placed) */
	uint64_t size;		/* 0 for NONE */
};

struct pci_function {
	uint16_t bdf;			/* PCI_BDF() */
	uint16_t vendor, device;
	uint32_t class_code;		/* base class 23:16, subclass 15:8, interface 7:0 */
	uint8_t revision;
	uint8_t header_type;		/* 0, 1 (PCI-PCI bridge), 2 (CardBus); bit 7 dropped */
	bool multifunction;		/* function 0's header type bit 7 */
	bool bridge;			/* header type 1 or 2, or base class 0x06 */
	uint8_t secondary_bus, subordinate_bus;	/* header types 1 and 2 */
	uint8_t bar_count;		/* 6, 2 or 1 registers by header type */
	struct pci_bar bar[PCI_TYPE0_BARS];
	uint8_t interrupt_pin;		/* 0 none, 1-4 INTA-INTD */
	uint8_t interrupt_line;		/* what firmware wrote there */
	uint8_t msi_cap, msix_cap, pm_cap, exp_cap;	/* offsets; 0: absent */
	bool msi_64bit;
	uint8_t msi_vectors;		/* multiple message capable: 1-32 */
	uint16_t msix_entries;
	uint8_t msix_bar;		/* the table's BAR (BIR) */
	uint32_t msix_offset;
	bool caps_malformed;		/* the capability list ended in a loop or the header */
};

struct pci_enum {
	uint8_t bus_first, bus_last;	/* the range walked */
	uint32_t found;			/* functions that answered: may be more than count */
	uint32_t count;			/* functions recorded */
	struct pci_function fn[PCI_MAX_FUNCTIONS];
};

/*
 * Walk buses @bus_first..@bus_last (every one: a bus number a bridge does
 * not name, such as a second host bridge's, is found all the same) into
 * *@out, in bus, device, function order. A function answers when its
 * vendor ID reads other than 0xFFFF and 0x0000.
 */
void pci_enumerate(const struct pci_cfg_ops *ops, uint8_t bus_first, uint8_t bus_last,
		   struct pci_enum *out);

/* The function at @bdf in @e, or NULL. */
const struct pci_function *pci_find(const struct pci_enum *e, uint16_t bdf);

/*
 * The boot's report line for @f, without the "PCI: " prefix and newline:
 * "00:03.0 8086:100e class 0x020000 type 0 pin A line 11
 * bar0=mem32:0xfebc0000+0x20000 bar1=io:0xc000+0x40 caps=msi64x1,msix5@bar3+0x0,pm,pcie"
 * (a bridge adds "bridge buses 01-02"; "caps-malformed" marks a list that
 * ended early). Cut to @len (always terminated); returns @buf.
 */
char *pci_describe(const struct pci_function *f, char *buf, size_t len);

#endif
