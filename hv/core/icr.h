/* SPDX-License-Identifier: MIT */
/*
 * A guest's IPI, checked: a write to the x2APIC ICR (icr_route) or to the
 * xAPIC page's ICR_LOW with its ICR_HIGH (icr_route_xapic). It may reach
 * only the CPUs of its own partition, in physical and logical destination
 * mode and through the shorthands; a broadcast means the partition's
 * vCPUs. Fixed IPIs are sent to the hardware; lowest priority goes to one
 * target (icr_pick_one: the lowest index that can take it); NMIs are virtual NMIs for the targets; INIT
 * and SIPI to its own vCPUs are emulated (the hypervisor resets and starts
 * them); SMI and reserved modes are refused. Both forms share one
 * delivery-mode policy (icr.c, deliver()), so a rule means the same in
 * xAPIC and x2APIC mode. Pure and host-testable.
 */
#ifndef TEMPO_HV_ICR_H
#define TEMPO_HV_ICR_H

#include <stdbool.h>
#include <stdint.h>

enum icr_verdict {
	ICR_DENY = 0,	/* stop the partition: it aimed outside itself, or a banned mode */
	ICR_SEND,	/* send the fixed IPI to each target's physical APIC id */
	ICR_INIT,	/* emulate INIT for each target vCPU */
	ICR_SIPI,	/* emulate SIPI (vector in icr_route.vector) for each target */
	ICR_IGNORE,	/* harmless no-op (INIT level de-assert) */
	ICR_NMI,	/* a virtual NMI for each target vCPU */
};

struct icr_route {
	enum icr_verdict verdict;
	uint64_t targets;	/* bit i: the partition's vCPU i */
	bool one;		/* lowest priority: only one of the targets (icr_pick_one) */
	uint8_t vector;
	const char *why;	/* for ICR_DENY */
	/*
	 * ICR_DENY because the destination names an APIC that is none of the
	 * partition's vCPUs (a caller may drop such an IPI instead of stopping
	 * the partition); false for every other refusal.
	 */
	bool outside;
};

/*
 * The x2APIC ICR's reserved bits (SDM Vol. 3A 11.12.9, figure 11-28): 13,
 * 16-17 and 20-31. A WRMSR that sets one is #GP (11.12.1.3); the ICR is
 * Tempo's to emulate, so the check is too (Bochs masks reserved x2APIC bits
 * of the registers it emulates). Bit 12, the xAPIC's delivery status, is
 * ignored, as KVM does.
 */
#define ICR_X2APIC_RESERVED	((0xfffull << 20) | (3ull << 16) | (1ull << 13))

/*
 * @apic_ids: the partition's vCPUs' x2APIC ids (count @n <= 64); @self: the
 * index of the writing vCPU; @icr: the 64-bit value written.
 */
struct icr_route icr_route(const uint32_t *apic_ids, uint32_t n, uint32_t self, uint64_t icr);

/*
 * Lowest priority's one target among @targets: the lowest index in @able
 * (the vCPUs that can take a fixed interrupt now: running, not waiting for
 * SIPI, their APIC enabled), so the interrupt is not handed to a vCPU that
 * would drop it while another could run its handler; the lowest index of
 * @targets when none can (dropped and counted there, as before). 0 when
 * @targets is 0.
 */
uint64_t icr_pick_one(uint64_t targets, uint64_t able);

/*
 * One vCPU as an xAPIC-mode sender's destination sees it (icr_xapic_dest_of
 * in hv/core/xapic.h builds it from the vCPU's registers).
 */
struct icr_xapic_dest {
	bool enabled;		/* its APIC is enabled (a disabled APIC receives nothing) */
	bool x2apic;		/* it is in x2APIC mode */
	uint32_t id;		/* xAPIC: the 8-bit ID register; x2APIC: the x2APIC id */
	uint8_t logical_id;	/* xAPIC: LDR[31:24] */
	bool cluster;		/* xAPIC: DFR[31:28] = 0000b, the cluster model */
};

/*
 * The xAPIC form (SDM Vol. 3A 11.6.1, 11.6.2): ICR_LOW @low as written, its
 * destination in ICR_HIGH @high bits 31:24. @dests: the partition's vCPUs
 * (count @n <= 64); @self: the index of the writing vCPU.
 *  - physical: the vCPU(s) whose id is the destination; 0xff is the
 *    broadcast;
 *  - logical: each xAPIC-mode vCPU by its own DFR: flat, the destination is
 *    a mask ANDed with LDR[31:24]; cluster, bits 7:4 the cluster (LDR[31:28])
 *    and 3:0 a mask ANDed with LDR[27:24]; 0xff is the broadcast. A vCPU in
 *    x2APIC mode never matches an xAPIC logical destination (SDM 11.12.1:
 *    one mode for every APIC of a system);
 *  - a destination naming an id or a logical bit that no vCPU of the
 *    partition holds is ICR_DENY with outside set, as in x2APIC mode.
 */
struct icr_route icr_route_xapic(const struct icr_xapic_dest *dests, uint32_t n, uint32_t self,
				 uint32_t low, uint32_t high);

#endif
