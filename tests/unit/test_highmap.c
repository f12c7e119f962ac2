// SPDX-License-Identifier: MIT
/* arch/x86/highmap.c: RAM above 4 GiB mapped one to one into the boot tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/highmap.h"

#define GIB (1ull << 30)
#define MIB2 (1ull << 21)
#define ADDR 0x000ffffffffff000ull

struct pool {
	uint64_t *pages[64];
	unsigned int used, cap;
};

static uint64_t *take(void *ctx)
{
	struct pool *p = ctx;
	uint64_t *t;

	if (p->used == p->cap)
		return NULL;
	t = aligned_alloc(4096, 4096);
	assert_non_null(t);
	memset(t, 0, 4096);
	p->pages[p->used++] = t;
	return t;
}

static void pool_free(struct pool *p)
{
	for (unsigned int i = 0; i < p->used; i++)
		free(p->pages[i]);
	p->used = 0;
}

/* The boot map (boot/entry.S): PML4[0] -> PDPT, PDPT[0..3] -> PDs of 2 MiB pages. */
static uint64_t *boot_tables(struct pool *p)
{
	uint64_t *pml4 = take(p), *pdpt = take(p);

	pml4[0] = (uint64_t)(uintptr_t)pdpt | 3;
	for (int i = 0; i < 4; i++) {
		uint64_t *pd = take(p);

		pdpt[i] = (uint64_t)(uintptr_t)pd | 3;
		for (int j = 0; j < 512; j++)
			pd[j] = ((uint64_t)(i * 512 + j) << 21) | 0x83;
	}
	return pml4;
}

/* What the tables translate @va to, as the CPU would walk them; ~0 if nothing. */
static uint64_t walk(const uint64_t *pml4, uint64_t va)
{
	uint64_t e = pml4[(va >> 39) & 511];
	const uint64_t *t;

	if (!(e & 1))
		return ~0ull;
	assert_false(e & 0x80);
	t = (const uint64_t *)(uintptr_t)(e & ADDR);
	e = t[(va >> 30) & 511];
	if (!(e & 1))
		return ~0ull;
	assert_true(e & 2);
	if (e & 0x80) {
		assert_int_equal(e & (GIB - 1) & ADDR, 0);	/* a 1 GiB page's address is aligned */
		return (e & ADDR) + (va & (GIB - 1));
	}
	t = (const uint64_t *)(uintptr_t)(e & ADDR);
	e = t[(va >> 21) & 511];
	if (!(e & 1))
		return ~0ull;
	assert_true((e & 0x82) == 0x82);
	assert_int_equal(e & 0x18, 0);	/* write-back above 4 GiB: no PCD/PWT */
	return (e & ADDR) + (va & (MIB2 - 1));
}

static void identity(const uint64_t *pml4, uint64_t base, uint64_t end)
{
	for (uint64_t a = base; a < end; a += MIB2 / 2)
		assert_int_equal(walk(pml4, a), a);
	assert_int_equal(walk(pml4, end - 8), end - 8);
}

static void test_1g_pages(void **state)
{
	struct pool p = { .cap = 64 };
	uint64_t *pml4 = boot_tables(&p);
	unsigned int before = p.used;

	(void)state;
	assert_int_equal(highmap_map(pml4, 4 * GIB, 6 * GIB, true, take, &p), 2 * GIB);
	assert_int_equal(p.used, before);	/* two 1 GiB pages in the boot PDPT */
	identity(pml4, 0, 6 * GIB);
	assert_int_equal(walk(pml4, 6 * GIB), ~0ull);
	/* again, or overlapping the low 4 GiB: nothing new */
	assert_int_equal(highmap_map(pml4, 2 * GIB, 6 * GIB, true, take, &p), 0);
	assert_int_equal(p.used, before);
	pool_free(&p);
}

static void test_2m_pages(void **state)
{
	struct pool p = { .cap = 64 };
	uint64_t *pml4 = boot_tables(&p);
	unsigned int before = p.used;

	(void)state;
	assert_int_equal(highmap_map(pml4, 4 * GIB, 6 * GIB + MIB2, false, take, &p), 2 * GIB + MIB2);
	assert_int_equal(p.used, before + 3);	/* a PD for each GiB touched */
	identity(pml4, 4 * GIB, 6 * GIB + MIB2);
	assert_int_equal(walk(pml4, 6 * GIB + MIB2), ~0ull);
	pool_free(&p);
}

/* A range that starts and ends inside a GiB: 2 MiB pages at both ends. */
static void test_ragged_ends(void **state)
{
	struct pool p = { .cap = 64 };
	uint64_t *pml4 = boot_tables(&p);
	uint64_t base = 5 * GIB - 4 * MIB2, end = 7 * GIB + 6 * MIB2;

	(void)state;
	assert_int_equal(highmap_map(pml4, base, end, true, take, &p), (int64_t)(end - base));
	identity(pml4, base, end);
	assert_int_equal(walk(pml4, base - MIB2), ~0ull);
	assert_int_equal(walk(pml4, end), ~0ull);
	assert_int_equal(walk(pml4, 4 * GIB), ~0ull);
	/* the hole below, filled later, meets the 2 MiB pages already there */
	assert_int_equal(highmap_map(pml4, 4 * GIB, 8 * GIB, true, take, &p),
			 (int64_t)(4 * GIB - (end - base)));
	identity(pml4, 0, 8 * GIB);
	pool_free(&p);
}

/* Past 512 GiB a new PDPT hangs off the next PML4 entry. */
static void test_past_512g(void **state)
{
	struct pool p = { .cap = 64 };
	uint64_t *pml4 = boot_tables(&p);
	unsigned int before = p.used;

	(void)state;
	assert_int_equal(highmap_map(pml4, 511 * GIB, 514 * GIB, true, take, &p), 3 * GIB);
	assert_int_equal(p.used, before + 1);
	assert_true(pml4[1] & 1);
	identity(pml4, 511 * GIB, 514 * GIB);
	assert_int_equal(highmap_map(pml4, HIGHMAP_LIMIT - GIB, HIGHMAP_LIMIT, true, take, &p), GIB);
	identity(pml4, HIGHMAP_LIMIT - GIB, HIGHMAP_LIMIT);
	pool_free(&p);
}

static void test_refusals(void **state)
{
	struct pool p = { .cap = 64 };
	uint64_t *pml4 = boot_tables(&p);

	(void)state;
	assert_int_equal(highmap_map(pml4, 4 * GIB + 4096, 5 * GIB, true, take, &p), -1);
	assert_int_equal(highmap_map(pml4, 4 * GIB, 5 * GIB - 4096, true, take, &p), -1);
	assert_int_equal(highmap_map(pml4, 5 * GIB, 5 * GIB, true, take, &p), -1);
	assert_int_equal(highmap_map(pml4, 6 * GIB, 5 * GIB, true, take, &p), -1);
	assert_int_equal(highmap_map(pml4, HIGHMAP_LIMIT - GIB, HIGHMAP_LIMIT + GIB, true, take, &p), -1);
	assert_int_equal(highmap_map(NULL, 4 * GIB, 5 * GIB, true, take, &p), -1);
	assert_int_equal(walk(pml4, 4 * GIB), ~0ull);
	/* out of table pages: an error, and what was mapped is sound */
	p.cap = p.used + 1;
	assert_int_equal(highmap_map(pml4, 4 * GIB, 6 * GIB, false, take, &p), -1);
	identity(pml4, 4 * GIB, 5 * GIB);
	assert_int_equal(walk(pml4, 5 * GIB), ~0ull);
	pool_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1g_pages),
		cmocka_unit_test(test_2m_pages),
		cmocka_unit_test(test_ragged_ends),
		cmocka_unit_test(test_past_512g),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests_name("highmap", tests, NULL, NULL);
}
