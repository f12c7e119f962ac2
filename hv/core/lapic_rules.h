/* SPDX-License-Identifier: MIT */
/*
 * What a guest may write to its local APIC's LVT entries (x2APIC MSRs
 * 0x82f, 0x832-0x837), from the register layouts of SDM Vol. 3A 11.5.1
 * (figure 11-8). In x2APIC mode a write that sets a reserved bit takes #GP
 * (SDM 11.12.1.2); Bochs masks such bits silently, real CPUs do not, so the
 * check is ours and must hold before any value reaches the hardware from
 * root mode. Pure and host-testable.
 */
#ifndef TEMPO_HV_LAPIC_RULES_H
#define TEMPO_HV_LAPIC_RULES_H

#include <stdbool.h>
#include <stdint.h>

#define LAPIC_MSR_LVT_CMCI	0x82fu
#define LAPIC_MSR_LVT_TIMER	0x832u
#define LAPIC_MSR_LVT_THERMAL	0x833u
#define LAPIC_MSR_LVT_PMC	0x834u
#define LAPIC_MSR_LVT_LINT0	0x835u
#define LAPIC_MSR_LVT_LINT1	0x836u
#define LAPIC_MSR_LVT_ERROR	0x837u

#define LAPIC_LVT_VECTOR	0xffu
#define LAPIC_LVT_DELIVERY	(7u << 8)	/* CMCI, thermal, PMC, LINT0/1 */
#define LAPIC_LVT_STATUS	(1u << 12)	/* delivery status: read-only */
#define LAPIC_LVT_POLARITY	(1u << 13)	/* LINT0/1 */
#define LAPIC_LVT_REMOTE_IRR	(1u << 14)	/* LINT0/1, read-only */
#define LAPIC_LVT_TRIGGER	(1u << 15)	/* LINT0/1 */
#define LAPIC_LVT_MASKED	(1u << 16)
#define LAPIC_LVT_TIMER_MODE	(3u << 17)	/* timer: 00 one-shot, 01 periodic, 10 TSC deadline */

/* True if @msr is one of the LVT entries above. */
bool lapic_is_lvt(uint32_t msr);

/*
 * Whether this local APIC has LVT @msr, given its version register @lvr:
 * CMCI only where Max LVT Entry (LVR bits 23:16, the count less one) is 6
 * or more (SDM Vol. 3A 11.5.1); the others every x2APIC has. An access to
 * one it lacks is #GP in x2APIC mode (11.12.1.2).
 */
bool lapic_lvt_present(uint32_t msr, uint32_t lvr);

/* The bits of @msr's LVT entry that a write may set (the rest are reserved). */
uint32_t lapic_lvt_writable(uint32_t msr);

/*
 * A WRMSR of @value to LVT @msr is one the hardware accepts: no reserved bit
 * (bits 63:32 included) and, for the timer, not the reserved mode 11b.
 * False means #GP to the guest.
 */
bool lapic_lvt_write_ok(uint32_t msr, uint64_t value);

/*
 * What Tempo lets the entry hold, for a value lapic_lvt_write_ok accepted:
 * fixed delivery only (NMI, SMI, INIT and ExtINT would reach past the
 * partition), read-only bits clear, and an unmasked vector below 16 (which
 * the APIC would refuse with an error interrupt) masked.
 */
uint32_t lapic_lvt_filter(uint32_t msr, uint32_t value);

#endif
