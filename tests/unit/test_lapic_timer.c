// SPDX-License-Identifier: MIT
/*
 * The LAPIC count-down timer (hv/core/lapic_timer.c) and its place in the
 * vCPU timer (struct vtimer, hv/core/timer.c): the rules one by one, then a
 * simulated vCPU driven through the vtimer as the hypervisor would drive it
 * (check at every exit, arm the preemption timer for vtimer_next, away for a
 * while, trapped register writes) against a reference count-down that steps
 * the TSC one tick at a time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/lapic_timer.h"
#include "hv/core/timer.h"
#include "hv/lib/apic_defs.h"

#define IDLE	LAPIC_TIMER_IDLE

/* TDCR bits 3, 1, 0 -> divisor, SDM figure 11-10, written out. */
static void test_divisor_table(void **unused)
{
	static const struct {
		uint32_t tdcr, div;
	} rows[] = {
		{ 0x0, 2 }, { 0x1, 4 }, { 0x2, 8 }, { 0x3, 16 },
		{ 0x8, 32 }, { 0x9, 64 }, { 0xa, 128 }, { 0xb, 1 },
	};
	struct lapic_timer t;

	(void)unused;
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(lapic_timer_divisor(rows[i].tdcr), rows[i].div);
		/* bit 2 and bits 31:4 are not part of it */
		assert_int_equal(lapic_timer_divisor(rows[i].tdcr | 0xfffffff4), rows[i].div);
		lapic_timer_init(&t, 0);
		lapic_timer_write_tdcr(&t, rows[i].tdcr | 0xfffffff4, 0);
		assert_int_equal(lapic_timer_read_tdcr(&t), rows[i].tdcr);
		assert_int_equal(t.divisor, rows[i].div);
	}
	assert_int_equal(lapic_timer_mode_of(0x40), LAPIC_TIMER_ONE_SHOT);
	assert_int_equal(lapic_timer_mode_of(APIC_LVT_TIMER_PERIODIC | APIC_LVT_MASKED),
			 LAPIC_TIMER_PERIODIC);
	assert_int_equal(lapic_timer_mode_of(APIC_LVT_TIMER_TSC_DEADLINE),
			 LAPIC_TIMER_TSC_DEADLINE);
}

static void test_reset_state(void **unused)
{
	struct lapic_timer t;

	(void)unused;
	lapic_timer_init(&t, 0);
	assert_int_equal(lapic_timer_read_tmict(&t), 0);
	assert_int_equal(lapic_timer_read_tmcct(&t, 12345), 0);
	assert_int_equal(lapic_timer_read_tdcr(&t), 0);
	assert_int_equal(t.divisor, 2);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	assert_false(lapic_timer_expire(&t, UINT64_MAX - 1));
}

static void test_one_shot(void **unused)
{
	struct lapic_timer t;

	(void)unused;
	lapic_timer_init(&t, 0);
	lapic_timer_write_tdcr(&t, 0xb, 0);	/* divide by 1 */
	lapic_timer_write_tmict(&t, 100, 1000);
	assert_int_equal(lapic_timer_next(&t), 1100);
	assert_int_equal(lapic_timer_read_tmcct(&t, 1000), 100);
	assert_int_equal(lapic_timer_read_tmcct(&t, 1001), 99);
	assert_int_equal(lapic_timer_read_tmcct(&t, 1099), 1);
	assert_int_equal(lapic_timer_read_tmcct(&t, 1100), 0);
	assert_false(lapic_timer_expire(&t, 1099));	/* never early */
	assert_true(lapic_timer_expire(&t, 1100));
	assert_false(lapic_timer_expire(&t, 5000));	/* once */
	assert_int_equal(lapic_timer_next(&t), IDLE);
	assert_int_equal(lapic_timer_read_tmcct(&t, 1200), 0);
	assert_int_equal(lapic_timer_read_tmict(&t), 100);	/* kept */
	assert_int_equal(t.expiries, 1);

	/* divide by 2: 10 counts take 20 ticks; the count drops every 2 */
	lapic_timer_write_tdcr(&t, 0, 2000);
	lapic_timer_write_tmict(&t, 10, 2000);
	assert_int_equal(lapic_timer_next(&t), 2020);
	assert_int_equal(lapic_timer_read_tmcct(&t, 2001), 10);
	assert_int_equal(lapic_timer_read_tmcct(&t, 2002), 9);
	assert_int_equal(lapic_timer_read_tmcct(&t, 2019), 1);

	/* a new TMICT restarts the count; 0 stops it */
	lapic_timer_write_tmict(&t, 50, 2010);
	assert_int_equal(lapic_timer_next(&t), 2110);
	lapic_timer_write_tmict(&t, 0, 2050);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	assert_int_equal(lapic_timer_read_tmcct(&t, 2050), 0);
	assert_false(lapic_timer_expire(&t, 3000));

	/* the largest count, the largest divisor: 2^39 ticks, no overflow */
	lapic_timer_write_tdcr(&t, 0xa, 0);
	lapic_timer_write_tmict(&t, 0xffffffff, 10);
	assert_int_equal(lapic_timer_next(&t), 10 + 0xffffffffull * 128);
	assert_int_equal(lapic_timer_read_tmcct(&t, 10), 0xffffffff);
}

/* Each period from the previous due time; any number late is one interrupt. */
static void test_periodic_no_drift(void **unused)
{
	struct lapic_timer t;
	uint64_t folded;

	(void)unused;
	lapic_timer_init(&t, 0);
	lapic_timer_write_tdcr(&t, 0xb, 0);
	lapic_timer_set_mode(&t, LAPIC_TIMER_PERIODIC);
	lapic_timer_write_tmict(&t, 100, 0);
	assert_int_equal(lapic_timer_next(&t), 100);
	assert_true(lapic_timer_expire(&t, 150));	/* handled 50 late */
	assert_int_equal(lapic_timer_next(&t), 200);	/* not 250 */
	assert_int_equal(lapic_timer_read_tmcct(&t, 150), 50);
	/* 200, 300 and 400 pass unseen: one interrupt, the grid kept */
	assert_true(lapic_timer_expire(&t, 450));
	assert_int_equal(lapic_timer_next(&t), 500);
	assert_int_equal(t.expiries, 4);
	assert_int_equal(t.coalesced, 2);
	/* exactly on a due time: that one has expired */
	assert_true(lapic_timer_expire(&t, 500));
	assert_int_equal(lapic_timer_next(&t), 600);
	/* TMCCT between checks is read off the grid, and changes nothing */
	assert_int_equal(lapic_timer_read_tmcct(&t, 650), 50);
	assert_int_equal(lapic_timer_read_tmcct(&t, 700), 100);
	assert_int_equal(lapic_timer_read_tmcct(&t, 701), 99);
	assert_int_equal(lapic_timer_next(&t), 600);
	/* away for 2^40 ticks: one interrupt, one division */
	assert_true(lapic_timer_expire(&t, 1ull << 40));
	assert_int_equal(lapic_timer_next(&t), (1ull << 40) + 100 - (1ull << 40) % 100);
	assert_int_equal(t.expiries, 5 + ((1ull << 40) - 600) / 100 + 1);
	/* fired is latched by any advance until taken: a second one folds into it */
	folded = t.coalesced;
	lapic_timer_advance(&t, lapic_timer_next(&t));
	lapic_timer_advance(&t, lapic_timer_next(&t));
	assert_int_equal(t.coalesced, folded + 1);
	assert_true(lapic_timer_take(&t));
	assert_false(lapic_timer_take(&t));
	/* a TMICT write after an expiry nobody saw: the expiry stands */
	lapic_timer_init(&t, 0);
	lapic_timer_write_tdcr(&t, 0xb, 0);
	lapic_timer_write_tmict(&t, 10, 0);
	lapic_timer_write_tmict(&t, 10, 30);
	assert_true(lapic_timer_take(&t));
	assert_int_equal(lapic_timer_next(&t), 40);
}

/* SDM 11.5.4.1 and kvm-unit-tests' test_apic_change_mode. */
static void test_mode_changes(void **unused)
{
	struct lapic_timer t;

	(void)unused;
	lapic_timer_init(&t, 0);
	lapic_timer_write_tdcr(&t, 0xb, 0);
	lapic_timer_write_tmict(&t, 1000, 0);
	/* one-shot -> periodic: TMICT kept, the count goes on, and reloads at 0 */
	lapic_timer_advance(&t, 400);
	lapic_timer_set_mode(&t, LAPIC_TIMER_PERIODIC);
	assert_int_equal(lapic_timer_read_tmict(&t), 1000);
	assert_int_equal(lapic_timer_read_tmcct(&t, 400), 600);
	assert_true(lapic_timer_expire(&t, 1000));
	assert_int_equal(lapic_timer_next(&t), 2000);
	assert_int_equal(lapic_timer_read_tmcct(&t, 1001), 999);
	/* periodic -> one-shot: this period ends, then nothing */
	lapic_timer_advance(&t, 1500);
	lapic_timer_set_mode(&t, LAPIC_TIMER_ONE_SHOT);
	assert_int_equal(lapic_timer_read_tmcct(&t, 1500), 500);
	assert_true(lapic_timer_expire(&t, 2000));
	assert_int_equal(lapic_timer_next(&t), IDLE);
	/* a one-shot that expired stays at 0 in periodic mode */
	lapic_timer_set_mode(&t, LAPIC_TIMER_PERIODIC);
	assert_int_equal(lapic_timer_read_tmcct(&t, 2500), 0);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	/* into TSC-deadline mode: stopped, TMICT cleared, TMICT writes ignored */
	lapic_timer_write_tmict(&t, 300, 3000);
	lapic_timer_set_mode(&t, LAPIC_TIMER_TSC_DEADLINE);
	assert_int_equal(lapic_timer_read_tmict(&t), 0);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	lapic_timer_write_tmict(&t, 300, 3100);
	assert_int_equal(lapic_timer_read_tmict(&t), 0);
	assert_int_equal(lapic_timer_read_tmcct(&t, 3100), 0);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	/* and out of it: stopped until TMICT is written */
	lapic_timer_set_mode(&t, LAPIC_TIMER_ONE_SHOT);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	lapic_timer_write_tmict(&t, 300, 3200);
	assert_int_equal(lapic_timer_next(&t), 3500);
	lapic_timer_set_mode(&t, LAPIC_TIMER_TSC_DEADLINE);
	lapic_timer_set_mode(&t, LAPIC_TIMER_PERIODIC);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	assert_int_equal(lapic_timer_read_tmict(&t), 0);
}

/* KVM's rule: the count left runs on at the new rate. */
static void test_divide_change(void **unused)
{
	struct lapic_timer t;

	(void)unused;
	lapic_timer_init(&t, 0);
	lapic_timer_write_tdcr(&t, 0xb, 0);	/* 1 */
	lapic_timer_set_mode(&t, LAPIC_TIMER_PERIODIC);
	lapic_timer_write_tmict(&t, 100, 0);
	lapic_timer_write_tdcr(&t, 0x1, 50);	/* 4: 50 left of 1 tick -> 200 ticks */
	assert_int_equal(lapic_timer_next(&t), 250);
	assert_int_equal(lapic_timer_read_tmcct(&t, 50), 50);	/* the count is kept */
	assert_int_equal(lapic_timer_read_tmcct(&t, 54), 49);
	assert_true(lapic_timer_expire(&t, 250));
	assert_int_equal(lapic_timer_next(&t), 650);	/* then 100 * 4 */
	/* slower to faster: 128 -> 1 with 100 ticks left rounds down to 0: due now */
	lapic_timer_write_tdcr(&t, 0xa, 650);
	lapic_timer_write_tmict(&t, 1, 700);	/* 128 ticks */
	lapic_timer_write_tdcr(&t, 0xb, 728);	/* 100 left -> 0 */
	assert_int_equal(lapic_timer_next(&t), 728);
	assert_true(lapic_timer_expire(&t, 728));
	assert_int_equal(lapic_timer_next(&t), 729);
	/* not counting: only the divisor changes */
	lapic_timer_write_tmict(&t, 0, 800);
	lapic_timer_write_tdcr(&t, 0x3, 800);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	assert_int_equal(t.divisor, 16);
	/* an expiry before the write is decided before the rescale */
	lapic_timer_init(&t, 0);
	lapic_timer_write_tdcr(&t, 0xb, 0);
	lapic_timer_write_tmict(&t, 10, 0);
	lapic_timer_write_tdcr(&t, 0xa, 20);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	assert_true(lapic_timer_take(&t));
}

static void test_min_period(void **unused)
{
	struct lapic_timer t;

	(void)unused;
	lapic_timer_init(&t, 1000);
	lapic_timer_write_tdcr(&t, 0xb, 0);
	lapic_timer_set_mode(&t, LAPIC_TIMER_PERIODIC);
	lapic_timer_write_tmict(&t, 10, 0);
	assert_int_equal(lapic_timer_next(&t), 1000);	/* stretched */
	assert_int_equal(lapic_timer_read_tmcct(&t, 0), 10);	/* never above TMICT */
	assert_int_equal(lapic_timer_read_tmcct(&t, 995), 5);
	assert_true(lapic_timer_expire(&t, 1000));
	assert_int_equal(lapic_timer_next(&t), 2000);
	assert_true(lapic_timer_expire(&t, 10500));
	assert_int_equal(lapic_timer_next(&t), 11000);
	/* one-shot counts are not stretched */
	lapic_timer_set_mode(&t, LAPIC_TIMER_ONE_SHOT);
	lapic_timer_write_tmict(&t, 10, 20000);
	assert_int_equal(lapic_timer_next(&t), 20010);
	/* a period above the floor is not touched */
	lapic_timer_set_mode(&t, LAPIC_TIMER_PERIODIC);
	lapic_timer_write_tmict(&t, 5000, 30000);
	assert_true(lapic_timer_expire(&t, 35000));
	assert_int_equal(lapic_timer_next(&t), 40000);
}

static void test_resume(void **unused)
{
	struct lapic_timer t;

	(void)unused;
	lapic_timer_init(&t, 0);
	lapic_timer_resume(&t, LAPIC_TIMER_PERIODIC, 1000, 250, 0x1, 5000);
	assert_int_equal(t.divisor, 4);
	assert_int_equal(lapic_timer_next(&t), 6000);
	assert_int_equal(lapic_timer_read_tmcct(&t, 5000), 250);
	assert_true(lapic_timer_expire(&t, 6000));
	assert_int_equal(lapic_timer_next(&t), 10000);
	lapic_timer_resume(&t, LAPIC_TIMER_ONE_SHOT, 1000, 0, 0xb, 5000);	/* expired */
	assert_int_equal(lapic_timer_next(&t), IDLE);
	assert_int_equal(lapic_timer_read_tmict(&t), 1000);
	lapic_timer_resume(&t, LAPIC_TIMER_TSC_DEADLINE, 1000, 7, 0xb, 5000);
	assert_int_equal(lapic_timer_next(&t), IDLE);
	assert_int_equal(lapic_timer_read_tmict(&t), 0);
}

/* ---- the count-down timer inside struct vtimer ---- */

#define VEC	0x40

static bool irr_has(const struct vtimer *t, uint8_t v)
{
	return t->vlapic.irr[v / 32] & (1u << (v % 32));
}

static void test_vtimer_countdown(void **unused)
{
	struct vtimer t;

	(void)unused;
	vtimer_init(&t, TIMER_EMULATED);
	vtimer_write_lvt(&t, VEC);	/* one-shot, unmasked */
	vtimer_write_tdcr(&t, 0xb, 0);
	vtimer_write_tmict(&t, 500, 1000);
	assert_int_equal(vtimer_read_tmict(&t), 500);
	assert_int_equal(vtimer_read_tdcr(&t), 0xb);
	assert_int_equal(vtimer_next(&t), 1500);
	assert_int_equal(vtimer_read_tmcct(&t, 1200), 300);
	assert_false(vtimer_check(&t, 1499));
	assert_true(vtimer_check(&t, 1500));
	assert_true(irr_has(&t, VEC));
	assert_int_equal(t.stats.injected, 1);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);

	/* masked: the expiry is dropped, the periodic count goes on */
	vlapic_accept(&t.vlapic, VEC);
	vlapic_eoi(&t.vlapic);
	vtimer_check(&t, 2000);
	vtimer_write_lvt(&t, VEC | APIC_LVT_MASKED | APIC_LVT_TIMER_PERIODIC);
	vtimer_write_tmict(&t, 100, 2000);
	assert_true(vtimer_check(&t, 2100));
	assert_false(irr_has(&t, VEC));
	assert_int_equal(t.stats.dropped_masked, 1);
	assert_int_equal(vtimer_next(&t), 2200);
	vtimer_check(&t, 2150);
	vtimer_write_lvt(&t, VEC | APIC_LVT_TIMER_PERIODIC);
	assert_true(vtimer_check(&t, 2200));
	assert_true(irr_has(&t, VEC));

	/* TSC-deadline mode: the count-down stops, the deadline arms */
	vtimer_check(&t, 2250);
	vtimer_write_lvt(&t, VEC | APIC_LVT_TIMER_TSC_DEADLINE);
	assert_int_equal(vtimer_read_tmict(&t), 0);
	vtimer_write_tmict(&t, 100, 2250);	/* ignored */
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
	vtimer_write_deadline(&t, 5000, 2250);
	assert_int_equal(vtimer_next(&t), 5000);
	/* and back: the deadline disarmed, the count-down stopped */
	vtimer_write_lvt(&t, VEC);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
	assert_int_equal(vtimer_read_deadline(&t), 0);
}

/* Inject mode keeps it in software too; direct mode leaves it to the hardware. */
static void test_vtimer_countdown_modes(void **unused)
{
	struct vtimer t;

	(void)unused;
	vtimer_init(&t, TIMER_INJECT);
	vtimer_write_lvt(&t, VEC | APIC_LVT_TIMER_PERIODIC);
	vtimer_write_tdcr(&t, 0xb, 0);
	vtimer_write_tmict(&t, 100, 0);
	assert_int_equal(vtimer_next(&t), 100);
	assert_true(vtimer_check(&t, 100));
	assert_true(irr_has(&t, VEC));
	/* into direct mode: refused while the count-down counts */
	vlapic_accept(&t.vlapic, VEC);
	vlapic_eoi(&t.vlapic);
	assert_false(vtimer_switch_mode(&t, TIMER_DIRECT, 150));
	assert_true(vtimer_switch_mode(&t, TIMER_EMULATED, 150));
	assert_int_equal(vtimer_next(&t), 200);	/* carried over */
	assert_true(vtimer_switch_mode(&t, TIMER_PV_LAZY, 160));
	assert_true(vtimer_check(&t, 230));
	vlapic_accept(&t.vlapic, VEC);
	vlapic_eoi(&t.vlapic);
	/* an expired one-shot not yet checked still holds the switch off */
	vtimer_check(&t, 240);
	vtimer_write_lvt(&t, VEC);
	assert_false(vtimer_switch_mode(&t, TIMER_DIRECT, 350));
	vtimer_check(&t, 350);
	vlapic_accept(&t.vlapic, VEC);
	vlapic_eoi(&t.vlapic);
	assert_true(vtimer_switch_mode(&t, TIMER_DIRECT, 350));
	/* direct: the physical LAPIC counts; the vtimer neither arms nor fires it */
	vtimer_write_tmict(&t, 10, 400);
	assert_int_equal(vtimer_next(&t), TIMER_NO_EVENT);
	assert_false(vtimer_check(&t, 1000));
}

/* ---- a simulated vCPU against a stepped reference ---- */

/* The reference: what the count-down register does, one TSC tick at a time. */
struct ref {
	enum lapic_timer_mode mode;
	bool masked;
	uint32_t n, div;
	bool counting;
	uint64_t left;		/* TSC ticks until the count reaches 0 */
	uint64_t min_period;
	bool pending;		/* the vector's IRR bit */
	uint64_t expiries, raised, taken;
};

static void ref_expire(struct ref *r)
{
	r->expiries++;
	if (!r->masked) {
		r->pending = true;
		r->raised++;
	}
	if (r->mode == LAPIC_TIMER_PERIODIC) {
		uint64_t p = (uint64_t)r->n * r->div;

		r->left = p < r->min_period ? r->min_period : p;
	} else {
		r->counting = false;
	}
}

/* The TSC moves from t to t + 1. */
static void ref_tick(struct ref *r)
{
	if (r->counting && --r->left == 0)
		ref_expire(r);
}

static uint32_t ref_tmcct(const struct ref *r)
{
	uint64_t c;

	if (!r->counting || r->mode == LAPIC_TIMER_TSC_DEADLINE)
		return 0;
	c = (r->left + r->div - 1) / r->div;
	return c > r->n ? r->n : (uint32_t)c;
}

struct csim {
	uint64_t rng, tsc;
	struct vtimer vt;
	struct ref ref;
	uint32_t lvt;
	uint64_t exits, away, checks, writes, reads;
	char where[160];
};

static uint64_t rnd64(struct csim *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct csim *s, uint64_t lo, uint64_t hi)
{
	return lo + rnd64(s) % (hi - lo + 1);
}

#define CHECK(s, cond)                                                                        \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "count-down sim: %s at tsc %llu (%s): %s\n", #cond,   \
				(unsigned long long)(s)->tsc, (s)->where,                      \
				mode_names[(s)->vt.mode]);                                     \
			fail();                                                               \
		}                                                                             \
	} while (0)

static const char *const mode_names[] = { "direct", "inject", "emulated", "pv-lazy" };

/* Time passes with nobody looking: the reference steps, the model does not. */
static void pass(struct csim *s, uint64_t ticks)
{
	for (uint64_t i = 0; i < ticks; i++)
		ref_tick(&s->ref);
	s->tsc += ticks;
}

/* What must agree whenever the hypervisor has just looked. */
static void agree(struct csim *s)
{
	uint64_t want = s->ref.counting ? s->tsc + s->ref.left : TIMER_NO_EVENT;

	CHECK(s, vtimer_next(&s->vt) == want);
	CHECK(s, irr_has(&s->vt, VEC) == s->ref.pending);
	CHECK(s, s->vt.countdown.expiries == s->ref.expiries);
	CHECK(s, vtimer_read_tmict(&s->vt) == s->ref.n);
}

/* An exit: the hypervisor checks the timer (deliver_virtual's vtimer_check, hv/time/vcpu_timer.c). */
static void hv_check(struct csim *s, const char *why)
{
	snprintf(s->where, sizeof(s->where), "%s", why);
	vtimer_check(&s->vt, s->tsc);
	s->checks++;
	agree(s);
}

/* The entry: the guest (IF=1, handler at once) takes what is pending, and EOIs. */
static void guest_takes(struct csim *s)
{
	int v = vlapic_pending(&s->vt.vlapic);

	CHECK(s, (v == VEC) == s->ref.pending);
	if (v < 0)
		return;
	vlapic_accept(&s->vt.vlapic, (uint8_t)v);
	vlapic_eoi(&s->vt.vlapic);
	s->ref.pending = false;
	s->ref.taken++;
}

static uint32_t random_count(struct csim *s)
{
	switch (rnd(s, 0, 9)) {
	case 0:
		return 0;
	case 1:
		return (uint32_t)rnd(s, 1, 3);
	case 2:
		return (uint32_t)rnd(s, 1000, 20000);
	default:
		return (uint32_t)rnd(s, 1, 400);
	}
}

static void guest_op(struct csim *s)
{
	struct ref *r = &s->ref;

	switch (rnd(s, 0, 9)) {
	case 0:
	case 1: {	/* TMICT */
		uint32_t n = random_count(s);

		snprintf(s->where, sizeof(s->where), "TMICT %u", n);
		vtimer_write_tmict(&s->vt, n, s->tsc);
		if (r->mode != LAPIC_TIMER_TSC_DEADLINE) {
			uint64_t p = (uint64_t)n * r->div;

			if (r->mode == LAPIC_TIMER_PERIODIC && p < r->min_period)
				p = r->min_period;
			r->n = n;
			r->counting = n != 0;
			r->left = p;
		}
		s->writes++;
		break;
	}
	case 2: {	/* TDCR, with bits the register does not have */
		uint32_t v = (uint32_t)rnd64(s) | (rnd(s, 0, 1) ? 0xb : 0);	/* often 1 */
		uint32_t div = lapic_timer_divisor(v);

		snprintf(s->where, sizeof(s->where), "TDCR %#x", v);
		vtimer_write_tdcr(&s->vt, v, s->tsc);
		if (r->counting) {
			r->left = r->left * div / r->div;
			r->div = div;
			if (!r->left)
				ref_expire(r);	/* due now */
		}
		r->div = div;
		s->writes++;
		break;
	}
	case 3: {	/* the LVT: mode and mask (trapped: the hypervisor checks first) */
		static const uint32_t modes[] = { APIC_LVT_TIMER_ONE_SHOT, APIC_LVT_TIMER_PERIODIC,
						  APIC_LVT_TIMER_ONE_SHOT, APIC_LVT_TIMER_PERIODIC,
						  APIC_LVT_TIMER_TSC_DEADLINE };
		uint32_t lvt = VEC | modes[rnd(s, 0, 4)] | (rnd(s, 0, 3) ? 0 : APIC_LVT_MASKED);
		enum lapic_timer_mode m = lapic_timer_mode_of(lvt);

		hv_check(s, "before an LVT write");
		snprintf(s->where, sizeof(s->where), "LVT %#x", lvt);
		vtimer_write_lvt(&s->vt, lvt);
		if ((m == LAPIC_TIMER_TSC_DEADLINE) != (r->mode == LAPIC_TIMER_TSC_DEADLINE)) {
			r->n = 0;
			r->counting = false;
		}
		r->mode = m;
		r->masked = lvt & APIC_LVT_MASKED;
		s->writes++;
		break;
	}
	case 4:
	case 5:		/* TMCCT, between checks too */
		snprintf(s->where, sizeof(s->where), "TMCCT");
		CHECK(s, vtimer_read_tmcct(&s->vt, s->tsc) == ref_tmcct(r));
		s->reads++;
		break;
	case 6:		/* another mode that keeps the count-down virtual */
		if (!vlapic_in_service(&s->vt.vlapic)) {
			static const enum timer_mode to[] = { TIMER_INJECT, TIMER_EMULATED,
							      TIMER_PV_LAZY };

			CHECK(s, vtimer_switch_mode(&s->vt, to[rnd(s, 0, 2)], s->tsc));
		}
		break;
	default:
		break;
	}
}

static void run_sim(uint64_t seed, enum timer_mode mode, uint64_t ticks, uint64_t min_period)
{
	struct csim s;
	uint64_t end;

	memset(&s, 0, sizeof(s));
	s.rng = seed;
	s.tsc = rnd(&s, 0, 1ull << 40);
	end = s.tsc + ticks;
	vtimer_init(&s.vt, mode);
	s.vt.countdown.min_period_tsc = min_period;
	s.ref.mode = LAPIC_TIMER_ONE_SHOT;
	s.ref.masked = true;	/* the LVT resets masked */
	s.ref.div = 2;		/* TDCR 0 */
	s.ref.min_period = min_period;

	while (s.tsc < end) {
		uint64_t next = vtimer_next(&s.vt), run;

		/* the guest runs until the preemption timer or another exit */
		guest_takes(&s);
		run = rnd(&s, 0, 9) ? rnd(&s, 1, 200) : rnd(&s, 200, 20000);
		if (next != TIMER_NO_EVENT && next - s.tsc < run)
			run = next - s.tsc;
		/* a zero run: the entry path found it due (vm_entry handles it in place) */
		pass(&s, run);
		s.exits++;
		hv_check(&s, "exit");
		if (rnd(&s, 0, 2) == 0) {
			/* a trapped write or read; the exit ends with a check before entry */
			guest_op(&s);
			hv_check(&s, "after the trapped access");
		}
		if (rnd(&s, 0, 49) == 0) {
			/* away: a window on a shared core, a long stay; nobody looks */
			pass(&s, rnd(&s, 1, 30000));
			snprintf(s.where, sizeof(s.where), "TMCCT while away");
			CHECK(&s, vtimer_read_tmcct(&s.vt, s.tsc) == ref_tmcct(&s.ref));
			pass(&s, rnd(&s, 1, 30000));
			s.away++;
			hv_check(&s, "back");
		}
	}
	/* every way through happened, many times */
	fprintf(stderr, "count-down sim seed %llu %s: %llu exits, %llu checks, %llu away, "
		"%llu writes, %llu reads, %llu expiries, %llu raised, %llu taken, %llu coalesced, "
		"%llu dropped masked\n", (unsigned long long)seed, mode_names[mode],
		(unsigned long long)s.exits, (unsigned long long)s.checks,
		(unsigned long long)s.away, (unsigned long long)s.writes,
		(unsigned long long)s.reads, (unsigned long long)s.ref.expiries,
		(unsigned long long)s.ref.raised, (unsigned long long)s.ref.taken,
		(unsigned long long)s.vt.countdown.coalesced,
		(unsigned long long)s.vt.stats.dropped_masked);
	assert_true(s.ref.expiries > 100);
	assert_true(s.ref.taken > 50);
	assert_true(s.vt.countdown.coalesced > 0);
	assert_true(s.vt.stats.dropped_masked > 0);
	assert_true(s.away > 10);
	assert_true(s.reads > 100);
	/* raises into a pending bit fold in the vlapic as in the reference's IRR */
	assert_true(s.ref.taken <= s.vt.stats.injected && s.vt.stats.injected <= s.ref.raised);
}

static void test_sim_emulated(void **unused)
{
	(void)unused;
	for (uint64_t seed = 1; seed <= 6; seed++)
		run_sim(seed, TIMER_EMULATED, 20000000, 0);
}

static void test_sim_inject(void **unused)
{
	(void)unused;
	for (uint64_t seed = 11; seed <= 16; seed++)
		run_sim(seed, TIMER_INJECT, 20000000, 0);
}

static void test_sim_min_period(void **unused)
{
	(void)unused;
	for (uint64_t seed = 21; seed <= 24; seed++)
		run_sim(seed, seed & 1 ? TIMER_PV_LAZY : TIMER_EMULATED, 20000000, 700);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_divisor_table),
		cmocka_unit_test(test_reset_state),
		cmocka_unit_test(test_one_shot),
		cmocka_unit_test(test_periodic_no_drift),
		cmocka_unit_test(test_mode_changes),
		cmocka_unit_test(test_divide_change),
		cmocka_unit_test(test_min_period),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_vtimer_countdown),
		cmocka_unit_test(test_vtimer_countdown_modes),
		cmocka_unit_test(test_sim_emulated),
		cmocka_unit_test(test_sim_inject),
		cmocka_unit_test(test_sim_min_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
