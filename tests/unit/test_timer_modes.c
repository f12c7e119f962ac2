// SPDX-License-Identifier: MIT
/* The timer-mode table: names, and the rules the rest of Tempo reads off it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/timer_modes.h"

static void test_names(void **state)
{
	(void)state;
	for (unsigned int m = 0; m < TIMER_MODE_COUNT; m++) {
		const char *n = timer_mode_name((enum timer_mode)m);

		assert_int_equal(timer_mode_parse(n, (uint32_t)strlen(n)), m);
	}
	assert_string_equal(timer_mode_name(TIMER_PV_LAZY), "pv-lazy");
	assert_int_equal(timer_mode_parse("directx", 6), TIMER_DIRECT);	/* a span, not a string */
	assert_int_equal(timer_mode_parse("direc", 5), TIMER_MODE_COUNT);
	assert_int_equal(timer_mode_parse("", 0), TIMER_MODE_COUNT);
	assert_string_equal(timer_mode_name(TIMER_MODE_COUNT), "unknown");
	assert_string_equal(timer_mode_name((enum timer_mode)-1), "unknown");
}

static void test_rules(void **state)
{
	(void)state;
	for (unsigned int m = 0; m < TIMER_MODE_COUNT; m++) {
		const struct timer_mode_desc *d = timer_mode((enum timer_mode)m);

		/* only a mode that owns the LAPIC cannot give its core away */
		assert_int_equal(d->may_share_core, !d->owns_lapic);
		/* a hardware deadline either is the guest's or is injected */
		assert_int_equal(!d->soft_deadline, d->owns_lapic || d->injects_fired);
		assert_false(d->owns_lapic && d->injects_fired);
		assert_true(d->tick_margin_mult >= 1);
		/* placing ticks after the deadline needs the deadline in the hardware */
		assert_true(!d->places_ticks || !d->soft_deadline);
		assert_true(!d->pv_page || d->soft_deadline);
	}
	assert_true(timer_mode(TIMER_DIRECT)->owns_lapic);
	assert_true(timer_mode(TIMER_INJECT)->injects_fired);
	assert_true(timer_mode(TIMER_EMULATED)->soft_deadline);
	assert_true(timer_mode(TIMER_PV_LAZY)->pv_page);
	/* out of range: no rights at all */
	assert_false(timer_mode(TIMER_MODE_COUNT)->owns_lapic);
	assert_false(timer_mode(TIMER_MODE_COUNT)->may_share_core);
	assert_false(timer_mode(TIMER_MODE_COUNT)->pv_page);
	assert_true(timer_mode(TIMER_MODE_COUNT)->soft_deadline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
