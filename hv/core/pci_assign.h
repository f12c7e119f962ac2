/* SPDX-License-Identifier: MIT */
/*
 * The configuration-space filter of a PCI function assigned to a
 * partition. Pure: the hypervisor routes the guest's configuration
 * accesses to this function (on its virtual bus, hv/core/vpci.c's
 * neighbour) to pci_assign_cfg_read() / pci_assign_cfg_write(), its
 * trapped accesses to a BAR (the MSI-X table's pages) to
 * pci_assign_bar_read() / pci_assign_bar_write(), and acts on the event a write returns (maps or
 * unmaps a BAR's window). The filter reads and writes the physical
 * function itself, through the accessors the hypervisor gives it in
 * struct pci_assign_env.
 *
 * What the guest sees (PCI Local Bus 3.0, 6.1-6.2, 6.7-6.8; PCIe 4.0, 7.5.3):
 *
 * - Reads pass to the physical function, but for what is shadowed: the
 *   BARs, the expansion ROM BAR, the interrupt line (desc->interrupt_line
 *   at reset, then the guest's byte), and the MSI and
 *   MSI-X capabilities' message fields and enable bits.
 * - BARs: sizing (all ones written, the size mask read back) and moves
 *   act on a shadow; the physical BAR keeps the host address, and the
 *   hypervisor maps the guest address onto it (a memory BAR through the
 *   EPT, uncacheable). A memory BAR may move anywhere its size allows but
 *   onto a forbidden range (the partition's RAM, Tempo's own ranges,
 *   another device's BAR: env->forbidden, which the caller keeps current)
 *   or onto another BAR of the same function. With memory decode on, a
 *   write that would put a BAR there is dropped; with decode off it is
 *   kept (a 64-bit BAR passes through half-written addresses while it is
 *   moved), and turning decode on puts each BAR that sits on a forbidden
 *   range back where it last was allowed. An I/O BAR cannot move: its
 *   ports pass through the I/O bitmap at their own numbers, so a write of
 *   another address is dropped (sizing works).
 * - Expansion ROM BAR: reads 0 (no ROM offered), writes dropped.
 * - Command: I/O space, memory space, parity and SERR response and INTx
 *   disable pass through; bus master only when env->dma_confined (else the
 *   physical bit stays 0 and reads 0, and the event says it was refused).
 *   Turning decode on first writes the host addresses back into the
 *   physical BARs (a function-level or D3 reset may have cleared them).
 *   Status: reads pass, writes pass (its error bits are write-one-to-clear).
 * - MSI: address and data are the guest's, on a shadow; the physical
 *   capability gets the message irq_route() (hv/core/irq_route.h) gives for
 *   it, or stays disabled while that refuses it (the event and
 *   pci_assign_msi_verdict() say why). With several vectors (multiple
 *   message enable), every vector of the block must pass; the guest's
 *   enable above what the function can do is cut to its capability.
 *   Per-vector mask bits pass through.
 * - MSI-X: the enable and function-mask bits pass through; each table
 *   entry is shadowed, and its physical entry carries the irq_route()
 *   message, or is masked while that is refused. The pending-bit array and
 *   anything else in the table's pages passes through.
 * - Writes elsewhere are dropped, except: cache line size and latency
 *   timer; the power-management capability's control/status register;
 *   the PCI Express capability's device control (without initiate-FLR, a
 *   reset behind the filter's back), device status, link control, link
 *   status and device control 2. Extended configuration space (0x100 up)
 *   reads pass and writes are dropped.
 *
 * Bridges are refused by the assignment's checks (hv/core/devassign.h);
 * pci_assign_init() refuses any header type but 0.
 *
 * Concurrency: one function, one partition: the hypervisor serialises the
 * calls (the partition's PCI lock), and the physical accessors are safe
 * to call from there.
 */
#ifndef TEMPO_HV_CORE_PCI_ASSIGN_H
#define TEMPO_HV_CORE_PCI_ASSIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/core/irq_route.h"
#include "hv/lib/pci_defs.h"

#define PCI_ASSIGN_MSI_INDEX	0xffffffffu	/* env->msi_compose's index for MSI */

enum pci_assign_bar_kind {
	PCI_ASSIGN_BAR_NONE,	/* not implemented, or the upper half of a 64-bit BAR */
	PCI_ASSIGN_BAR_IO,
	PCI_ASSIGN_BAR_MEM32,
	PCI_ASSIGN_BAR_MEM64,	/* this register and the next */
};

/* A BAR as the boot's enumeration found it. */
struct pci_assign_bar_desc {
	enum pci_assign_bar_kind kind;
	bool prefetch;
	uint64_t size;		/* a power of two: 4-256 for I/O, 16 or more for memory */
	uint64_t host;		/* where the function decodes it (the physical BAR) */
	uint64_t guest;		/* where the partition sees it at reset (I/O: == host) */
};

struct pci_assign_desc {
	uint32_t bdf;
	struct pci_assign_bar_desc bar[PCI_TYPE0_BARS];
	uint16_t command;	/* the guest's command register at reset: IO and MEM bits */
	/*
	 * The interrupt line the guest reads at reset, as firmware leaves it
	 * (PCI 3.0, 6.2.4): the GSI the function's INTx reaches, so that a
	 * guest without _PRT routing finds it there. 0xFF: unknown or none.
	 */
	uint8_t interrupt_line;
};

/* A guest-physical range: [base, base + size). */
struct pci_range {
	uint64_t base;
	uint64_t size;
};

struct pci_assign_env {
	const struct pci_cfg_ops *cfg;		/* the physical configuration space */
	/* The function's memory (the MSI-X table's pages), by host-physical address. */
	uint64_t (*mmio_read)(void *ctx, uint64_t hpa, uint8_t size);
	void (*mmio_write)(void *ctx, uint64_t hpa, uint8_t size, uint64_t value);
	void *mmio_ctx;
	const struct irq_cpus *cpus;		/* the partition's CPUs */
	const struct irq_vector_set *vectors;	/* the vectors it may not use */
	const struct pci_range *forbidden;	/* where no BAR of this function may decode */
	uint32_t forbidden_count;
	bool dma_confined;			/* an IOMMU confines the function's DMA */
	/*
	 * Optional: the physical message for an interrupt (with interrupt
	 * remapping, a remappable-format message whose table entries the hook
	 * writes). NULL: the compatibility format, irq_target_msi(). @index:
	 * PCI_ASSIGN_MSI_INDEX for MSI, else the MSI-X entry; @vectors: how
	 * many vectors the message carries (a multiple-message MSI sets the
	 * low bits of @t->vector itself), each to @t's CPU. False: refuse it.
	 */
	bool (*msi_compose)(void *ctx, uint32_t bdf, uint32_t index, uint32_t vectors,
			    const struct irq_target *t, uint32_t *addr_lo, uint32_t *addr_hi,
			    uint32_t *data);
	void *compose_ctx;
};

struct pci_assign_msix_entry {
	uint32_t guest[4];	/* address low, high, data, vector control: the guest's */
	uint32_t phys[4];	/* the same fields as last written to the function */
	uint8_t verdict;	/* enum irq_verdict of the guest's message */
};

struct pci_assign_bar {
	enum pci_assign_bar_kind kind;
	bool prefetch;
	uint64_t size;
	uint64_t host;
	uint64_t guest;		/* the shadow's address bits (both dwords if 64-bit) */
	uint64_t allowed;	/* the last address at which it decoded (or the reset one) */
};

struct pci_assign_fn {
	uint32_t bdf;
	const struct pci_assign_env *env;
	struct pci_assign_desc desc;		/* for pci_assign_reset() */
	struct pci_assign_bar bar[PCI_TYPE0_BARS];
	uint16_t command;		/* the guest's IO, MEM, MASTER, PARITY, SERR, INTX bits */
	uint8_t interrupt_line;
	/* capabilities: offsets, 0 when absent */
	uint8_t msi_cap, msix_cap, pm_cap, exp_cap;
	/* MSI */
	uint16_t msi_flags_hw;		/* the function's read-only control bits */
	uint16_t msi_control;		/* the guest's enable and multiple message enable */
	uint32_t msi_addr_lo, msi_addr_hi;
	uint16_t msi_data;
	uint8_t msi_data_off, msi_mask_off;	/* from the capability; mask 0: no masking */
	uint8_t msi_verdict;		/* enum irq_verdict of the guest's message */
	uint32_t msi_phys[3];		/* address low, high, data last written */
	uint16_t msi_phys_control;	/* the control last written */
	/* MSI-X */
	uint16_t msix_control;		/* the guest's enable and function mask */
	uint32_t msix_count;		/* table entries */
	uint8_t msix_bar;
	uint32_t msix_offset;		/* the table's offset in its BAR */
	struct pci_assign_msix_entry *msix;	/* the caller's, msix_count entries */
};

/* What an access refused, one bit each (event.refused). */
enum pci_assign_refusal {
	PCI_ASSIGN_REFUSED_BAR_FORBIDDEN, /* a BAR onto a forbidden range: kept where it was */
	PCI_ASSIGN_REFUSED_BAR_IO_MOVE,	  /* an I/O BAR given another address */
	PCI_ASSIGN_REFUSED_BUS_MASTER,	  /* bus master without an IOMMU confining DMA */
	PCI_ASSIGN_REFUSED_MSI,		  /* the MSI message: pci_assign_msi_verdict() */
	PCI_ASSIGN_REFUSED_MSIX,	  /* an MSI-X entry: pci_assign_msix_verdict() */
	PCI_ASSIGN_REFUSED_FLR,		  /* initiate function-level reset */
	PCI_ASSIGN_REFUSED_WRITE,	  /* a register Tempo does not let the guest write */
	PCI_ASSIGN_REFUSED_COUNT
};

/* A short name for reports: "bar-forbidden", "bar-io-move", ... */
const char *pci_assign_refusal_name(enum pci_assign_refusal r);

/*
 * Whether a partition's functions may master the bus (env->dma_confined).
 * Only when all hold: VT-d units driven, the partition has its own domain
 * (its DMA reaches only its RAM), translation is on (an unattached
 * function has no DMA) and interrupt remapping is on with compatibility
 * format blocked, since DMA remapping does not translate writes to
 * 0xFEExxxxx: without it a device could write an interrupt message of any
 * vector and destination. The first that fails is the answer.
 */
enum pci_dma_confinement {
	PCI_DMA_CONFINED,		/* bus master allowed */
	PCI_DMA_NO_IOMMU,		/* no usable DMAR, or iommu=off */
	PCI_DMA_NO_DOMAIN,		/* the partition has no domain of its own */
	PCI_DMA_NOT_TRANSLATING,	/* translation off: unattached functions reach memory */
	PCI_DMA_NO_INTERRUPT_REMAP,	/* interrupt messages not confined */
	PCI_DMA_REQUESTER_SHARED,	/* pci_requesters_alone said no */
	PCI_DMA_CONFINEMENT_COUNT
};

enum pci_dma_confinement pci_dma_confinement(bool units_ready, bool has_domain, bool translating,
					     bool interrupts_remapped, bool requesters_alone);

/*
 * Whether the functions @mine (bus:device.function each) are alone in the
 * requester ids they send under: none on a bus where a function of another
 * owner (@others) is, none equal to a @reserved id (an IOAPIC's, from the
 * DMAR). On one bus two owners' functions may reach each other's BARs by
 * peer-to-peer DMA that never reaches VT-d (a switch or a multifunction
 * device without ACS), and behind a PCIe-to-PCI bridge the bus's functions
 * all send as one alias, which would pass the other's interrupt-remapping
 * source-id check; a function with an IOAPIC's id would pass the check of
 * that IOAPIC's entries. Decided by bus, without reading ACS: conservative.
 * False with @culprit the first of @mine that fails.
 */
bool pci_requesters_alone(const uint16_t *mine, uint32_t n, const uint16_t *others, uint32_t m,
			  const uint16_t *reserved, uint32_t r, uint16_t *culprit);

/* Words for reports: "bus master allowed (...)", "interrupts not remapped", ... */
const char *pci_dma_confinement_text(enum pci_dma_confinement c);

/*
 * Where a BAR decodes for the guest. @live: it decodes now. An I/O BAR's
 * ports @gpa.. then pass through the I/O bitmap. A memory BAR is mapped
 * @gpa onto @hpa through the EPT, uncacheable, but for what must trap:
 * the whole BAR when @trap_all (smaller than a page: its page may hold
 * another device's registers), else the MSI-X table's pages
 * (pci_assign_msix_hole()). The guest's accesses there go to
 * pci_assign_bar_read() / pci_assign_bar_write().
 */
struct pci_assign_window {
	uint64_t gpa;
	uint64_t hpa;
	uint64_t size;
	bool io;
	bool live;
	bool trap_all;
};

#define PCI_ASSIGN_EV_BARS	(1u << 0)	/* bars_changed: remap those windows */
#define PCI_ASSIGN_EV_MSI	(1u << 1)	/* the physical MSI changed */
#define PCI_ASSIGN_EV_MSIX	(1u << 2)	/* a physical MSI-X entry, or the enable */

struct pci_assign_event {
	uint32_t changed;		/* PCI_ASSIGN_EV_* */
	uint32_t refused;		/* 1 << enum pci_assign_refusal */
	uint32_t bars_changed;		/* 1 << BAR index */
	struct pci_assign_window was[PCI_TYPE0_BARS], now[PCI_TYPE0_BARS];
};

/*
 * Take function @desc->bdf for a partition: checks @desc against the
 * physical function (header type 0; BARs that fit their kind: sizes powers
 * of two, addresses aligned to them, a 64-bit BAR not in the last slot and
 * its upper slot NONE, I/O guest == host), walks its capabilities
 * (hv/lib/pci_cap.h), and quiets it physically: bus master off, MSI and
 * MSI-X disabled, every MSI-X entry masked. @msix holds @msix_cap entries
 * for its MSI-X table (may be NULL and 0 when it has none). False with
 * @err (one line) for a function that cannot be assigned: an MSI-X table
 * larger than @msix_cap, or not inside a memory BAR.
 */
bool pci_assign_init(struct pci_assign_fn *fn, const struct pci_assign_desc *desc,
		     const struct pci_assign_env *env, struct pci_assign_msix_entry *msix,
		     uint32_t msix_cap, char *err, size_t errlen);

/*
 * Quiet the physical function (a partition stopping, before anything else
 * runs on its RAM): bus master off, MSI and MSI-X disabled, every MSI-X
 * entry masked. The shadow is left alone.
 */
void pci_assign_quiesce(struct pci_assign_fn *fn);

/*
 * Back to the state pci_assign_init() left (a partition restarting): the
 * function quieted, the shadow at reset, the physical command register
 * set to @desc->command. @ev says which windows changed.
 */
void pci_assign_reset(struct pci_assign_fn *fn, struct pci_assign_event *ev);

/*
 * Configuration space: @offset below 0x1000, @size 1, 2 or 4 inside one
 * dword. Anything else reads all ones (cut to @size) and writes nothing.
 */
uint32_t pci_assign_cfg_read(struct pci_assign_fn *fn, uint32_t offset, uint8_t size);
void pci_assign_cfg_write(struct pci_assign_fn *fn, uint32_t offset, uint8_t size,
			  uint32_t value, struct pci_assign_event *ev);

/* BAR @i's window now. */
struct pci_assign_window pci_assign_window(const struct pci_assign_fn *fn, uint32_t i);

/*
 * The part of the MSI-X table's BAR that the EPT must leave unmapped (so
 * that its accesses trap): true with the BAR's index, and the page-aligned
 * offset and length of the table's pages in it (cut to the BAR). False:
 * no MSI-X.
 */
bool pci_assign_msix_hole(const struct pci_assign_fn *fn, uint32_t *bar, uint64_t *offset,
			  uint64_t *len);

/*
 * A trapped access to memory BAR @bar at @offset (the MSI-X hole, or
 * anywhere in a @trap_all BAR). The MSI-X table's entries answer from the
 * shadow (a dword, or a naturally aligned qword); anything else inside
 * the BAR passes to the function (env->mmio_*), naturally aligned, 1, 2,
 * 4 or 8 bytes. Any other access reads all ones and writes nothing.
 */
uint64_t pci_assign_bar_read(struct pci_assign_fn *fn, uint32_t bar, uint64_t offset,
			     uint8_t size);
void pci_assign_bar_write(struct pci_assign_fn *fn, uint32_t bar, uint64_t offset, uint8_t size,
			  uint64_t value, struct pci_assign_event *ev);

/* Why the guest's MSI message, or MSI-X entry @i, is not delivered (IRQ_OK: it is, or off). */
enum irq_verdict pci_assign_msi_verdict(const struct pci_assign_fn *fn);
enum irq_verdict pci_assign_msix_verdict(const struct pci_assign_fn *fn, uint32_t i);

#endif
