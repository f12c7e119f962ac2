// SPDX-License-Identifier: MIT
/* Unit tests for hv/core/memplan.c (the free-range table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/memplan.h"
#include "xorshift.h"

#define KIB 1024ull
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

static struct memplan mp;

/* The table holds exactly the ranges listed, {base, end} pairs, and is well formed. */
static void expect_ranges(const uint64_t *r, uint32_t n)
{
	uint64_t total = 0;

	if (mp.count != n) {
		for (uint32_t i = 0; i < mp.count; i++)
			print_message("  [0x%llx, 0x%llx)\n", (unsigned long long)mp.free[i].base,
				      (unsigned long long)mp.free[i].end);
		fail_msg("%u ranges, expected %u", mp.count, n);
	}
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(mp.free[i].base, r[2 * i]);
		assert_int_equal(mp.free[i].end, r[2 * i + 1]);
		total += r[2 * i + 1] - r[2 * i];
	}
	assert_int_equal(memplan_free_bytes(&mp), total);
}

#define EXPECT(...)                                                                  \
	do {                                                                         \
		const uint64_t r_[] = { __VA_ARGS__ };                               \
		expect_ranges(r_, sizeof(r_) / sizeof(r_[0]) / 2);                   \
	} while (0)

static void expect_empty(void)
{
	assert_int_equal(mp.count, 0);
	assert_int_equal(memplan_free_bytes(&mp), 0);
}

static void test_init(void **state)
{
	(void)state;
	memset(&mp, 0xa5, sizeof(mp));
	memplan_init(&mp, 4 * GIB);
	expect_empty();
	assert_int_equal(mp.limit, 4 * GIB);
	assert_int_equal(memplan_alloc(&mp, 4096, 4096), 0);
	assert_false(memplan_take(&mp, MIB, 4096));
	assert_true(memplan_reserve(&mp, 0, 4 * GIB));
	expect_empty();
}

static void test_add_merge(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	assert_true(memplan_add(&mp, 2 * MIB, MIB));
	EXPECT(2 * MIB, 3 * MIB);
	assert_true(memplan_add(&mp, 5 * MIB, MIB));
	EXPECT(2 * MIB, 3 * MIB, 5 * MIB, 6 * MIB);
	assert_true(memplan_add(&mp, 0x1000, 0x1000));	/* below everything */
	EXPECT(0x1000, 0x2000, 2 * MIB, 3 * MIB, 5 * MIB, 6 * MIB);
	assert_true(memplan_add(&mp, 3 * MIB, MIB));	/* touches the one below */
	EXPECT(0x1000, 0x2000, 2 * MIB, 4 * MIB, 5 * MIB, 6 * MIB);
	assert_true(memplan_add(&mp, 4 * MIB + 0x800, 0x800 + MIB));	/* touches the one above */
	EXPECT(0x1000, 0x2000, 2 * MIB, 4 * MIB, 4 * MIB + 0x800, 6 * MIB);
	assert_true(memplan_add(&mp, 4 * MIB, 0x800));	/* fills the gap: both merge */
	EXPECT(0x1000, 0x2000, 2 * MIB, 6 * MIB);
	assert_true(memplan_add(&mp, 3 * MIB, MIB));	/* already free */
	EXPECT(0x1000, 0x2000, 2 * MIB, 6 * MIB);
	assert_true(memplan_add(&mp, 0x1800, 2 * MIB));	/* overlaps and bridges */
	EXPECT(0x1000, 6 * MIB);
	assert_true(memplan_add(&mp, 0, 7 * MIB));	/* swallows it */
	EXPECT(0, 7 * MIB);
	assert_true(memplan_add(&mp, 9 * MIB, 0));	/* empty */
	EXPECT(0, 7 * MIB);
}

/* One add spanning many ranges merges them all. */
static void test_add_bridges_many(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	for (uint64_t i = 0; i < 10; i++)
		assert_true(memplan_add(&mp, i * 2 * MIB, MIB));
	assert_int_equal(mp.count, 10);
	/* Touches [2, 3) MiB below and [14, 15) MiB above, covers four between. */
	assert_true(memplan_add(&mp, 3 * MIB, 11 * MIB));
	EXPECT(0, MIB, 2 * MIB, 15 * MIB, 16 * MIB, 17 * MIB, 18 * MIB, 19 * MIB);
	/* Ends 5 bytes short of the next range: no merge with it. */
	assert_true(memplan_add(&mp, 15 * MIB + 5, MIB - 10));
	EXPECT(0, MIB, 2 * MIB, 15 * MIB, 15 * MIB + 5, 16 * MIB - 5, 16 * MIB, 17 * MIB,
	       18 * MIB, 19 * MIB);
}

static void test_add_limit_and_wrap(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	assert_true(memplan_add(&mp, 4 * GIB - MIB, 2 * MIB));	/* clipped */
	EXPECT(4 * GIB - MIB, 4 * GIB);
	assert_true(memplan_add(&mp, 4 * GIB, MIB));		/* entirely above */
	assert_true(memplan_add(&mp, 8 * GIB, UINT64_MAX));	/* wraps, above */
	EXPECT(4 * GIB - MIB, 4 * GIB);
	assert_true(memplan_add(&mp, 3 * GIB, UINT64_MAX));	/* wraps: to the top, clipped */
	EXPECT(3 * GIB, 4 * GIB);

	/* No limit to speak of: the very top of the address space. */
	memplan_init(&mp, UINT64_MAX);
	assert_true(memplan_add(&mp, UINT64_MAX - 0x1000, 0x10000));
	EXPECT(UINT64_MAX - 0x1000, UINT64_MAX);
	assert_true(memplan_add(&mp, 0, UINT64_MAX));
	EXPECT(0, UINT64_MAX);
	assert_int_equal(memplan_free_bytes(&mp), UINT64_MAX);
	assert_true(memplan_add(&mp, UINT64_MAX, UINT64_MAX));
	EXPECT(0, UINT64_MAX);

	/* A zero limit keeps everything out. */
	memplan_init(&mp, 0);
	assert_true(memplan_add(&mp, 0, GIB));
	expect_empty();
}

/* RAM above 4 GiB comes in once it is mapped (hv/start/main.c: map_high_ram). */
static void test_raise_limit(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	assert_true(memplan_add(&mp, 3 * GIB, 3 * GIB));
	EXPECT(3 * GIB, 4 * GIB);
	memplan_raise_limit(&mp, 2 * GIB);	/* never lower */
	EXPECT(3 * GIB, 4 * GIB);
	memplan_raise_limit(&mp, 6 * GIB);
	EXPECT(3 * GIB, 4 * GIB);		/* what was there stays */
	assert_true(memplan_add(&mp, 4 * GIB, 3 * GIB));	/* clipped at the new limit, merged */
	EXPECT(3 * GIB, 6 * GIB);
	assert_int_equal(memplan_alloc(&mp, GIB, 2 * MIB), 5 * GIB);	/* top down: above 4 GiB */
	EXPECT(3 * GIB, 5 * GIB);
}

static void fill_table(void)
{
	memplan_init(&mp, 4 * GIB);
	for (uint64_t i = 0; i < MEMPLAN_MAX_RANGES; i++)
		assert_true(memplan_add(&mp, (i + 1) * 16 * MIB, 8 * MIB));
	assert_int_equal(mp.count, MEMPLAN_MAX_RANGES);
}

static void test_add_full_table(void **state)
{
	struct memplan before;

	(void)state;
	fill_table();
	before = mp;
	/* A new disjoint range has no slot: refused, table unchanged. */
	assert_false(memplan_add(&mp, 0, MIB));
	assert_false(memplan_add(&mp, 2 * GIB, MIB));
	assert_memory_equal(&mp, &before, sizeof(mp));
	/* One touching or overlapping an existing range still merges. */
	assert_true(memplan_add(&mp, 24 * MIB, MIB));
	assert_int_equal(mp.free[0].end, 25 * MIB);
	assert_true(memplan_add(&mp, 15 * MIB, MIB));
	assert_int_equal(mp.free[0].base, 15 * MIB);
	/* Bridging two frees a slot, and then a new range fits. */
	assert_true(memplan_add(&mp, 25 * MIB, 7 * MIB));
	assert_int_equal(mp.count, MEMPLAN_MAX_RANGES - 1);
	assert_true(memplan_add(&mp, 0, MIB));
	assert_int_equal(mp.count, MEMPLAN_MAX_RANGES);
}

static void test_reserve(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	assert_true(memplan_add(&mp, MIB, 15 * MIB));
	assert_true(memplan_reserve(&mp, 4 * MIB, MIB));	/* split */
	EXPECT(MIB, 4 * MIB, 5 * MIB, 16 * MIB);
	assert_true(memplan_reserve(&mp, MIB, 0x1000));		/* head */
	EXPECT(MIB + 0x1000, 4 * MIB, 5 * MIB, 16 * MIB);
	assert_true(memplan_reserve(&mp, 15 * MIB, 2 * MIB));	/* tail and beyond */
	EXPECT(MIB + 0x1000, 4 * MIB, 5 * MIB, 15 * MIB);
	assert_true(memplan_reserve(&mp, 3 * MIB, 3 * MIB));	/* across a gap */
	EXPECT(MIB + 0x1000, 3 * MIB, 6 * MIB, 15 * MIB);
	assert_true(memplan_reserve(&mp, 0, MIB + 0x1000));	/* nothing free there */
	assert_true(memplan_reserve(&mp, 100 * MIB, MIB));
	assert_true(memplan_reserve(&mp, 7 * MIB, 0));
	EXPECT(MIB + 0x1000, 3 * MIB, 6 * MIB, 15 * MIB);
	assert_true(memplan_reserve(&mp, 6 * MIB, 9 * MIB));	/* a whole range */
	EXPECT(MIB + 0x1000, 3 * MIB);
	assert_true(memplan_reserve(&mp, 2 * MIB, UINT64_MAX));	/* wraps: to the top */
	EXPECT(MIB + 0x1000, 2 * MIB);
	assert_true(memplan_reserve(&mp, 0, UINT64_MAX));
	expect_empty();
}

/* One reservation removing several whole ranges and cutting two more. */
static void test_reserve_many(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	for (uint64_t i = 0; i < 10; i++)
		assert_true(memplan_add(&mp, i * 2 * MIB, MIB));
	assert_true(memplan_reserve(&mp, 2 * MIB + 5, 14 * MIB));
	EXPECT(0, MIB, 2 * MIB, 2 * MIB + 5, 16 * MIB + 5, 17 * MIB, 18 * MIB, 19 * MIB);
}

/*
 * A split with no free slot drops the smaller leftover (reserved memory must
 * never stay free) and says so.
 */
static void test_reserve_full_table(void **state)
{
	(void)state;
	fill_table();
	/* Range 3 is [64, 72) MiB: leave 1 MiB below, 6 above; the lower goes. */
	assert_false(memplan_reserve(&mp, 65 * MIB, MIB));
	assert_int_equal(mp.count, MEMPLAN_MAX_RANGES);
	assert_int_equal(mp.free[3].base, 66 * MIB);
	assert_int_equal(mp.free[3].end, 72 * MIB);
	/* 4 MiB below, 1 above: the upper goes. */
	assert_false(memplan_reserve(&mp, 84 * MIB, 3 * MIB));
	assert_int_equal(mp.free[4].base, 80 * MIB);
	assert_int_equal(mp.free[4].end, 84 * MIB);
	/* Equal halves: the higher one stays. */
	assert_false(memplan_reserve(&mp, 99 * MIB, 2 * MIB));
	assert_int_equal(mp.free[5].base, 101 * MIB);
	/* Cuts that need no slot still succeed. */
	assert_true(memplan_reserve(&mp, 16 * MIB, MIB));
	assert_int_equal(mp.free[0].base, 17 * MIB);
	assert_int_equal(mp.count, MEMPLAN_MAX_RANGES);
	assert_int_equal(memplan_free_bytes(&mp),
			 MEMPLAN_MAX_RANGES * 8 * MIB - 2 * MIB - 4 * MIB - 5 * MIB - MIB);
}

static void test_alloc_top_down(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	assert_true(memplan_add(&mp, MIB, MIB));
	assert_true(memplan_add(&mp, 16 * MIB, 4 * MIB));
	assert_int_equal(memplan_alloc(&mp, MIB, 4096), 19 * MIB);
	assert_int_equal(memplan_alloc(&mp, MIB, 4096), 18 * MIB);
	EXPECT(MIB, 2 * MIB, 16 * MIB, 18 * MIB);
	/* Too big for the higher range: the lower one serves. */
	assert_int_equal(memplan_alloc(&mp, 3 * MIB, 1), 0);
	assert_true(memplan_add(&mp, 4 * MIB, 3 * MIB));
	assert_int_equal(memplan_alloc(&mp, 3 * MIB, 1), 4 * MIB);
	EXPECT(MIB, 2 * MIB, 16 * MIB, 18 * MIB);
	/* Exact fit removes the range. */
	assert_int_equal(memplan_alloc(&mp, 2 * MIB, 2 * MIB), 16 * MIB);
	EXPECT(MIB, 2 * MIB);
}

static void test_alloc_alignment(void **state)
{
	uint64_t a;

	(void)state;
	memplan_init(&mp, 4 * GIB);
	assert_true(memplan_add(&mp, 0x100000, 0x2345678));
	/* End 0x2445678: the highest 2 MiB-aligned 2 MiB block ends at or below it. */
	a = memplan_alloc(&mp, 2 * MIB, 2 * MIB);
	assert_int_equal(a, 0x2200000);
	EXPECT(0x100000, 0x2200000, 0x2400000, 0x2445678);
	a = memplan_alloc(&mp, 0x10, 0x1000);
	assert_int_equal(a, 0x2445000);
	EXPECT(0x100000, 0x2200000, 0x2400000, 0x2445000, 0x2445010, 0x2445678);
	/* Not a power of two: refused. Zero: any alignment. */
	assert_int_equal(memplan_alloc(&mp, 0x10, 0x3000), 0);
	assert_int_equal(memplan_alloc(&mp, 0x10, 0), 0x2445668);
	assert_int_equal(memplan_alloc(&mp, 0, 0x1000), 0);
	/* An alignment no range can meet. */
	assert_int_equal(memplan_alloc(&mp, 0x10, 1ull << 63), 0);
	assert_int_equal(memplan_alloc(&mp, UINT64_MAX, 1), 0);
	/* 1 GiB alignment within 36 MiB of RAM: none. */
	assert_int_equal(memplan_alloc(&mp, 4096, GIB), 0);
}

/* The largest piece alloc could give: free RAM split by a hole is not one range. */
static void test_largest(void **state)
{
	(void)state;
	memplan_init(&mp, 16 * GIB);
	assert_int_equal(memplan_largest(&mp, 2 * MIB), 0);
	assert_true(memplan_add(&mp, 0x100000, 3 * GIB - 0x100000));
	assert_true(memplan_add(&mp, 4 * GIB, 2 * GIB + 0x1000));
	assert_int_equal(memplan_largest(&mp, 2 * MIB), 3 * GIB - 2 * MIB);
	assert_int_equal(memplan_largest(&mp, 0), 3 * GIB - 0x100000);
	assert_int_equal(memplan_largest(&mp, GIB), 2 * GIB);
	assert_int_equal(memplan_alloc(&mp, memplan_largest(&mp, 2 * MIB), 2 * MIB), 2 * MIB);
	assert_int_equal(memplan_largest(&mp, 2 * MIB), 2 * GIB);
	assert_int_equal(memplan_largest(&mp, 1ull << 63), 0);
}

/* Address 0 is the failure value, so it is never handed out. */
static void test_alloc_never_zero(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	assert_true(memplan_add(&mp, 0, 0x3000));
	assert_int_equal(memplan_alloc(&mp, 0x3000, 1), 0);
	assert_int_equal(memplan_alloc(&mp, 0x2000, 0x2000), 0);
	assert_int_equal(memplan_alloc(&mp, 0x1000, 0x2000), 0x2000);
	assert_int_equal(memplan_alloc(&mp, 0x1000, 0x1000), 0x1000);
	EXPECT(0, 0x1000);
}

/* Alignment slack above the block needs a slot; a full table drops the smaller piece. */
static void test_alloc_full_table(void **state)
{
	(void)state;
	fill_table();
	/* Top range [1024, 1032) MiB: a 4 MiB-aligned 3 MiB block at 1028, 1 MiB slack above. */
	assert_int_equal(memplan_alloc(&mp, 3 * MIB, 4 * MIB), 1028 * MIB);
	assert_int_equal(mp.count, MEMPLAN_MAX_RANGES);
	assert_int_equal(mp.free[63].base, 1024 * MIB);
	assert_int_equal(mp.free[63].end, 1028 * MIB);
}

static void test_take(void **state)
{
	(void)state;
	memplan_init(&mp, 4 * GIB);
	assert_true(memplan_add(&mp, MIB, 7 * MIB));
	assert_true(memplan_add(&mp, 10 * MIB, MIB));
	assert_true(memplan_take(&mp, 2 * MIB, MIB));
	EXPECT(MIB, 2 * MIB, 3 * MIB, 8 * MIB, 10 * MIB, 11 * MIB);
	assert_false(memplan_take(&mp, 2 * MIB, 1));		/* taken already */
	assert_false(memplan_take(&mp, MIB, 2 * MIB));		/* straddles a hole */
	assert_false(memplan_take(&mp, 7 * MIB, 4 * MIB));	/* across ranges */
	assert_false(memplan_take(&mp, 11 * MIB, 1));		/* just past the end */
	assert_false(memplan_take(&mp, 0, 0x1000));
	assert_false(memplan_take(&mp, MIB, 0));		/* nothing to take */
	assert_false(memplan_take(&mp, UINT64_MAX - 5, 10));	/* wraps */
	assert_false(memplan_take(&mp, 3 * MIB, UINT64_MAX));
	EXPECT(MIB, 2 * MIB, 3 * MIB, 8 * MIB, 10 * MIB, 11 * MIB);
	assert_true(memplan_take(&mp, 10 * MIB, MIB));		/* whole range */
	assert_true(memplan_take(&mp, 7 * MIB, MIB));		/* tail */
	assert_true(memplan_take(&mp, MIB, 0x10));		/* head */
	EXPECT(MIB + 0x10, 2 * MIB, 3 * MIB, 7 * MIB);
}

/* ---- random operations against a bitmap model ---- */

/*
 * The model: one byte per granule over [0, granules * gran), 1 = free. It
 * is the obvious truth; the free ranges are read off it, and every
 * operation's documented result (including what a full table drops) is
 * computed from those ranges independently of the table code.
 */
struct model {
	uint64_t gran;
	uint64_t n;		/* granules */
	uint64_t limit;		/* in bytes, <= n * gran */
	uint8_t *free;
};

struct mrange {
	uint64_t base, end;	/* bytes */
};

static uint32_t model_ranges(const struct model *m, struct mrange *r, uint32_t max)
{
	const uint8_t *f = m->free, *e = m->free + m->n;
	uint32_t k = 0;

	/* memchr keeps the 100k-operation runs quick. */
	while (f < e) {
		const uint8_t *a = memchr(f, 1, e - f), *b;

		if (!a)
			break;
		b = memchr(a, 0, e - a);
		if (!b)
			b = e;
		assert_true(k < max);
		r[k].base = (a - m->free) * m->gran;
		r[k].end = (b - m->free) * m->gran;
		k++;
		f = b;
	}
	return k;
}

static void model_set(struct model *m, uint64_t base, uint64_t end, uint8_t v)
{
	memset(m->free + base / m->gran, v, end / m->gran - base / m->gran);
}

static void model_check(const struct model *m)
{
	struct mrange r[4096];
	uint32_t n = model_ranges(m, r, 4096);
	uint64_t total = 0;

	if (n != mp.count)
		fail_msg("model has %u ranges, table %u", n, mp.count);
	for (uint32_t i = 0; i < n; i++) {
		if (r[i].base != mp.free[i].base || r[i].end != mp.free[i].end)
			fail_msg("range %u: model [0x%llx, 0x%llx), table [0x%llx, 0x%llx)", i,
				 (unsigned long long)r[i].base, (unsigned long long)r[i].end,
				 (unsigned long long)mp.free[i].base,
				 (unsigned long long)mp.free[i].end);
		total += r[i].end - r[i].base;
	}
	assert_int_equal(memplan_free_bytes(&mp), total);
}

/*
 * Remove [base, end) from model range @r (which holds it); with no slot for
 * a split, the smaller leftover goes too (ties keep the higher). Returns
 * whether nothing extra was dropped.
 */
static bool model_cut(struct model *m, uint32_t count, struct mrange r, uint64_t base,
		      uint64_t end)
{
	model_set(m, base, end, 0);
	if (r.base < base && end < r.end && count >= MEMPLAN_MAX_RANGES) {
		if (base - r.base > r.end - end)
			model_set(m, end, r.end, 0);
		else
			model_set(m, r.base, base, 0);
		return false;
	}
	return true;
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	return xorshift64(&rng_state);
}

struct stats {
	unsigned int add_full, reserve_full, alloc_ok, alloc_fail, take_ok, full_seen;
};

static void random_op(struct model *m, struct stats *st)
{
	struct mrange r[4096];
	uint32_t n = model_ranges(m, r, 4096);
	uint64_t space = m->n * m->gran;
	uint64_t base = (rng() % (m->n + 8)) * m->gran;
	unsigned int op = rng() % 100, kind = rng() % 10;
	uint64_t len;

	/* Mostly small pieces, so the table fills and the full paths run. */
	if (kind < 6)
		len = 1 + rng() % 16;
	else if (kind < 9)
		len = 1 + rng() % (m->n / 64);
	else
		len = 1 + rng() % (m->n / 4);
	len *= m->gran;

	if (rng() % 50 == 0)
		len = UINT64_MAX - rng() % 3;	/* base + len wraps */
	if (n >= MEMPLAN_MAX_RANGES)
		st->full_seen++;

	if (op < 30) {
		uint64_t end = len > UINT64_MAX - base ? UINT64_MAX : base + len;
		bool touches = false;

		if (end > m->limit)
			end = m->limit;
		for (uint32_t i = 0; i < n; i++)
			touches |= r[i].end >= base && r[i].base <= end;
		if (base < end && !touches && n >= MEMPLAN_MAX_RANGES) {
			assert_false(memplan_add(&mp, base, len));
			st->add_full++;
		} else {
			assert_true(memplan_add(&mp, base, len));
			if (base < end)
				model_set(m, base, end, 1);
		}
	} else if (op < 55) {
		uint64_t end = len > UINT64_MAX - base ? UINT64_MAX : base + len;
		bool ok = true;

		/* Only a range holding [base, end) strictly inside can need a slot. */
		if (end > space)
			end = space;
		for (uint32_t i = 0; i < n; i++)
			if (r[i].base < base && end < r[i].end)
				ok = model_cut(m, n, r[i], base, end);
		if (base < end)
			model_set(m, base, end, 0);
		assert_int_equal(memplan_reserve(&mp, base, len), ok);
		st->reserve_full += !ok;
	} else if (op < 85) {
		uint64_t size = (1 + rng() % (m->n / 8 + 1)) * m->gran;
		uint64_t align = m->gran << (rng() % 8);
		uint64_t want = 0;

		for (uint32_t k = n; k-- > 0;) {
			uint64_t b;

			if (size > r[k].end - r[k].base)
				continue;
			b = (r[k].end - size) & ~(align - 1);
			if (b >= r[k].base && b) {
				want = b;
				model_cut(m, n, r[k], b, b + size);
				break;
			}
		}
		assert_int_equal(memplan_alloc(&mp, size, align), want);
		if (want)
			st->alloc_ok++;
		else
			st->alloc_fail++;
	} else {
		uint64_t size = (1 + rng() % 16) * m->gran;
		bool want = false;

		if (n && rng() % 2) {
			/* Aim inside a free range so takes succeed often. */
			const struct mrange *t = &r[rng() % n];

			base = t->base + (rng() % ((t->end - t->base) / m->gran)) * m->gran;
		}
		for (uint32_t i = 0; i < n; i++)
			if (r[i].base <= base && size <= r[i].end - base && base < r[i].end) {
				want = true;
				model_cut(m, n, r[i], base, base + size);
			}
		assert_int_equal(memplan_take(&mp, base, size), want);
		st->take_ok += want;
	}
}

static void run_random(uint64_t seed, uint64_t gran, uint64_t granules, uint64_t limit,
		       unsigned int ops)
{
	struct model m = { .gran = gran, .n = granules, .limit = limit };
	struct stats st = { 0 };

	rng_state = seed;
	m.free = calloc(granules, 1);
	assert_non_null(m.free);
	memplan_init(&mp, limit);
	for (unsigned int i = 0; i < ops; i++) {
		random_op(&m, &st);
		model_check(&m);
	}
	free(m.free);
	print_message("  seed %llx: %u add-full, %u reserve-full, %u/%u allocs, %u takes, "
		      "table full %u times\n", (unsigned long long)seed, st.add_full,
		      st.reserve_full, st.alloc_ok, st.alloc_ok + st.alloc_fail, st.take_ok,
		      st.full_seen);
	/* The interesting paths were all taken. */
	assert_true(st.add_full > 0 && st.reserve_full > 0 && st.alloc_ok > 0 &&
		    st.alloc_fail > 0 && st.take_ok > 0);
}

/* 4 KiB granules over 64 MiB, the limit at 60 MiB. */
static void test_random_4k(void **state)
{
	(void)state;
	run_random(0x243f6a8885a308d3ull, 4 * KIB, 16 * KIB, 60 * MIB, 100000);
}

/* Byte granules over 4 KiB: every unaligned edge case. */
static void test_random_bytes(void **state)
{
	(void)state;
	run_random(0x13198a2e03707344ull, 1, 4 * KIB, 4 * KIB - 100, 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_largest),
		cmocka_unit_test(test_add_merge),
		cmocka_unit_test(test_add_bridges_many),
		cmocka_unit_test(test_add_limit_and_wrap),
		cmocka_unit_test(test_raise_limit),
		cmocka_unit_test(test_add_full_table),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_reserve_many),
		cmocka_unit_test(test_reserve_full_table),
		cmocka_unit_test(test_alloc_top_down),
		cmocka_unit_test(test_alloc_alignment),
		cmocka_unit_test(test_alloc_never_zero),
		cmocka_unit_test(test_alloc_full_table),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_random_4k),
		cmocka_unit_test(test_random_bytes),
	};

	return cmocka_run_group_tests_name("memplan", tests, NULL, NULL);
}
