/* SPDX-License-Identifier: MIT */
/*
 * Where a device interrupt a partition programs may go: the rule its
 * virtual IOAPIC's redirection entries (hv/core/vioapic.c) and its assigned
 * functions' MSI and MSI-X messages (hv/core/pci_assign.c) share. Pure.
 *
 * An IOAPIC redirection entry and an x86 MSI carry the same request
 * (82093AA datasheet 3.2.4; SDM Vol. 3A 11.11): a vector, a delivery mode
 * (3 bits, the ICR's encoding), physical or logical destination mode and an
 * 8-bit destination; the entry adds polarity and trigger mode. irq_route()
 * checks one against the partition and answers the physical interrupt that
 * carries it, or why none may:
 *
 * - Vector: 16-255 (0-15 are exceptions; the LAPIC refuses them as an
 *   illegal vector, SDM 11.5.3), and none of the @forbidden set (Tempo's
 *   own: the caller passes arch/x86/trap.h's TRAP_HV_VECTOR_FIRST..LAST and
 *   whatever else it keeps).
 * - Delivery: fixed, or lowest priority. Lowest priority is delivered as
 *   fixed to one CPU of the destination (the first the partition lists
 *   among those named): any one of them is what the mode promises. SMI,
 *   NMI, INIT, ExtINT and the reserved encodings are refused: each would
 *   reach a CPU's mode switches, not its IDT.
 * - Destination, physical mode: an APIC id of one of the partition's CPUs,
 *   or 0xFF, the broadcast (SDM 11.6.2.1), meaning all of them. Logical
 *   mode: each CPU's 8-bit logical ID as its guest programmed it (an xAPIC
 *   LDR's bits 31:24), matched in the flat model (any common bit) or the
 *   cluster model (bits 7:4 the cluster, 15 meaning every cluster, and
 *   3:0 a mask: a matching cluster and a common mask bit), as the guest's
 *   DFR says. A CPU in x2APIC mode has logical ID 0 here, so no 8-bit
 *   logical destination names it (without interrupt remapping such CPUs
 *   take IOAPIC and MSI messages in physical mode only, SDM 11.12.10;
 *   Linux uses physical mode there).
 * - One physical destination: a fixed interrupt the destination gives to
 *   several CPUs is refused (the physical entry has one destination, and
 *   naming Tempo's other CPUs is not an option); lowest priority picks one.
 * - The chosen CPU's APIC id fits the 8 bits of a compatibility-format
 *   message unless @any_apic_id (the IOMMU composes a remapped message).
 *
 * The physical interrupt always uses physical destination mode and fixed
 * delivery: the guest's logical IDs are the guest's, not the hardware's.
 */
#ifndef TEMPO_HV_CORE_IRQ_ROUTE_H
#define TEMPO_HV_CORE_IRQ_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/lib/vtd.h"

#define IRQ_MAX_CPUS		64	/* CONFIG_MAX_VCPUS */
/*
 * 0-31 are the exceptions' (SDM Vol. 3A 6.2). The APIC refuses only 0-15
 * (11.5.2) and delivers 16-31, which a core in root mode would take through
 * hv's exception entries (a machine check at 18, an error code popped that
 * was never pushed at 17 or 21): no device's vector may be below 32.
 */
#define IRQ_VECTOR_FIRST	32
#define IRQ_DEST_BROADCAST	0xffu

/* Delivery modes (the ICR's and the redirection entry's bits 10:8) */
#define IRQ_DELIVERY_FIXED	0
#define IRQ_DELIVERY_LOWEST	1
#define IRQ_DELIVERY_SMI	2
#define IRQ_DELIVERY_NMI	4
#define IRQ_DELIVERY_INIT	5
#define IRQ_DELIVERY_EXTINT	7

/* The x86 MSI message (SDM Vol. 3A 11.11.1, 11.11.2) */
#define MSI_ADDR_BASE		0xfee00000u
#define MSI_ADDR_BASE_MASK	0xfff00000u
#define MSI_ADDR_DEST_SHIFT	12	/* destination ID, bits 19:12 */
#define MSI_ADDR_RESERVED	0x00000ff0u	/* 11:4: no extended destination ID */
#define MSI_ADDR_DM_LOGICAL	0x4u	/* bit 2; bit 3, the redirection hint, is ignored */
#define MSI_DATA_VECTOR_MASK	0xffu
#define MSI_DATA_DELIVERY_SHIFT	8
#define MSI_DATA_LEVEL_ASSERT	(1u << 14)
#define MSI_DATA_TRIGGER_LEVEL	(1u << 15)

/* An IOAPIC redirection entry (82093AA 3.2.4) */
#define IOAPIC_RTE_VECTOR_MASK	0xffull
#define IOAPIC_RTE_DELIVERY_SHIFT 8
#define IOAPIC_RTE_DELIVERY_MASK (7ull << 8)
#define IOAPIC_RTE_DEST_LOGICAL	(1ull << 11)
#define IOAPIC_RTE_DELIVERY_STATUS (1ull << 12)	/* read-only: sent, not yet accepted */
#define IOAPIC_RTE_ACTIVE_LOW	(1ull << 13)
#define IOAPIC_RTE_REMOTE_IRR	(1ull << 14)	/* read-only: level, taken, no EOI yet */
#define IOAPIC_RTE_LEVEL	(1ull << 15)
#define IOAPIC_RTE_MASKED	(1ull << 16)
#define IOAPIC_RTE_DEST_SHIFT	56
/*
 * The same entry in remappable format (VT-d spec 5.1.5.1): bit 48 set,
 * the interrupt index's bits 14:0 in 63:49 and bit 15 in bit 11 (where
 * the compatibility format has its destination mode); vector, polarity,
 * trigger and mask stay where they were, and the vector must equal the
 * remapping entry's so that a level interrupt's EOI matches the entry.
 */
#define IOAPIC_RTE_REMAPPABLE	(1ull << 48)
#define IOAPIC_RTE_INDEX15	(1ull << 11)
#define IOAPIC_RTE_INDEX_SHIFT	49

/* The vectors a partition may not use, one bit each. */
struct irq_vector_set {
	uint64_t bits[4];
};

static inline void irq_vector_add(struct irq_vector_set *s, uint8_t v)
{
	s->bits[v >> 6] |= 1ull << (v & 63);
}

static inline bool irq_vector_in(const struct irq_vector_set *s, uint8_t v)
{
	return s->bits[v >> 6] >> (v & 63) & 1;
}

/* How an 8-bit logical destination is matched (the guest's xAPIC DFR). */
enum irq_logical_model {
	IRQ_LOGICAL_FLAT,
	IRQ_LOGICAL_CLUSTER,
};

/* A partition's CPUs as interrupt destinations, in its own order. */
struct irq_cpus {
	uint32_t count;				/* 1..IRQ_MAX_CPUS */
	uint32_t apic_id[IRQ_MAX_CPUS];		/* physical x2APIC ids, as the guest sees */
	uint8_t logical_id[IRQ_MAX_CPUS];	/* xAPIC LDR bits 31:24; 0 in x2APIC mode */
	enum irq_logical_model logical_model;
	bool any_apic_id;			/* interrupt remapping: ids above 255 reachable */
};

/* One request: a redirection entry's or an MSI's fields. */
struct irq_request {
	uint8_t vector;
	uint8_t delivery;	/* IRQ_DELIVERY_* */
	bool logical;
	uint8_t dest;
	bool level;		/* IOAPIC only; an MSI is an edge */
	bool active_low;	/* IOAPIC only */
};

/* The physical interrupt: fixed, physical destination mode. */
struct irq_target {
	uint32_t apic_id;
	uint8_t vector;
	bool level;
	bool active_low;
	uint32_t cpu;		/* the index of the CPU in struct irq_cpus */
};

enum irq_verdict {
	IRQ_OK,
	IRQ_VECTOR_RESERVED,	/* 0-31 */
	IRQ_VECTOR_TEMPO,	/* in the forbidden set */
	IRQ_DELIVERY_REFUSED,	/* not fixed or lowest priority */
	IRQ_DEST_NOT_OURS,	/* names none of the partition's CPUs */
	IRQ_DEST_SEVERAL,	/* fixed delivery to more than one CPU */
	IRQ_DEST_WIDE,		/* APIC id above 255 without interrupt remapping */
	IRQ_MSI_ADDRESS,	/* MSI address not 0xFEExxxxx, upper half or bits 11:4 set */
	IRQ_REMAP_REFUSED,	/* the interrupt-remapping hook had no entry for it */
	IRQ_VECTOR_TAKEN,	/* another partition's device interrupts use that vector */
	IRQ_VERDICT_COUNT
};

/* A short name for reports: "ok", "vector-reserved", "vector-tempo", ... */
const char *irq_verdict_name(enum irq_verdict v);

/*
 * Check @rq against @cpus and @forbidden. IRQ_OK fills *@out; anything
 * else leaves it untouched. @cpus with no CPU (or more than IRQ_MAX_CPUS)
 * names nobody: IRQ_DEST_NOT_OURS.
 */
enum irq_verdict irq_route(const struct irq_cpus *cpus, const struct irq_vector_set *forbidden,
			   const struct irq_request *rq, struct irq_target *out);

/* The request a redirection entry holds. */
void irq_request_from_rte(uint64_t rte, struct irq_request *rq);

/*
 * The request an MSI message holds: IRQ_OK, or IRQ_MSI_ADDRESS for an
 * address that is no interrupt this model delivers (an upper address other
 * than 0, bits 31:20 not 0xFEE, bits 11:4 not 0). The trigger bits of the
 * data are ignored (an MSI is an edge), as are data bits 31:16.
 */
enum irq_verdict irq_request_from_msi(uint32_t addr_lo, uint32_t addr_hi, uint32_t data,
				      struct irq_request *rq);

/* The physical redirection entry for @t: fixed, physical, @masked as asked. */
uint64_t irq_target_rte(const struct irq_target *t, bool masked);

/*
 * The compatibility-format MSI for @t (SDM 11.11): fixed, physical, edge,
 * redirection hint 0. @t->apic_id must be below 256.
 */
void irq_target_msi(const struct irq_target *t, uint32_t *addr_lo, uint32_t *addr_hi,
		    uint32_t *data);

/*
 * A partition stops (or restarts) while a level-triggered input it took
 * directly is in service: the physical entry @phys_rte, read back, has
 * remote IRR set, and masking it does not clear that (82093AA 3.2.4): the
 * next owner of the input would never get an interrupt on it. True when the
 * entry needs an EOI: *@masked_rte is the entry to write first (masked,
 * trigger and vector kept, so that the IOAPIC's EOI register still matches
 * it) and *@vector the vector to end; the caller then EOIs it (the EOI
 * register, or the edge toggle on an IOAPIC without one) before resetting
 * the entry.
 */
bool irq_rte_stop_eoi(uint64_t phys_rte, uint64_t *masked_rte, uint8_t *vector);

/*
 * The vector of the physical entry @rte about to be written, given
 * *@hw_vector, the vector the pin last went live on (0: never): a masked
 * entry carries *@hw_vector, an unmasked one records its own there. An
 * IOAPIC ends a level interrupt's Remote IRR only on an EOI of the vector
 * now in its entry (82093AA 3.2.4), and the EOIs that end one come after
 * the entry is masked: Tempo's own on the exit path (the entry holds
 * Tempo's vector there, the guest's in the model), the guest's on the
 * direct path, the stop's. A masked entry that took the guest's vector, or
 * a refused one's (another partition's), would leave Remote IRR set, the
 * input dead, or end another partition's interrupt.
 */
uint64_t irq_rte_keep_vector(uint64_t rte, uint8_t *hw_vector);

/*
 * The remapped form of @rte, a compatibility-format physical entry as
 * Tempo writes it (fixed, physical, its destination in bits 63:56, the
 * vector irq_rte_keep_vector left), for remapping-table entry @index
 * (0..0xffff) of the IOAPIC whose requester id is @source_id, in a table
 * of 32-bit destinations if @x2apic. Fills *@rte_out with the remappable
 * entry (mask, trigger, polarity, vector copied, @index) and, for an
 * unmasked entry, *@irte with the remapping entry to write first (the
 * same vector, destination and trigger; fixed, physical; the source-id
 * checked exactly) and answers true. A masked entry needs no remapping
 * entry: false, *@rte_out masked. An unmasked entry that is not one Tempo
 * writes (delivery not fixed, logical destination mode, a vector below
 * IRQ_VECTOR_FIRST) is refused the same way: false, *@rte_out masked, and
 * nothing may be written to the remapping entry.
 */
bool irq_rte_remap(uint64_t rte, uint16_t index, uint16_t source_id, bool x2apic,
		   uint64_t *rte_out, struct vtd_irte_req *irte);

/*
 * One partition per physical device vector, machine-wide. A level
 * interrupt's EOI, the local APIC's broadcast (SDM Vol. 3A 11.8.5) or a
 * write of the IOAPIC's EOI register, clears remote IRR on every entry
 * with that vector, on every IOAPIC the broadcast reaches: were a vector
 * shared by two partitions' entries, one guest's EOI (or a hostile one
 * written at will) would make the other's still-asserted line deliver
 * again. Owners are the caller's numbers, 1..65535; an owner may hold a
 * vector for several entries (uses are counted).
 */
struct irq_vector_owners {
	uint16_t owner[256];		/* 0: free */
	uint16_t uses[256];
};

/* @owner takes one use of @vector; false (and no change) if another holds it or @owner is 0. */
bool irq_vector_claim(struct irq_vector_owners *o, uint8_t vector, uint16_t owner);

/* @owner gives one use of @vector back; a vector it does not hold is left alone. */
void irq_vector_release(struct irq_vector_owners *o, uint8_t vector, uint16_t owner);

/* Every vector @owner holds, given back (a partition's reset). */
void irq_vector_release_all(struct irq_vector_owners *o, uint16_t owner);

/* Who holds @vector (0: nobody). */
uint16_t irq_vector_owner(const struct irq_vector_owners *o, uint8_t vector);

#endif
