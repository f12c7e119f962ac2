/* SPDX-License-Identifier: MIT */
/*
 * A partition's DMA, confined by VT-d (docs/devices.md, "VT-d"): each
 * partition given PCI functions gets one DMA domain whose table maps
 * exactly its RAM at the guest-physical addresses its CPUs see (the same
 * view as its EPT, hv/core/iommu_map.h), its functions attached to it, and
 * translation on, so that every function not attached has no DMA at all.
 * A fault is printed as a DMA_FAULT line and stops the partition whose
 * function it was; the others run on.
 *
 * Interrupt remapping goes on at boot with the units (dma_ir_start):
 * every physical IOAPIC entry is then written in remappable format through
 * its GSI's remapping entry (dma_ioapic_rte_write), and compatibility-
 * format messages, which a function's DMA to 0xFEExxxxx could forge, are
 * blocked. Only then may a partition's functions master the bus
 * (dma_confined). Without a usable DMAR (none, refused, or iommu=off on
 * Tempo's command line), or without interrupt remapping, nothing is
 * confined: an assigned function keeps bus mastering off
 * (hv/core/pci_assign.h), said once at boot.
 */
#ifndef TEMPO_HV_DEV_DMA_H
#define TEMPO_HV_DEV_DMA_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/vtd.h"
#include "hv/core/pci_assign.h"

struct acpi_info;
struct partition;

/*
 * The boot CPU, before the partitions are built: drive the units the DMAR
 * lists when some partition is given a PCI function (@any_pci) and
 * @cmdline does not say iommu=off. Reports what it did.
 */
void dma_boot(const struct acpi_info *ai, bool any_pci, const char *cmdline);

/*
 * The driver's environment: registers and tables identity-mapped below
 * 4 GiB, table pages from @alloc (NULL: the hypervisor's pool).
 */
void dma_vtd_env(struct vtd_env *env, void *(*alloc)(void *ctx, uint64_t *phys), void *ctx);

/* Remapping-table entries 0..DMA_IRTE_GSIS-1: one per GSI, the index is the GSI. */
#define DMA_IRTE_GSIS		128

/*
 * Interrupt remapping on in every unit vtd_init took (the boot, and the
 * self-test): each IOAPIC's requester id taken from @dmar's device scopes,
 * 32-bit destinations where every unit has them (else every CPU's APIC
 * id must fit 8 bits), then vtd_ir_enable, which blocks compatibility-
 * format messages. 0, or -1 with the reason in @err (remapping stays off).
 */
int dma_ir_start(const struct acpi_dmar *dmar, char *err, size_t errlen);

/* True once dma_ir_start succeeded. */
bool dma_interrupts_remapped(void);

/*
 * @count consecutive remapping entries after the GSIs' for one function's
 * messages, taken for good (a partition's build): the first index, or -1
 * when interrupt remapping is off or too few are left.
 */
int dma_irte_block(uint32_t count);

/*
 * Entries @first.. (@count) of a function's block absent again, each
 * invalidated (a stop: its device may ignore the MSI enable bits). Nothing
 * without interrupt remapping or for a block never given (@first < 0).
 */
void dma_irte_block_clear(int first, uint32_t count);

/*
 * A function's message through its block @first (@count entries): entries
 * @first + @index .. + @vectors - 1 written for @t's vector (+ k for the
 * k-th of a multiple-message MSI), fixed, edge, to @t's CPU, accepted only
 * from requester @bdf; *@msg the remappable message (SHV, sub-handle 0).
 * False when the block does not hold them or an entry was refused.
 */
bool dma_msi_remap(int first, uint32_t count, uint32_t index, uint32_t vectors, uint16_t bdf,
		   const struct irq_target *t, uint32_t msg[3]);

/*
 * Write GSI @gsi's physical IOAPIC entry, @rte in compatibility format
 * as Tempo composes it (fixed, physical, hv/core/irq_route.h). With
 * interrupt remapping on: the GSI's remapping entry first, when the entry
 * is live and its route changed (irq_rte_remap; a masked or refused entry
 * writes none), then the entry in remappable format. Off: @rte as it is.
 * False when nothing could be written (no IOAPIC has @gsi) or the
 * remapping entry was refused (the entry is then written masked).
 */
bool dma_ioapic_rte_write(uint32_t gsi, uint64_t rte);

/*
 * Whether @p's functions may master the bus (pci_dma_confinement: its own
 * domain, translation on, interrupt remapping on), and if not, why.
 */
enum pci_dma_confinement dma_confinement(const struct partition *p);
bool dma_confined(const struct partition *p);

/*
 * A domain named @name whose table maps a partition's RAM (@mem_size
 * bytes at host @ram_hpa) where the partition sees it: the handle, or -1
 * with the reason in @err. The hypervisor's partitions and the boot
 * self-test (hv/start/iommu_test.c) build theirs with it.
 */
int dma_domain_for_ram(const char *name, uint64_t mem_size, uint64_t ram_hpa, char *err,
		       size_t errlen);

/*
 * A fault record (vtd_poll_faults' report): its DMA_FAULT or IR_FAULT
 * line, and the partition named @domain, if one is, stopped. @ctx unused.
 */
void dma_fault(void *ctx, uint32_t unit, const struct vtd_fault *f, const char *domain);

/* The console core, between its drains: read and clear the units' fault records. */
void dma_poll(void);

#endif
