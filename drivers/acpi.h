/* SPDX-License-Identifier: MIT */
/*
 * ACPI table discovery: RSDP -> XSDT/RSDT -> MADT (CPUs), HPET and MCFG (where
 * PCI Express configuration space is memory-mapped).
 * Tables are outside input: signatures, lengths and checksums are checked and
 * no byte outside a table's verified length is read.
 */
#ifndef TEMPO_DRIVERS_ACPI_H
#define TEMPO_DRIVERS_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/lib/cpus.h"

#define ACPI_MAX_CPUS		TEMPO_MAX_CPUS	/* MADT entries kept: 16 bytes each */
#define ACPI_MAX_TABLES		64
#define ACPI_MAX_IOAPICS	8
#define ACPI_MAX_MCFG		8	/* ECAM ranges kept: one per segment and bus range */
#define ACPI_MAX_IRQ_OVERRIDES	16	/* one per ISA IRQ */

/*
 * How the parser reads physical memory. map() returns a pointer to @len
 * readable bytes at physical address @phys, or NULL when that range is not
 * accessible (outside mapped memory); the parser then reports an error.
 * The hypervisor's version checks against its identity map; the unit tests
 * serve a fake physical memory.
 */
struct acpi_mem {
	const void *(*map)(void *ctx, uint64_t phys, size_t len);
	void *ctx;
};

struct acpi_cpu {
	uint32_t apic_id;	/* x2APIC ID (xAPIC IDs widened) */
	uint32_t acpi_uid;	/* processor UID (type 0: processor id byte) */
	bool enabled;		/* flags bit 0 */
	bool online_capable;	/* flags bit 1 (ACPI 6.3+) */
	bool from_x2apic_entry;	/* MADT type 9 rather than type 0 */
};

struct acpi_ioapic {
	uint8_t id;
	uint32_t phys;
	uint32_t gsi_base;
};

/*
 * An interrupt source override (MADT type 2, ACPI 6.5 5.2.12.5): ISA IRQ
 * @source reaches GSI @gsi, with the MPS INTI @flags (bits 1:0 polarity,
 * 3:2 trigger mode; 0 = the bus's default: ISA is active high, edge).
 */
struct acpi_irq_override {
	uint8_t source;
	uint32_t gsi;
	uint16_t flags;
};

/*
 * One ECAM range (PCI Firmware Specification 3.0, 4.1.2): configuration
 * space of segment @segment, buses @bus_start..@bus_end, at @base + (bus <<
 * 20) + (device << 15) + (function << 12). @base is where bus 0 would be,
 * whatever @bus_start is.
 */
struct acpi_mcfg {
	uint64_t base;
	uint16_t segment;
	uint8_t bus_start;
	uint8_t bus_end;
};

struct acpi_info {
	uint8_t rsdp_revision;
	char oem_id[7];			/* NUL-terminated */
	bool use_xsdt;
	uint64_t root_phys;		/* XSDT or RSDT */

	uint32_t table_count;		/* tables listed in the root table */
	char table_sigs[ACPI_MAX_TABLES][5];
	uint64_t table_phys[ACPI_MAX_TABLES];

	bool has_madt;
	uint64_t lapic_phys;		/* from MADT, overridden by type 5 */
	uint32_t madt_flags;		/* bit 0: PC-AT compatible 8259s present */
	uint32_t cpu_count;		/* entries stored (enabled or not) */
	bool cpus_truncated;		/* more than ACPI_MAX_CPUS */
	struct acpi_cpu cpus[ACPI_MAX_CPUS];
	uint32_t ioapic_count;
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	uint32_t irq_override_count;	/* ISA (bus 0) overrides kept */
	struct acpi_irq_override irq_overrides[ACPI_MAX_IRQ_OVERRIDES];

	bool has_hpet;
	uint64_t hpet_phys;		/* base address (system memory space only) */
	uint8_t hpet_number;
	uint16_t hpet_min_tick;

	bool has_mcfg;			/* at least one valid range */
	uint32_t mcfg_count;
	struct acpi_mcfg mcfg[ACPI_MAX_MCFG];
};

/*
 * Parse from an RSDP copy (@rsdp, @rsdp_len bytes). Returns 0 and fills @out,
 * or a negative number with a one-line reason in @err. A bad or missing MADT
 * or HPET is not fatal (has_madt/has_hpet stay false and @warn, if not NULL,
 * says why); a bad RSDP or root table is. An MCFG is optional (no warning
 * when absent); an entry of it that is not a usable range (base 0, buses
 * backwards, a range past 2^64) is left out with a warning.
 */
int acpi_parse(const uint8_t *rsdp, size_t rsdp_len, const struct acpi_mem *mem,
	       struct acpi_info *out, char *err, size_t errlen, char *warn, size_t warnlen);

/* Sum of @len bytes modulo 256; a valid ACPI table sums to 0. */
uint8_t acpi_checksum(const void *p, size_t len);

#endif
