// SPDX-License-Identifier: MIT
/*
 * The cyclic schedule against a reference that needs no state: the window in
 * force at time t is found by (t - start) mod frame. Seeded random schedules
 * and time steps, at least 10^6 of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/sched.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* reference: index of the window containing t, and its planned start */
static uint32_t ref_window(const uint64_t *len, uint32_t n, uint64_t frame, uint64_t start,
			   uint64_t t, uint64_t *wstart)
{
	uint64_t off = (t - start) % frame, base = t - off, acc = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (off < acc + len[i]) {
			*wstart = base + acc;
			return i;
		}
		acc += len[i];
	}
	return UINT32_MAX;
}

static void test_basic(void **state)
{
	struct cyclic_sched s;
	int32_t slots[3] = { 0, 1, SCHED_IDLE };
	uint64_t len[3] = { 400, 350, 250 };

	(void)state;
	assert_true(sched_init(&s, slots, len, 3, 1000));
	assert_int_equal(s.frame_tsc, 1000);
	assert_int_equal(sched_slot(&s), 0);
	assert_int_equal(sched_window_end(&s), 1400);
	assert_false(sched_advance(&s, 1399));
	assert_true(sched_advance(&s, 1405));	/* 5 ticks late into window 1 */
	assert_int_equal(sched_slot(&s), 1);
	assert_int_equal(s.cur_start, 1400);
	assert_int_equal(s.w[1].start_late_max_ticks, 5);
	assert_true(sched_advance(&s, 1800));
	assert_int_equal(sched_slot(&s), SCHED_IDLE);
	/* three and a half frames late: back in window 1 of a later frame, nothing drifts */
	assert_true(sched_advance(&s, 2000 + 3000 + 500));
	assert_int_equal(sched_slot(&s), 1);
	assert_int_equal(s.cur_start, 5400);
	assert_true(s.w[0].skipped >= 3);
	/* bad schedules */
	assert_false(sched_init(&s, slots, len, 0, 0));
	len[1] = 0;
	assert_false(sched_init(&s, slots, len, 3, 0));
}

static void test_random_against_reference(void **state)
{
	const char *env = getenv("SCHED_SEED");
	uint64_t events = 0;

	(void)state;
	if (env)
		rng = strtoull(env, NULL, 0) | 1;
	print_message("sched seed 0x%llx\n", (unsigned long long)rng);
	for (int round = 0; round < 200; round++) {
		struct cyclic_sched s;
		int32_t slots[SCHED_MAX_WINDOWS];
		uint64_t len[SCHED_MAX_WINDOWS], start = next_rand() % 1000000, t = start;
		uint32_t n = 1 + next_rand() % SCHED_MAX_WINDOWS;

		for (uint32_t i = 0; i < n; i++) {
			slots[i] = (int32_t)(next_rand() % 4) - 1;
			len[i] = 1 + next_rand() % 5000;
		}
		assert_true(sched_init(&s, slots, len, n, start));
		for (int k = 0; k < 5000; k++, events++) {
			uint64_t wstart, end_before = sched_window_end(&s);
			uint32_t w;
			bool changed;

			/* mostly small steps, sometimes long stalls */
			t += (next_rand() % 16 == 0) ? next_rand() % (4 * s.frame_tsc)
						     : next_rand() % 800;
			changed = sched_advance(&s, t);
			w = ref_window(len, n, s.frame_tsc, start, t, &wstart);
			if (w != s.cur || wstart != s.cur_start) {
				fail_msg("round %d step %d: t=%llu window %u start %llu, reference "
					 "%u start %llu", round, k, (unsigned long long)t, s.cur,
					 (unsigned long long)s.cur_start, w,
					 (unsigned long long)wstart);
			}
			assert_true(changed == (t >= end_before));
			assert_true(t >= s.cur_start && t < sched_window_end(&s));
		}
	}
	assert_true(events >= 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_random_against_reference),
	};

	return cmocka_run_group_tests_name("sched", tests, NULL, NULL);
}
