// SPDX-License-Identifier: MIT
/* The restart policy: which ends restart, and the limit within its window. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/restart.h"

#define HZ	1000u	/* TSC ticks a second, small to keep the numbers readable */

static struct partition_config policy(enum restart_policy r, uint32_t limit, uint32_t window_s)
{
	struct partition_config pc;

	memset(&pc, 0, sizeof(pc));
	pc.restart = r;
	pc.restart_limit = limit;
	pc.restart_window_s = window_s;
	return pc;
}

/* An end at @now: restarted (and committed, as the winning caller does)? */
static bool end_at(const struct partition_config *pc, struct restart_window *w,
		   enum restart_end kind, uint64_t now)
{
	struct restart_verdict v = restart_decide(pc, w, kind, now, HZ);

	restart_commit(w, v, now);
	return v.restart;
}

static void test_which_ends(void **state)
{
	static const struct { enum restart_policy r; bool failure, request, reset; } rows[] = {
		{ RESTART_NEVER, false, false, false },
		{ RESTART_ON_FAILURE, true, false, true },
		{ RESTART_ALWAYS, true, true, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct partition_config pc = policy(rows[i].r, 3, 60);
		struct restart_window w = { 0, 0 };

		assert_int_equal(restart_decide(&pc, &w, RESTART_END_FAILURE, 5, HZ).restart,
				 rows[i].failure);
		assert_int_equal(restart_decide(&pc, &w, RESTART_END_REQUEST, 5, HZ).restart,
				 rows[i].request);
		assert_int_equal(restart_decide(&pc, &w, RESTART_END_RESET, 5, HZ).restart,
				 rows[i].reset);
		/* deciding changes nothing */
		assert_int_equal(w.count, 0);
	}
}

static void test_limit_in_the_whole_run(void **state)
{
	struct partition_config pc = policy(RESTART_ON_FAILURE, 3, 0);
	struct restart_window w = { 0, 0 };

	(void)state;
	for (uint64_t t = 1; t <= 3; t++)
		assert_true(end_at(&pc, &w, RESTART_END_FAILURE, t * 100000 * HZ));
	assert_int_equal(w.count, 3);
	/* a window of 0 s never runs out, however late the next end */
	assert_false(end_at(&pc, &w, RESTART_END_FAILURE, 1000000ull * HZ));
	assert_false(end_at(&pc, &w, RESTART_END_RESET, 2000000ull * HZ));
	assert_int_equal(w.count, 3);
}

static void test_window_runs_out(void **state)
{
	struct partition_config pc = policy(RESTART_ALWAYS, 2, 10);
	struct restart_window w = { 0, 0 };

	(void)state;
	assert_true(end_at(&pc, &w, RESTART_END_FAILURE, 100 * HZ));	/* opens at 100 s */
	assert_int_equal(w.start_tsc, 100 * HZ);
	assert_true(end_at(&pc, &w, RESTART_END_REQUEST, 105 * HZ));
	assert_false(end_at(&pc, &w, RESTART_END_RESET, 109 * HZ));	/* 3rd within 10 s */
	assert_false(end_at(&pc, &w, RESTART_END_RESET, 110 * HZ - 1));
	/* 10 s after the window opened: a new one, with this restart its first */
	assert_true(end_at(&pc, &w, RESTART_END_RESET, 110 * HZ));
	assert_int_equal(w.count, 1);
	assert_int_equal(w.start_tsc, 110 * HZ);
	assert_true(end_at(&pc, &w, RESTART_END_FAILURE, 111 * HZ));
	assert_false(end_at(&pc, &w, RESTART_END_FAILURE, 112 * HZ));
}

static void test_limit_one(void **state)
{
	struct partition_config pc = policy(RESTART_ON_FAILURE, 1, 60);
	struct restart_window w = { 0, 0 };

	(void)state;
	assert_true(end_at(&pc, &w, RESTART_END_FAILURE, 0));	/* a restart at TSC 0 counts too */
	assert_false(end_at(&pc, &w, RESTART_END_FAILURE, 59 * HZ));
	assert_true(end_at(&pc, &w, RESTART_END_FAILURE, 60 * HZ));
	/* a clean shutdown under on-failure is no restart, and uses none of the limit */
	assert_false(end_at(&pc, &w, RESTART_END_REQUEST, 200 * HZ));
	assert_int_equal(w.count, 1);
}

static void test_wide_numbers(void **state)
{
	struct partition_config pc = policy(RESTART_ON_FAILURE, CONFIG_MAX_RESTART_LIMIT,
					    CONFIG_MAX_RESTART_WINDOW_S);
	struct restart_window w = { CONFIG_MAX_RESTART_LIMIT - 1, 5 };

	(void)state;
	/* a day's window at 5 GHz: no overflow in seconds x rate */
	assert_true(end_at(&pc, &w, RESTART_END_FAILURE, 6));
	assert_false(restart_decide(&pc, &w, RESTART_END_FAILURE, 7, 5000000000ull).restart);
	assert_true(restart_decide(&pc, &w, RESTART_END_FAILURE,
				   5 + 86400ull * 5000000000ull, 5000000000ull).restart);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which_ends),
		cmocka_unit_test(test_limit_in_the_whole_run),
		cmocka_unit_test(test_window_runs_out),
		cmocka_unit_test(test_limit_one),
		cmocka_unit_test(test_wide_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
