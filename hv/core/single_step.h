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

#define SS_RFLAGS_IF		(1ull << 9)
#define SS_ACTIVITY_HLT		1u
#define SS_BLOCK_STI_MOVSS	3u	/* interruptibility bits 0 and 1 */

/*
 * Whether a HLT Tempo completed leaves the guest halted. Not when its
 * single-step #DB is being injected: delivering the trap wakes the CPU (as
 * an injected interrupt does; KVM behaves the same), and entering the HLT
 * state with TF = 1 and BTF = 0 would also need the single-step pending in
 * the VMCS (ss_entry_debug_ok). Otherwise halted when IF = 0 (it waits for
 * an NMI) or when no vector waits.
 */
static inline bool ss_hlt_halts(uint64_t rflags, bool db_injected, bool vector_waits)
{
	if (db_injected)
		return false;
	return !(rflags & SS_RFLAGS_IF) || !vector_waits;
}

/*
 * The VM-entry check on pending debug exceptions (SDM Vol. 3C 26.3.1.5):
 * in an STI or MOV-SS shadow, or in the HLT state, with RFLAGS.TF = 1 and
 * DEBUGCTL.BTF = 0, the single-step (BS, bit 14) must be pending, else
 * the entry fails as invalid guest state. Bochs does not check it; every
 * CPU does. For the host tests of the states Tempo enters.
 */
static inline bool ss_entry_debug_ok(uint32_t activity, uint32_t interruptibility, uint64_t rflags,
				     uint64_t debugctl, uint64_t pending_dbg)
{
	bool shadow_or_hlt = (interruptibility & SS_BLOCK_STI_MOVSS) || activity == SS_ACTIVITY_HLT;
	bool stepping = (rflags & SS_RFLAGS_TF) && !(debugctl & SS_DEBUGCTL_BTF);

	return !(shadow_or_hlt && stepping) || (pending_dbg & SS_DR6_BS);
}

#endif
