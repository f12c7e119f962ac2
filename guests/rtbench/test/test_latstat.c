// SPDX-License-Identifier: MIT
/*
 * Host unit tests (cmocka, ASan+UBSan) for rtbench's latency statistics:
 * every rank and percentile is checked against a plain sort of the same
 * samples, with values inside and outside the exact range, negatives, and
 * an outlier list too small to keep them all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "guests/rtbench/latstat.h"
#include "hv/lib/div64.h"

#define OUT_MAX		8192

static uint32_t exact[LAT_EXACT_TICKS];
static int64_t outliers[OUT_MAX];
static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Adds @v to @s and to @ref; checks every rank of the result against qsort. */
static void check_all_ranks(struct lat_stats *s, int64_t *ref, size_t n)
{
	int64_t sum = 0, v;

	lat_finish(s);
	qsort(ref, n, sizeof(*ref), cmp64);
	assert_int_equal(s->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_true(lat_rank(s, i + 1, &v));
		assert_int_equal(v, ref[i]);
		sum += ref[i];
	}
	assert_int_equal(s->min, ref[0]);
	assert_int_equal(s->max, ref[n - 1]);
	assert_int_equal(lat_avg(s), sum / (int64_t)n);
	for (uint32_t pct = 1; pct <= 100; pct++) {
		size_t rank = (pct * n + 99) / 100;

		assert_true(lat_percentile(s, pct, &v));
		assert_int_equal(v, ref[rank - 1]);
	}
}

static void test_mixed_values(void **state)
{
	static int64_t ref[20000];
	struct lat_stats s;
	size_t n = 0;

	(void)state;
	lat_init(&s, exact, outliers, OUT_MAX);
	for (int i = 0; i < 20000; i++) {
		uint64_t r = next();
		int64_t v;

		switch (r % 8) {
		case 0:
			v = -(int64_t)(r >> 40) - 1;			/* early */
			break;
		case 1:
			v = LAT_EXACT_TICKS + (int64_t)((r >> 8) % 1000000);	/* very late */
			break;
		case 2:
			v = LAT_EXACT_TICKS - 1;			/* the last exact tick */
			break;
		default:
			v = (int64_t)((r >> 16) % 200);		/* the usual case */
			break;
		}
		lat_add(&s, v);
		ref[n++] = v;
	}
	assert_true(s.outliers_n < OUT_MAX);
	check_all_ranks(&s, ref, n);
}

static void test_single_and_constant(void **state)
{
	struct lat_stats s;
	int64_t v, ref[1000];

	(void)state;
	lat_init(&s, exact, outliers, OUT_MAX);
	lat_add(&s, 35);
	ref[0] = 35;
	check_all_ranks(&s, ref, 1);

	lat_init(&s, exact, outliers, OUT_MAX);
	for (int i = 0; i < 1000; i++) {
		lat_add(&s, 0);
		ref[i] = 0;
	}
	check_all_ranks(&s, ref, 1000);
	assert_false(lat_rank(&s, 0, &v));
	assert_false(lat_rank(&s, 1001, &v));
}

/* p99 of 100 samples is the 99th smallest; of 101, the 100th (nearest rank). */
static void test_nearest_rank(void **state)
{
	struct lat_stats s;
	int64_t v;

	(void)state;
	lat_init(&s, exact, outliers, OUT_MAX);
	for (int i = 1; i <= 100; i++)
		lat_add(&s, i);
	lat_finish(&s);
	assert_true(lat_percentile(&s, 99, &v));
	assert_int_equal(v, 99);
	assert_true(lat_percentile(&s, 50, &v));
	assert_int_equal(v, 50);
	lat_add(&s, 101);
	lat_finish(&s);
	assert_true(lat_percentile(&s, 99, &v));
	assert_int_equal(v, 100);
}

/* A full outlier list: ranks among the lost outliers are refused, the others stay exact. */
static void test_outliers_overflow(void **state)
{
	struct lat_stats s;
	int64_t v;

	(void)state;
	lat_init(&s, exact, outliers, 4);
	for (int i = 0; i < 1000; i++)
		lat_add(&s, 10);
	for (int i = 0; i < 10; i++)
		lat_add(&s, LAT_EXACT_TICKS + 100 - i);	/* 6 of these are dropped */
	lat_finish(&s);
	assert_int_equal(s.dropped_high, 6);
	assert_int_equal(s.max, LAT_EXACT_TICKS + 100);
	assert_true(lat_rank(&s, 1000, &v));
	assert_int_equal(v, 10);
	assert_false(lat_rank(&s, 1001, &v));
	assert_true(lat_percentile(&s, 99, &v));
	assert_int_equal(v, 10);

	lat_init(&s, exact, outliers, 1);
	lat_add(&s, -5);
	lat_add(&s, -7);	/* dropped */
	lat_add(&s, 3);
	lat_finish(&s);
	assert_int_equal(s.dropped_low, 1);
	assert_false(lat_rank(&s, 1, &v));
	assert_true(lat_rank(&s, 3, &v));
	assert_int_equal(v, 3);
	assert_int_equal(s.min, -7);
}

static void test_heapsort(void **state)
{
	static int64_t a[5000], b[5000];

	(void)state;
	for (uint32_t n = 0; n < 40; n++) {
		for (uint32_t i = 0; i < n; i++)
			a[i] = b[i] = (int64_t)(next() % 7) - 3;
		lat_heapsort(a, n);
		qsort(b, n, sizeof(*b), cmp64);
		assert_memory_equal(a, b, n * sizeof(*a));
	}
	for (uint32_t i = 0; i < 5000; i++)
		a[i] = b[i] = (int64_t)next();
	lat_heapsort(a, 5000);
	qsort(b, 5000, sizeof(*b), cmp64);
	assert_memory_equal(a, b, sizeof(a));
}

static void test_log2_buckets(void **state)
{
	int64_t lo, hi;

	(void)state;
	assert_int_equal(lat_log2_bucket(-1), 0);
	assert_int_equal(lat_log2_bucket(INT64_MIN), 0);
	assert_int_equal(lat_log2_bucket(0), 1);
	assert_int_equal(lat_log2_bucket(1), 2);
	assert_int_equal(lat_log2_bucket(2), 3);
	assert_int_equal(lat_log2_bucket(3), 3);
	assert_int_equal(lat_log2_bucket(35), 7);
	assert_int_equal(lat_log2_bucket(INT64_MAX), LAT_LOG2_BUCKETS - 1);
	for (unsigned int b = 1; b < LAT_LOG2_BUCKETS; b++) {
		lat_log2_bounds(b, &lo, &hi);
		assert_int_equal(lat_log2_bucket(lo), b);
		assert_int_equal(lat_log2_bucket(hi), b);
		if (b + 1 < LAT_LOG2_BUCKETS)
			assert_int_equal(lat_log2_bucket(hi + 1), b + 1);
	}
}

static void test_div64(void **state)
{
	uint32_t rem;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint64_t n = next();
		uint32_t d = (uint32_t)next() | 1;

		if (i % 3 == 0)
			d = (d % 1000) + 1;
		assert_int_equal(div_u64_rem(n, d, &rem), n / d);
		assert_int_equal(rem, n % d);
		/* the two-divl form a 32-bit guest runs, on this 64-bit host */
		rem = 0;
		assert_int_equal(div_u64_rem_divl(n, d, &rem), n / d);
		assert_int_equal(rem, n % d);
		assert_int_equal(div_s64((int64_t)n, d), (int64_t)n / (int64_t)d);
	}
	assert_int_equal(div_u64(UINT64_MAX, 1), UINT64_MAX);
	assert_int_equal(div_u64_rem_divl(UINT64_MAX, 1, NULL), UINT64_MAX);
	assert_int_equal(div_u64_rem_divl(UINT64_MAX, 0xffffffffu, &rem), 0x100000001ull);
	assert_int_equal(rem, 0);
	assert_int_equal(div_s64(INT64_MIN, 1), INT64_MIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_values),
		cmocka_unit_test(test_single_and_constant),
		cmocka_unit_test(test_nearest_rank),
		cmocka_unit_test(test_outliers_overflow),
		cmocka_unit_test(test_heapsort),
		cmocka_unit_test(test_log2_buckets),
		cmocka_unit_test(test_div64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
