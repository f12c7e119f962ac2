/* SPDX-License-Identifier: MIT */
/*
 * The VT-d driver: the remapping units the DMAR lists, programmed in
 * legacy mode, in root mode. DMA remapping gives each domain (a
 * partition's devices) one second-level table, shared by every unit, and
 * lets a function's DMA through only once it is attached to a domain; with
 * translation on, every other function's DMA is blocked and recorded as a
 * fault. Interrupt remapping, once on, delivers only the messages whose
 * table entry Tempo wrote, and only from the requester that entry names.
 *
 * The formats are hv/lib/vtd.h's; this file does the MMIO and the order of
 * operations (VT-d spec 6.5, 10.4). It takes its pages and the mapping of
 * the register pages from the caller (struct vtd_env), so the hypervisor
 * and its boot self-test (test=iommu, hv/start/iommu_test.c) run the same
 * code. Calls are not reentrant: one CPU at a time (the boot CPU, or the
 * caller's lock).
 *
 * What is refused, with the reason in @err: a unit Tempo cannot drive
 * (vtd_caps_usable), units with no common page-table depth, a function no
 * unit covers, one named by an RMRR (its firmware DMA would break: Tempo
 * does not assign such functions, docs/devices.md), a function attached
 * twice, interrupt remapping on a unit without it or without queued
 * invalidation.
 */
#ifndef TEMPO_DRIVERS_VTD_H
#define TEMPO_DRIVERS_VTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/acpi.h"
#include "hv/lib/vtd.h"

#define VTD_MAX_UNITS		ACPI_DMAR_MAX_UNITS
#define VTD_MAX_DOMAINS		32
#define VTD_IRT_ENTRIES		256	/* one 4 KiB page of entries */

struct vtd_env {
	/* zeroed 4 KiB pages for tables, their physical addresses, and flushes */
	struct vtd_pt_ops pages;
	/* a unit's registers, @bytes from @phys, mapped uncached; NULL if impossible */
	volatile void *(*map_regs)(uint64_t phys, uint32_t bytes);
	/* the PCI topology behind a device scope's bridges (may be empty) */
	struct acpi_pci_bridges bridges;
};

/*
 * Read every unit of @dmar, report it ("VT-d: unit 0 at 0xfed90000: ..."),
 * check it can be driven, give it an empty root table, switch queued
 * invalidation on where the unit has it, invalidate its caches and clear
 * its fault records. Translation stays as it was (off after reset): see
 * vtd_enable. 0, or -1 with the reason in @err.
 */
int vtd_init(const struct acpi_dmar *dmar, const struct vtd_env *env, char *err, size_t errlen);

/* How many units vtd_init took (0 before it, or after it failed). */
uint32_t vtd_unit_count(void);

/* True when every unit vtd_init took has 32-bit (x2APIC) interrupt destinations (ECAP.EIM). */
bool vtd_units_have_eim(void);

/*
 * Switch DMA translation on in every unit: from here a function's DMA
 * reaches memory only through its domain's table. 0 or -1 (@err).
 */
int vtd_enable(char *err, size_t errlen);

/*
 * A new, empty domain named @name (a partition's; in fault reports).
 * Returns its handle (>= 0), or -1 when all VTD_MAX_DOMAINS are taken or
 * no page is left.
 */
int vtd_domain_create(const char *name);

/*
 * Map DMA addresses [@gpa, @gpa + @size) of domain @dom to host
 * [@hpa, @hpa + @size) with @perm (VTD_PERM_*): vtd_slpt_map's rules
 * (VTD_OK, VTD_EINVAL, VTD_EEXIST, VTD_ENOMEM), and the units' caches
 * told where they may hold absent entries (CAP.CM).
 */
int vtd_domain_map(int dom, uint64_t gpa, uint64_t hpa, uint64_t size, unsigned int perm);

/*
 * The domain's table, for a pure helper that maps many ranges at once
 * (iommu_map_partition_ram); call vtd_domain_sync afterwards.
 */
struct vtd_slpt *vtd_domain_table(int dom);
void vtd_domain_sync(int dom);

/*
 * Let function @bdf of @segment DMA through domain @dom: its context entry
 * in the unit that covers it. 0, or -1 with the reason in @err.
 */
int vtd_attach(int dom, uint16_t segment, uint16_t bdf, char *err, size_t errlen);

/* Take the function out of its domain: its DMA is blocked again. 0 or -1 (@err). */
int vtd_detach(uint16_t segment, uint16_t bdf, char *err, size_t errlen);

/*
 * Interrupt remapping on, in every unit: one table of VTD_IRT_ENTRIES
 * entries, all absent, so that no message is delivered until its entry
 * is written; compatibility-format messages blocked (GCMD.CFI clear).
 * @x2apic: 32-bit destinations (IRTA.EIME; every unit needs ECAP.EIM).
 * 0, or -1 with the reason in @err.
 */
int vtd_ir_enable(bool x2apic, char *err, size_t errlen);

/*
 * True when every unit's GSTS shows interrupt remapping on and
 * compatibility-format interrupts blocked (IRES set, CFIS clear, 5.1.2.1).
 */
bool vtd_ir_confined(void);

/*
 * Write entry @index (remapped format) and invalidate the units' cached
 * copies. VTD_OK, or VTD_EINVAL (index past the table, interrupt remapping
 * off, or the request itself refused by vtd_irte_remapped).
 */
int vtd_irte_set(uint16_t index, const struct vtd_irte_req *req);

/* Make entry @index absent again: its messages are blocked. */
int vtd_irte_clear(uint16_t index);

/*
 * Read and clear every unit's fault records, calling @report for each with
 * the decoded fault and the name of the domain of its requester (NULL:
 * none). Returns how many there were. An overflow (faults lost while the
 * records were full) is reported once as a warning.
 */
typedef void (*vtd_fault_fn)(void *ctx, uint32_t unit, const struct vtd_fault *f,
			     const char *domain);
uint32_t vtd_poll_faults(vtd_fault_fn report, void *ctx);

#endif
