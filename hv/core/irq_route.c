// SPDX-License-Identifier: MIT
/*
 * The destination and vector rule for a partition's device interrupts
 * (hv/core/irq_route.h). References: SDM Vol. 3A 11.6.2 (destination
 * modes and the logical models), 11.11 (MSI), 11.12.10 (x2APIC logical
 * destinations); 82093AA IOAPIC datasheet 3.2.4 (the redirection entry).
 */
#include "hv/core/irq_route.h"

#include "hv/lib/lib.h"

static const char *const verdict_names[IRQ_VERDICT_COUNT] = {
	[IRQ_OK] = "ok",
	[IRQ_VECTOR_RESERVED] = "vector-reserved",
	[IRQ_VECTOR_TEMPO] = "vector-tempo",
	[IRQ_DELIVERY_REFUSED] = "delivery-mode",
	[IRQ_DEST_NOT_OURS] = "dest-not-its-cpu",
	[IRQ_DEST_SEVERAL] = "fixed-to-several-cpus",
	[IRQ_DEST_WIDE] = "apic-id-above-255",
	[IRQ_MSI_ADDRESS] = "msi-address",
	[IRQ_REMAP_REFUSED] = "remap-refused",
	[IRQ_VECTOR_TAKEN] = "vector-other-partition",
};

const char *irq_verdict_name(enum irq_verdict v)
{
	return (unsigned int)v < IRQ_VERDICT_COUNT ? verdict_names[v] : "unknown";
}

/* Does an 8-bit logical destination @dest name a CPU whose logical ID is @id? */
static bool logical_match(enum irq_logical_model model, uint8_t dest, uint8_t id)
{
	if (!id)
		return false;	/* x2APIC mode, or an LDR the guest never set */
	if (model == IRQ_LOGICAL_FLAT)
		return dest & id;
	/* cluster: bits 7:4 the cluster (15: every cluster), 3:0 a mask of its members */
	return ((dest >> 4) == 0xf || (dest >> 4) == (id >> 4)) && (dest & id & 0xf);
}

static bool names_cpu(const struct irq_cpus *cpus, const struct irq_request *rq, uint32_t i)
{
	if (rq->logical)
		return logical_match(cpus->logical_model, rq->dest, cpus->logical_id[i]);
	return rq->dest == IRQ_DEST_BROADCAST || cpus->apic_id[i] == rq->dest;
}

/*
 * An APIC id a compatibility-format message can carry: 8 bits, of which
 * 0xFF is the broadcast (SDM Vol. 3A 10.6.2.1; an x2APIC takes an 8-bit
 * 0xFF as broadcast too), so a CPU with id 255 cannot be named alone.
 */
static bool reachable(const struct irq_cpus *cpus, uint32_t i)
{
	return cpus->any_apic_id || cpus->apic_id[i] < 0xff;
}

enum irq_verdict irq_route(const struct irq_cpus *cpus, const struct irq_vector_set *forbidden,
			   const struct irq_request *rq, struct irq_target *out)
{
	uint32_t named = 0, first = 0, first_reachable = UINT32_MAX;

	if (rq->vector < IRQ_VECTOR_FIRST)
		return IRQ_VECTOR_RESERVED;
	if (irq_vector_in(forbidden, rq->vector))
		return IRQ_VECTOR_TEMPO;
	if (rq->delivery != IRQ_DELIVERY_FIXED && rq->delivery != IRQ_DELIVERY_LOWEST)
		return IRQ_DELIVERY_REFUSED;
	if (cpus->count > IRQ_MAX_CPUS)
		return IRQ_DEST_NOT_OURS;
	for (uint32_t i = 0; i < cpus->count; i++) {
		if (!names_cpu(cpus, rq, i))
			continue;
		if (!named++)
			first = i;
		if (first_reachable == UINT32_MAX && reachable(cpus, i))
			first_reachable = i;
	}
	if (!named)
		return IRQ_DEST_NOT_OURS;
	if (rq->delivery == IRQ_DELIVERY_FIXED) {
		if (named > 1)
			return IRQ_DEST_SEVERAL;
		if (!reachable(cpus, first))
			return IRQ_DEST_WIDE;
	} else {
		if (first_reachable == UINT32_MAX)
			return IRQ_DEST_WIDE;
		first = first_reachable;
	}
	out->apic_id = cpus->apic_id[first];
	out->cpu = first;
	out->vector = rq->vector;
	out->level = rq->level;
	out->active_low = rq->active_low;
	return IRQ_OK;
}

void irq_request_from_rte(uint64_t rte, struct irq_request *rq)
{
	rq->vector = (uint8_t)(rte & IOAPIC_RTE_VECTOR_MASK);
	rq->delivery = (uint8_t)((rte & IOAPIC_RTE_DELIVERY_MASK) >> IOAPIC_RTE_DELIVERY_SHIFT);
	rq->logical = rte & IOAPIC_RTE_DEST_LOGICAL;
	rq->dest = (uint8_t)(rte >> IOAPIC_RTE_DEST_SHIFT);
	rq->level = rte & IOAPIC_RTE_LEVEL;
	rq->active_low = rte & IOAPIC_RTE_ACTIVE_LOW;
}

enum irq_verdict irq_request_from_msi(uint32_t addr_lo, uint32_t addr_hi, uint32_t data,
				      struct irq_request *rq)
{
	if (addr_hi || (addr_lo & MSI_ADDR_BASE_MASK) != MSI_ADDR_BASE ||
	    (addr_lo & MSI_ADDR_RESERVED))
		return IRQ_MSI_ADDRESS;
	rq->vector = (uint8_t)(data & MSI_DATA_VECTOR_MASK);
	rq->delivery = (uint8_t)((data >> MSI_DATA_DELIVERY_SHIFT) & 7);
	rq->logical = addr_lo & MSI_ADDR_DM_LOGICAL;
	rq->dest = (uint8_t)(addr_lo >> MSI_ADDR_DEST_SHIFT);
	rq->level = false;
	rq->active_low = false;
	return IRQ_OK;
}

uint64_t irq_target_rte(const struct irq_target *t, bool masked)
{
	return (uint64_t)(t->apic_id & 0xff) << IOAPIC_RTE_DEST_SHIFT |
	       (t->level ? IOAPIC_RTE_LEVEL : 0) | (t->active_low ? IOAPIC_RTE_ACTIVE_LOW : 0) |
	       (masked ? IOAPIC_RTE_MASKED : 0) | t->vector;
}

void irq_target_msi(const struct irq_target *t, uint32_t *addr_lo, uint32_t *addr_hi,
		    uint32_t *data)
{
	*addr_lo = MSI_ADDR_BASE | (t->apic_id & 0xff) << MSI_ADDR_DEST_SHIFT;
	*addr_hi = 0;
	*data = t->vector;
}

bool irq_rte_stop_eoi(uint64_t phys_rte, uint64_t *masked_rte, uint8_t *vector)
{
	if (!(phys_rte & IOAPIC_RTE_LEVEL) || !(phys_rte & IOAPIC_RTE_REMOTE_IRR))
		return false;
	*masked_rte = (phys_rte | IOAPIC_RTE_MASKED) & ~IOAPIC_RTE_REMOTE_IRR;
	*vector = (uint8_t)phys_rte;
	return true;
}

uint64_t irq_rte_keep_vector(uint64_t rte, uint8_t *hw_vector)
{
	if (!(rte & IOAPIC_RTE_MASKED))
		*hw_vector = (uint8_t)rte;
	else if (*hw_vector)
		rte = (rte & ~IOAPIC_RTE_VECTOR_MASK) | *hw_vector;
	return rte;
}

bool irq_rte_remap(uint64_t rte, uint16_t index, uint16_t source_id, bool x2apic,
		   uint64_t *rte_out, struct vtd_irte_req *irte)
{
	const uint64_t kept = IOAPIC_RTE_VECTOR_MASK | IOAPIC_RTE_ACTIVE_LOW | IOAPIC_RTE_LEVEL |
			      IOAPIC_RTE_MASKED;
	uint8_t vector = (uint8_t)rte;

	*rte_out = (rte & kept) | IOAPIC_RTE_REMAPPABLE |
		   (uint64_t)(index & 0x7fff) << IOAPIC_RTE_INDEX_SHIFT |
		   (index & 0x8000 ? IOAPIC_RTE_INDEX15 : 0);
	if (rte & IOAPIC_RTE_MASKED)
		return false;
	if ((rte & (IOAPIC_RTE_DELIVERY_MASK | IOAPIC_RTE_DEST_LOGICAL)) ||
	    vector < IRQ_VECTOR_FIRST) {
		*rte_out |= IOAPIC_RTE_MASKED;
		return false;
	}
	*irte = (struct vtd_irte_req){
		.dest_apic_id = (uint32_t)(rte >> IOAPIC_RTE_DEST_SHIFT),
		.vector = vector,
		.level = rte & IOAPIC_RTE_LEVEL,
		.source_id = source_id,
		.x2apic = x2apic,
	};
	return true;
}

bool irq_vector_claim(struct irq_vector_owners *o, uint8_t vector, uint16_t owner)
{
	if (!owner || (o->owner[vector] && o->owner[vector] != owner) ||
	    o->uses[vector] == UINT16_MAX)
		return false;
	o->owner[vector] = owner;
	o->uses[vector]++;
	return true;
}

void irq_vector_release(struct irq_vector_owners *o, uint8_t vector, uint16_t owner)
{
	if (!owner || o->owner[vector] != owner)
		return;
	if (--o->uses[vector] == 0)
		o->owner[vector] = 0;
}

void irq_vector_release_all(struct irq_vector_owners *o, uint16_t owner)
{
	for (uint32_t v = 0; v < 256; v++)
		if (owner && o->owner[v] == owner) {
			o->owner[v] = 0;
			o->uses[v] = 0;
		}
}

uint16_t irq_vector_owner(const struct irq_vector_owners *o, uint8_t vector)
{
	return o->owner[vector];
}
