/* SPDX-License-Identifier: MIT */
/*
 * What a guest may do with each MSR: one table (hv/core/msr_policy.c) that is the
 * documentation. PASS goes to the hardware without an exit (the MSR bitmap
 * bit is clear); every other action exits and is handled in hv/exit.c.
 * An MSR not in the table gets #GP, as on a CPU that lacks it. Pure.
 */
#ifndef TEMPO_HV_MSR_POLICY_H
#define TEMPO_HV_MSR_POLICY_H

#include <stdint.h>

enum msr_action {
	MSR_GP = 0,	/* inject #GP */
	MSR_PASS,	/* hardware access, no exit */
	MSR_EMULATE,	/* a handler computes the value / checks the write */
	MSR_IGNORE,	/* reads give 0, writes are dropped */
};

struct msr_rule {
	uint32_t first, last;	/* inclusive range */
	uint8_t read, write;	/* enum msr_action */
	const char *what;
};

/* The rule for @msr (a #GP rule when none matches). */
const struct msr_rule *msr_rule_find(uint32_t msr);

/* Fill a 4 KiB VMX MSR bitmap (SDM Vol. 3C 25.6.9) from the table. */
void msr_bitmap_build(uint8_t bitmap[4096]);

/*
 * The timer modes with a virtual LAPIC (inject, emulated) trap, on top of the
 * table, what the physical APIC must not answer for the guest: TPR, PPR, EOI,
 * ISR/TMR/IRR and the LVT timer's reads; emulated mode also the TSC deadline.
 * msr_virtual_apic() says which MSRs hv/exit.c routes to the virtual LAPIC.
 */
void msr_bitmap_build_virtual(uint8_t bitmap[4096], int trap_deadline);
int msr_virtual_apic(uint32_t msr);

/* For tests and the docs: the table itself. */
const struct msr_rule *msr_rules(unsigned int *count);

#endif
