/* SPDX-License-Identifier: MIT */
/*
 * "halted_forever": a partition none of whose vCPUs can ever run again.
 *
 * A vCPU in the HLT activity state with RFLAGS.IF = 0 and no event queued
 * for injection waits for an event that only a sibling can send: an NMI or
 * INIT of its partition (hv/core/icr.c). The hypervisor's side
 * (hv/time/timer_exit.c) therefore looks again at every tick: a vCPU that is
 * not halted, or has an NMI or INIT on its way, is live, and a vCPU woken
 * by an NMI is live again. Only a host tick (the preemption timer runs in
 * HLT) still brings a halted one to an exit.
 *
 * One such vCPU is legal: Linux parks its APs with cli; hlt on power-off
 * and panic while the boot CPU goes on. So the partition is stopped only
 * when no vCPU is live: every one is halted for ever, has left, or waits
 * for a SIPI that no live vCPU can send. Pure, for the host unit tests.
 */
#ifndef TEMPO_HV_HALT_H
#define TEMPO_HV_HALT_H

#include <stdbool.h>
#include <stdint.h>

#define HALT_ACTIVITY_HLT	1	/* VMCS guest activity state (SDM 25.4.2) */
#define HALT_RFLAGS_IF		(1ull << 9)
#define HALT_INTR_INFO_VALID	(1u << 31)

/* How a vCPU looks from its partition's other vCPUs' tick exits. */
enum halt_view {
	HALT_LIVE,		/* runs, or may: not (yet) seen halted for ever */
	HALT_FOREVER,		/* seen in HLT with IF = 0 at its last host tick */
	HALT_ASLEEP,		/* an AP waiting for a SIPI none has sent */
	HALT_GONE,		/* has left for good */
};

/* The VMCS fields of a vCPU at an exit: true when no event can wake it. */
static inline bool halt_vcpu_forever(uint32_t activity, uint64_t rflags, uint32_t entry_intr_info)
{
	return activity == HALT_ACTIVITY_HLT && !(rflags & HALT_RFLAGS_IF) &&
	       !(entry_intr_info & HALT_INTR_INFO_VALID);
}

/* True when no vCPU is live and at least one is halted for ever. */
bool halt_partition_forever(const enum halt_view *views, uint32_t count);

#endif
