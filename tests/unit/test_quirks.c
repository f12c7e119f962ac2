// SPDX-License-Identifier: MIT
/* The CPUs refused for their VMX-preemption timer errata. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/x86/cpu_quirks.h"

static void test_broken_preemption_timer(void **state)
{
	(void)state;
	assert_true(cpu_preemption_timer_broken(0x000306a8));	/* Xeon E3-1220 v2 */
	assert_true(cpu_preemption_timer_broken(0x000106a5));
	assert_true(cpu_preemption_timer_broken(0x000206e6));
	/* the reserved bits and the processor type do not matter */
	assert_true(cpu_preemption_timer_broken(0xf000c000u | 0x000306a8));
	/* its neighbours, and the CPUs Bochs models, are fine */
	assert_false(cpu_preemption_timer_broken(0x000306a9));	/* Ivy Bridge E1 (Bochs 3770K) */
	assert_false(cpu_preemption_timer_broken(0x000306a7));
	assert_false(cpu_preemption_timer_broken(0x00050654));	/* Skylake-SP */
	assert_false(cpu_preemption_timer_broken(0x000806c1));	/* Tiger Lake */
	assert_false(cpu_preemption_timer_broken(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broken_preemption_timer),
	};

	return cmocka_run_group_tests_name("quirks", tests, NULL, NULL);
}
