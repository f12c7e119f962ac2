// SPDX-License-Identifier: MIT
/*
 * The timer state machine: the preemption-timer value for every rate, the
 * host tick and watchdog, the vtimer's modes, and a seeded random simulation
 * of a whole core checked against a reference model (timer_sim.c).
 *
 * TIMER_SEED=n overrides the simulation's base seed; TIMER_EVENTS=n the
 * number of events of each seeded run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "arch/x86/vmx_defs.h"
#include "hv/core/timer.h"
#include "timer_sim.h"

#define DEFAULT_SEED	0x7e3d0b1aull
#define DEFAULT_EVENTS	1000000ull
#define LVT_MASK	(1u << 16)
#define LVT_ONESHOT	(0u << 17)	/* LVT timer mode, bits 18:17 (SDM 11.5.1) */
#define LVT_PERIODIC	(1u << 17)
#define LVT_TSCDL	(2u << 17)

static uint64_t base_seed = DEFAULT_SEED;
static uint64_t sim_events = DEFAULT_EVENTS;

/* ---- the VMX-preemption timer ---- */

/* ceil((d - 1) / 2^rate) + 1 in 128 bits, before the clamp. */
static unsigned __int128 ptimer_exact(uint64_t now, uint64_t due, uint32_t rate)
{
	unsigned __int128 d1 = (unsigned __int128)(due - now - 1);
	unsigned __int128 unit = (unsigned __int128)1 << rate;

	return (d1 + unit - 1) / unit + 1;
}

/*
 * When a timer loaded with @value at TSC @load reaches 0: it counts one each
 * time TSC bit @rate changes. Stepped one tick at a time for small rates;
 * for the others, from one change of the bit to the next (the bit flips
 * exactly when the TSC crosses a multiple of 2^rate, checked on the way).
 */
static unsigned __int128 ptimer_expiry_model(uint64_t load, uint64_t value, uint32_t rate)
{
	unsigned __int128 t = load, unit = (unsigned __int128)1 << rate;

	if (!value)
		return load;
	if (rate <= 6 && value <= 64) {
		for (;;) {
			unsigned __int128 prev = t++;

			if ((((prev ^ t) >> rate) & 1) && --value == 0)
				return t;
		}
	}
	t = (t / unit + 1) * unit;	/* the first change after the load */
	assert_true((((t - 1) ^ t) >> rate) & 1);
	return t + (unsigned __int128)(value - 1) * unit;
}

static void check_one(uint64_t now, uint64_t due, uint32_t rate, unsigned __int128 *lo_seen,
		      unsigned __int128 *hi_seen)
{
	uint32_t v = ptimer_value(now, due, rate);
	unsigned __int128 exact, e, unit = (unsigned __int128)1 << rate;

	if (due <= now) {
		assert_int_equal(v, 0);
		return;
	}
	assert_true(v >= 1);
	exact = ptimer_exact(now, due, rate);
	if (exact > 0xffffffffu) {
		assert_int_equal(v, 0xffffffffu);
		return;
	}
	assert_true(v == (uint32_t)exact);
	/* The guarantee, for a load at now and later (VM entry takes time). */
	const uint64_t after[] = { 0, 1, (uint64_t)unit - 1, (uint64_t)unit + 3, 1000 };

	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
		uint64_t load = now + after[i];

		if (load < now)
			break;	/* past the end of the TSC */
		e = ptimer_expiry_model(load, v, rate);
		assert_true(e >= due);
		assert_true(e <= (unsigned __int128)due + after[i] + 2 * unit - 2);
		if (i == 0 && lo_seen) {
			if (e - due < *lo_seen)
				*lo_seen = e - due;
			if (e - due > *hi_seen)
				*hi_seen = e - due;
		}
	}
}

static void test_ptimer_due_now_or_past(void **state)
{
	(void)state;
	for (uint32_t r = 0; r < 32; r++) {
		assert_int_equal(ptimer_value(0, 0, r), 0);
		assert_int_equal(ptimer_value(5, 5, r), 0);
		assert_int_equal(ptimer_value(6, 5, r), 0);
		assert_int_equal(ptimer_value(UINT64_MAX, 0, r), 0);
		assert_int_equal(ptimer_value(UINT64_MAX, UINT64_MAX, r), 0);
		assert_int_equal(ptimer_value(UINT64_MAX, UINT64_MAX - 1, r), 0);
		/* the smallest delta is 1, never 0 */
		assert_int_equal(ptimer_value(0, 1, r), 1);
		assert_int_equal(ptimer_value(UINT64_MAX - 1, UINT64_MAX, r), 1);
	}
}

static void test_ptimer_boundaries(void **state)
{
	(void)state;
	for (uint32_t r = 0; r < 32; r++) {
		uint64_t unit = 1ull << r;
		const uint64_t nows[] = { 0, 1, unit - 1, unit, unit + 1, 3 * unit - 1,
					  0x123456789abcdefull, (1ull << 62) + unit / 2,
					  UINT64_MAX - 3 * unit, UINT64_MAX - unit, UINT64_MAX - 2 };
		unsigned __int128 lo = ~(unsigned __int128)0, hi = 0;

		for (size_t i = 0; i < sizeof(nows) / sizeof(nows[0]); i++) {
			uint64_t now = nows[i];
			const uint64_t ds[] = { 1, 2, 3, unit - 1, unit, unit + 1, unit + 2,
						2 * unit, 2 * unit + 1, 2 * unit + 2, 7 * unit + 1,
						1000, 1000000, 1ull << 32, 1ull << 40 };

			for (size_t j = 0; j < sizeof(ds) / sizeof(ds[0]); j++) {
				if (ds[j] && now + ds[j] > now)
					check_one(now, now + ds[j], r, &lo, &hi);
			}
			check_one(now, UINT64_MAX, r, NULL, NULL);
			check_one(now, now, r, NULL, NULL);
			if (now)
				check_one(now, now - 1, r, NULL, NULL);
		}
		/* exact boundaries of the rounding: d - 1 a multiple of 2^r, and one more */
		assert_int_equal(ptimer_value(100, 101 + 5 * unit, r), 5 + 1);
		if (r)
			assert_int_equal(ptimer_value(100, 102 + 5 * unit, r), 6 + 1);
		assert_int_equal(ptimer_value(100, 100 + 5 * unit, r), r ? 5 + 1 : 5);
		(void)lo;
		(void)hi;
	}
}

/* The clamp: the last unclamped delta, the first clamped one, and the far end. */
static void test_ptimer_clamp(void **state)
{
	(void)state;
	for (uint32_t r = 0; r < 32; r++) {
		unsigned __int128 d_last = ((unsigned __int128)0xfffffffeu << r) + 1;
		uint64_t now = r == 31 ? 12345 : (1ull << 40) + 77;
		uint64_t due = now + (uint64_t)d_last;
		unsigned __int128 e;

		/* ceil((d - 1) / 2^r) = 2^32 - 2: value 2^32 - 1, not clamped, not early */
		assert_true((unsigned __int128)now + d_last <= UINT64_MAX);
		assert_int_equal(ptimer_value(now, due, r), 0xffffffffu);
		e = ptimer_expiry_model(now, 0xffffffffu, r);
		assert_true(e >= due);
		/* one more: the exact value would be 2^32, clamped, and it expires early */
		assert_true(ptimer_exact(now, due + 1, r) == ((unsigned __int128)1 << 32));
		assert_int_equal(ptimer_value(now, due + 1, r), 0xffffffffu);
		/* the clamped expiry: at least now + 1 + (2^32 - 2) * 2^r */
		assert_true(e >= (unsigned __int128)now + 1 + ((unsigned __int128)0xfffffffeu << r));
		/* the largest deltas there are */
		assert_int_equal(ptimer_value(0, UINT64_MAX, r), 0xffffffffu);
		assert_int_equal(ptimer_value(1, UINT64_MAX, r), 0xffffffffu);
	}
	/* rate 31: every delta below 2^63 - 2^31 + 1 fits */
	assert_int_equal(ptimer_value(0, 1ull << 62, 31), (1u << 31) + 1);
	assert_int_equal(ptimer_value(0, (1ull << 62) + 1, 31), (1u << 31) + 1);
	assert_int_equal(ptimer_value(0, (1ull << 62) + 2, 31), (1u << 31) + 2);
	/* rate 0: value = delta */
	assert_int_equal(ptimer_value(10, 10 + 0xffffffffull, 0), 0xffffffffu);
	assert_int_equal(ptimer_value(10, 11 + 0xffffffffull, 0), 0xffffffffu);
	assert_int_equal(ptimer_value(10, 10 + 12345, 0), 12345);
}

/*
 * The property, for every rate: loaded at @now (or later), the timer never
 * expires before @due unless clamped, and at most 2^(rate+1) - 2 after it;
 * both ends are reached.
 */
static void test_ptimer_never_early(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (uint32_t r = 0; r < 32; r++) {
		uint64_t unit = 1ull << r, mask = unit - 1;
		unsigned __int128 lo = ~(unsigned __int128)0, hi = 0;

		for (int i = 0; i < 4000; i++) {
			uint64_t now, d;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* now: every phase against 2^r, including the extremes */
			switch (i & 3) {
			case 0: now = (x >> 4) & ~mask; break;
			case 1: now = ((x >> 4) & ~mask) + mask; break;
			case 2: now = ((x >> 4) & ~mask) + 1; break;
			default: now = x >> 4; break;
			}
			/* d: around multiples of 2^r, small and large */
			switch ((i >> 2) & 3) {
			case 0: d = (x % 50) + 1; break;
			case 1: d = (((x >> 8) % 9) << r) + ((x >> 20) % 3); break;
			case 2: d = (x >> 24) % (unit * 64 + 3) + 1; break;
			default: d = (x >> (x & 15)) + 1; break;
			}
			if (!d || now + d < now)
				continue;
			check_one(now, now + d, r, &lo, &hi);
		}
		/* the lower bound is reached: now = -1 mod 2^r, d - 1 = 0 mod 2^r */
		check_one(unit * 5 + mask, unit * 5 + mask + 1 + 3 * unit, r, &lo, &hi);
		assert_true(lo == 0);
		/* the upper bound too: now = 0 mod 2^r, d - 1 = 1 mod 2^r */
		if (r) {
			check_one(unit * 5, unit * 5 + 2 + 3 * unit, r, &lo, &hi);
			assert_true(hi == 2 * (unsigned __int128)unit - 2);
		} else {
			assert_true(hi == 0);
		}
	}
}

/* ---- host ticks and the watchdog ---- */

static void test_host_periods(void **state)
{
	struct host_timer h;

	(void)state;
	host_timer_init(&h, 1000, 100, 0);
	assert_int_equal(h.next_tick, 1100);
	assert_int_equal(host_timer_next(&h), 1100);
	assert_false(host_timer_run(&h, 1099));
	assert_int_equal(h.ticks, 0);
	assert_true(host_timer_run(&h, 1100));
	assert_int_equal(h.ticks, 1);
	assert_int_equal(h.late_max_ticks, 0);
	assert_int_equal(h.next_tick, 1200);
	assert_false(host_timer_run(&h, 1100));
	assert_true(host_timer_run(&h, 1250));
	assert_int_equal(h.late_max_ticks, 50);
	assert_int_equal(h.late_sum_ticks, 50);
	assert_int_equal(h.next_tick, 1300);
	/* one tick before the next due time: nothing */
	assert_false(host_timer_run(&h, 1299));
	assert_true(host_timer_run(&h, 1399));
	assert_int_equal(h.ticks, 3);
	assert_int_equal(h.ticks_missed, 0);
	assert_int_equal(h.late_max_ticks, 99);
	assert_int_equal(h.next_tick, 1400);
	assert_int_equal(h.watchdog_fired, 0);
}

/* ---- host ticks placed around a direct guest's deadlines ---- */

static void test_tick_offset_rules(void **state)
{
	const uint64_t g0 = 1000, g1 = 2000, slack = 250, m = 10;

	(void)state;
	/* off: no slack, no deadline */
	assert_int_equal(host_tick_offset(g0, g1, 0, 2000, m), 0);
	assert_int_equal(host_tick_offset(g0, g1, slack, 0, m), 0);
	/*
	 * a deadline four margins or more past the next grid time, within the
	 * slack: four margins before it (the guest's work after its interrupt
	 * is not disturbed, and the exit stub's step-aside window ends there)
	 */
	assert_int_equal(host_tick_offset(g0, g1, slack, 2040, m), 0);
	assert_int_equal(host_tick_offset(g0, g1, slack, 2100, m), 60);
	assert_int_equal(host_tick_offset(g0, g1, slack, 2240, m), 200);
	assert_int_equal(host_tick_offset(g0, g1, slack, 2290, m), 250);
	/*
	 * at or just past the next grid time, too close for that, or shortly
	 * before it (under the slack less four margins, 210): the slack's end,
	 * out of the guest's work after its interrupt
	 */
	assert_int_equal(host_tick_offset(g0, g1, slack, 2000, m), 250);
	assert_int_equal(host_tick_offset(g0, g1, slack, 2039, m), 250);
	assert_int_equal(host_tick_offset(g0, g1, slack, 1990, m), 250);
	assert_int_equal(host_tick_offset(g0, g1, slack, 1995, m), 250);
	assert_int_equal(host_tick_offset(g0, g1, slack, 1791, m), 250);
	/* 210 or more before it: the grid is that far after it already */
	assert_int_equal(host_tick_offset(g0, g1, slack, 1790, m), 0);
	/* a slack of four margins or less has no end past the work: the grid */
	assert_int_equal(host_tick_offset(g0, g1, 4 * m, 2010, m), 0);
	assert_int_equal(host_tick_offset(g0, g1, 4 * m + 1, 2010, m), 4 * m + 1);
	/*
	 * a slack over half a period: "four margins before the phase lock's
	 * guess" (23,250) goes before "the slack's end for the deadline read"
	 * (27,000 would be 1,750 into the guessed deadline's work)
	 */
	assert_int_equal(host_tick_offset(50000, 100000, 27000, 75250, 500), 23250);
	/* past the slack, and no phase within it: on the grid */
	assert_int_equal(host_tick_offset(g0, g1, slack, 2291, m), 0);
	assert_int_equal(host_tick_offset(g0, g1, slack, 1500, m), 0);
	/* phase lock: four margins before the deadline a tick period on (2100) */
	assert_int_equal(host_tick_offset(g0, g1, slack, 1100, m), 60);
	assert_int_equal(host_tick_offset(g0, g1, slack, 1290, m), 250);
	assert_int_equal(host_tick_offset(g0, g1, slack, 1040, m), 0);
	/* ... or the slack's end when that would be before the grid */
	assert_int_equal(host_tick_offset(g0, g1, slack, 1039, m), 250);
	assert_int_equal(host_tick_offset(g0, g1, slack, 1005, m), 250);
	assert_int_equal(host_tick_offset(g0, g1, slack, 995, m), 250);
	/* a deadline long past (Bochs keeps a fired one in the MSR) */
	assert_int_equal(host_tick_offset(g0, g1, slack, 500, m), 0);
	/* no overflow near the TSC's end */
	assert_int_equal(host_tick_offset(g0, g1, slack, UINT64_MAX, m), 0);
	assert_int_equal(host_tick_offset(UINT64_MAX - 300, UINT64_MAX - 100, slack,
					  UINT64_MAX - 50, m), 10);
	assert_int_equal(host_tick_offset(UINT64_MAX - 300, UINT64_MAX - 100, slack,
					  UINT64_MAX - 5, m), 55);
	/* the slack's end would be the TSC's end: on the grid */
	assert_int_equal(host_tick_offset(UINT64_MAX - 300, UINT64_MAX - 100, slack,
					  UINT64_MAX - 80, m), 0);
	assert_int_equal(host_tick_offset(UINT64_MAX - 600, UINT64_MAX - 300, slack,
					  UINT64_MAX - 280, m), 250);
	assert_int_equal(host_tick_offset(g0, TIMER_NO_EVENT, slack, 1100, m), 0);
}

static void test_tick_place_and_defer(void **state)
{
	struct host_timer h;

	(void)state;
	host_timer_init(&h, 0, 1000, 0);
	h.slack_tsc = 250;
	assert_true(host_timer_run(&h, 1000));
	host_timer_place(&h, 2140, 10);
	/* the grid stays; only the exit moves (four margins before 2140) */
	assert_int_equal(h.next_tick, 2000);
	assert_int_equal(h.fire_tick, 2100);
	assert_int_equal(host_timer_next(&h), 2100);
	/* not due before its placed time, even past the grid time */
	assert_false(host_timer_run(&h, 2050));
	assert_true(host_timer_run(&h, 2100));
	assert_int_equal(h.late_max_ticks, 100);
	assert_int_equal(h.offset_max, 100);
	assert_int_equal(h.next_tick, 3000);
	assert_int_equal(h.fire_tick, 3000);

	/* at the tick's exit the guest is about to fire: move past it, once */
	assert_false(host_timer_defer(&h, 2999, 3005, false, 10));	/* not due yet */
	assert_true(host_timer_defer(&h, 3000, 3005, false, 10));
	assert_int_equal(h.fire_tick, 3015);
	assert_false(host_timer_run(&h, 3001));
	assert_false(host_timer_defer(&h, 3015, 3020, false, 10));	/* once per tick */
	assert_true(host_timer_run(&h, 3015));
	assert_int_equal(h.deferred, 1);
	/* far off (past two margins), already past, or beyond the slack: no deferral */
	assert_false(host_timer_defer(&h, 4000, 4021, false, 10));
	assert_false(host_timer_defer(&h, 4000, 4000, false, 10));
	assert_false(host_timer_defer(&h, 4000, 3990, false, 10));
	assert_false(host_timer_defer(&h, 4245, 4250, false, 10));
	assert_true(host_timer_defer(&h, 4220, 4240, false, 10));
	assert_int_equal(h.fire_tick, 4250);
	assert_true(host_timer_run(&h, 4250));
	/*
	 * The guest's timer fired in the exit's first instructions (its vector
	 * waits in the IRR; the MSR reads 0 or the past value): it goes first,
	 * the tick a margin later, within the slack, once per tick.
	 */
	assert_true(host_timer_defer(&h, 5003, 0, true, 10));
	assert_int_equal(h.fire_tick, 5013);
	assert_false(host_timer_defer(&h, 5013, 0, true, 10));
	assert_true(host_timer_run(&h, 5013));
	assert_true(host_timer_defer(&h, 6000, 5998, true, 10));
	assert_int_equal(h.fire_tick, 6010);
	assert_true(host_timer_run(&h, 6010));
	/* an armed deadline in the window still wins over the fired one */
	assert_true(host_timer_defer(&h, 7000, 7015, true, 10));
	assert_int_equal(h.fire_tick, 7025);
	assert_true(host_timer_run(&h, 7025));
	/* not past the slack (8000 + 250 here), fired or not */
	h.fire_tick = 8245;
	assert_false(host_timer_defer(&h, 8245, 0, true, 10));
	assert_true(host_timer_run(&h, 8245));
	/*
	 * Placement keeps six margins of the slack free for that deferral or
	 * a step of the exit stub's (five margins) with a margin to spare: up
	 * to 250 - 60 past the grid, before a deadline or as far after one as
	 * that allows, else on the grid.
	 */
	host_timer_place(&h, 9230, 10);
	assert_int_equal(h.fire_tick, 9190);
	host_timer_place(&h, 9231, 10);
	assert_int_equal(h.fire_tick, 9000);
	host_timer_place(&h, 9010, 10);
	assert_int_equal(h.fire_tick, 9190);

	/* slack 0: always on the grid */
	host_timer_init(&h, 0, 1000, 0);
	assert_true(host_timer_run(&h, 1000));
	host_timer_place(&h, 2000, 10);
	assert_int_equal(h.fire_tick, 2000);
	assert_false(host_timer_defer(&h, 2000, 2005, false, 10));
	/* a slack at or above the period is cut below it: never a missed tick */
	h.slack_tsc = 5000;
	host_timer_place(&h, 2995, 10);
	assert_true(h.fire_tick < 3000);
}

/*
 * A direct guest against the placed ticks: deadlines from @next_interval,
 * each armed @rearm ticks after the previous one's handler ran; a tick's exit
 * reads the guest's deadline @prologue ticks after it began (the exit path
 * up to the RDMSR), then costs @tick_cost more, a deferral @defer_cost more.
 * A hit is a guest deadline inside an exit: it waits for the VM entry, and
 * its handler runs at the exit's end. Returns the hits and the worst delay
 * one of them saw; checks the grid, the lateness bound and that no tick is
 * missed. @fired_seen false: the exit ignores a fire in its prologue (the
 * rule before it was read from the IRR).
 */
struct tick_guest {
	uint64_t period, slack, margin, tick_cost, defer_cost, rearm, prologue;
	bool hw_msr;		/* the MSR reads 0 once fired (hardware), else the fired value (Bochs) */
	bool fired_unseen;
	uint64_t (*next_interval)(uint64_t *rng);
};

static uint64_t interval_tick(uint64_t *rng)
{
	(void)rng;
	return 50000;
}

static uint64_t interval_fifth(uint64_t *rng)
{
	(void)rng;
	return 10000;
}

static uint64_t rng_next(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return *rng;
}

static uint64_t interval_random(uint64_t *rng)
{
	return 5000 + rng_next(rng) % 10001;
}

/* make run's rt-direct: random intervals around 100 us (2,500 to 7,500 ticks) */
static uint64_t interval_demo(uint64_t *rng)
{
	return 2500 + rng_next(rng) % 5001;
}

static uint64_t run_tick_guest(const struct tick_guest *g, uint64_t ticks, uint64_t start_phase,
			       uint64_t *worst)
{
	struct host_timer h;
	uint64_t rng = 88172645463325252ull, hits = 0, n = 0;
	uint64_t handled = start_phase, armed = start_phase, t, now, end, msr;
	bool fired, deferred;

	host_timer_init(&h, 0, g->period, 0);
	h.slack_tsc = g->slack;
	*worst = 0;
	while (n < ticks) {
		t = host_timer_next(&h);
		/* the guest's deadlines before the exit: each handled at its time, then re-armed */
		while (armed < t) {
			handled = armed;
			armed = handled + g->rearm + g->next_interval(&rng);
		}
		now = t + g->prologue;
		fired = armed <= now;	/* in the exit's first instructions: in the IRR */
		if (fired)
			msr = g->hw_msr ? 0 : armed;
		else if (t < handled + g->rearm)	/* its handler has not re-armed yet */
			msr = g->hw_msr ? 0 : handled;
		else
			msr = armed;
		deferred = host_timer_defer(&h, now, msr, fired && !g->fired_unseen, g->margin);
		end = now + (deferred ? g->defer_cost : g->tick_cost);
		if (armed <= end) {
			hits++;
			if (end - armed > *worst)
				*worst = end - armed;
			handled = end;
			armed = handled + g->rearm + g->next_interval(&rng);
		}
		if (deferred)
			continue;
		assert_true(host_timer_run(&h, now));
		n++;
		host_timer_place(&h, msr, g->margin);
		assert_int_equal(h.next_tick, (n + 1) * g->period);
		assert_true(h.fire_tick - h.next_tick <= g->slack - 6 * g->margin);
	}
	assert_int_equal(h.ticks_missed, 0);
	assert_true(h.late_max_ticks <= g->slack + g->prologue);
	return hits;
}

static void test_tick_guest_feels_nothing(void **state)
{
	struct tick_guest g = {
		.period = 50000, .slack = 12500, .margin = 500, .tick_cost = 300,
		.defer_cost = 150, .rearm = 200, .next_interval = interval_tick,
	};
	uint64_t hits, worst, worst_before;

	(void)state;
	/* a guest period equal to the tick's, at every phase: no hit after the first tick */
	for (uint64_t phase = 0; phase < 50000; phase += 997)
		assert_true(run_tick_guest(&g, 300, phase, &worst) <= 1);
	/* one fifth of it, re-armed from the handler (so a little longer) */
	g.next_interval = interval_fifth;
	for (uint64_t phase = 0; phase < 10000; phase += 331)
		assert_true(run_tick_guest(&g, 300, phase, &worst) <= 1);
	/*
	 * Random intervals: a deadline the guest armed after the tick was placed
	 * can still fall in the tick's exit before the deadline is read, or in
	 * the short deferral. Either way it waits for no more than that short
	 * exit, never for a whole tick, with the MSR read 0 or not.
	 */
	g.next_interval = interval_random;
	g.prologue = 80;
	for (int hw = 0; hw <= 1; hw++) {
		g.hw_msr = hw;
		hits = run_tick_guest(&g, 2000, 0, &worst);
		assert_true(hits > 0);
		assert_true(hits <= 2000 * (g.prologue + g.defer_cost) * 2 / 10000);
		assert_true(worst <= g.prologue + g.defer_cost);
	}
	/* before: a fire in the prologue found the deadline past and waited for the tick */
	g.fired_unseen = true;
	run_tick_guest(&g, 2000, 0, &worst_before);
	assert_true(worst_before > g.prologue + g.defer_cost);
	g.fired_unseen = false;
	/* the same guests with the ticks on the grid: they feel them */
	g.slack = 0;
	g.prologue = 0;
	g.next_interval = interval_fifth;
	assert_true(run_tick_guest(&g, 300, 9900, &worst) > 10);
}

/*
 * The exit stub's own tick: its plan for the tick placed at fire_tick (the
 * next one on the grid a period on, far a period past that), and none
 * where it may not take one.
 */
static void test_stub_tick_plan(void **state)
{
	struct host_timer h;
	struct stub_tick_plan p;

	(void)state;
	host_timer_init(&h, 1000, 50000, 0);
	assert_false(host_timer_stub_plan(&h, &p));		/* no slack: ticks not placed */
	h.slack_tsc = 12500;
	assert_true(host_timer_stub_plan(&h, &p));
	assert_int_equal(p.due, 51000);
	assert_int_equal(p.next, 101000);
	assert_int_equal(p.far, 151000);
	assert_int_equal(p.period, 50000);
	h.fire_tick = 51000 + 9000;				/* placed: due there, next on the grid */
	assert_true(host_timer_stub_plan(&h, &p));
	assert_int_equal(p.due, 60000);
	assert_int_equal(p.next, 101000);
	h.fire_tick = 51000 + 50000;				/* off its period */
	assert_false(host_timer_stub_plan(&h, &p));
	h.fire_tick = 50000;					/* before its grid time */
	assert_false(host_timer_stub_plan(&h, &p));
	host_timer_init(&h, 1000, 50000, 99999);		/* the watchdog could come first */
	h.slack_tsc = 12500;
	assert_false(host_timer_stub_plan(&h, &p));
	host_timer_init(&h, 1000, 50000, 100000);		/* due at next, not before */
	h.slack_tsc = 12500;
	assert_true(host_timer_stub_plan(&h, &p));
	h.last_exit = 999;					/* one tick more: due before next */
	assert_false(host_timer_stub_plan(&h, &p));
	host_timer_init(&h, 1000, 0, 0);			/* tickless */
	h.slack_tsc = 12500;
	assert_false(host_timer_stub_plan(&h, &p));
	host_timer_init(&h, UINT64_MAX - 120000, 50000, 0);	/* near the TSC's end */
	h.slack_tsc = 12500;
	assert_false(host_timer_stub_plan(&h, &p));
}

/*
 * What the stub's ticks leave (the fold) is what hv's own would have: from
 * random states that hv's ticks, deferrals and placements leave behind,
 * one to four ticks taken as the stub takes them (each in [due, next),
 * the guest's deadline 0 or at or past far), against host_timer_defer,
 * host_timer_run and host_timer_place doing the same ticks: no deferral,
 * the same grid, placed time, guess, counts and lateness.
 */
static void test_stub_tick_same_as_hv(void **state)
{
	const uint64_t m = 500, period = 50000;
	uint64_t rng = 0x5eed5eedull;
	int planned = 0;

	(void)state;
	for (int trial = 0; trial < 20000; trial++) {
		struct host_timer hv, stub;
		struct stub_tick_plan p;
		uint64_t due, next, far, late_sum = 0, late_max = 0, now = 0, d = 0;
		uint32_t n = 1 + (uint32_t)(rng_next(&rng) % 4), k;

		host_timer_init(&hv, rng_next(&rng) % 1000000, period,
				rng_next(&rng) % 2 ? 0 : period + rng_next(&rng) % 200000);
		hv.slack_tsc = 1 + rng_next(&rng) % 40000;
		/* a past of hv's own ticks against a guest's random deadlines */
		for (int i = (int)(rng_next(&rng) % 6); i > 0; i--) {
			uint64_t t = hv.fire_tick + rng_next(&rng) % 3000, g;

			switch (rng_next(&rng) % 4) {
			case 0: g = 0; break;
			case 1: g = t - rng_next(&rng) % 5000; break;
			case 2: g = t + rng_next(&rng) % 3000; break;
			default: g = t + rng_next(&rng) % 120000; break;
			}
			if (!host_timer_defer(&hv, t, g, false, m) && host_timer_run(&hv, t))
				host_timer_place(&hv, g, m);
			if (hv.watchdog_tsc)
				hv.last_exit = t + 600;	/* host_due at the entry */
		}
		if (!host_timer_stub_plan(&hv, &p))
			continue;
		planned++;
		stub = hv;
		due = p.due;
		next = p.next;
		far = p.far;
		for (k = 0; k < n; k++) {
			uint64_t late;

			now = due + rng_next(&rng) % (next - due);
			d = rng_next(&rng) % 3 ? far + rng_next(&rng) % (10 * period) : 0;
			/* hv's own tick at @now */
			assert_false(host_timer_defer(&hv, now, d, false, m));
			assert_true(host_timer_run(&hv, now));
			host_timer_place(&hv, d, m);
			assert_int_equal(hv.fire_tick, hv.next_tick);	/* on the grid */
			assert_int_equal(hv.next_tick, next);
			if (hv.watchdog_tsc)
				hv.last_exit = now;
			/* the stub's, as vmx_entry.S takes it */
			late = now - (next - period);
			late_sum += late;
			late_max = late > late_max ? late : late_max;
			due = next;
			next += period;
			far += period;
		}
		host_timer_stub_taken(&stub, n, due, late_sum, late_max, now, d);
		assert_int_equal(stub.next_tick, hv.next_tick);
		assert_int_equal(stub.fire_tick, hv.fire_tick);
		assert_int_equal(stub.last_grid, hv.last_grid);
		assert_int_equal(stub.phase_guess, hv.phase_guess);
		assert_int_equal(stub.ticks, hv.ticks);
		assert_int_equal(stub.ticks_missed, hv.ticks_missed);
		assert_int_equal(stub.late_sum_ticks, hv.late_sum_ticks);
		assert_int_equal(stub.late_max_ticks, hv.late_max_ticks);
		assert_int_equal(stub.watchdog_fired, hv.watchdog_fired);
		assert_int_equal(stub.offset_max, hv.offset_max);
		assert_int_equal(stub.deferred_this, hv.deferred_this);
		assert_int_equal(stub.last_exit, hv.last_exit);
		assert_int_equal(stub.stub_ticks, hv.stub_ticks + n);
	}
	assert_true(planned > 10000);	/* most states let the stub take the next tick */
}

/*
 * The exit stub's step-aside: the plan for a placed tick. The window runs
 * from two margins before the exit's time to three after; a step moves the
 * tick by the deadline's place in it, at most five margins; as many steps
 * as fit at their longest, with a margin of drift each, before the slack's
 * end (or the watchdog's due time); none without slack or room.
 */
static void test_tick_aside_plan(void **state)
{
	struct host_timer h;
	struct tick_aside_plan p;

	(void)state;
	host_timer_init(&h, 0, 50000, 0);
	assert_false(host_timer_aside_plan(&h, 500, &p));	/* no slack */
	assert_int_equal(p.steps, 0);
	h.slack_tsc = 12500;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.lo0, (uint32_t)-4);	/* the stub counts four steps up to 2^32 */
	assert_int_equal(p.span, 2500);
	assert_int_equal(p.step, 3000);		/* a step at its longest, the window, and a drift */
	assert_int_equal(p.steps, 4);		/* 12,500 / (2,500 + a margin of drift) */
	h.fire_tick = 50000 + 9500;		/* the latest host_timer_place chooses */
	assert_true(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.steps, 1);
	assert_int_equal(p.lo0, UINT32_MAX);
	h.fire_tick = 50000 + 10000;		/* no room for a step */
	assert_false(host_timer_aside_plan(&h, 500, &p));
	/* a deferral or earlier steps do not stop more: the deadline is judged afresh */
	h.fire_tick = 50000;
	h.deferred_this = true;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	/* the watchdog's due time bounds the steps */
	host_timer_init(&h, 0, 50000, 55000);
	h.slack_tsc = 12500;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.steps, 1);
	/* the stub's differences are 32-bit */
	assert_false(host_timer_aside_plan(&h, 1ull << 28, &p));
	/* taken: due where the stub left it, counted as deferred */
	host_timer_init(&h, 0, 50000, 0);
	h.slack_tsc = 12500;
	host_timer_aside_taken(&h, 0, 51000);
	assert_int_equal(h.fire_tick, 50000);
	host_timer_aside_taken(&h, 2, 55070);
	assert_int_equal(h.fire_tick, 55070);
	assert_int_equal(h.deferred, 2);
	assert_int_equal(h.offset_max, 5070);
	assert_false(host_timer_run(&h, 55069));
	assert_true(host_timer_run(&h, 55070));
	assert_int_equal(h.late_max_ticks, 5070);
	/* never before the grid time (a step only moves a tick later) */
	host_timer_aside_taken(&h, 1, 90000);
	assert_int_equal(h.fire_tick, 100000);
}

/*
 * The plan is made in the tick's exit and writes only what it must: a
 * refused plan after a made one leaves steps 0, so the stale rest counts
 * no step and arms nothing; its steps are the room to the slack's end over
 * a step and its drift, as a 64-bit division says, up to the largest room
 * and margin it takes (both under 2^31: a 32-bit division).
 */
static void test_tick_aside_plan_refused(void **state)
{
	struct host_timer h;
	struct tick_aside_plan p;
	const uint64_t margins[] = { 1, 7, 500, 12345, (1u << 28) - 1 };

	(void)state;
	memset(&p, 0xa5, sizeof(p));
	host_timer_init(&h, 0, 50000, 0);
	h.slack_tsc = 12500;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.steps, 4);
	h.fire_tick = 50000 + 10000;		/* no room: refused */
	assert_false(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.steps, 0);
	assert_int_equal(host_timer_aside_steps_taken(&p, p.lo0 + 3), 0);
	assert_int_equal(host_timer_aside_steps_taken(&p, 0), 0);
	assert_int_equal(host_timer_aside_steps_taken(&p, UINT64_MAX), 0);
	/* hostile margins: none, or the windows past 32 bits */
	h.fire_tick = 50000;
	assert_false(host_timer_aside_plan(&h, 0, &p));
	assert_int_equal(p.steps, 0);
	assert_false(host_timer_aside_plan(&h, UINT64_MAX, &p));
	assert_int_equal(p.steps, 0);
	for (unsigned i = 0; i < sizeof(margins) / sizeof(margins[0]); i++) {
		uint64_t m = margins[i], room = (1ull << 31) - 1, want;

		/* the largest room: a slack just under 2^31 from the placed time */
		host_timer_init(&h, 0, 1ull << 40, 0);
		h.slack_tsc = room;
		want = room / (6 * m) < 255 ? room / (6 * m) : 255;
		assert_int_equal(host_timer_aside_plan(&h, m, &p), want > 0);
		assert_int_equal(p.steps, want);
		/* and a room one short of a whole number of steps */
		h.slack_tsc = 6 * m * (want > 3 ? 3 : want) - 1;
		want = h.slack_tsc / (6 * m);
		assert_int_equal(host_timer_aside_plan(&h, m, &p), want > 0);
		assert_int_equal(p.steps, want);
	}
	/* a room of 2^31 is past the stub's reach */
	host_timer_init(&h, 0, 1ull << 40, 0);
	h.slack_tsc = 1ull << 31;
	assert_false(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.steps, 0);
}

/*
 * The phase lock's guess (the deadline read, a tick period on) places a
 * tick only while the guest keeps it: a random guest's deadline a tick
 * period on is anywhere, and its guesses, each from a deadline read after
 * the last tick's steps, crept to the slack's end, where the stub had room
 * for one step and then ran the tick into the guest's deadline.
 */
static void test_tick_phase_lock(void **state)
{
	struct host_timer h;

	(void)state;
	assert_true(host_tick_phase_locked(0, 12345, 500));	/* no guess yet */
	assert_true(host_tick_phase_locked(60000, 0, 500));	/* no deadline */
	assert_true(host_tick_phase_locked(60000, 60000, 500));
	assert_true(host_tick_phase_locked(60000, 59000, 500));
	assert_true(host_tick_phase_locked(60000, 61000, 500));
	assert_false(host_tick_phase_locked(60000, 58999, 500));
	assert_false(host_tick_phase_locked(60000, 61001, 500));
	assert_false(host_tick_phase_locked(UINT64_MAX, 1, 500));
	assert_false(host_tick_phase_locked(1, UINT64_MAX, 500));

	host_timer_init(&h, 0, 50000, 0);
	h.slack_tsc = 12500;
	/* a 1 ms guest, phase 8,000: four margins before its deadline, every tick */
	assert_true(host_timer_run(&h, 50000));
	host_timer_place(&h, 58000, 500);
	assert_int_equal(h.fire_tick, 106000);
	assert_true(host_timer_run(&h, 106000));
	host_timer_place(&h, 108000, 500);
	assert_int_equal(h.fire_tick, 156000);
	/* the guess missed (a deadline 3,000 off it): the grid, by the deadline read alone */
	assert_true(host_timer_run(&h, 156000));
	host_timer_place(&h, 161000, 500);
	assert_int_equal(h.fire_tick, 200000);
	/* kept again (161,000 a period on): locked */
	assert_true(host_timer_run(&h, 200000));
	host_timer_place(&h, 211000, 500);
	assert_int_equal(h.fire_tick, 259000);
	/* a deadline past the next grid time needs no guess: always used */
	assert_true(host_timer_run(&h, 259000));
	host_timer_place(&h, 305000, 500);
	assert_int_equal(h.fire_tick, 303000);
	/* a hostile deadline at the TSC's end: no guess to overflow, the grid */
	assert_true(host_timer_run(&h, 303000));
	host_timer_place(&h, UINT64_MAX, 500);
	assert_int_equal(h.phase_guess, UINT64_MAX);
	assert_int_equal(h.fire_tick, 350000);
}

/*
 * The stub's arithmetic (arch/x86/vmx_entry.S exit_aside), done here as it
 * does it: y = D - the exit's time in 32 bits, under EA_STEP_TICKS a hit;
 * x = y + bias, below span, is the step's timer value (rate 0); each step
 * adds 1 to the 64-bit word closed << 32 | lo, from lo0. Every window
 * takes exactly the deadlines in [then - 2 margins, + span), the TSC's
 * 2^32 boundaries included, and steps to two margins past each, never
 * longer than the plan's step; the step after the last carries into
 * closed (which the stub tests first); hv counts the steps from lo alone,
 * whatever it wrote into closed.
 */
static void check_aside_windows(const struct tick_aside_plan *p, uint64_t margin)
{
	uint64_t word = p->lo0;
	const int64_t b = 2 * (int64_t)margin, edges[] = { -1, 0, 1, b - 1, b, b + EA_STEP_TICKS - 1,
							 b + EA_STEP_TICKS, (int64_t)p->span - 1,
							 (int64_t)p->span };
	const uint64_t exits[] = { (1ull << 29) + 5000, (1ull << 32) - 3,
				   (1ull << 32) + margin / 2, (7ull << 32) + 1 };
	uint32_t bias = p->bias;

	assert_true(p->steps >= 1);
	assert_int_equal(p->bias, 2 * margin);	/* the window starts two margins before the exit */
	assert_true(p->span < p->step);		/* a step's drift counted in the plan's */
	for (uint32_t k = 0; k <= p->steps; k++) {
		uint64_t then = exits[k % 4];

		for (unsigned e = 0; e < sizeof(edges) / sizeof(edges[0]); e++) {
			uint64_t d = then - (uint64_t)b + (uint64_t)edges[e];
			uint32_t y = (uint32_t)d - (uint32_t)then;
			uint64_t x = (uint32_t)(y + bias);
			bool in = edges[e] >= 0 && (uint64_t)edges[e] < p->span;

			assert_int_equal(!(word >> 32) && x < p->span, in && k < p->steps);
			/* the step: its timer runs out two margins past D */
			if (in)
				assert_true(then + x == d + 2 * margin);
			/* a hit: D in the step, before its re-entry EA_STEP_TICKS after the exit */
			assert_int_equal(y < EA_STEP_TICKS, d >= then && d < then + EA_STEP_TICKS);
			/* and in the window: counted only with a step */
			if (y < EA_STEP_TICKS)
				assert_true(x < p->span);
		}
		assert_int_equal(word >> 32, k == p->steps);	/* closed */
		assert_int_equal(host_timer_aside_steps_taken(p, word), k);
		/* hv closing it (hv_root_nmi, closed = 1) changes no count */
		assert_int_equal(host_timer_aside_steps_taken(p, (uint32_t)word | 1ull << 32), k);
		if (k < p->steps)
			word++;
	}
}

/*
 * hv's half of a step it cannot see (hv/time/aside.c tick_aside_steps_fold):
 * where the tick is due after the stub's steps. At the exit the last step
 * aimed, when hv reads the TSC; at one before it, when that step's timer
 * runs out; never past a whole step each from the placed time (a late
 * exit, or hv's read after it, would put a tick past its slack); the
 * placed time with no step. And the scaled stubs' x >> rate, done as the
 * stub does it: x times 2^(32 - rate), the upper half.
 */
static void test_tick_aside_due(void **state)
{
	struct host_timer h;
	struct tick_aside_plan p;

	(void)state;
	host_timer_init(&h, 0, 50000, 0);
	h.slack_tsc = 12500;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.step, 3000);
	/* no step: the placed time, whatever the exit */
	assert_int_equal(host_timer_aside_due(&p, 50000, 0, 50700, true, 0), 50000);
	assert_int_equal(host_timer_aside_due(&p, 50000, 0, 49000, false, 900), 50000);
	/* the aimed exit: now */
	assert_int_equal(host_timer_aside_due(&p, 50000, 1, 51800, true, 0), 51800);
	/* ... late past a whole step from the placed time: the bound */
	assert_int_equal(host_timer_aside_due(&p, 50000, 1, 53500, true, 0), 53000);
	assert_int_equal(host_timer_aside_due(&p, 50000, 4, 62900, true, 0), 62000);
	/* an exit before it: its timer's rest, within the bound */
	assert_int_equal(host_timer_aside_due(&p, 50000, 2, 53100, false, 1400), 54500);
	assert_int_equal(host_timer_aside_due(&p, 50000, 2, 55000, false, 2400), 56000);
	/* a step count past the plan's (a corrupt word) is the plan's */
	assert_int_equal(host_timer_aside_due(&p, 50000, 9, 99000, true, 0), 62000);
	/* every bound holds the slack: fire_tick - next_tick <= slack */
	for (uint32_t k = 1; k <= p.steps; k++) {
		host_timer_init(&h, 0, 50000, 0);
		h.slack_tsc = 12500;
		host_timer_aside_taken(&h, k, host_timer_aside_due(&p, 50000, k, UINT64_MAX / 2, true, 0));
		assert_true(h.offset_max <= h.slack_tsc);
	}
	for (uint32_t rate = 1; rate < 32; rate++) {
		uint64_t vmul = 1ull << (32 - rate);
		const uint64_t xs[] = { 0, 1, (1ull << rate) - 1, 1ull << rate, 2499, 2500,
					(5ull << 28) - 1, (1ull << 31) - 1 };

		for (unsigned i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
			assert_int_equal((xs[i] * vmul) >> 32, xs[i] >> rate);
	}
}

static void test_tick_aside_windows(void **state)
{
	struct host_timer h;
	struct tick_aside_plan p;

	(void)state;
	/* the defaults: four steps */
	host_timer_init(&h, 0, 50000, 0);
	h.slack_tsc = 12500;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.steps, 4);
	check_aside_windows(&p, 500);
	/* the placed time just below, and just above, a 2^32 boundary of the TSC */
	host_timer_init(&h, (1ull << 32) - 50600, 50000, 0);
	h.slack_tsc = 12500;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	check_aside_windows(&p, 500);
	host_timer_init(&h, (5ull << 32) - 49000, 50000, 0);
	h.slack_tsc = 12500;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	check_aside_windows(&p, 500);
	/* the most steps: 255, and one */
	host_timer_init(&h, 0, 1u << 20, 0);
	h.slack_tsc = (1u << 20) - 1;
	assert_true(host_timer_aside_plan(&h, 100, &p));
	assert_int_equal(p.steps, 255);
	check_aside_windows(&p, 100);
	host_timer_init(&h, 0, 50000, 0);
	h.slack_tsc = 3500;
	assert_true(host_timer_aside_plan(&h, 500, &p));
	assert_int_equal(p.steps, 1);
	check_aside_windows(&p, 500);
	/* a margin near the plan's limit: the windows still end at 2^32 */
	host_timer_init(&h, 0, 1ull << 33, 0);
	h.slack_tsc = (1ull << 31) - 1;
	assert_true(host_timer_aside_plan(&h, (1u << 28) - 1, &p));
	check_aside_windows(&p, (1u << 28) - 1);
}

/*
 * The step-aside against a direct guest, as run_tick_guest: at each entry
 * the stub is armed from host_timer_aside_plan (planned once a placed
 * time), and at the tick's exit it reads the guest's deadline @prologue
 * ticks in. In the window, or 0 at the first exit or with the fire seen in
 * the IRR, it re-enters @stub_cost ticks after the exit with the tick a
 * step on; else hv takes the exit and the tick's whole exit follows
 * (@tick_cost after the read). Returns the hits in the stub's exits (the
 * worst delay in *worst); *whole: guest deadlines that fell in a tick's
 * whole exit; *in_work: ticks whose whole exit began in the @work ticks
 * after a deadline (a wake-up it delays). Checks the grid, that no tick is
 * missed, and the lateness bound: the slack, the stub's length once a
 * step, and the read.
 */
struct aside_guest {
	uint64_t period, slack, margin, tick_cost, stub_cost, rearm, prologue, work;
	bool hw_msr;		/* the MSR reads 0 once fired (hardware), else the fired value */
	bool no_stub;		/* placement alone, the stub never armed */
	bool no_place;		/* the stub alone, the ticks on the grid */
	/*
	 * Each exit comes up to @late ticks after its timer's due time
	 * (Bochs takes a preemption-timer exit 200-990 instructions late
	 * while the guest runs); @planned_window judges the deadline against
	 * the placed time plus the steps, not against the exit's own time.
	 */
	uint64_t late;
	bool planned_window;
	uint64_t (*next_interval)(uint64_t *rng);
};

static uint64_t run_aside_guest(const struct aside_guest *g, uint64_t ticks, uint64_t *worst,
				uint64_t *whole, uint64_t *steps, uint64_t *in_work)
{
	struct host_timer h;
	struct tick_aside_plan p;
	uint64_t rng = 88172645463325252ull, hits = 0, n = 0, handled = 0, armed = 0;
	uint64_t t, now = 0, end, msr = 0, lo = 0, planned = TIMER_NO_EVENT;
	uint64_t late_rng = 0x2545f4914f6cdd1dull;
	uint32_t left, first = 0, taken;
	bool fired, step, win;

	host_timer_init(&h, 0, g->period, 0);
	h.slack_tsc = g->slack;
	*worst = *whole = *steps = *in_work = 0;
	while (n < ticks) {
		/* the entry: arm the stub (planned once for each placed time) */
		if (planned != h.fire_tick) {
			planned = h.fire_tick;
			first = host_timer_aside_plan(&h, g->margin, &p) && !g->no_stub ? p.steps : 0;
			lo = h.fire_tick - p.bias;	/* TICK_ASIDE_BEFORE */
		}
		left = first;
		taken = 0;
		t = host_timer_next(&h);
		for (;;) {
			if (g->late)
				t += rng_next(&late_rng) % (g->late + 1);
			/* the guest's deadlines before the exit: each handled at its time */
			while (armed < t) {
				handled = armed;
				armed = handled + g->rearm + g->next_interval(&rng);
			}
			now = t + g->prologue;
			fired = armed <= now;
			if (fired)
				msr = g->hw_msr ? 0 : armed;
			else if (t < handled + g->rearm)
				msr = g->hw_msr ? 0 : handled;
			else
				msr = armed;
			/* the stub's test (arch/x86/vmx_entry.S exit_aside), at the exit's own time */
			if (g->planned_window)
				win = (uint32_t)(msr - lo) < (uint32_t)p.span;
			else
				win = (uint32_t)(msr - t + p.bias) < (uint32_t)p.span;
			step = left && (win || (!msr && fired));
			end = step ? t + g->stub_cost : now + g->tick_cost;
			if (armed <= end) {
				if (step) {
					hits++;
					if (end - armed > *worst)
						*worst = end - armed;
				} else {
					(*whole)++;
				}
				handled = end;
				armed = handled + g->rearm + g->next_interval(&rng);
			}
			if (!step) {
				if (n >= 2 && handled && t - handled < g->work)
					(*in_work)++;
				break;
			}
			left--;
			taken++;
			(*steps)++;
			lo += p.step;
			/*
			 * the step's timer value, loaded at the entry: D's place in
			 * the window (the window's length for a fired D pending);
			 * the planned window's fixed step, its longest
			 */
			if (g->planned_window)
				t = end + p.step;
			else
				t = end + (win ? (uint32_t)(msr - t + p.bias) : p.span);
		}
		/* hv: the steps' last exit is the tick's, due when hv reads the TSC (bounded) */
		host_timer_aside_taken(&h, taken,
				       host_timer_aside_due(&p, planned, taken, now, true, 0));
		assert_true(host_timer_run(&h, now));
		n++;
		if (!g->no_place)
			host_timer_place(&h, msr, g->margin);
		assert_int_equal(h.next_tick, (n + 1) * g->period);
	}
	assert_int_equal(h.ticks_missed, 0);
	/* no step put a tick past its slack (HOSTTICK offset_max_ticks, which the emulator tests bound) */
	assert_true(h.offset_max <= g->slack);
	/*
	 * the plan counts a margin of overrun a step: the stub's drift fits;
	 * late exits add their lateness, at most once an exit (the default
	 * slack holds four steps)
	 */
	assert_true(h.late_max_ticks <= g->slack + g->prologue + 5 * g->late);
	assert_true(h.late_max_ticks < g->period);
	return hits;
}

static uint64_t interval_hostile(uint64_t *rng)
{
	(void)rng;
	return 700;	/* a deadline in every window */
}

/* Linux's cyclictest beside 1 ms ticks: a period re-armed up to a margin early of the last */
static uint64_t interval_tick_early(uint64_t *rng)
{
	return 50000 - 200 - interval_random(rng) % 500;
}

/*
 * What rtbench's random workload sees in Bochs (intervals of 5,000 to
 * 15,000 ticks, a tick's whole exit about 1,400 instructions from its due
 * time, the stub's EA_STEP_TICKS): no guest deadline ever meets a tick's whole
 * exit; those that meet the stub's wait for less than it, about as often as
 * its length is of the interval, at most once a step. A periodic guest
 * (the tick's period, or a fifth of it) meets none, and one whose deadline
 * comes up to a margin early of the placement's guess (Linux) finds no
 * more ticks in its wake-up after it (3,500 ticks) than placement alone
 * puts there: the window ends a margin before the placed deadline, so the
 * stub does not step the tick into the work (with the window to the
 * deadline itself it did: 132 ticks in 600 against placement's 76). A
 * guest that keeps a deadline in every window costs the tick no more than
 * its slack.
 */
static void test_tick_aside_guest(void **state)
{
	struct aside_guest g = {
		.period = 50000, .slack = 12500, .margin = 500, .tick_cost = 1400,
		.stub_cost = EA_STEP_TICKS, .rearm = 200, .prologue = 12, .next_interval = interval_random,
	};
	uint64_t hits, worst, whole, steps, in_work, before;

	(void)state;
	for (int hw = 0; hw <= 1; hw++) {
		g.hw_msr = hw;
		hits = run_aside_guest(&g, 4000, &worst, &whole, &steps, &in_work);
		assert_int_equal(whole, 0);
		assert_true(steps > 0);
		assert_true(hits <= steps);
		assert_true(hits * 10000 <= 4000 * g.stub_cost * 3);
		assert_true(worst <= g.stub_cost);
	}
	g.hw_msr = false;
	g.next_interval = interval_tick;
	hits = run_aside_guest(&g, 300, &worst, &whole, &steps, &in_work);
	assert_int_equal(hits + whole, 0);
	g.next_interval = interval_fifth;
	hits = run_aside_guest(&g, 300, &worst, &whole, &steps, &in_work);
	assert_int_equal(hits + whole, 0);
	/*
	 * Linux-like: its phase drifts across the grid (placement alone puts
	 * some ticks in its work, where no placement fits); the stub adds none
	 */
	g.next_interval = interval_tick_early;
	g.work = 3500;
	g.no_stub = true;
	run_aside_guest(&g, 600, &worst, &whole, &steps, &before);
	g.no_stub = false;
	hits = run_aside_guest(&g, 600, &worst, &whole, &steps, &in_work);
	assert_int_equal(hits + whole, 0);
	assert_true(in_work <= before);
	g.work = 0;
	/* hostile: every step it allows, and never a missed or overdue tick */
	g.next_interval = interval_hostile;
	run_aside_guest(&g, 300, &worst, &whole, &steps, &in_work);
	assert_true(steps >= 300);
	/*
	 * ... with the slack at its largest too (a period less one): the
	 * steps' own length counted, the last still ends before the next tick
	 * is due (the run above at the default slack is the one that misses a
	 * tick without that allowance, TICK_ASIDE_DRIFT). Placement
	 * puts this guest's ticks at the slack's end (its deadline is always
	 * just after the grid time), a step before it: on the grid, the stub
	 * has the whole slack to step through.
	 */
	g.slack = g.period - 1;
	run_aside_guest(&g, 300, &worst, &whole, &steps, &in_work);
	assert_true(steps >= 300);
	g.no_place = true;
	run_aside_guest(&g, 300, &worst, &whole, &steps, &in_work);
	assert_true(steps > 300 * 4);
}

/*
 * Bochs takes a preemption-timer exit 200-990 instructions after its due
 * time while the guest runs. A window judged against the placed time (and
 * the steps' planned times) lets such a late exit through when the
 * deadline is near the exit but past the window, and its whole exit
 * meets the deadline; judged against the exit's own time (the stub reads
 * the TSC) it steps. make run's rt-direct workload (2,500 to 7,500 ticks),
 * 3,000 ticks: a step of a fixed stride (five margins from the exit) left
 * the guest's next deadline in the next window often enough that a tick's
 * steps ran out at the slack's end, where it must run, and its whole exit
 * met a deadline (3 here, one a 30,000-event make run in four); a step to
 * two margins past the deadline leaves the next one, 2,500 ticks or more
 * after it, past the next window: none.
 */
static void test_tick_aside_late_exits(void **state)
{
	struct aside_guest g = {
		.period = 50000, .slack = 12500, .margin = 500, .tick_cost = 1400,
		.stub_cost = EA_STEP_TICKS, .rearm = 200, .prologue = 12, .next_interval = interval_demo,
		.hw_msr = true, .late = 990,
	};
	uint64_t worst, whole_planned, whole, steps, in_work;

	(void)state;
	g.planned_window = true;
	run_aside_guest(&g, 3000, &worst, &whole_planned, &steps, &in_work);
	g.planned_window = false;
	run_aside_guest(&g, 3000, &worst, &whole, &steps, &in_work);
	print_message("late exits: whole exits met %lu (planned window) -> %lu (the exit's time)\n",
		      (unsigned long)whole_planned, (unsigned long)whole);
	assert_true(whole * 2 <= whole_planned);
	assert_int_equal(whole, 0);
	assert_true(worst <= g.stub_cost);
}

/*
 * A periodic guest (deadlines at phase + k * @gperiod: cyclictest's at 1 ms
 * is the tick's period, a 2 ms control loop twice it), re-armed at its
 * interrupt, that works for @work ticks after each deadline (Linux's
 * wake-up path: about 3,500 Bochs instructions). Returns how many of @ticks
 * host-tick exits (after the first two) began inside that work.
 */
static uint64_t run_work_guest(uint64_t gperiod, uint64_t phase, uint64_t work, uint64_t ticks,
			       uint64_t slack)
{
	const uint64_t period = 50000, margin = 500;
	struct host_timer h;
	uint64_t n = 0, in_work = 0, t, last, next;

	host_timer_init(&h, 0, period, 0);
	h.slack_tsc = slack;
	while (n < ticks) {
		t = host_timer_next(&h);
		/* the deadline that fired last (or none yet) and the armed one */
		last = t >= phase ? phase + (t - phase) / gperiod * gperiod : UINT64_MAX;
		next = t >= phase ? last + gperiod : phase;
		if (host_timer_defer(&h, t, next, false, margin))
			continue;
		assert_true(host_timer_run(&h, t));
		if (n++ >= 2 && last != UINT64_MAX && t - last < work)
			in_work++;
		host_timer_place(&h, next, margin);
	}
	return in_work;
}

/*
 * Linux in direct mode: a tick placed just after the guest's
 * deadline lands in what the guest does after its interrupt, a wake-up that
 * lasts many margins; so does one on the grid shortly after the deadline.
 * Placed four margins before the deadline instead (before it, or before the
 * one a tick period on: phase lock) it is over before the interrupt; where
 * that does not fit in the slack (a deadline under four margins after a
 * grid time, or shortly before one) it goes to the slack's end, at least
 * the slack less four margins (7,500 ticks here) after the deadline: no
 * tick in the work at any phase. Placing the tick just after the deadline
 * instead puts it in the work at 21 of the 200 phases of a 1 ms guest (a
 * tick period of 50,000 here) and at 42 of the 400 of a 2 ms one.
 */
static void test_tick_spares_guest_work(void **state)
{
	/* the default slack (a quarter period), and larger ones up to a period less one */
	static const uint64_t slacks[] = { 12500, 30000, 40000, 49999 };
	/* 1 ms and 2 ms guests, and one five times the tick's rate */
	static const uint64_t gperiods[] = { 50000, 100000, 10000 };

	(void)state;
	for (unsigned i = 0; i < sizeof(slacks) / sizeof(slacks[0]); i++) {
		for (unsigned j = 0; j < sizeof(gperiods) / sizeof(gperiods[0]); j++) {
			uint64_t gperiod = gperiods[j];

			for (uint64_t phase = 0; phase < gperiod; phase += 250) {
				uint64_t hits = run_work_guest(gperiod, phase,
							       gperiod > 10000 ? 3500 : 2000, 60,
							       slacks[i]);

				if (hits)
					print_message("slack %lu period %lu phase %lu: %lu ticks in "
						      "the work\n", (unsigned long)slacks[i],
						      (unsigned long)gperiod, (unsigned long)phase,
						      (unsigned long)hits);
				assert_int_equal(hits, 0);
			}
		}
	}
}

static void test_host_missed(void **state)
{
	struct host_timer h;

	(void)state;
	host_timer_init(&h, 0, 100, 0);
	/* 5 whole periods late: one tick handled, 5 missed, back on the grid */
	assert_true(host_timer_run(&h, 100 + 5 * 100 + 30));
	assert_int_equal(h.ticks, 1);
	assert_int_equal(h.ticks_missed, 5);
	assert_int_equal(h.late_max_ticks, 530);
	assert_int_equal(h.next_tick, 700);
	/* exactly on a later grid point: that one is handled now, next is after it */
	assert_true(host_timer_run(&h, 1000));
	assert_int_equal(h.ticks_missed, 5 + 3);
	assert_int_equal(h.late_max_ticks, 530);
	assert_int_equal(h.next_tick, 1100);
	assert_int_equal(h.late_sum_ticks, 530 + 300);
	/* one period late, to the tick: one missed */
	assert_true(host_timer_run(&h, 1200));
	assert_int_equal(h.ticks_missed, 9);
	assert_int_equal(h.next_tick, 1300);
}

static void test_host_no_drift(void **state)
{
	struct host_timer h;
	const uint64_t start = 123456789, period = 1000003;
	uint64_t x = 42, late_max_ticks = 0, late_sum_ticks = 0, missed = 0, handled = 0, n;

	(void)state;
	host_timer_init(&h, start, period, 0);
	for (n = 1; n <= 1000000; n++) {
		uint64_t due = start + n * period, late;

		assert_int_equal(h.next_tick, due);
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		late = (x >> 33) % 1000;
		if ((x >> 20) % 1000 == 0)
			late = period * ((x >> 40) % 3) + late;	/* sometimes whole periods */
		assert_true(host_timer_run(&h, due + late));
		handled++;
		missed += late / period;
		n += late / period;
		late_sum_ticks += late;
		if (late > late_max_ticks)
			late_max_ticks = late;
	}
	assert_int_equal(h.ticks, handled);
	assert_int_equal(h.ticks_missed, missed);
	assert_true(missed > 0);
	/* every period accounted for, and the next tick on the grid */
	assert_int_equal(h.ticks + h.ticks_missed, n - 1);
	assert_int_equal(h.next_tick, start + n * period);
	assert_int_equal(h.late_max_ticks, late_max_ticks);
	assert_int_equal(h.late_sum_ticks, late_sum_ticks);
	assert_int_equal((h.next_tick - start) % period, 0);
}

static void test_host_tickless(void **state)
{
	struct host_timer h;

	(void)state;
	host_timer_init(&h, 500, 0, 0);
	assert_int_equal(h.next_tick, TIMER_NO_EVENT);
	assert_int_equal(host_timer_next(&h), TIMER_NO_EVENT);
	assert_false(host_timer_run(&h, 1000000));
	assert_false(host_timer_run(&h, UINT64_MAX));
	assert_int_equal(h.ticks, 0);
	assert_int_equal(h.ticks_missed, 0);
	/* a first tick past the end of the TSC is none */
	host_timer_init(&h, UINT64_MAX - 10, 100, 0);
	assert_int_equal(host_timer_next(&h), TIMER_NO_EVENT);
	/* nor is a next one */
	host_timer_init(&h, UINT64_MAX - 300, 100, 0);
	assert_int_equal(h.next_tick, UINT64_MAX - 200);
	assert_true(host_timer_run(&h, UINT64_MAX - 100));
	assert_int_equal(h.next_tick, TIMER_NO_EVENT);
	assert_false(host_timer_run(&h, UINT64_MAX - 1));
}

static void test_host_watchdog(void **state)
{
	struct host_timer h;

	(void)state;
	host_timer_init(&h, 1000, 0, 500);
	assert_int_equal(host_timer_next(&h), 1500);
	/* exits move it */
	h.last_exit = 1200;
	assert_int_equal(host_timer_next(&h), 1700);
	assert_false(host_timer_run(&h, 1699));
	assert_int_equal(h.watchdog_fired, 0);
	/* due: counted once, re-armed from now */
	assert_false(host_timer_run(&h, 1710));
	assert_int_equal(h.watchdog_fired, 1);
	assert_int_equal(h.last_exit, 1710);
	assert_int_equal(host_timer_next(&h), 2210);
	assert_false(host_timer_run(&h, 1711));
	assert_int_equal(h.watchdog_fired, 1);
	/* with a tick: the earlier of the two */
	host_timer_init(&h, 0, 300, 500);
	assert_int_equal(host_timer_next(&h), 300);
	assert_true(host_timer_run(&h, 300));
	assert_int_equal(host_timer_next(&h), 500);
	assert_true(host_timer_run(&h, 600));
	assert_int_equal(h.watchdog_fired, 1);
	assert_int_equal(host_timer_next(&h), 900);
	/* off */
	host_timer_init(&h, 0, 0, 0);
	h.last_exit = 0;
	assert_false(host_timer_run(&h, UINT64_MAX));
	assert_int_equal(h.watchdog_fired, 0);
	/* saturates at the end of the TSC */
	host_timer_init(&h, UINT64_MAX - 5, 0, 100);
	assert_int_equal(host_timer_next(&h), TIMER_NO_EVENT);
}

/* ---- the vtimer, by hand ---- */

static void vt_setup(struct vtimer *t, enum timer_mode m, uint8_t vector)
{
	vtimer_init(t, m);
	assert_true(vtimer_lvt_masked(t));
	vtimer_write_lvt(t, LVT_TSCDL | vector);
	assert_false(vtimer_lvt_masked(t));
	assert_int_equal(vtimer_vector(t), vector);
}

static void test_vtimer_emulated(void **state)
{
	struct vtimer t;

	(void)state;
	vt_setup(&t, TIMER_EMULATED, 0x40);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
	vtimer_write_deadline(&t, 1000, 500);
	assert_int_equal(vtimer_read_deadline(&t), 1000);
	assert_int_equal(vtimer_next(&t), 1000);
	assert_false(vtimer_check(&t, 999));
	assert_true(vtimer_check(&t, 1000));
	assert_int_equal(vlapic_pending(&t.vlapic), 0x40);
	assert_int_equal(vtimer_read_deadline(&t), 0);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
	assert_false(vtimer_check(&t, 5000));
	assert_int_equal(t.stats.fired, 1);
	assert_int_equal(t.stats.injected, 1);
	assert_int_equal(t.stats.programmed, 1);

	/* rewritten later, then earlier, before it expires: only the last fires */
	vtimer_init(&t, TIMER_EMULATED);
	vtimer_write_lvt(&t, LVT_TSCDL | 0x40);
	vtimer_write_deadline(&t, 2000, 1000);
	vtimer_write_deadline(&t, 3000, 1500);
	assert_false(vtimer_check(&t, 2500));
	vtimer_write_deadline(&t, 2600, 2500);
	assert_false(vtimer_check(&t, 2599));
	assert_true(vtimer_check(&t, 2600));
	assert_false(vtimer_check(&t, 3000));
	assert_int_equal(t.stats.fired, 1);

	/* the old one already expired when the write is handled: it fired first */
	vtimer_write_deadline(&t, 4000, 3500);
	vtimer_write_deadline(&t, 9000, 4010);
	assert_int_equal(t.stats.fired, 2);
	assert_int_equal(vtimer_read_deadline(&t), 9000);

	/* 0 disarms */
	vtimer_write_deadline(&t, 0, 4020);
	assert_false(vtimer_check(&t, UINT64_MAX));
	assert_int_equal(t.stats.fired, 2);

	/* at or before now, or 1: fires at once */
	vtimer_write_deadline(&t, 4030, 4030);
	assert_int_equal(t.stats.fired, 3);
	vtimer_write_deadline(&t, 1, 4040);
	assert_int_equal(t.stats.fired, 4);
	assert_int_equal(vtimer_read_deadline(&t), 0);

	/* ~0 never comes */
	vtimer_write_deadline(&t, UINT64_MAX, 4050);
	assert_false(vtimer_check(&t, UINT64_MAX - 1));
	assert_int_equal(vtimer_next(&t), UINT64_MAX);
	assert_true(vtimer_check(&t, UINT64_MAX));
}

static void test_vtimer_masked(void **state)
{
	struct vtimer t;

	(void)state;
	vt_setup(&t, TIMER_EMULATED, 0x50);
	vtimer_write_lvt(&t, LVT_TSCDL | 0x50 | LVT_MASK);
	vtimer_write_deadline(&t, 100, 50);
	assert_true(vtimer_check(&t, 100));
	assert_int_equal(t.stats.dropped_masked, 1);
	assert_int_equal(t.stats.injected, 0);
	assert_int_equal(vlapic_highest_irr(&t.vlapic), -1);
	/* unmasking later does not bring it back */
	vtimer_write_lvt(&t, LVT_TSCDL | 0x50);
	assert_false(vtimer_check(&t, 200));
	assert_int_equal(vlapic_highest_irr(&t.vlapic), -1);
	/* an illegal vector is refused like a masked one */
	vtimer_write_lvt(&t, LVT_TSCDL | 0x0f);
	vtimer_write_deadline(&t, 300, 250);
	assert_true(vtimer_check(&t, 300));
	assert_int_equal(t.stats.dropped_masked, 2);
	/* inject mode: the hardware fire is judged by the LVT too */
	vt_setup(&t, TIMER_INJECT, 0x60);
	vtimer_write_lvt(&t, LVT_TSCDL | 0x60 | LVT_MASK);
	vtimer_hw_fired(&t);
	assert_int_equal(t.stats.dropped_masked, 1);
	vtimer_write_lvt(&t, LVT_TSCDL | 0x60);
	vtimer_hw_fired(&t);
	assert_int_equal(t.stats.injected, 1);
	assert_int_equal(vlapic_pending(&t.vlapic), 0x60);
	/* direct mode: the physical APIC delivers; nothing to do */
	vt_setup(&t, TIMER_DIRECT, 0x60);
	vtimer_hw_fired(&t);
	assert_int_equal(t.stats.fired, 0);
}

/*
 * SDM Vol. 3A 11.5.4.1: outside TSC-deadline mode (LVT timer bits 18:17 !=
 * 10b) writes to IA32_TSC_DEADLINE are ignored and reads return 0; an LVT
 * write that changes the timer mode disarms the timer. Emulated and pv-lazy
 * keep the deadline in software, so the model must do what the LAPIC does.
 */
static void test_vtimer_lvt_mode(void **state)
{
	static const enum timer_mode modes[] = { TIMER_EMULATED, TIMER_PV_LAZY };
	struct vtimer t;

	(void)state;
	for (int i = 0; i < 2; i++) {
		/* after reset the LVT is one-shot (and masked): writes ignored */
		vtimer_init(&t, modes[i]);
		vtimer_write_deadline(&t, 1000, 500);
		assert_int_equal(vtimer_read_deadline(&t), 0);
		assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
		vtimer_write_lvt(&t, LVT_ONESHOT | 0x40);
		vtimer_write_deadline(&t, 1000, 500);
		assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
		assert_false(vtimer_check(&t, 2000));
		vtimer_write_lvt(&t, LVT_PERIODIC | 0x40);
		vtimer_replace_deadline(&t, 3000, 2500);
		assert_int_equal(vtimer_read_deadline(&t), 0);
		assert_false(vtimer_check(&t, 4000));
		assert_int_equal(t.stats.fired, 0);
		assert_int_equal(vlapic_highest_irr(&t.vlapic), -1);

		/* in TSC-deadline mode it arms; leaving that mode disarms */
		vtimer_write_lvt(&t, LVT_TSCDL | 0x40);
		vtimer_write_deadline(&t, 5000, 4500);
		assert_int_equal(vtimer_read_deadline(&t), 5000);
		vtimer_write_lvt(&t, LVT_ONESHOT | 0x40);
		assert_int_equal(vtimer_read_deadline(&t), 0);
		assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
		assert_false(vtimer_check(&t, 6000));
		/* coming back does not re-arm the old deadline */
		vtimer_write_lvt(&t, LVT_TSCDL | 0x40);
		assert_int_equal(vtimer_read_deadline(&t), 0);
		assert_false(vtimer_check(&t, 7000));
		assert_int_equal(t.stats.fired, 0);

		/* an LVT write that keeps the mode (mask, vector) does not disarm */
		vtimer_write_deadline(&t, 9000, 8000);
		vtimer_write_lvt(&t, LVT_TSCDL | LVT_MASK | 0x41);
		vtimer_write_lvt(&t, LVT_TSCDL | 0x42);
		assert_int_equal(vtimer_read_deadline(&t), 9000);
		assert_true(vtimer_check(&t, 9000));
		assert_int_equal(vlapic_pending(&t.vlapic), 0x42);
	}
}

/*
 * pv-lazy: the guest publishes a later deadline on the page after its old
 * one D1 expired but before the exit for D1 (which comes after D1). On
 * hardware D1 has fired by then: it must fire here too, before the page's
 * deadline replaces it. One published before D1 that the hypervisor reads
 * only at D1's exit may fire as well (an extra, early-looking interrupt the
 * guest tells from its own deadline by the TSC), never be lost.
 */
static void test_vtimer_pv_replace(void **state)
{
	struct vtimer t;

	(void)state;
	vt_setup(&t, TIMER_PV_LAZY, 0x44);
	vtimer_write_deadline(&t, 1000, 500);
	/* published at 1010, read at the exit for D1 at 1190: D1 fired */
	vtimer_replace_deadline(&t, 2000, 1190);
	assert_int_equal(t.stats.fired, 1);
	assert_int_equal(vlapic_pending(&t.vlapic), 0x44);
	assert_int_equal(vtimer_next(&t), 2000);
	vlapic_accept(&t.vlapic, 0x44);
	vlapic_eoi(&t.vlapic);
	/* read before the old one is due: replaced, never fires */
	vtimer_replace_deadline(&t, 3000, 1999);
	assert_int_equal(t.stats.fired, 1);
	assert_false(vtimer_check(&t, 2999));
	assert_true(vtimer_check(&t, 3000));
	assert_int_equal(t.stats.fired, 2);
	/* a new one already due fires at once; nothing armed after */
	vtimer_write_deadline(&t, 5000, 4000);
	vtimer_replace_deadline(&t, 4500, 5100);
	assert_int_equal(t.stats.fired, 4);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
}

/* One pv-lazy deadline the guest set, for the reference model below. */
struct pv_ref {
	uint64_t d;		/* non-zero */
	uint64_t gone_at;	/* when the guest published or wrote the next one */
	uint64_t fired_at;	/* 0 = never */
};

#define PV_REFS	20000

static struct pv_ref pv_refs[PV_REFS];
static uint32_t pv_n;
static uint64_t pv_dup;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The state machine fired deadline @d at @at: one the guest set, once, not early. */
static void pv_fired(uint64_t d, uint64_t at)
{
	for (uint32_t k = pv_n; k-- > 0;) {
		if (pv_refs[k].d != d || pv_refs[k].fired_at)
			continue;
		assert_true(at >= d);
		pv_refs[k].fired_at = at;
		return;
	}
	/*
	 * Fired again: the guest published D, an exit between the publish and
	 * its check took D and fired it (D was that close), the guest then
	 * read armed = 0 and trapped with the same D, which fires at once. The
	 * protocol has no way to tell that WRMSR from a new one with the same
	 * value; counted, not fixed here.
	 */
	for (uint32_t k = pv_n; k-- > 0;) {
		if (pv_refs[k].d == d) {
			assert_true(at >= d);
			pv_dup++;
			return;
		}
	}
	fail_msg("pv-lazy: deadline %llu fired at %llu was never set",
		 (unsigned long long)d, (unsigned long long)at);
}

/* A hypervisor step at @at: which deadlines it fired, old first. */
static void pv_step(struct vtimer *t, int what, uint64_t value, uint64_t at)
{
	uint64_t old = t->deadline, f0 = t->stats.fired;

	if (what == 0)
		vtimer_replace_deadline(t, value, at);
	else if (what == 1)
		vtimer_write_deadline(t, value, at);
	else
		vtimer_check(t, at);
	if (t->stats.fired > f0 && old && old <= at) {
		pv_fired(old, at);
		f0++;
	}
	if (t->stats.fired > f0)
		pv_fired(value, at);
	while (vlapic_pending(&t->vlapic) >= 0) {
		int v = vlapic_pending(&t->vlapic);

		vlapic_accept(&t->vlapic, (uint8_t)v);
		vlapic_eoi(&t->vlapic);
	}
}

/*
 * A random pv-lazy guest against the state machine, checked by a reference
 * that knows only what the guest did and when: a deadline fires at most
 * once and never before its value; one that was due before the guest
 * superseded it must fire (never lost). The exit for the armed deadline
 * comes up to 190 ticks after it (Bochs: the entry's RDTSC to the guest),
 * other exits at random; the guest follows the page protocol, with the TSC
 * check (docs/timer-modes.md), and each exit reads the page (pv_sync)
 * before it checks for expiry. Without the check a guest that publishes
 * twice between D1 and the exit for it loses the first (D1 <= D_a <= TSC):
 * the exit only sees the second.
 */
/* An exit at @at: it reads the page (pv_sync), then checks for expiry. */
static void pv_exit(struct vtimer *t, uint64_t at, uint64_t next, uint64_t *seen)
{
	if (next != *seen) {
		*seen = next;
		pv_step(t, 0, next, at);
	}
	pv_step(t, 2, 0, at);
}

static void test_vtimer_pv_random(void **state)
{
	struct vtimer t;
	uint64_t now = 100000, next = 0, seen = 0, armed = 0, lost = 0, extra = 0, lazy = 0;
	uint64_t rng = base_seed | 1, window = 0;
	static uint64_t irqs[PV_REFS];
	uint32_t nirq = 0, used = 0;

	(void)state;
	vt_setup(&t, TIMER_PV_LAZY, 0x45);
	pv_n = 0;
	pv_dup = 0;
	while (pv_n < PV_REFS) {
		uint64_t d, exit_at, check;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		/* the guest runs a while; the exit for the armed deadline may come */
		now += rng % 700;
		exit_at = armed ? armed + (rng >> 40) % 191 : TIMER_NO_EVENT;
		if (exit_at <= now) {
			pv_exit(&t, exit_at, next, &seen);
			now = exit_at + 200;
			goto rearm;
		}
		/* it publishes a deadline, mostly later than the one armed */
		d = (rng >> 20) % 4 ? now + 50 + (rng >> 24) % 1500 : now + 1 + (rng >> 24) % 60;
		if (pv_n)
			pv_refs[pv_n - 1].gone_at = now;
		pv_refs[pv_n++] = (struct pv_ref){ .d = d };
		next = d;
		/*
		 * MFENCE, then it reads armed and the TSC. An exit may come in
		 * between (the one armed, or another): it reads the new next.
		 */
		check = now + 1 + (rng >> 33) % 30;
		if (exit_at <= check || (rng >> 50) % 8 == 0) {
			now = exit_at <= check ? exit_at : now + 1;
			pv_exit(&t, now, next, &seen);
			window++;
			armed = vtimer_next(&t) == TIMER_NO_EVENT ? 0 : vtimer_next(&t);
			check = now + 200;
		}
		now = check;
		/*
		 * Lazy only if armed <= D and the TSC is still below armed:
		 * then the publish came before the old deadline expired.
		 */
		if (armed && armed <= d && now < armed) {
			lazy++;
		} else {
			/* the WRMSR traps; the handler records next as seen */
			pv_step(&t, 1, d, now + 60);
			seen = next;
			now += 200;
		}
		if ((rng >> 53) % 8 == 0) {
			now += 60;
			pv_exit(&t, now, next, &seen);
			now += 140;
		}
rearm:
		armed = vtimer_next(&t) == TIMER_NO_EVENT ? 0 : vtimer_next(&t);
	}
	/*
	 * The guest sees interrupts, not which deadline raised them: each one
	 * that expired before it was superseded needs an interrupt of its own
	 * at or after its value, within an exit and a trap of being
	 * superseded (in time order, each interrupt used once). Those left
	 * over are the extra ones of postponed deadlines.
	 */
	for (uint32_t k = 0; k < pv_n; k++)
		if (pv_refs[k].fired_at)
			irqs[nirq++] = pv_refs[k].fired_at;
	qsort(irqs, nirq, sizeof(irqs[0]), cmp_u64);
	for (uint32_t k = 0; k + 1 < pv_n; k++) {
		if (pv_refs[k].d > pv_refs[k].gone_at)
			continue;
		while (used < nirq && irqs[used] < pv_refs[k].d)
			used++, extra++;
		if (used < nirq && irqs[used] <= pv_refs[k].gone_at + 400)
			used++;
		else
			lost++;
	}
	printf("  pv-lazy random: %u deadlines (%llu published lazily, %llu exits between a "
	       "publish and its check), %llu lost, %llu extra (postponed, fired anyway), "
	       "%llu fired twice\n", pv_n, (unsigned long long)lazy, (unsigned long long)window,
	       (unsigned long long)lost, (unsigned long long)extra, (unsigned long long)pv_dup);
	assert_true(lazy > 1000 && window > 1000);
	assert_int_equal(lost, 0);
}

static void test_vtimer_save_restore(void **state)
{
	struct vtimer t;

	(void)state;
	vt_setup(&t, TIMER_DIRECT, 0x70);
	/* the first entry: nothing to write */
	assert_false(t.in_hw);
	assert_int_equal(vtimer_restore(&t), 0);
	assert_true(t.in_hw);
	/* armed in the future: saved, written back on entry */
	vtimer_save(&t, 5000, 4000, 4000, false, false);
	assert_false(t.in_hw);
	assert_int_equal(vtimer_next(&t), 5000);
	assert_false(vtimer_check(&t, 4999));
	assert_int_equal(vtimer_restore(&t), 5000);
	assert_true(t.in_hw);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
	/* a second restore writes nothing */
	assert_int_equal(vtimer_restore(&t), 0);
	/* nothing armed */
	vtimer_save(&t, 0, 6000, 6000, false, false);
	assert_int_equal(vtimer_restore(&t), 0);
	/* D <= TSC: fired or firing (Bochs keeps the old value): never re-armed */
	vtimer_save(&t, 6000, 6000, 6000, false, false);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
	assert_int_equal(vtimer_restore(&t), 0);
	vtimer_save(&t, 1, 7000, 7000, false, false);
	assert_int_equal(vtimer_restore(&t), 0);
	/* a second save (no entry between) reads the 0 the first wrote: no loss */
	vtimer_save(&t, 9000, 8000, 8000, false, false);
	vtimer_save(&t, 0, 8100, 8100, false, false);
	assert_int_equal(vtimer_next(&t), 9000);
	/* expiring while out, direct: pending, handed back as a past deadline */
	assert_true(vtimer_check(&t, 9000));
	assert_true(t.fired_pending);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
	assert_int_equal(vtimer_read_deadline(&t), 0);
	assert_int_equal(vtimer_restore(&t), 1);
	assert_false(t.fired_pending);
	assert_int_equal(t.stats.from_pending, 1);
	/* a saved one already past at entry is written anyway (it fires at once) */
	vtimer_save(&t, 10000, 9500, 9500, false, false);
	assert_int_equal(vtimer_restore(&t), 10000);

	/* inject: expiring while out goes into the vlapic */
	vt_setup(&t, TIMER_INJECT, 0x71);
	vtimer_restore(&t);
	vtimer_save(&t, 5000, 4000, 4000, false, false);
	assert_true(vtimer_check(&t, 5001));
	assert_int_equal(vlapic_pending(&t.vlapic), 0x71);
	assert_int_equal(t.stats.from_pending, 1);
	assert_int_equal(vtimer_restore(&t), 0);

	/* emulated: nothing in the hardware, ever */
	vt_setup(&t, TIMER_EMULATED, 0x72);
	vtimer_write_deadline(&t, 5000, 100);
	vtimer_save(&t, 7777, 200, 200, false, false);
	assert_int_equal(vtimer_next(&t), 5000);
	assert_int_equal(vtimer_restore(&t), 0);
	assert_false(t.in_hw);
}

/*
 * The disarm race: the TSC passed D between the RDTSC before the WRMSR of 0
 * and the one after. It may have fired or not; either way it must reach the
 * guest once: written back as 1, it fires again into the same IRR bit.
 */
static void test_vtimer_save_race(void **state)
{
	static const enum timer_mode modes[] = { TIMER_DIRECT, TIMER_INJECT };
	struct vtimer t;

	(void)state;
	for (int i = 0; i < 2; i++) {
		vt_setup(&t, modes[i], 0x90);
		vtimer_restore(&t);
		/* D in (before, now] */
		vtimer_save(&t, 6500, 6490, 6510, false, false);
		assert_true(t.hw_refire);
		assert_true(t.hw_firing);
		/* nothing for software to do while out, and no mode switch */
		assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
		assert_false(vtimer_check(&t, 100000));
		assert_false(vtimer_switch_mode(&t, TIMER_EMULATED, 7000));
		assert_int_equal(t.mode, modes[i]);
		assert_int_equal(vtimer_restore(&t), 1);
		assert_false(t.hw_refire);
		assert_false(t.hw_firing);
		/* D == now is in the window too; D == before is not */
		vtimer_save(&t, 7000, 6990, 7000, false, false);
		assert_true(t.hw_refire);
		assert_int_equal(vtimer_restore(&t), 1);
		/* Bochs, D <= before, nothing in the IRR: fired while the guest ran */
		vtimer_save(&t, 7990, 7990, 8000, false, false);
		assert_false(t.hw_refire);
		assert_false(t.hw_firing);
		assert_int_equal(vtimer_restore(&t), 0);
		/* ... and with its fire in the IRR: left there, no switch */
		vtimer_save(&t, 7990, 7990, 8000, true, false);
		assert_false(t.hw_refire);
		assert_true(t.hw_firing);
		assert_false(vtimer_switch_mode(&t, TIMER_EMULATED, 8000));
		assert_int_equal(vtimer_restore(&t), 0);
		/* after the entry (and the next save) the switch goes */
		vtimer_save(&t, 0, 9000, 9000, false, false);
		assert_true(vtimer_switch_mode(&t, TIMER_EMULATED, 9000));
		/* inject: the caller takes its own vector while out: the race is over */
		if (modes[i] == TIMER_INJECT) {
			vt_setup(&t, TIMER_INJECT, 0x90);
			vtimer_restore(&t);
			vtimer_save(&t, 9500, 9490, 9510, false, false);
			assert_true(t.hw_refire);
			vtimer_hw_fired(&t);
			assert_false(t.hw_refire);
			assert_false(t.hw_firing);
			assert_int_equal(vlapic_pending(&t.vlapic), 0x90);
			assert_int_equal(vtimer_restore(&t), 0);
			vlapic_accept(&t.vlapic, 0x90);
			vlapic_eoi(&t.vlapic);
		}
		/* D just past now: saved, not in the window */
		vt_setup(&t, modes[i], 0x90);
		vtimer_restore(&t);
		vtimer_save(&t, 8001, 7990, 8000, false, false);
		assert_false(t.hw_refire);
		assert_false(t.hw_firing);
		assert_int_equal(vtimer_next(&t), 8001);
	}
}

/*
 * Hardware clears IA32_TSC_DEADLINE when the timer fires (SDM Vol. 3A
 * 11.5.4.1): a non-zero D read back had not fired, even at or below the TSC,
 * and the WRMSR of 0 cancels that fire. Only the physical IRR, read after
 * the WRMSR, tells whether it still has to be raised.
 */
static void test_vtimer_save_hw(void **state)
{
	static const enum timer_mode modes[] = { TIMER_DIRECT, TIMER_INJECT };
	struct vtimer t;

	(void)state;
	for (int i = 0; i < 2; i++) {
		vt_setup(&t, modes[i], 0x91);
		vtimer_restore(&t);
		/* D well below before, still armed, IRR clear: cancelled, fire again */
		vtimer_save(&t, 6000, 6100, 6110, false, true);
		assert_true(t.hw_refire);
		assert_true(t.hw_firing);
		assert_false(vtimer_switch_mode(&t, TIMER_EMULATED, 6200));
		assert_int_equal(vtimer_restore(&t), 1);
		assert_false(t.hw_firing);
		/* the same read in Bochs: fired long ago, nothing to do */
		vtimer_save(&t, 6000, 6100, 6110, false, false);
		assert_false(t.hw_refire);
		assert_int_equal(vtimer_restore(&t), 0);
		/* D due and its fire in the IRR: it is there, never written again */
		vtimer_save(&t, 7000, 7005, 7010, true, true);
		assert_false(t.hw_refire);
		assert_true(t.hw_firing);
		assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
		assert_false(vtimer_switch_mode(&t, TIMER_EMULATED, 7020));
		assert_int_equal(vtimer_restore(&t), 0);
		/* D in the future: saved whatever the IRR holds (an older fire) */
		vtimer_save(&t, 9000, 8000, 8010, true, true);
		assert_int_equal(vtimer_next(&t), 9000);
		assert_false(t.hw_refire);
		assert_true(t.hw_firing);
		assert_int_equal(vtimer_restore(&t), 9000);
		/*
		 * D read as 0, vector in the IRR: it fired between the last
		 * check and the RDMSR (hardware cleared the MSR).
		 */
		vtimer_save(&t, 0, 9100, 9110, true, true);
		assert_true(t.hw_firing);
		assert_false(t.hw_refire);
		assert_false(vtimer_switch_mode(&t, TIMER_EMULATED, 9120));
		if (modes[i] == TIMER_INJECT) {
			/* the switch takes our vector out and credits it first */
			vtimer_hw_fired(&t);
			assert_false(t.hw_firing);
			assert_int_equal(vlapic_pending(&t.vlapic), 0x91);
			assert_int_equal(t.stats.injected, 1);
			assert_true(vtimer_switch_mode(&t, TIMER_EMULATED, 9130));
			assert_int_equal(vlapic_pending(&t.vlapic), 0x91);
		} else {
			assert_int_equal(vtimer_restore(&t), 0);
		}
	}
}

static void test_vtimer_switch(void **state)
{
	struct vtimer t;

	(void)state;
	/* emulated -> direct: the deadline carries over to the hardware */
	vt_setup(&t, TIMER_EMULATED, 0x80);
	vtimer_write_deadline(&t, 5000, 100);
	assert_true(vtimer_switch_mode(&t, TIMER_DIRECT, 200));
	assert_int_equal(t.mode, TIMER_DIRECT);
	assert_int_equal(vtimer_restore(&t), 5000);
	/* in the hardware: save first */
	assert_false(vtimer_switch_mode(&t, TIMER_INJECT, 300));
	vtimer_save(&t, 5000, 300, 300, false, false);
	assert_true(vtimer_switch_mode(&t, TIMER_INJECT, 300));
	assert_int_equal(t.stats.mode_switches, 2);
	assert_int_equal(vtimer_restore(&t), 5000);
	/* refused while in service */
	vtimer_hw_fired(&t);
	vlapic_accept(&t.vlapic, 0x80);
	vtimer_save(&t, 0, 400, 400, false, false);
	assert_false(vtimer_switch_mode(&t, TIMER_EMULATED, 400));
	assert_int_equal(t.mode, TIMER_INJECT);
	vlapic_eoi(&t.vlapic);
	/* refused into direct while a vector is pending; fine elsewhere */
	vtimer_hw_fired(&t);
	assert_false(vtimer_switch_mode(&t, TIMER_DIRECT, 400));
	assert_true(vtimer_switch_mode(&t, TIMER_EMULATED, 400));
	assert_int_equal(vlapic_pending(&t.vlapic), 0x80);
	vlapic_accept(&t.vlapic, 0x80);
	vlapic_eoi(&t.vlapic);
	/* a deadline past at the switch fires then */
	vtimer_write_deadline(&t, 600, 500);
	assert_true(vtimer_switch_mode(&t, TIMER_INJECT, 600));
	assert_int_equal(vlapic_pending(&t.vlapic), 0x80);
	assert_true(vtimer_switch_mode(&t, TIMER_INJECT, 600));	/* same mode: no-op */
	vlapic_accept(&t.vlapic, 0x80);
	vlapic_eoi(&t.vlapic);
	/* direct, fired while out, then left for emulated: raised in the vlapic */
	vtimer_restore(&t);
	vtimer_save(&t, 0, 700, 700, false, false);
	assert_true(vtimer_switch_mode(&t, TIMER_DIRECT, 700));
	vtimer_restore(&t);
	vtimer_save(&t, 800, 750, 750, false, false);
	assert_true(vtimer_check(&t, 800));
	assert_true(t.fired_pending);
	assert_true(vtimer_switch_mode(&t, TIMER_EMULATED, 810));
	assert_false(t.fired_pending);
	assert_int_equal(vlapic_pending(&t.vlapic), 0x80);
	/* invalid mode */
	assert_false(vtimer_switch_mode(&t, (enum timer_mode)7, 900));
}

/* ---- the simulation ---- */

static void run_sim(const struct sim_params *p, struct sim_result *r, const char *name)
{
	struct timespec t0, t1;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	sim_run(p, r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("  %s: seed %llu (TIMER_SEED=%llu) rate %u period %llu watchdog %llu start %s: "
	       "%llu events in %.2f s, %llu TSC ticks\n"
	       "    exits %llu (preemption %llu, early %llu), long stays %llu, switches %llu "
	       "(refused %llu, skipped %llu)\n"
	       "    deadline writes %llu, fired %llu, dropped %llu, delivered %llu, "
	       "host ticks %llu late max %llu (bound %llu), watchdog %llu\n"
	       "    saves: fired %llu, in the race window %llu (second fires coalesced %llu, "
	       "drained %llu, cancelled %llu), expired while out %llu\n",
	       name, (unsigned long long)p->seed, (unsigned long long)base_seed, p->rate,
	       (unsigned long long)p->period, (unsigned long long)p->watchdog,
	       p->mode == TIMER_DIRECT ? "direct" : p->mode == TIMER_INJECT ? "inject" : "emulated",
	       (unsigned long long)r->events, secs, (unsigned long long)r->tsc_span,
	       (unsigned long long)r->exits, (unsigned long long)r->exits_ptimer,
	       (unsigned long long)r->exits_ptimer_idle, (unsigned long long)r->long_stays,
	       (unsigned long long)r->switches, (unsigned long long)r->switches_refused,
	       (unsigned long long)r->switches_skipped, (unsigned long long)r->writes,
	       (unsigned long long)r->fires, (unsigned long long)r->drops,
	       (unsigned long long)r->delivered, (unsigned long long)r->host_ticks,
	       (unsigned long long)r->host_late_max, (unsigned long long)r->host_bound,
	       (unsigned long long)r->watchdog_fired, (unsigned long long)r->save_fired,
	       (unsigned long long)r->save_race, (unsigned long long)r->coalesced,
	       (unsigned long long)r->save_drained, (unsigned long long)r->save_cancelled,
	       (unsigned long long)r->from_pending);
	if (!r->ok)
		fail_msg("%s: %s", name, r->msg);
	assert_true(r->events >= p->events);
	assert_true(r->host_late_max <= r->host_bound);
	if (p->period)
		assert_true(r->host_ticks + 1 >= r->tsc_span / p->period);
}

static void test_sim_seed1(void **state)
{
	struct sim_params p = {
		.seed = base_seed, .events = sim_events, .rate = 0, .period = 20000,
		.mode = TIMER_DIRECT, .switch_modes = true, .bochs_msr = true,
	};
	struct sim_result r;

	(void)state;
	run_sim(&p, &r, "sim 1 (Bochs-like: rate 0, MSR kept after a fire)");
	assert_true(r.fires > 1000 && r.drops > 100 && r.delivered > 1000 && r.switches > 100);
	assert_true(r.save_fired > 10 && r.save_race > 10 && r.from_pending > 10);
}

static void test_sim_seed2(void **state)
{
	struct sim_params p = {
		.seed = base_seed + 1, .events = sim_events, .rate = 5, .period = 50000,
		.watchdog = 300000, .mode = TIMER_INJECT, .switch_modes = true,
	};
	struct sim_result r;

	(void)state;
	run_sim(&p, &r, "sim 2 (rate 5, tick and watchdog)");
	assert_true(r.fires > 1000 && r.drops > 100 && r.delivered > 1000 && r.switches > 100);
	assert_true(r.save_race > 10 && r.save_drained > 10);
	/* hardware: due, still armed when read, cancelled by the WRMSR of 0 */
	assert_true(r.save_cancelled > 10);
}

static void test_sim_seed3(void **state)
{
	struct sim_params p = {
		.seed = base_seed + 2, .events = sim_events, .rate = 7, .period = 0,
		.watchdog = 0, .mode = TIMER_EMULATED, .switch_modes = true,
	};
	struct sim_result r;

	(void)state;
	run_sim(&p, &r, "sim 3 (rate 7, tickless)");
	assert_true(r.fires > 1000 && r.drops > 100 && r.delivered > 1000 && r.switches > 100);
	/* tickless with no watchdog: preemption exits only for the guest or a clamp */
	assert_int_equal(r.host_ticks, 0);
}

/*
 * Ticks placed around the guest's deadlines in direct and inject
 * mode, the MSR read both ways (cleared on fire, kept as Bochs keeps it):
 * still no lost, early or doubled interrupt, and no tick later than the
 * slack plus one exit; the placement and the deferral both engaged.
 */
static void test_sim_slack(void **state)
{
	static const enum timer_mode modes[] = { TIMER_DIRECT, TIMER_INJECT };
	struct sim_result r;

	(void)state;
	/* the fifth: direct with hardware's MSR, read from the exit's store */
	for (int i = 0; i < 5; i++) {
		struct sim_params p = {
			.seed = base_seed + 10 + (uint64_t)i, .events = sim_events,
			.rate = (uint32_t)(i * 2), .period = 20000,
			.watchdog = i == 3 ? 150000 : 0,
			.mode = i == 4 ? TIMER_DIRECT : modes[i % 2], .switch_modes = i == 2 || i == 3,
			.bochs_msr = i % 2 == 0 && i != 4, .slack = 5000, .margin = 200,
		};
		char label[96];

		snprintf(label, sizeof(label), "sim slack %d (%s, %s MSR%s)", i,
			 p.mode == TIMER_INJECT ? "inject" : "direct",
			 p.bochs_msr ? "Bochs" : "hardware",
			 p.switch_modes ? ", mode switches" : "");
		run_sim(&p, &r, label);
		printf("    ticks placed off the grid %llu, deferred at their exit %llu\n",
		       (unsigned long long)r.ticks_placed, (unsigned long long)r.tick_defers);
		assert_true(r.fires > 1000 && r.delivered > 1000);
		assert_true(r.ticks_placed > 10 && r.tick_defers > 10);
		/* the slack was used */
		assert_true(r.host_late_max > r.host_bound - p.slack);
	}
}

/*
 * Rate 0 (Bochs), tickless, no watchdog, a guest that runs for seconds with
 * no exit: the 32-bit preemption timer clamps and exits early, and exit 52
 * must find nothing due and re-arm.
 */
static void test_sim_clamp(void **state)
{
	struct sim_params p = {
		.seed = base_seed + 3, .events = sim_events / 5, .rate = 0,
		.mode = TIMER_EMULATED, .switch_modes = true, .scenario = SIM_LONG_SPIN,
	};
	struct sim_result r;

	(void)state;
	run_sim(&p, &r, "sim 4 (rate 0, tickless, long runs: clamped preemption timer)");
	assert_true(r.exits_ptimer_idle > 10);
	assert_true(r.fires > 100 && r.delivered > 100);
}

/* Adversarial guests: whatever they do, host ticks stay on time. */
static void run_scenario(uint32_t scenario, uint64_t seed_off, const char *name,
			 struct sim_result *r)
{
	static const enum timer_mode modes[] = { TIMER_DIRECT, TIMER_INJECT, TIMER_EMULATED };

	for (int i = 0; i < 3; i++) {
		struct sim_params p = {
			.seed = base_seed + seed_off + (uint64_t)i, .events = sim_events / 5,
			.rate = (uint32_t)(i * 3), .period = 20000, .watchdog = 150000,
			.mode = modes[i], .switch_modes = true, .bochs_msr = i == 1,
			.scenario = scenario,
		};
		char label[96];

		snprintf(label, sizeof(label), "%s, start %s", name,
			 i == 0 ? "direct" : i == 1 ? "inject" : "emulated");
		run_sim(&p, &r[i], label);
		assert_int_equal(r[i].host_late_max <= r[i].host_bound, 1);
	}
}

static void test_adv_never_eoi(void **state)
{
	struct sim_result r[3];

	(void)state;
	run_scenario(SIM_NEVER_EOI, 100, "never EOI", r);
	for (int i = 0; i < 3; i++)
		assert_true(r[i].delivered <= 1);	/* the first one stays in service */
}

static void test_adv_tpr15(void **state)
{
	struct sim_result r[3];

	(void)state;
	run_scenario(SIM_TPR15, 200, "TPR 15", r);
	for (int i = 0; i < 3; i++)
		assert_true(r[i].fires > 0);
}

static void test_adv_lvt_masked(void **state)
{
	struct sim_result r[3];

	(void)state;
	run_scenario(SIM_LVT_MASKED, 300, "LVT masked", r);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r[i].fires, 0);
		assert_int_equal(r[i].delivered, 0);
		assert_true(r[i].drops > 100);
	}
}

static void test_adv_deadline_0(void **state)
{
	struct sim_result r[3];

	(void)state;
	run_scenario(SIM_DEADLINE_0, 400, "deadline 0", r);
}

static void test_adv_deadline_max(void **state)
{
	struct sim_result r[3];

	(void)state;
	run_scenario(SIM_DEADLINE_MAX, 500, "deadline ~0", r);
}

static void test_adv_tight_exits(void **state)
{
	struct sim_result r[3];

	(void)state;
	run_scenario(SIM_TIGHT_EXITS, 600, "tight exit loop", r);
	for (int i = 0; i < 3; i++)
		assert_true(r[i].exits > r[i].events / 4);
}

static void test_adv_cli_spin(void **state)
{
	struct sim_result r[3];

	(void)state;
	run_scenario(SIM_CLI_SPIN, 700, "spinning with IF=0", r);
}

static void test_adv_everything(void **state)
{
	struct sim_result r[3];

	(void)state;
	run_scenario(SIM_NEVER_EOI | SIM_TPR15 | SIM_LVT_MASKED | SIM_TIGHT_EXITS | SIM_CLI_SPIN,
		     800, "all of them", r);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return def;
	x = strtoull(v, &end, 0);
	return *end ? def : (uint64_t)x;
}

/* ---- the software deadline's advance ---- */

/* Bounds from the TSC's frequency; none at first; armed that much early, never at 0. */
static void test_advance_bounds(void **state)
{
	struct timer_advance a;

	(void)state;
	timer_advance_init(&a, 50000000);	/* Bochs' 50 MHz */
	assert_int_equal(a.tsc, 0);
	assert_int_equal(a.spin_tsc, 25);	/* 500 ns */
	assert_int_equal(a.max_tsc, 1000);	/* 20 us */
	assert_int_equal(timer_advance_arm(&a, 5000), 5000);
	a.tsc = 300;
	assert_int_equal(timer_advance_arm(&a, 5000), 4700);
	assert_int_equal(timer_advance_arm(&a, 300), 1);	/* 0 would mean "no deadline" */
	assert_int_equal(timer_advance_arm(&a, 200), 1);
}

/*
 * An exit that comes a fixed 400 ticks after the time it was armed for,
 * and an expiry ready 150 ticks after that: the advance settles where the
 * expiry is ready the spin (25 ticks) before the deadline, within a tick
 * or two, from late and from early starts; it never passes its maximum and
 * never goes below 0.
 */
static void test_advance_converges(void **state)
{
	struct timer_advance a;
	const int64_t lateness = 400, path = 150;

	(void)state;
	for (int start = 0; start < 2; start++) {
		timer_advance_init(&a, 50000000);
		a.tsc = start ? 1000 : 0;
		for (int i = 0; i < 100; i++) {
			uint64_t d = 1000000 + (uint64_t)i * 10000;
			int64_t ready = (int64_t)timer_advance_arm(&a, d) + lateness + path;

			timer_advance_learn(&a, (int64_t)d - ready);
			assert_true(a.tsc <= a.max_tsc);
		}
		assert_true(a.tsc >= (uint64_t)(lateness + path + 25 - 3));
		assert_true(a.tsc <= (uint64_t)(lateness + path + 25 + 3));
	}
	/* a path longer than the maximum: held there, the interrupt then late */
	timer_advance_init(&a, 50000000);
	for (int i = 0; i < 100; i++)
		timer_advance_learn(&a, -5000);
	assert_int_equal(a.tsc, a.max_tsc);
	/* always early by far: down to 0, not below */
	for (int i = 0; i < 100; i++)
		timer_advance_learn(&a, 1000000);
	assert_int_equal(a.tsc, 0);
	assert_int_equal(a.learned, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_advance_bounds),
		cmocka_unit_test(test_advance_converges),
		cmocka_unit_test(test_ptimer_due_now_or_past),
		cmocka_unit_test(test_ptimer_boundaries),
		cmocka_unit_test(test_ptimer_clamp),
		cmocka_unit_test(test_ptimer_never_early),
		cmocka_unit_test(test_host_periods),
		cmocka_unit_test(test_sim_slack),
		cmocka_unit_test(test_tick_offset_rules),
		cmocka_unit_test(test_tick_place_and_defer),
		cmocka_unit_test(test_tick_guest_feels_nothing),
		cmocka_unit_test(test_stub_tick_plan),
		cmocka_unit_test(test_stub_tick_same_as_hv),
		cmocka_unit_test(test_tick_aside_plan),
		cmocka_unit_test(test_tick_aside_plan_refused),
		cmocka_unit_test(test_tick_phase_lock),
		cmocka_unit_test(test_tick_aside_guest),
		cmocka_unit_test(test_tick_aside_late_exits),
		cmocka_unit_test(test_tick_aside_due),
		cmocka_unit_test(test_tick_aside_windows),
		cmocka_unit_test(test_tick_spares_guest_work),
		cmocka_unit_test(test_host_missed),
		cmocka_unit_test(test_host_no_drift),
		cmocka_unit_test(test_host_tickless),
		cmocka_unit_test(test_host_watchdog),
		cmocka_unit_test(test_vtimer_emulated),
		cmocka_unit_test(test_vtimer_masked),
		cmocka_unit_test(test_vtimer_lvt_mode),
		cmocka_unit_test(test_vtimer_pv_replace),
		cmocka_unit_test(test_vtimer_pv_random),
		cmocka_unit_test(test_vtimer_save_restore),
		cmocka_unit_test(test_vtimer_save_race),
		cmocka_unit_test(test_vtimer_save_hw),
		cmocka_unit_test(test_vtimer_switch),
		cmocka_unit_test(test_sim_seed1),
		cmocka_unit_test(test_sim_seed2),
		cmocka_unit_test(test_sim_seed3),
		cmocka_unit_test(test_sim_clamp),
		cmocka_unit_test(test_adv_never_eoi),
		cmocka_unit_test(test_adv_tpr15),
		cmocka_unit_test(test_adv_lvt_masked),
		cmocka_unit_test(test_adv_deadline_0),
		cmocka_unit_test(test_adv_deadline_max),
		cmocka_unit_test(test_adv_tight_exits),
		cmocka_unit_test(test_adv_cli_spin),
		cmocka_unit_test(test_adv_everything),
	};

	base_seed = env_u64("TIMER_SEED", DEFAULT_SEED);
	sim_events = env_u64("TIMER_EVENTS", DEFAULT_EVENTS);
	printf("timer simulation: base seed %llu (set TIMER_SEED to change), %llu events a run\n",
	       (unsigned long long)base_seed, (unsigned long long)sim_events);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
