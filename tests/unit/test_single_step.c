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

/* The VM-entry check itself (SDM Vol. 3C 26.3.1.5), as ss_entry_debug_ok states it. */
static void test_entry_debug_rule(void **state)
{
	(void)state;
	/* HLT or a shadow, TF, no BTF: BS must be pending */
	assert_false(ss_entry_debug_ok(SS_ACTIVITY_HLT, 0, SS_RFLAGS_TF | 2, 0, 0));
	assert_false(ss_entry_debug_ok(0, 1, SS_RFLAGS_TF | 2, 0, 0));		/* STI */
	assert_false(ss_entry_debug_ok(0, 2, SS_RFLAGS_TF | 2, 0, 0));		/* MOV SS */
	assert_true(ss_entry_debug_ok(SS_ACTIVITY_HLT, 0, SS_RFLAGS_TF | 2, 0, SS_DR6_BS));
	/* BTF, no TF, or active without a shadow: no demand */
	assert_true(ss_entry_debug_ok(SS_ACTIVITY_HLT, 0, SS_RFLAGS_TF | 2, SS_DEBUGCTL_BTF, 0));
	assert_true(ss_entry_debug_ok(SS_ACTIVITY_HLT, 0, 2, 0, 0));
	assert_true(ss_entry_debug_ok(0, 0, SS_RFLAGS_TF | 2, 0, 0));
	/* NMI blocking (bit 3) is no shadow */
	assert_true(ss_entry_debug_ok(0, 8, SS_RFLAGS_TF | 2, 0, 0));
}

static void test_hlt_halts(void **state)
{
	(void)state;
	assert_true(ss_hlt_halts(2, false, true));		/* IF = 0: waits for an NMI */
	assert_true(ss_hlt_halts(2, false, false));
	assert_true(ss_hlt_halts(SS_RFLAGS_IF | 2, false, false));	/* nothing waits */
	assert_false(ss_hlt_halts(SS_RFLAGS_IF | 2, false, true));	/* the vector wakes it */
	/* its single-step #DB is delivered and wakes it, IF or not */
	assert_false(ss_hlt_halts(SS_RFLAGS_TF | 2, true, true));
	assert_false(ss_hlt_halts(SS_RFLAGS_TF | SS_RFLAGS_IF | 2, true, false));
}

/*
 * Every HLT exit_hlt completes enters a state the CPU accepts: TF, IF,
 * BTF and a waiting vector in every combination, with Tempo's pending
 * debug exceptions (it never sets BS) and no shadow (skip_instruction
 * ends it). Halting on IF = 0 whatever TF says would be wrong: TF = 1,
 * IF = 0 would enter HLT without BS, an entry failure on hardware.
 */
static void test_hlt_entry_valid(void **state)
{
	(void)state;
	for (uint32_t bits = 0; bits < 16; bits++) {
		uint64_t rflags = 2 | ((bits & 1) ? SS_RFLAGS_TF : 0) | ((bits & 2) ? SS_RFLAGS_IF : 0);
		uint64_t debugctl = (bits & 4) ? SS_DEBUGCTL_BTF : 0;
		bool waits = bits & 8;
		bool db = single_step_due(rflags, debugctl, 0);
		uint32_t activity = ss_hlt_halts(rflags, db, waits) ? SS_ACTIVITY_HLT : 0;

		assert_true(ss_entry_debug_ok(activity, 0, rflags, debugctl, 0));
		/* that wrong rule, halting with IF = 0, fails the entry check */
		if ((bits & 3) == 1 && !(bits & 4))
			assert_false(ss_entry_debug_ok(SS_ACTIVITY_HLT, 0, rflags, debugctl, 0));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_not_due),
		cmocka_unit_test(test_dr6),
		cmocka_unit_test(test_entry_debug_rule),
		cmocka_unit_test(test_hlt_halts),
		cmocka_unit_test(test_hlt_entry_valid),
	};

	return cmocka_run_group_tests_name("single_step", tests, NULL, NULL);
}
