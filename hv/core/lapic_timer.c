// SPDX-License-Identifier: MIT
/* The LAPIC count-down timer, clocked by the TSC (lapic_timer.h). */
#include "hv/core/lapic_timer.h"

#include <stddef.h>

#include "hv/lib/apic_defs.h"

/*
 * SDM Vol. 3A figure 11-10, bits 3, 1, 0 of TDCR:
 *	000 2	001 4	010 8	011 16
 *	100 32	101 64	110 128	111 1
 */
uint32_t lapic_timer_divisor(uint32_t tdcr)
{
	uint32_t v = ((tdcr >> 1) & 4) | (tdcr & 3);

	return 1u << ((v + 1) & 7);
}

enum lapic_timer_mode lapic_timer_mode_of(uint32_t lvt)
{
	switch (lvt & APIC_LVT_TIMER_MODE_MASK) {
	case APIC_LVT_TIMER_PERIODIC:
		return LAPIC_TIMER_PERIODIC;
	case APIC_LVT_TIMER_TSC_DEADLINE:
		return LAPIC_TIMER_TSC_DEADLINE;
	}
	return LAPIC_TIMER_ONE_SHOT;
}

void lapic_timer_init(struct lapic_timer *t, uint64_t min_period_tsc)
{
	*t = (struct lapic_timer){
		.mode = LAPIC_TIMER_ONE_SHOT,
		.divisor = lapic_timer_divisor(0),
		.due = LAPIC_TIMER_IDLE,
		.min_period_tsc = min_period_tsc,
	};
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* One full count in TSC ticks (at most 2^32 * 128 = 2^39: no overflow). */
static uint64_t count_tsc(const struct lapic_timer *t)
{
	return (uint64_t)t->initial_count * t->divisor;
}

/* What a reload counts in periodic mode: a full count, at least the floor. */
static uint64_t period_tsc(const struct lapic_timer *t)
{
	uint64_t p = count_tsc(t);

	return p < t->min_period_tsc ? t->min_period_tsc : p;
}

static bool counting(const struct lapic_timer *t)
{
	return t->due != LAPIC_TIMER_IDLE;
}

/*
 * The first due time after @now on the grid due + k * period (due <= now),
 * and in *@passed the expiries at or before @now (k >= 1 of them).
 */
static uint64_t periodic_next(const struct lapic_timer *t, uint64_t now, uint64_t *passed)
{
	uint64_t p = period_tsc(t), k = (now - t->due) / p + 1;

	if (passed)
		*passed = k;
	return add_sat(now - (now - t->due) % p, p);
}

void lapic_timer_advance(struct lapic_timer *t, uint64_t now)
{
	uint64_t passed = 1;

	if (!counting(t) || now < t->due)
		return;
	if (t->mode == LAPIC_TIMER_PERIODIC)
		t->due = periodic_next(t, now, &passed);
	else
		t->due = LAPIC_TIMER_IDLE;	/* one-shot: the count stays at 0 */
	t->expiries += passed;
	t->coalesced += passed - 1 + (t->fired ? 1 : 0);
	t->fired = true;
}

bool lapic_timer_take(struct lapic_timer *t)
{
	bool fired = t->fired;

	t->fired = false;
	return fired;
}

bool lapic_timer_expire(struct lapic_timer *t, uint64_t now)
{
	lapic_timer_advance(t, now);
	return lapic_timer_take(t);
}

void lapic_timer_set_mode(struct lapic_timer *t, enum lapic_timer_mode mode)
{
	if (mode == t->mode)
		return;
	if (mode == LAPIC_TIMER_TSC_DEADLINE || t->mode == LAPIC_TIMER_TSC_DEADLINE) {
		t->initial_count = 0;
		t->due = LAPIC_TIMER_IDLE;
	}
	/* one-shot <-> periodic: the count goes on; the mode acts at 0 */
	t->mode = mode;
}

void lapic_timer_write_tmict(struct lapic_timer *t, uint32_t count, uint64_t now)
{
	lapic_timer_advance(t, now);
	if (t->mode == LAPIC_TIMER_TSC_DEADLINE)
		return;
	t->initial_count = count;
	if (!count)
		t->due = LAPIC_TIMER_IDLE;
	else if (t->mode == LAPIC_TIMER_PERIODIC)
		t->due = add_sat(now, period_tsc(t));
	else
		t->due = add_sat(now, count_tsc(t));
}

uint32_t lapic_timer_read_tmict(const struct lapic_timer *t)
{
	return t->initial_count;
}

/*
 * The count decrements every divisor ticks and reaches 0 at due, so with
 * left = due - now ticks to go it reads ceil(left / divisor).
 */
uint32_t lapic_timer_read_tmcct(const struct lapic_timer *t, uint64_t now)
{
	uint64_t next = t->due, count;

	if (t->mode == LAPIC_TIMER_TSC_DEADLINE || !counting(t))
		return 0;
	if (now >= next) {
		if (t->mode != LAPIC_TIMER_PERIODIC)
			return 0;
		next = periodic_next(t, now, NULL);
	}
	count = (next - now + t->divisor - 1) / t->divisor;
	/* a period stretched to the floor still reads at most TMICT */
	return count > t->initial_count ? t->initial_count : (uint32_t)count;
}

void lapic_timer_write_tdcr(struct lapic_timer *t, uint32_t value, uint64_t now)
{
	uint32_t old = t->divisor;

	lapic_timer_advance(t, now);
	t->tdcr = value & APIC_TDCR_MASK;
	t->divisor = lapic_timer_divisor(t->tdcr);
	/* KVM's rule: the count left runs on at the new rate (left * new / old) */
	if (counting(t))
		t->due = now + (t->due - now) * t->divisor / old;
}

uint32_t lapic_timer_read_tdcr(const struct lapic_timer *t)
{
	return t->tdcr;
}

void lapic_timer_resume(struct lapic_timer *t, enum lapic_timer_mode mode, uint32_t initial_count,
			uint32_t current_count, uint32_t tdcr, uint64_t now)
{
	t->mode = mode;
	t->tdcr = tdcr & APIC_TDCR_MASK;
	t->divisor = lapic_timer_divisor(t->tdcr);
	t->initial_count = mode == LAPIC_TIMER_TSC_DEADLINE ? 0 : initial_count;
	t->due = LAPIC_TIMER_IDLE;
	if (t->initial_count && current_count)
		t->due = add_sat(now, (uint64_t)current_count * t->divisor);
}

uint64_t lapic_timer_next(const struct lapic_timer *t)
{
	return t->due;
}
