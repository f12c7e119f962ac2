// SPDX-License-Identifier: MIT
/* The virtual LAPIC's priority rules (SDM Vol. 3A 11.8). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/vlapic.h"

/* Raise, then deliver what is deliverable, as the CPU would. */
static int take(struct vlapic *l)
{
	int v = vlapic_pending(l);

	if (v >= 0)
		vlapic_accept(l, (uint8_t)v);
	return v;
}

/* What changed since the virtual-APIC page took it: exactly the words touched. */
static void test_dirty_words(void **state)
{
	struct vlapic l;

	(void)state;
	vlapic_init(&l);
	assert_int_equal(l.dirty, VLAPIC_DIRTY_ALL);	/* a reset: all of it */
	l.dirty = 0;
	assert_false(vlapic_raise(&l, 5));		/* refused: nothing changed */
	assert_int_equal(l.dirty, 0);
	assert_true(vlapic_raise(&l, 0x41));		/* IRR word 2 */
	assert_int_equal(l.dirty, 1u << 2);
	l.dirty = 0;
	vlapic_accept(&l, 0x41);			/* IRR and ISR word 2 */
	assert_int_equal(l.dirty, (1u << 2) | (1u << 10));
	l.dirty = 0;
	assert_int_equal(vlapic_eoi(&l), 0x41);		/* ISR word 2 */
	assert_int_equal(l.dirty, 1u << 10);
	l.dirty = 0;
	assert_int_equal(vlapic_eoi(&l), -1);		/* nothing in service: nothing */
	assert_int_equal(l.dirty, 0);
	vlapic_set_tpr(&l, 0x20);
	assert_int_equal(l.dirty, VLAPIC_DIRTY_TPR);
	l.dirty = 0;
	assert_true(vlapic_raise(&l, 0xff));		/* the top word */
	assert_int_equal(l.dirty, VLAPIC_DIRTY_IRR(0xff));
	assert_int_equal(VLAPIC_DIRTY_IRR(0xff), 1u << 7);
	assert_int_equal(VLAPIC_DIRTY_ISR(0x10), 1u << 8);
}

static void test_empty(void **state)
{
	struct vlapic l;

	(void)state;
	vlapic_init(&l);
	assert_int_equal(vlapic_highest_irr(&l), -1);
	assert_int_equal(vlapic_highest_isr(&l), -1);
	assert_int_equal(vlapic_pending(&l), -1);
	assert_int_equal(vlapic_ppr(&l), 0);
	assert_false(vlapic_in_service(&l));
	assert_int_equal(vlapic_eoi(&l), -1);
}

static void test_low_vectors_ignored(void **state)
{
	struct vlapic l;

	(void)state;
	vlapic_init(&l);
	for (int v = 0; v < 16; v++)
		assert_false(vlapic_raise(&l, (uint8_t)v));
	assert_int_equal(vlapic_highest_irr(&l), -1);
	vlapic_accept(&l, 3);
	assert_false(vlapic_in_service(&l));
	assert_true(vlapic_raise(&l, 16));
	assert_int_equal(vlapic_pending(&l), 16);
	assert_true(vlapic_raise(&l, 255));
	assert_int_equal(vlapic_highest_irr(&l), 255);
}

static void test_every_vector_bit(void **state)
{
	struct vlapic l;

	(void)state;
	for (int v = 16; v < 256; v++) {
		vlapic_init(&l);
		assert_true(vlapic_raise(&l, (uint8_t)v));
		assert_int_equal(vlapic_highest_irr(&l), v);
		assert_int_equal(take(&l), v);
		assert_int_equal(vlapic_highest_isr(&l), v);
		assert_int_equal(vlapic_highest_irr(&l), -1);
		assert_int_equal(vlapic_ppr(&l), v & 0xf0);
		assert_int_equal(vlapic_eoi(&l), v);
		assert_false(vlapic_in_service(&l));
	}
}

static void test_priority_order(void **state)
{
	struct vlapic l;

	(void)state;
	vlapic_init(&l);
	vlapic_raise(&l, 0x31);
	vlapic_raise(&l, 0x80);
	vlapic_raise(&l, 0x3f);
	/* Highest first; the class of the one in service blocks the rest. */
	assert_int_equal(take(&l), 0x80);
	assert_int_equal(take(&l), -1);
	assert_int_equal(vlapic_eoi(&l), 0x80);
	assert_int_equal(take(&l), 0x3f);
	/* 0x31 is in the same class as 0x3f: blocked until its EOI. */
	assert_int_equal(take(&l), -1);
	assert_int_equal(vlapic_eoi(&l), 0x3f);
	assert_int_equal(take(&l), 0x31);
	assert_int_equal(vlapic_eoi(&l), 0x31);
	assert_int_equal(take(&l), -1);
}

static void test_coalesce(void **state)
{
	struct vlapic l;

	(void)state;
	vlapic_init(&l);
	vlapic_raise(&l, 0x40);
	vlapic_raise(&l, 0x40);
	assert_int_equal(take(&l), 0x40);
	assert_int_equal(vlapic_highest_irr(&l), -1);
	/* Raised again while in service: pending behind itself. */
	vlapic_raise(&l, 0x40);
	assert_int_equal(take(&l), -1);
	assert_int_equal(vlapic_eoi(&l), 0x40);
	assert_int_equal(take(&l), 0x40);
}

static void test_nested(void **state)
{
	struct vlapic l;

	(void)state;
	vlapic_init(&l);
	vlapic_raise(&l, 0x30);
	assert_int_equal(take(&l), 0x30);
	/* A higher class nests; the same or a lower one waits. */
	vlapic_raise(&l, 0x35);
	vlapic_raise(&l, 0x20);
	assert_int_equal(take(&l), -1);
	vlapic_raise(&l, 0x50);
	assert_int_equal(take(&l), 0x50);
	vlapic_raise(&l, 0x90);
	assert_int_equal(take(&l), 0x90);
	assert_int_equal(vlapic_ppr(&l), 0x90);
	/* EOI retires the highest in service first. */
	assert_int_equal(vlapic_eoi(&l), 0x90);
	assert_int_equal(vlapic_ppr(&l), 0x50);
	assert_int_equal(take(&l), -1);
	assert_int_equal(vlapic_eoi(&l), 0x50);
	assert_int_equal(vlapic_ppr(&l), 0x30);
	assert_int_equal(take(&l), -1);
	assert_int_equal(vlapic_eoi(&l), 0x30);
	assert_int_equal(take(&l), 0x35);
	assert_int_equal(vlapic_eoi(&l), 0x35);
	assert_int_equal(take(&l), 0x20);
	assert_int_equal(vlapic_eoi(&l), 0x20);
	assert_int_equal(vlapic_eoi(&l), -1);
}

static void test_tpr(void **state)
{
	struct vlapic l;

	(void)state;
	vlapic_init(&l);
	vlapic_raise(&l, 0x45);
	/* Deliverable only if its class is above TPR[7:4]. */
	vlapic_set_tpr(&l, 0x40);
	assert_int_equal(vlapic_ppr(&l), 0x40);
	assert_int_equal(vlapic_pending(&l), -1);
	vlapic_set_tpr(&l, 0x3f);
	assert_int_equal(vlapic_pending(&l), 0x45);
	vlapic_set_tpr(&l, 0x4f);
	assert_int_equal(vlapic_pending(&l), -1);
	/* TPR 15 (CR8 = 15) blocks every vector, even 255. */
	vlapic_set_tpr(&l, 0xf0);
	vlapic_raise(&l, 0xff);
	assert_int_equal(vlapic_pending(&l), -1);
	vlapic_set_tpr(&l, 0xe0);
	assert_int_equal(take(&l), 0xff);
	vlapic_set_tpr(&l, 0);
	assert_int_equal(take(&l), -1);	/* 0xff in service */
	vlapic_eoi(&l);
	assert_int_equal(take(&l), 0x45);
}

static void test_ppr_rule(void **state)
{
	struct vlapic l;

	(void)state;
	/* SDM 11.8.3.1 for every TPR and every in-service class. */
	for (int isr = 0; isr < 256; isr += 0x11) {
		for (int tpr = 0; tpr < 256; tpr++) {
			int want;

			vlapic_init(&l);
			if (isr >= 16) {
				vlapic_raise(&l, (uint8_t)isr);
				take(&l);
			}
			vlapic_set_tpr(&l, (uint8_t)tpr);
			if (isr < 16 || (tpr >> 4) >= (isr >> 4))
				want = tpr;
			else
				want = isr & 0xf0;
			assert_int_equal(vlapic_ppr(&l), want);
		}
	}
}

/* The highest set bit of a 256-bit register, the slow way: the reference for the summaries. */
static int scan(const uint32_t *r)
{
	for (int v = 255; v >= 0; v--)
		if (r[v / 32] & (1u << (v % 32)))
			return v;
	return -1;
}

/*
 * The word summaries (irr_words, isr_words) against a plain scan, over a
 * long random run of raises, acceptances, EOIs and direct writes followed
 * by vlapic_summarize (the virtual-APIC page's read-back).
 */
static void test_summaries_follow(void **state)
{
	struct vlapic l;
	uint64_t x = 88172645463325252ull;

	(void)state;
	vlapic_init(&l);
	for (int step = 0; step < 200000; step++) {
		uint8_t vec;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		vec = (uint8_t)(x >> 8);
		switch (x % 5) {
		case 0:
		case 1:
			vlapic_raise(&l, vec);
			break;
		case 2:
			if (vlapic_pending(&l) >= 0)
				vlapic_accept(&l, (uint8_t)vlapic_pending(&l));
			break;
		case 3:
			vlapic_eoi(&l);
			break;
		case 4:
			l.irr[vec % 8] = (uint32_t)(x >> 32) & (x & 64 ? 0xffffffffu : 0);
			l.isr[(vec >> 3) % 8] &= (uint32_t)(x >> 16);
			vlapic_summarize(&l);
			break;
		}
		assert_int_equal(vlapic_highest_irr(&l), scan(l.irr));
		assert_int_equal(vlapic_highest_isr(&l), scan(l.isr));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_low_vectors_ignored),
		cmocka_unit_test(test_every_vector_bit),
		cmocka_unit_test(test_priority_order),
		cmocka_unit_test(test_coalesce),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_tpr),
		cmocka_unit_test(test_ppr_rule),
		cmocka_unit_test(test_dirty_words),
		cmocka_unit_test(test_summaries_follow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
