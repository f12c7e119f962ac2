/* SPDX-License-Identifier: MIT */
/*
 * The debug rules of an instruction Tempo completes or an exception it
 * injects, where the CPU would have applied them itself had the
 * instruction not exited: the resume flag of an injected fault, and the
 * data and I/O breakpoints (DR0-DR3, DR7) an emulated access hits. Pure,
 * unit-tested in tests/unit/test_debug_trap.c; the single-step trap's rule
 * is hv/core/single_step.h's, and hv/guest/insn.h raises both in one #DB.
 */
#ifndef TEMPO_HV_DEBUG_TRAP_H
#define TEMPO_HV_DEBUG_TRAP_H

#include <stdbool.h>
#include <stdint.h>

#define DT_RFLAGS_RF		(1ull << 16)

/*
 * Whether delivering exception @vector as a hardware exception pushes
 * RFLAGS with RF set: every fault-class exception but #DB (SDM Vol. 3A
 * Table 6-1 gives the classes; 6.8.3 and Vol. 3B 17.3.1.1 say a fault's
 * image has RF set so that IRET does not re-take an instruction breakpoint
 * on the restarted instruction; a #DB leaves RF as it is). The CPU does
 * this on its own, but VM entry pushes the guest-state RFLAGS unchanged
 * whatever it injects (SDM Vol. 3C 26.6.1.1), so a hypervisor that injects
 * a fault sets RF first (KVM does the same).
 */
static inline bool exception_sets_rf(uint32_t vector)
{
	switch (vector) {
	case 0:		/* #DE */
	case 5:		/* #BR */
	case 6:		/* #UD */
	case 7:		/* #NM */
	case 10:	/* #TS */
	case 11:	/* #NP */
	case 12:	/* #SS */
	case 13:	/* #GP */
	case 14:	/* #PF */
	case 16:	/* #MF */
	case 17:	/* #AC */
	case 19:	/* #XM */
	case 20:	/* #VE */
	case 21:	/* #CP */
		return true;
	default:	/* #DB, NMI, #BP and #OF (traps), #DF and #MC (aborts), reserved */
		return false;
	}
}

#endif
