// SPDX-License-Identifier: MIT
/* hv/core/single_step.h: the #DB owed after an instruction Tempo completed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hv/core/single_step.h"

#define IF (1ull << 9)
#define EXT_INTR_0x30 (SS_INTR_INFO_VALID | 0x30)

static void test_due(void **state)
{
	(void)state;
	/* TF set: due, whatever else RFLAGS holds */
	assert_true(single_step_due(SS_RFLAGS_TF | 2, 0, 0));
	assert_true(single_step_due(SS_RFLAGS_TF | IF | 2, 0, 0));
	/* other DEBUGCTL bits (LBR = bit 0) do not matter */
	assert_true(single_step_due(SS_RFLAGS_TF, 1, 0));
	/* an invalid event slot (type bits without VALID) is free */
	assert_true(single_step_due(SS_RFLAGS_TF, 0, 0x30));
}

static void test_not_due(void **state)
{
	(void)state;
	assert_false(single_step_due(2, 0, 0));			/* no TF */
	assert_false(single_step_due(IF | 2, 0, 0));
	assert_false(single_step_due(SS_RFLAGS_TF, SS_DEBUGCTL_BTF, 0));	/* branches only */
	assert_false(single_step_due(SS_RFLAGS_TF, 0, EXT_INTR_0x30));	/* never overwrite */
}

static void test_dr6(void **state)
{
	(void)state;
	/* BS set; breakpoint hits (B0-B3), BD and the reserved ones kept */
	assert_int_equal(single_step_dr6(0xffff0ff0), 0xffff4ff0);
	assert_int_equal(single_step_dr6(0xffff0ff1), 0xffff4ff1);
	assert_int_equal(single_step_dr6(0xffff6ff0), 0xffff6ff0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_not_due),
		cmocka_unit_test(test_dr6),
	};

	return cmocka_run_group_tests_name("single_step", tests, NULL, NULL);
}
