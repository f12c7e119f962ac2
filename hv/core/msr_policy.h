/* SPDX-License-Identifier: MIT */
/*
 * What a guest may do with each MSR: one table (hv/core/msr_policy.c) that is
 * the documentation. A row gives, for a range of MSRs, the read and write
 * action of a vCPU that owns its LAPIC (direct mode), the named handler of
 * its EMULATE actions, and which timer modes take the row elsewhere: off a
 * LAPIC-owning mode the APIC's interrupt state is the virtual LAPIC's
 * (MSR_VIRT_APIC), and in a software-deadline mode IA32_TSC_DEADLINE is
 * the software timer's (MSR_VIRT_DEADLINE). msr_action() combines the two
 * for a mode (hv/core/timer_modes.h); the MSR bitmaps are built from it:
 * PASS goes to the hardware without an exit, every other action exits and
 * is handled in hv/exit/msr.c. An MSR not in the table gets #GP, as on a CPU
 * that lacks it. Pure.
 *
 * A new MSR rule is one row here and, for EMULATE, one handler (enum
 * msr_handler, and its entry in hv/exit/msr.c's handler table).
 */
#ifndef TEMPO_HV_MSR_POLICY_H
#define TEMPO_HV_MSR_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/timer_modes.h"

enum msr_action {
	MSR_GP = 0,		/* inject #GP */
	MSR_PASS,		/* hardware access, no exit */
	MSR_EMULATE,		/* the row's named handler computes the value / checks the write */
	MSR_IGNORE,		/* reads give 0, writes are dropped */
	MSR_VAPIC,		/* the virtual LAPIC's register (hv/apic/regs.c, the timer's hv/time/timer_regs.c) */
	MSR_SOFT_DEADLINE,	/* the software TSC deadline (hv/time/timer_regs.c) */
};

/* Which timer modes take a row from its read/write actions. */
enum msr_virt {
	MSR_VIRT_NONE = 0,	/* every mode: the row's actions */
	MSR_VIRT_APIC,		/* modes without owns_lapic: MSR_VAPIC */
	MSR_VIRT_DEADLINE,	/* modes with soft_deadline: MSR_SOFT_DEADLINE */
};

/* The handlers of EMULATE actions, by name (hv/exit/msr.c holds one per value). */
enum msr_handler {
	MSR_H_NONE = 0,
	MSR_H_APIC_BASE,	/* IA32_APIC_BASE: fixed, x2APIC on */
	MSR_H_FEATURE_CONTROL,	/* locked, VMX off */
	MSR_H_PRED_CMD,		/* IBPB */
	MSR_H_ARCH_CAPS,	/* the host's, less the control MSRs hidden */
	MSR_H_FLUSH_CMD,	/* L1D flush */
	MSR_H_MISC_ENABLE,	/* the vCPU's own: the OS's bits read back (hv/core/guest_msrs.h) */
	MSR_H_LDR,		/* x2APIC LDR from the id */
	MSR_H_SVR,		/* x2APIC SVR: never software-disabled */
	MSR_H_LVT,		/* LVT CMCI, thermal, PMC, LINT0/1, error */
	MSR_H_ICR,		/* x2APIC ICR: the partition's own CPUs only */
	MSR_H_LVT_TIMER,	/* LVT timer: the guest timer's mode and vector */
	MSR_H_EFER,		/* IA32_EFER: in the VMCS */
	MSR_H_MTRR,		/* MTRRCAP, the ranges, DEF_TYPE: the vCPU's own (hv/core/guest_msrs.h) */
	MSR_H_XSS,		/* IA32_XSS: 0 only, where XSAVES is offered */
	MSR_H_COUNT
};

/*
 * Who keeps a guest's value of an MSR it may write without an exit while
 * another vCPU has the core (a shared core's window ends).
 */
enum msr_kept {
	MSR_KEPT_NONE = 0,	/* no guest writes it unseen in a mode that shares a core */
	MSR_KEPT_VMCS,		/* the VMCS guest state loads and saves it */
	MSR_KEPT_ROOT,		/* root mode saves and restores it (msr_root_switched) */
	MSR_KEPT_OWN,		/* code of its own: SPEC_CTRL (spec_plan), the deadline (timer_save_hw) */
};

struct msr_rule {
	uint32_t first, last;	/* inclusive range */
	uint8_t read, write;	/* enum msr_action, LAPIC-owning modes */
	uint8_t handler;	/* enum msr_handler, for EMULATE */
	uint8_t virt;		/* enum msr_virt */
	uint8_t kept;		/* enum msr_kept */
	const char *what;
};

/* The rule for @msr (a #GP rule when none matches). */
const struct msr_rule *msr_rule_find(uint32_t msr);

/* What a vCPU in a mode like @mode does with @r's MSRs. */
enum msr_action msr_action(const struct msr_rule *r, const struct timer_mode_desc *mode,
			   bool write);

/* Fill a 4 KiB VMX MSR bitmap (SDM Vol. 3C 25.6.9) for @mode: only PASS is clear. */
void msr_bitmap_build_mode(uint8_t bitmap[4096], const struct timer_mode_desc *mode);
/* Make every read and write of MSRs @first..@last exit (x2APIC MSRs outside x2APIC mode). */
void msr_bitmap_trap(uint8_t bitmap[4096], uint32_t first, uint32_t last);

/*
 * The same for a mode that owns the LAPIC (msr_bitmap_build) and for one
 * that does not, with the TSC deadline trapped or not (msr_bitmap_build_virtual):
 * the two shapes hv/time/vcpu_timer.c builds.
 */
void msr_bitmap_build(uint8_t bitmap[4096]);
void msr_bitmap_build_virtual(uint8_t bitmap[4096], int trap_deadline);

/* @msr's row is the virtual LAPIC's off the LAPIC-owning modes (MSR_VIRT_APIC). */
int msr_virtual_apic(uint32_t msr);

/*
 * The MSRs a shared core's switch saves and restores in root mode
 * (MSR_KEPT_ROOT), in table order: up to @max into @out; returns how many.
 */
unsigned int msr_root_switched(uint32_t *out, unsigned int max);

/* For tests and the docs: the table itself. */
const struct msr_rule *msr_rules(unsigned int *count);

#endif
