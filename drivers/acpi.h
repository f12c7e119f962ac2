/* SPDX-License-Identifier: MIT */
/*
 * ACPI table discovery: RSDP -> XSDT/RSDT -> MADT (CPUs), HPET, MCFG (where
 * PCI Express configuration space is memory-mapped), DMAR (VT-d remapping
 * units) and the FADT's reset register. Tables are outside input:
 * signatures, lengths and checksums are checked and no byte outside a
 * table's verified length is read.
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

/*
 * The DMAR table (Intel VT-d specification, chapter 8): the remapping
 * units (DRHD), the memory firmware keeps DMAing to (RMRR) and the device
 * scopes that say which PCI functions, I/O APICs and HPETs each one
 * covers. ATSR, RHSA, ANDD, SATC and SIDP structures are skipped: Tempo
 * enables no ATS and needs no proximity hints. A table that breaks any
 * rule below is refused whole (has_dmar stays false, with the reason as a
 * warning): a half-understood DMAR could leave a device under no unit's
 * control, so the machine is then treated as having no IOMMU.
 */
#define ACPI_DMAR_MAX_UNITS	16	/* DRHD structures */
#define ACPI_DMAR_MAX_RMRRS	16
#define ACPI_DMAR_MAX_SCOPES	128	/* device scopes of all DRHDs and RMRRs */
#define ACPI_DMAR_MAX_PATH	8	/* (device, function) hops from the host bridge */

enum acpi_dmar_scope_type {
	ACPI_DMAR_SCOPE_ENDPOINT = 1,	/* a PCI endpoint function */
	ACPI_DMAR_SCOPE_BRIDGE = 2,	/* a PCI bridge and every bus below it */
	ACPI_DMAR_SCOPE_IOAPIC = 3,	/* enum_id = the I/O APIC's MADT id */
	ACPI_DMAR_SCOPE_HPET = 4,	/* enum_id = the HPET's number */
	ACPI_DMAR_SCOPE_NAMESPACE = 5,	/* an ACPI namespace device (ANDD) */
};

struct acpi_dmar_scope {
	uint8_t type;			/* enum acpi_dmar_scope_type */
	uint8_t enum_id;
	uint8_t start_bus;
	uint8_t path_len;		/* 1..ACPI_DMAR_MAX_PATH */
	uint8_t path[ACPI_DMAR_MAX_PATH][2];	/* device (0-31), function (0-7) */
};

/* A DRHD: one remapping unit's registers and what it translates. */
struct acpi_dmar_unit {
	uint64_t reg_phys;		/* 4 KiB aligned, never 0 */
	uint32_t reg_bytes;		/* the register set: 2^size pages (size field, VT-d 3.0+) */
	uint16_t segment;
	bool include_pci_all;		/* every function of the segment no other unit names */
	uint16_t scope_first;		/* its scopes: scopes[scope_first .. + scope_count) */
	uint16_t scope_count;
};

/* An RMRR: [base, limit] that firmware-owned DMA of its devices still reaches. */
struct acpi_dmar_rmrr {
	uint64_t base;			/* 4 KiB aligned */
	uint64_t limit;			/* inclusive; limit + 1 is 4 KiB aligned */
	uint16_t segment;
	uint16_t scope_first;
	uint16_t scope_count;
};

struct acpi_dmar {
	uint8_t host_addr_width;	/* bits of DMA address the platform decodes (HAW + 1) */
	uint8_t flags;			/* ACPI_DMAR_F_* */
	uint32_t unit_count;
	struct acpi_dmar_unit units[ACPI_DMAR_MAX_UNITS];
	uint32_t rmrr_count;
	struct acpi_dmar_rmrr rmrrs[ACPI_DMAR_MAX_RMRRS];
	uint32_t scope_count;
	struct acpi_dmar_scope scopes[ACPI_DMAR_MAX_SCOPES];
	uint32_t skipped;		/* structures of the types ignored (ATSR, RHSA, ...) */
};

#define ACPI_DMAR_F_INTR_REMAP		(1u << 0)	/* the platform supports interrupt remapping */
#define ACPI_DMAR_F_X2APIC_OPT_OUT	(1u << 1)	/* firmware asks the OS not to enable x2APIC */
#define ACPI_DMAR_F_DMA_CTRL_OPT_IN	(1u << 2)	/* firmware protected DMA until the OS took over */

/* ACPI Generic Address Structure address spaces a reset register may use (ACPI 6.5 5.2.3.2). */
enum acpi_space {
	ACPI_SPACE_MEMORY = 0,
	ACPI_SPACE_IO = 1,
	/* bus 0: device in bits 47:32, function 31:16, offset 15:0 */
	ACPI_SPACE_PCI_CONFIG = 2,
};

/*
 * The FADT's reset register (ACPI 6.5 5.2.9, RESET_REG and RESET_VALUE):
 * writing @value there resets the machine. Kept only when the FADT says it
 * is supported (RESET_REG_SUP) and it has a form the spec allows.
 */
struct acpi_reset_reg {
	uint8_t space;			/* enum acpi_space */
	uint8_t value;
	uint64_t address;
};

/*
 * The FADT's fixed-hardware registers in I/O space (ACPI 6.5 5.2.9, Table
 * 5.9: SMI_CMD, PM1a/PM1b_EVT_BLK, PM1a/PM1b_CNT_BLK, PM_TMR_BLK and their
 * lengths), 0 where the FADT has none or is too short to say. Firmware
 * owns them: a write to SMI_CMD enters SMM, SLP_EN in a PM1 control block
 * powers the machine off. The 64-bit X_ forms are not read.
 */
struct acpi_fadt_ports {
	uint32_t smi_cmd;
	uint32_t pm1a_evt, pm1b_evt, pm1a_cnt, pm1b_cnt, pm_tmr;
	uint8_t pm1_evt_len, pm1_cnt_len, pm_tmr_len;
};

/* @out from a FADT of @len bytes at @t (its header checked by the caller); zeros if short. */
void acpi_fadt_ports(const uint8_t *t, uint32_t len, struct acpi_fadt_ports *out);

/*
 * The reset register of a FADT of @len bytes at @t: 0 and @out filled; 1
 * when it offers none (an ACPI 1.0 FADT, or RESET_REG_SUP clear: normal);
 * -1 with the reason in @why for a register the spec does not allow (ACPI
 * 6.5 5.2.9: system memory, system I/O or PCI configuration space on bus
 * 0, 8 bits wide at bit 0), which must not be written.
 */
int acpi_fadt_reset_reg(const uint8_t *t, uint32_t len, struct acpi_reset_reg *out, char *why,
			size_t whylen);

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

	bool has_fadt;
	uint8_t fadt_revision;
	bool has_reset_reg;		/* reset_reg is valid */
	struct acpi_reset_reg reset_reg;
	struct acpi_fadt_ports fadt_ports;

	bool has_hpet;
	uint64_t hpet_phys;		/* base address (system memory space only) */
	uint8_t hpet_number;
	uint16_t hpet_min_tick;

	bool has_mcfg;			/* at least one valid range */
	uint32_t mcfg_count;
	struct acpi_mcfg mcfg[ACPI_MAX_MCFG];

	bool has_dmar;			/* a DMAR that passed every check of acpi_dmar_parse */
	struct acpi_dmar dmar;
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

/*
 * Parse a DMAR table of @len bytes at @t (its header, length and checksum
 * already checked: acpi_parse does that, and tempo-config reads the table
 * from /sys/firmware/acpi/tables/DMAR). 0 and @out filled, or -1 with
 * @out zeroed and a one-line reason in @err naming the structure's offset.
 */
int acpi_dmar_parse(const uint8_t *t, uint32_t len, struct acpi_dmar *out, char *err,
		    size_t errlen);

/*
 * The PCI topology a device scope's path needs past its first hop: the
 * secondary and subordinate bus numbers of the bridge at @bdf on @segment
 * (configuration offsets 0x19 and 0x1A), false when there is no bridge.
 */
struct acpi_pci_bridges {
	bool (*buses)(void *ctx, uint16_t segment, uint16_t bdf, uint8_t *secondary,
		      uint8_t *subordinate);
	void *ctx;
};

/* A PCI requester id: bus << 8 | device << 3 | function. */
static inline uint16_t acpi_bdf(uint8_t bus, uint8_t dev, uint8_t fn)
{
	return (uint16_t)(bus << 8 | (dev & 31) << 3 | (fn & 7));
}

/*
 * The function a scope's path ends at: one hop is (start_bus, device,
 * function); each further hop goes through the secondary bus of the bridge
 * the previous hop named, which @br (may be NULL: then only one-hop paths
 * resolve) reads from the machine. False when a bridge on the way is missing.
 */
bool acpi_dmar_scope_bdf(const struct acpi_dmar_scope *s, uint16_t segment,
			 const struct acpi_pci_bridges *br, uint16_t *bdf);

/*
 * Does scope @s cover function @bdf: an endpoint scope that resolves to it, a
 * bridge scope with @bdf on a bus below that bridge (or the bridge itself),
 * an I/O APIC or HPET scope whose path resolves to @bdf (their source-id).
 */
bool acpi_dmar_scope_covers(const struct acpi_dmar_scope *s, uint16_t segment, uint16_t bdf,
			    const struct acpi_pci_bridges *br);

/*
 * The unit that translates DMA and interrupt requests from @bdf on
 * @segment: the one whose device scopes name it, else that segment's
 * INCLUDE_PCI_ALL unit; -1 when no unit covers it (its DMA is then not
 * remapped at all, and it must not be given bus mastering).
 */
int acpi_dmar_unit_of(const struct acpi_dmar *d, uint16_t segment, uint16_t bdf,
		      const struct acpi_pci_bridges *br);

/*
 * The first RMRR (index) whose device scopes name @bdf on @segment, or -1.
 * Tempo refuses to give such a function to a partition (docs/devices.md).
 */
int acpi_dmar_rmrr_of(const struct acpi_dmar *d, uint16_t segment, uint16_t bdf,
		      const struct acpi_pci_bridges *br);

/*
 * The unit whose scopes list the I/O APIC with MADT id @ioapic_id (type 3),
 * and in *@sid the source-id its interrupt requests carry; -1 if none does.
 */
int acpi_dmar_ioapic_unit(const struct acpi_dmar *d, uint8_t ioapic_id,
			  const struct acpi_pci_bridges *br, uint16_t *sid);

#endif
