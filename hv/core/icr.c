// SPDX-License-Identifier: MIT
#include "hv/core/icr.h"

#include "hv/lib/apic_defs.h"

static struct icr_route deny(const char *why)
{
	return (struct icr_route){ .verdict = ICR_DENY, .why = why };
}

#define OUTSIDE_LOGICAL	"logical destination names a CPU outside the partition"

static struct icr_route deny_outside(const char *why)
{
	return (struct icr_route){ .verdict = ICR_DENY, .why = why, .outside = true };
}

static uint64_t all_vcpus(uint32_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/*
 * The shorthands (ICR bits 19:18) name vCPUs of the partition only, in both
 * forms: "all" is the partition's vCPUs, never the machine's. False for no
 * shorthand (the destination field decides).
 */
static bool shorthand_targets(uint32_t low, uint32_t n, uint32_t self, uint64_t *targets)
{
	switch (low & ICR_SHORTHAND_MASK) {
	case ICR_SHORTHAND_SELF:
		*targets = 1ull << self;
		return true;
	case ICR_SHORTHAND_ALL:
		*targets = all_vcpus(n);
		return true;
	case ICR_SHORTHAND_OTHERS:
		*targets = all_vcpus(n) & ~(1ull << self);
		return true;
	}
	return false;
}

/*
 * The delivery-mode policy of both forms, once the destination has been
 * resolved to @r.targets inside the partition.
 */
static struct icr_route deliver(struct icr_route r, uint32_t low)
{
	r.vector = low & ICR_VECTOR_MASK;
	/*
	 * Nothing addressed (all-excluding-self on a one-vCPU partition, an
	 * empty logical mask): the CPU sends it nowhere, and so does Tempo.
	 */
	if (!r.targets) {
		r.verdict = ICR_IGNORE;
		return r;
	}

	switch (low & ICR_DELIVERY_MASK) {
	case ICR_DELIVERY_FIXED:
		if (r.vector < 16)
			return deny("fixed IPI with an illegal vector (0-15)");
		r.verdict = ICR_SEND;
		return r;
	case ICR_DELIVERY_INIT:
		/* the level de-assert form (old MP spec) does nothing on x2APIC */
		r.verdict = (low & ICR_LEVEL_ASSERT) ? ICR_INIT : ICR_IGNORE;
		return r;
	case ICR_DELIVERY_SIPI:
		r.verdict = ICR_SIPI;
		return r;
	case ICR_DELIVERY_LOWEST:
		/*
		 * One target takes it (icr_pick_one, by what the caller knows of
		 * the vCPUs' states), as Tempo has no priorities to arbitrate by
		 * (SDM 11.6.2.4 leaves the choice to the chipset). A fixed
		 * interrupt from there on.
		 */
		if (r.vector < 16)
			return deny("lowest-priority IPI with an illegal vector (0-15)");
		r.one = true;
		r.verdict = ICR_SEND;
		return r;
	case ICR_DELIVERY_NMI:
		/* a virtual NMI for each target, its vector ignored (SDM 11.6.1) */
		r.verdict = ICR_NMI;
		return r;
	case ICR_DELIVERY_SMI:
		return deny("SMI delivery is refused");
	default:
		return deny("reserved delivery mode");
	}
}

uint64_t icr_pick_one(uint64_t targets, uint64_t able)
{
	uint64_t both = targets & able;

	return both ? both & -both : targets & -targets;
}

struct icr_route icr_route(const uint32_t *apic_ids, uint32_t n, uint32_t self, uint64_t icr)
{
	uint32_t low = (uint32_t)icr, dest = (uint32_t)(icr >> 32);
	struct icr_route r = { 0 };

	if (shorthand_targets(low, n, self, &r.targets))
		return deliver(r, low);
	if (low & ICR_DEST_LOGICAL) {
		/* cluster in bits 31:16, one bit per APIC in 15:0 */
		uint32_t wanted = dest & 0xffff, covered = 0;

		/* the broadcast: every vCPU of the partition, which is all its world */
		if (dest == 0xffffffff) {
			r.targets = all_vcpus(n);
			return deliver(r, low);
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t l = x2apic_logical_id(apic_ids[i]);

			if ((l >> 16) == (dest >> 16) && (l & wanted)) {
				r.targets |= 1ull << i;
				covered |= l & 0xffff;
			}
		}
		if (wanted & ~covered)
			return deny_outside(OUTSIDE_LOGICAL);
	} else {
		if (dest == 0xffffffff) {
			r.targets = all_vcpus(n);
			return deliver(r, low);
		}
		for (uint32_t i = 0; i < n; i++)
			if (apic_ids[i] == dest)
				r.targets |= 1ull << i;
		if (!r.targets)
			return deny_outside("destination APIC is not one of the partition's CPUs");
	}
	return deliver(r, low);
}

/*
 * Logical xAPIC destination @mda against one vCPU, by the vCPU's own DFR
 * model (SDM 11.6.2.2), as each APIC on the bus judges the message.
 */
static bool xapic_logical_match(const struct icr_xapic_dest *d, uint8_t mda)
{
	if (!d->enabled || d->x2apic)
		return false;
	if (d->cluster)
		return (d->logical_id >> 4) == (mda >> 4) && (d->logical_id & mda & 0xf);
	return d->logical_id & mda;
}

/*
 * The bits of @mda that some vCPU of the partition answers to, read in the
 * sender's model (SDM 11.6.2.2: every APIC of a system uses the same one):
 * flat, each of the 8 bits is one APIC; cluster, each of bits 3:0 is one
 * APIC of cluster mda[7:4].
 */
static uint8_t xapic_logical_covered(const struct icr_xapic_dest *dests, uint32_t n,
				     bool cluster, uint8_t mda)
{
	uint8_t covered = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct icr_xapic_dest *d = &dests[i];

		if (!d->enabled || d->x2apic || d->cluster != cluster)
			continue;
		if (!cluster)
			covered |= d->logical_id;
		else if ((d->logical_id >> 4) == (mda >> 4))
			covered |= d->logical_id & 0xf;
	}
	return cluster ? (uint8_t)(covered | (mda & 0xf0)) : covered;
}

/* 0xff, physical or logical: the partition's vCPUs whose APIC is on. */
static struct icr_route xapic_broadcast(const struct icr_xapic_dest *dests, uint32_t n,
					uint32_t low)
{
	struct icr_route r = { 0 };

	for (uint32_t i = 0; i < n; i++)
		if (dests[i].enabled)
			r.targets |= 1ull << i;
	return deliver(r, low);
}

struct icr_route icr_route_xapic(const struct icr_xapic_dest *dests, uint32_t n, uint32_t self,
				 uint32_t low, uint32_t high)
{
	uint8_t mda = (uint8_t)(high >> XAPIC_ICR_DEST_SHIFT);
	struct icr_route r = { 0 };

	if (shorthand_targets(low, n, self, &r.targets)) {
		/* a shorthand reaches only APICs that are on */
		for (uint32_t i = 0; i < n; i++)
			if (!dests[i].enabled)
				r.targets &= ~(1ull << i);
		return deliver(r, low);
	}
	if (low & ICR_DEST_LOGICAL) {
		if (mda == XAPIC_BROADCAST_ID)
			return xapic_broadcast(dests, n, low);
		for (uint32_t i = 0; i < n; i++)
			if (xapic_logical_match(&dests[i], mda))
				r.targets |= 1ull << i;
		if (mda & ~xapic_logical_covered(dests, n, dests[self].cluster, mda))
			return deny_outside(OUTSIDE_LOGICAL);
	} else {
		bool named = false;

		if (mda == XAPIC_BROADCAST_ID)
			return xapic_broadcast(dests, n, low);
		for (uint32_t i = 0; i < n; i++) {
			if (dests[i].id != mda)
				continue;
			/* one of ours, even if its APIC is off and takes nothing */
			named = true;
			if (dests[i].enabled)
				r.targets |= 1ull << i;
		}
		if (!named)
			return deny_outside("destination APIC is not one of the partition's CPUs");
	}
	return deliver(r, low);
}
