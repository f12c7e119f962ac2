// SPDX-License-Identifier: MIT
/* hv/core/debug_trap.h: RF on injected faults, data and I/O breakpoints of emulated accesses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hv/core/debug_trap.h"

static void test_rf_faults(void **state)
{
	static const uint32_t faults[] = { 0, 5, 6, 7, 10, 11, 12, 13, 14, 16, 17, 19, 20, 21 };
	uint32_t n = 0;

	(void)state;
	for (uint32_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		assert_true(exception_sets_rf(faults[i]));
	for (uint32_t v = 0; v < 256; v++)
		n += exception_sets_rf(v);
	assert_int_equal(n, sizeof(faults) / sizeof(faults[0]));
	/* #DB (a trap here, and code breakpoints keep RF), NMI, #BP, #OF, #DF, #MC: no */
	assert_false(exception_sets_rf(1));
	assert_false(exception_sets_rf(2));
	assert_false(exception_sets_rf(3));
	assert_false(exception_sets_rf(4));
	assert_false(exception_sets_rf(8));
	assert_false(exception_sets_rf(18));
	assert_false(exception_sets_rf(0x40));	/* an interrupt vector */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rf_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
