/* SPDX-License-Identifier: MIT */
/*
 * A guest's write to the x2APIC ICR, checked: it may reach only the CPUs of
 * its own partition, in physical and logical (cluster) destination mode and
 * through the shorthands. INIT and SIPI to its own vCPUs are emulated (the
 * hypervisor starts them); fixed IPIs are sent to the hardware; NMI, SMI,
 * lowest-priority to CPUs outside the partition and reserved modes are
 * refused. Pure and host-testable.
 */
#ifndef TEMPO_HV_ICR_H
#define TEMPO_HV_ICR_H

#include <stdint.h>

enum icr_verdict {
	ICR_DENY = 0,	/* stop the partition: it aimed outside itself or used a banned mode */
	ICR_SEND,	/* send the fixed IPI to each target's physical APIC id */
	ICR_INIT,	/* emulate INIT for each target vCPU */
	ICR_SIPI,	/* emulate SIPI (vector in icr_route.vector) for each target */
	ICR_IGNORE,	/* harmless no-op (INIT level de-assert) */
};

struct icr_route {
	enum icr_verdict verdict;
	uint64_t targets;	/* bit i: the partition's vCPU i */
	uint8_t vector;
	const char *why;	/* for ICR_DENY */
};

/*
 * @apic_ids: the partition's vCPUs' x2APIC ids (count @n <= 64); @self: the
 * index of the writing vCPU; @icr: the 64-bit value written.
 */
struct icr_route icr_route(const uint32_t *apic_ids, uint32_t n, uint32_t self, uint64_t icr);

#endif
