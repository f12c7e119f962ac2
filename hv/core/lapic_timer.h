/* SPDX-License-Identifier: MIT */
/*
 * The local APIC's count-down timer (SDM Vol. 3A 11.5.4) in software, in
 * its one-shot and periodic modes: TMICT (initial count), TMCCT (current
 * count), TDCR (divide configuration) and the LVT timer's mode. TSC-deadline
 * mode is the existing path (hv/core/timer.c); entering or leaving it
 * disarms this timer. struct vtimer holds one (hv/core/timer.h) for the
 * modes in which the guest's timer is virtual. Pure and host-testable
 * (tests/unit/test_lapic_timer.c checks it against a count-down stepped one
 * TSC tick at a time).
 *
 * The input clock is the TSC: the count decrements once every
 * lapic_timer_divisor(TDCR) TSC ticks, and every time is an absolute TSC
 * value, the preemption timer's own unit. Tempo has no bus clock to show: it
 * tells guests the TSC frequency as CPUID 0x15's crystal (ratio 1, up to
 * 4 GHz) and in 0x16/0x40000010, and Linux takes 0x15's crystal as the
 * APIC timer's rate (native_calibrate_tsc: lapic_timer_period); other guests
 * calibrate against the TSC or PIT, and kvm-unit-tests' apic test checks
 * only relative behaviour.
 *
 * The rules where the SDM leaves room (KVM's behaviour in each):
 *  - One-shot <-> periodic keeps counting: the new mode decides what happens
 *    at 0 (SDM 11.5.4.1's "a write that changes the timer mode disarms the
 *    timer" taken for TSC-deadline mode only, as KVM does after measuring
 *    hardware, kvm-unit-tests' test_apic_change_mode). Entering or leaving
 *    TSC-deadline mode stops the count and clears TMICT.
 *  - A TDCR write while counting keeps the current count: the time left is
 *    rescaled to the new divisor (left * new / old, rounded down); later
 *    periods use the new one.
 *  - TMICT writes in TSC-deadline mode are ignored and TMCCT reads 0 there
 *    (SDM 11.5.4.1). TMICT 0 stops the timer (11.5.4).
 *  - Periodic mode: each period starts at the previous one's due time, never
 *    at when it was handled (no drift). A period shorter than min_period_tsc
 *    is stretched to it (KVM's min_timer_period_us), so a guest cannot
 *    program a period shorter than an exit; TMCCT still never reads above
 *    TMICT. One-shot counts are not stretched.
 *  - Expiries that pass before anyone looks (the vCPU was away, a late exit)
 *    are one interrupt, as in the IRR of a LAPIC whose CPU did not take the
 *    first (lapic_timer_advance counts the rest as coalesced): however late,
 *    a call costs one division, and the grid of due times is kept.
 */
#ifndef TEMPO_HV_LAPIC_TIMER_H
#define TEMPO_HV_LAPIC_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define LAPIC_TIMER_IDLE	UINT64_MAX	/* not counting (= TIMER_NO_EVENT) */

/*
 * A suggested floor for periodic mode: 20,000 interrupts a second at most.
 * A VMCS_CHECK build (arch/x86/vmx_check.h) checks each entry in about
 * 2,000 instructions, which Bochs counts as TSC ticks: at 50 us (2,500
 * ticks there) the two checked entries of each period (the injection and
 * the EOI's resume) outlast the period, and a guest at the floor runs its
 * handler only, forever. That build's floor leaves it room.
 */
#ifdef TEMPO_VMCS_CHECK
#define LAPIC_TIMER_MIN_PERIOD_NS	250000
#else
#define LAPIC_TIMER_MIN_PERIOD_NS	50000
#endif

enum lapic_timer_mode {
	LAPIC_TIMER_ONE_SHOT,
	LAPIC_TIMER_PERIODIC,
	LAPIC_TIMER_TSC_DEADLINE,
};

struct lapic_timer {
	enum lapic_timer_mode mode;
	uint32_t initial_count;	/* TMICT: 0 = stopped */
	uint32_t tdcr;		/* TDCR as written, bits 0, 1, 3 */
	uint32_t divisor;	/* 1 .. 128, from tdcr */
	uint64_t due;		/* TSC at which the count reaches 0; LAPIC_TIMER_IDLE */
	uint64_t min_period_tsc;	/* 0: no floor */
	bool fired;		/* an expiry that lapic_timer_take has not taken */
	uint64_t expiries;	/* times the count reached 0 */
	uint64_t coalesced;	/* expiries folded into one already fired, not taken */
};

/* TDCR bits 3, 1, 0 (SDM figure 11-10): 000 = 2, 001 = 4, ... 110 = 128, 111 = 1. */
uint32_t lapic_timer_divisor(uint32_t tdcr);

/* The timer mode of an LVT timer value (bits 18:17; the reserved 11b never gets here). */
enum lapic_timer_mode lapic_timer_mode_of(uint32_t lvt);

/* After reset: one-shot, stopped, TDCR 0 (divide by 2). */
void lapic_timer_init(struct lapic_timer *t, uint64_t min_period_tsc);

/*
 * The LVT's mode was written. Call lapic_timer_advance at the write's TSC
 * first: an expiry before the write was decided by the old mode.
 */
void lapic_timer_set_mode(struct lapic_timer *t, enum lapic_timer_mode mode);

/* TMICT written at @now: restarts the count from @count (0 stops it). */
void lapic_timer_write_tmict(struct lapic_timer *t, uint32_t count, uint64_t now);
uint32_t lapic_timer_read_tmict(const struct lapic_timer *t);

/* TMCCT at @now. Pure: a read changes nothing, however late the last advance. */
uint32_t lapic_timer_read_tmcct(const struct lapic_timer *t, uint64_t now);

/* TDCR written at @now (bits other than 0, 1 and 3 are dropped). */
void lapic_timer_write_tdcr(struct lapic_timer *t, uint32_t value, uint64_t now);
uint32_t lapic_timer_read_tdcr(const struct lapic_timer *t);

/*
 * Continue a count that another timer held (the physical LAPIC's, leaving a
 * mode that owns it): @current_count of @initial_count left, TDCR @tdcr,
 * in @mode, at @now.
 */
void lapic_timer_resume(struct lapic_timer *t, enum lapic_timer_mode mode, uint32_t initial_count,
			uint32_t current_count, uint32_t tdcr, uint64_t now);

/* When the count next reaches 0, as an absolute TSC; LAPIC_TIMER_IDLE if never. */
uint64_t lapic_timer_next(const struct lapic_timer *t);

/*
 * Account every expiry due at or before @now: one-shot stops at 0, periodic
 * moves to the first due time after @now on its grid. Sets fired if any.
 */
void lapic_timer_advance(struct lapic_timer *t, uint64_t now);

/* An expiry happened since the last take: one interrupt to raise. Clears it. */
bool lapic_timer_take(struct lapic_timer *t);

/* lapic_timer_advance, then lapic_timer_take. */
bool lapic_timer_expire(struct lapic_timer *t, uint64_t now);

#endif
