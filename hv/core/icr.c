// SPDX-License-Identifier: MIT
#include "hv/core/icr.h"

#include "hv/lib/apic_defs.h"

static struct icr_route deny(const char *why)
{
	return (struct icr_route){ .verdict = ICR_DENY, .why = why };
}

struct icr_route icr_route(const uint32_t *apic_ids, uint32_t n, uint32_t self, uint64_t icr)
{
	uint32_t low = (uint32_t)icr, dest = (uint32_t)(icr >> 32);
	uint32_t mode = low & ICR_DELIVERY_MASK;
	uint64_t all = n >= 64 ? ~0ull : (1ull << n) - 1;
	struct icr_route r = { .vector = low & ICR_VECTOR_MASK };

	switch (low & ICR_SHORTHAND_MASK) {
	case ICR_SHORTHAND_SELF:
		r.targets = 1ull << self;
		break;
	case ICR_SHORTHAND_ALL:
		r.targets = all;
		break;
	case ICR_SHORTHAND_OTHERS:
		r.targets = all & ~(1ull << self);
		break;
	default:
		if (low & ICR_DEST_LOGICAL) {
			/* cluster in bits 31:16, one bit per APIC in 15:0 */
			uint32_t wanted = dest & 0xffff, covered = 0;

			if (dest == 0xffffffff)
				return deny("logical broadcast reaches every CPU");
			for (uint32_t i = 0; i < n; i++) {
				uint32_t l = x2apic_logical_id(apic_ids[i]);

				if ((l >> 16) == (dest >> 16) && (l & wanted)) {
					r.targets |= 1ull << i;
					covered |= l & 0xffff;
				}
			}
			if (wanted & ~covered)
				return deny("logical destination names a CPU outside the partition");
		} else {
			if (dest == 0xffffffff)
				return deny("physical broadcast reaches every CPU");
			for (uint32_t i = 0; i < n; i++)
				if (apic_ids[i] == dest)
					r.targets |= 1ull << i;
			if (!r.targets)
				return deny("destination APIC is not one of the partition's CPUs");
		}
		break;
	}
	/*
	 * Nothing addressed (all-excluding-self on a one-vCPU partition, an
	 * empty logical mask): the CPU sends it nowhere, and so does Tempo.
	 */
	if (!r.targets) {
		r.verdict = ICR_IGNORE;
		return r;
	}

	switch (mode) {
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
		return deny("lowest-priority delivery is not supported");
	case ICR_DELIVERY_NMI:
		return deny("NMI delivery is reserved for the hypervisor");
	case ICR_DELIVERY_SMI:
		return deny("SMI delivery is refused");
	default:
		return deny("reserved delivery mode");
	}
}
