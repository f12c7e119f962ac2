/* SPDX-License-Identifier: MIT */
/*
 * Single-step over an instruction Tempo completes for the guest (CPUID,
 * IN/OUT, RDMSR/WRMSR, VMCALL, HLT, an MMIO access). With RFLAGS.TF set the
 * instruction ends in a single-step #DB on hardware (SDM Vol. 3B 17.3.1.4),
 * but the exit came first (it is fault-like), so Tempo owes the guest that
 * trap. Bochs delivers it on its own after the VM entry; hardware does not
 * (KVM injects it as well), so the rule is written down here and tested on
 * the host. Pure.
 */
#ifndef TEMPO_HV_SINGLE_STEP_H
#define TEMPO_HV_SINGLE_STEP_H

#include <stdbool.h>
#include <stdint.h>

#define SS_RFLAGS_TF		(1ull << 8)
#define SS_DEBUGCTL_BTF		(1ull << 1)	/* TF traps on taken branches only */
#define SS_INTR_INFO_VALID	(1u << 31)
#define SS_DR6_BS		(1ull << 14)

/*
 * Whether the completed instruction's single-step #DB is due: TF set, BTF
 * clear (none of these instructions is a branch), and no event already on
 * its way in (never overwritten; an exit that delivers one never completed
 * an instruction).
 */
static inline bool single_step_due(uint64_t rflags, uint64_t debugctl, uint32_t entry_intr_info)
{
	return (rflags & SS_RFLAGS_TF) && !(debugctl & SS_DEBUGCTL_BTF) &&
	       !(entry_intr_info & SS_INTR_INFO_VALID);
}

/* DR6 as the trap leaves it: BS set, the other status bits kept (SDM 17.2.3). */
static inline uint64_t single_step_dr6(uint64_t dr6)
{
	return dr6 | SS_DR6_BS;
}

#endif
