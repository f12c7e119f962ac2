// SPDX-License-Identifier: MIT
/*
 * Unit tests for hv/lib/vtd.c (VT-d's formats: capabilities, root and
 * context entries, second-level page tables, interrupt-remapping entries,
 * the remappable MSI address, invalidation descriptors, fault records) and
 * hv/core/iommu_map.c (a partition's RAM in its DMA table).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/guest_ram.h"
#include "hv/core/iommu_map.h"
#include "hv/lib/vtd.h"
#include "xorshift.h"

/* ---- a page pool whose physical addresses are not its host addresses ---- */

#define POOL_PAGES	2048
#define POOL_PHYS	0x7000000000ull	/* far from any host pointer */

struct pool {
	uint8_t *mem;
	uint32_t used, limit;
	uint32_t flushes;
	size_t flushed_bytes;
};

static void *pool_alloc(void *ctx, uint64_t *phys)
{
	struct pool *p = ctx;
	void *page;

	if (p->used >= p->limit)
		return NULL;
	page = p->mem + (size_t)p->used * VTD_PAGE_SIZE;
	/* dirty, as a recycled page would be, unless the pool zeroes it: it must */
	memset(page, 0, VTD_PAGE_SIZE);
	*phys = POOL_PHYS + (uint64_t)p->used * VTD_PAGE_SIZE;
	p->used++;
	return page;
}

static void *pool_virt(void *ctx, uint64_t phys)
{
	struct pool *p = ctx;

	if (phys < POOL_PHYS || phys >= POOL_PHYS + (uint64_t)p->used * VTD_PAGE_SIZE)
		fail_msg("a table pointer 0x%llx outside the pool", (unsigned long long)phys);
	return p->mem + (phys - POOL_PHYS);
}

static void pool_flush(void *ctx, const void *ptr, size_t len)
{
	struct pool *p = ctx;
	const uint8_t *b = ptr;

	assert_true(b >= p->mem && b + len <= p->mem + (size_t)p->used * VTD_PAGE_SIZE);
	p->flushes++;
	p->flushed_bytes += len;
}

static struct pool pool;
static struct vtd_pt_ops ops = {
	.alloc = pool_alloc, .phys_to_virt = pool_virt, .flush = pool_flush, .ctx = &pool,
};

static int pool_setup(void **state)
{
	(void)state;
	memset(&pool, 0, sizeof(pool));
	pool.mem = aligned_alloc(VTD_PAGE_SIZE, (size_t)POOL_PAGES * VTD_PAGE_SIZE);
	assert_non_null(pool.mem);
	pool.limit = POOL_PAGES;
	return 0;
}

static int pool_teardown(void **state)
{
	(void)state;
	free(pool.mem);
	pool.mem = NULL;
	return 0;
}

/* translate, expecting a hit */
static void expect_map(const struct vtd_slpt *pt, uint64_t iova, uint64_t hpa,
		       unsigned int perm, unsigned int shift)
{
	uint64_t got = 0;
	unsigned int p = 0, s = 0;

	if (vtd_slpt_translate(pt, iova, &got, &p, &s))
		fail_msg("iova 0x%llx not mapped", (unsigned long long)iova);
	if (got != hpa)
		fail_msg("iova 0x%llx -> 0x%llx, want 0x%llx", (unsigned long long)iova,
			 (unsigned long long)got, (unsigned long long)hpa);
	assert_int_equal(p, perm);
	assert_int_equal(s, shift);
}

static void expect_unmapped(const struct vtd_slpt *pt, uint64_t iova)
{
	uint64_t got;
	unsigned int p, s;

	if (!vtd_slpt_translate(pt, iova, &got, &p, &s))
		fail_msg("iova 0x%llx mapped to 0x%llx", (unsigned long long)iova,
			 (unsigned long long)got);
}

/* ---- capabilities ---- */

/* QEMU 7.2's intel-iommu with its defaults: 1.0, 39-bit, 2 MiB/1 GiB, QI, IR. */
#define QEMU_CAP	(0x00d2008c22260206ull)
#define QEMU_ECAP	(0x0000000000f00f1eull)

static void test_caps_decode(void **state)
{
	struct vtd_caps c;
	char why[128];

	(void)state;
	vtd_caps_decode(0x10, QEMU_CAP, QEMU_ECAP, &c);
	assert_int_equal(c.ver_major, 1);
	assert_int_equal(c.ver_minor, 0);
	assert_int_equal(c.domain_id_bits, 16);		/* ND 6 */
	assert_int_equal(c.sagaw, 2);			/* 3 levels */
	assert_int_equal(c.mgaw_bits, 39);
	assert_int_equal(c.sllps, 3);
	assert_false(c.caching_mode);
	assert_false(c.rwbf);
	assert_int_equal(c.fault_reg_off, 0x220);
	assert_int_equal(c.fault_reg_count, 1);
	assert_int_equal(c.iotlb_reg_off, 0xf0);
	assert_false(c.coherent);
	assert_true(c.qi);
	assert_true(c.ir);
	assert_true(c.eim);
	assert_false(c.posted);
	assert_int_equal(vtd_caps_usable(&c, 4096, why, sizeof(why)), 0);
	assert_string_equal(why, "");

	vtd_caps_decode(0x10, QEMU_CAP | VTD_CAP_CM | VTD_CAP_PI, 0, &c);
	assert_true(c.caching_mode);
	assert_true(c.posted);
	assert_false(c.qi);
}

static void test_caps_unusable(void **state)
{
	struct vtd_caps c;
	char why[128];

	(void)state;
	vtd_caps_decode(0x00, QEMU_CAP, QEMU_ECAP, &c);
	assert_int_equal(vtd_caps_usable(&c, 4096, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "version 0.0"));

	/* SAGAW offering only 5 levels */
	vtd_caps_decode(0x10, (QEMU_CAP & ~(0x1full << 8)) | (8ull << 8), QEMU_ECAP, &c);
	assert_int_equal(vtd_caps_usable(&c, 4096, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "SAGAW 0x8"));

	/* fault registers past a one-page register set */
	vtd_caps_decode(0x10, (QEMU_CAP & ~(0x3ffull << 24)) | (0x100ull << 24), QEMU_ECAP, &c);
	assert_int_equal(c.fault_reg_off, 0x1000);
	assert_int_equal(vtd_caps_usable(&c, 4096, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "fault recording registers at 0x1000"));
	assert_int_equal(vtd_caps_usable(&c, 8192, why, sizeof(why)), 0);

	/* 256 fault registers from 0x220 do not fit a page */
	vtd_caps_decode(0x10, (QEMU_CAP & ~(0xffull << 40)) | (0xffull << 40), QEMU_ECAP, &c);
	assert_int_equal(c.fault_reg_count, 256);
	assert_int_equal(vtd_caps_usable(&c, 4096, why, sizeof(why)), -1);

	/* IOTLB registers at 0xff0 + 16 = the page's end: fits; at 0x1000 not */
	vtd_caps_decode(0x10, QEMU_CAP, (QEMU_ECAP & ~(0x3ffull << 8)) | (0xffull << 8), &c);
	assert_int_equal(vtd_caps_usable(&c, 4096, why, sizeof(why)), 0);
	vtd_caps_decode(0x10, QEMU_CAP, (QEMU_ECAP & ~(0x3ffull << 8)) | (0x100ull << 8), &c);
	assert_int_equal(vtd_caps_usable(&c, 4096, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "IOTLB registers at 0x1000"));
	/* no room for the reason: still refused */
	assert_int_equal(vtd_caps_usable(&c, 4096, NULL, 0), -1);
}

static void test_pick_levels(void **state)
{
	(void)state;
	assert_int_equal(vtd_pick_levels(2, 39), 3);
	assert_int_equal(vtd_pick_levels(2, 40), 0);
	assert_int_equal(vtd_pick_levels(6, 40), 4);
	assert_int_equal(vtd_pick_levels(6, 30), 3);
	assert_int_equal(vtd_pick_levels(4, 30), 4);
	assert_int_equal(vtd_pick_levels(4, 49), 0);
	assert_int_equal(vtd_pick_levels(8, 30), 0);	/* 5 levels only */
	assert_int_equal(vtd_pick_levels(0, 30), 0);
}

/* ---- root and context entries ---- */

static void test_root_context(void **state)
{
	struct vtd_entry128 e;

	(void)state;
	e = vtd_root_entry(0x12345000);
	assert_int_equal(e.lo, 0x12345001);
	assert_int_equal(e.hi, 0);
	e = vtd_context_entry(0xabcde000, 3, 7);
	assert_int_equal(e.lo, 0xabcde001);	/* TT 0, FPD 0, present */
	assert_int_equal(e.hi, 7 << 8 | 1);	/* DID 7, AW 1 (39-bit) */
	e = vtd_context_entry(0x1000, 4, 0xffff);
	assert_int_equal(e.hi, 0xffffull << 8 | 2);
}

/* ---- second-level page tables ---- */

static void test_slpt_init(void **state)
{
	struct vtd_slpt pt;
	struct vtd_pt_ops no_alloc = { .phys_to_virt = pool_virt, .ctx = &pool };

	(void)state;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 2, 0, 39), VTD_EINVAL);
	assert_int_equal(vtd_slpt_init(&pt, &ops, 5, 0, 39), VTD_EINVAL);
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 0, 53), VTD_EINVAL);
	assert_int_equal(vtd_slpt_init(&pt, &no_alloc, 3, 0, 39), VTD_EINVAL);
	assert_int_equal(pool.used, 0);
	pool.limit = 0;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 0, 39), VTD_ENOMEM);
	assert_null(pt.root);
	/* nothing maps into a table that has no root */
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 4096, VTD_PERM_RW), VTD_EINVAL);
	pool.limit = POOL_PAGES;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 0, 39), VTD_OK);
	assert_int_equal(pt.root_phys, POOL_PHYS);
	assert_int_equal(pt.tables, 1);
	expect_unmapped(&pt, 0);
}

static void test_slpt_4k(void **state)
{
	struct vtd_slpt pt;
	const uint64_t *l3, *l2, *l1;

	(void)state;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 0, 39), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x100000, 0x2345000, 0x2000, VTD_PERM_RW), VTD_OK);
	expect_map(&pt, 0x100000, 0x2345000, VTD_PERM_RW, 12);
	expect_map(&pt, 0x101ffc, 0x2346ffc, VTD_PERM_RW, 12);
	expect_unmapped(&pt, 0xff000);
	expect_unmapped(&pt, 0x102000);
	assert_int_equal(pt.tables, 3);
	/* the entries as the hardware reads them */
	l3 = pt.root;
	assert_int_equal(l3[0], (POOL_PHYS + 0x1000) | VTD_PTE_R | VTD_PTE_W);
	l2 = pool_virt(&pool, l3[0] & VTD_PTE_ADDR);
	assert_int_equal(l2[0], (POOL_PHYS + 0x2000) | VTD_PTE_R | VTD_PTE_W);
	l1 = pool_virt(&pool, l2[0] & VTD_PTE_ADDR);
	assert_int_equal(l1[0x100], 0x2345000 | VTD_PTE_R | VTD_PTE_W);
	assert_int_equal(l1[0x101], 0x2346000 | VTD_PTE_R | VTD_PTE_W);
	assert_int_equal(l1[0x102], 0);
	/* every written entry and new table went through flush */
	assert_true(pool.flushes >= 6);

	/* read-only and write-only pages */
	assert_int_equal(vtd_slpt_map(&pt, 0x200000, 0x5000, 0x1000, VTD_PERM_READ), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x201000, 0x6000, 0x1000, VTD_PERM_WRITE), VTD_OK);
	expect_map(&pt, 0x200000, 0x5000, VTD_PERM_READ, 12);
	expect_map(&pt, 0x201000, 0x6000, VTD_PERM_WRITE, 12);
}

static void test_slpt_large(void **state)
{
	struct vtd_slpt pt;

	(void)state;
	/* 2 MiB and 1 GiB pages allowed: a 1 GiB + 2 MiB + 4 KiB range, all aligned */
	assert_int_equal(vtd_slpt_init(&pt, &ops, 4, 3, 46), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x40000000, 0x80000000, 0x40201000, VTD_PERM_RW),
			 VTD_OK);
	expect_map(&pt, 0x40000000, 0x80000000, VTD_PERM_RW, 30);
	expect_map(&pt, 0x7fffffff, 0xbfffffff, VTD_PERM_RW, 30);
	expect_map(&pt, 0x80000000, 0xc0000000, VTD_PERM_RW, 21);
	expect_map(&pt, 0x80200000, 0xc0200000, VTD_PERM_RW, 12);
	expect_unmapped(&pt, 0x80201000);
	/* L4, L3, one L2 (for the 2 MiB leaf), one L1 */
	assert_int_equal(pt.tables, 4);

	/* only 2 MiB allowed: a GiB is 512 leaves in one L2 */
	assert_int_equal(vtd_slpt_init(&pt, &ops, 4, 1, 46), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0x40000000, 0x40000000, VTD_PERM_READ), VTD_OK);
	expect_map(&pt, 0x3fffffff, 0x7fffffff, VTD_PERM_READ, 21);
	assert_int_equal(pt.tables, 3);

	/* none allowed: 4 KiB pages only */
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 0, 39), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 0x400000, VTD_PERM_RW), VTD_OK);
	expect_map(&pt, 0x3ff000, 0x3ff000, VTD_PERM_RW, 12);
	assert_int_equal(pt.tables, 4);		/* L3, L2, two L1 */

	/* iova and hpa aligned differently: no large page can be used */
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 3, 39), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x200000, 0x201000, 0x200000, VTD_PERM_RW), VTD_OK);
	expect_map(&pt, 0x200000, 0x201000, VTD_PERM_RW, 12);
	expect_map(&pt, 0x3ff000, 0x400000, VTD_PERM_RW, 12);
}

static void test_slpt_bad_args(void **state)
{
	struct vtd_slpt pt;

	(void)state;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 3, 39), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x1001, 0, 0x1000, VTD_PERM_RW), VTD_EINVAL);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0x800, 0x1000, VTD_PERM_RW), VTD_EINVAL);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 0x1800, VTD_PERM_RW), VTD_EINVAL);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 0, VTD_PERM_RW), VTD_EINVAL);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 0x1000, 0), VTD_EINVAL);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 0x1000, 4), VTD_EINVAL);
	/* 39 bits of DMA address with 3 levels: the last page fits, the next not */
	assert_int_equal(vtd_slpt_map(&pt, (1ull << 39) - 0x1000, 0, 0x1000, VTD_PERM_RW),
			 VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 1ull << 39, 0, 0x1000, VTD_PERM_RW), VTD_EINVAL);
	assert_int_equal(vtd_slpt_map(&pt, (1ull << 39) - 0x1000, 0x1000, 0x2000, VTD_PERM_RW),
			 VTD_EINVAL);
	expect_unmapped(&pt, 1ull << 39);
	/* host addresses past the width given */
	assert_int_equal(vtd_slpt_map(&pt, 0, 1ull << 39, 0x1000, VTD_PERM_RW), VTD_EINVAL);
	/* wrapping */
	assert_int_equal(vtd_slpt_map(&pt, 0xfffffffffffff000ull, 0, 0x2000, VTD_PERM_RW),
			 VTD_EINVAL);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0xfffffffffffff000ull, 0x2000, VTD_PERM_RW),
			 VTD_EINVAL);
	expect_unmapped(&pt, 0);
}

/* A mapping that meets an existing one is refused before anything changes. */
static void test_slpt_overlap(void **state)
{
	struct vtd_slpt pt;
	uint32_t used, flushes;

	(void)state;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 1, 39), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x400000, 0x400000, 0x200000, VTD_PERM_RW), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x800000, 0x10000000, 0x1000, VTD_PERM_READ), VTD_OK);
	used = pool.used;
	flushes = pool.flushes;
	/* into the 2 MiB page, from below, from above, across, and the 4 KiB page */
	assert_int_equal(vtd_slpt_map(&pt, 0x5ff000, 0, 0x1000, VTD_PERM_RW), VTD_EEXIST);
	assert_int_equal(vtd_slpt_map(&pt, 0x200000, 0, 0x201000, VTD_PERM_RW), VTD_EEXIST);
	assert_int_equal(vtd_slpt_map(&pt, 0x5ff000, 0, 0x2000, VTD_PERM_RW), VTD_EEXIST);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 0x40000000, VTD_PERM_RW), VTD_EEXIST);
	assert_int_equal(vtd_slpt_map(&pt, 0x7ff000, 0x1000, 0x2000, VTD_PERM_RW), VTD_EEXIST);
	assert_int_equal(pool.used, used);
	assert_int_equal(pool.flushes, flushes);
	expect_unmapped(&pt, 0x200000);
	expect_unmapped(&pt, 0x7ff000);
	expect_map(&pt, 0x800000, 0x10000000, VTD_PERM_READ, 12);
	/* right beside it is fine */
	assert_int_equal(vtd_slpt_map(&pt, 0x3ff000, 0, 0x1000, VTD_PERM_RW), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x801000, 0, 0x1000, VTD_PERM_RW), VTD_OK);
}

static void test_slpt_out_of_pages(void **state)
{
	struct vtd_slpt pt;

	(void)state;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 0, 39), VTD_OK);
	pool.limit = 3;		/* root, one L2, one L1 */
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 0x1000, VTD_PERM_RW), VTD_OK);
	/* needs a second L1: none left */
	assert_int_equal(vtd_slpt_map(&pt, 0x200000, 0, 0x1000, VTD_PERM_RW), VTD_ENOMEM);
	/* a range across: the part in the existing L1 is mapped, then it runs out */
	assert_int_equal(vtd_slpt_map(&pt, 0x1ff000, 0x1000, 0x2000, VTD_PERM_RW), VTD_ENOMEM);
	expect_map(&pt, 0x1ff000, 0x1000, VTD_PERM_RW, 12);
	expect_unmapped(&pt, 0x200000);
	expect_map(&pt, 0, 0, VTD_PERM_RW, 12);
}

/* Without a flush callback (coherent walks) nothing is flushed and it works. */
static void test_slpt_no_flush(void **state)
{
	struct vtd_pt_ops coherent = ops;
	struct vtd_slpt pt;

	(void)state;
	coherent.flush = NULL;
	assert_int_equal(vtd_slpt_init(&pt, &coherent, 3, 0, 39), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0x3000, 0x9000, 0x1000, VTD_PERM_RW), VTD_OK);
	expect_map(&pt, 0x3000, 0x9000, VTD_PERM_RW, 12);
	assert_int_equal(pool.flushes, 0);
}

/* A large page the table's units do not allow is a fault, as on hardware. */
static void test_slpt_translate_bad_ps(void **state)
{
	struct vtd_slpt pt;

	(void)state;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 1, 39), VTD_OK);
	assert_int_equal(vtd_slpt_map(&pt, 0, 0, 0x200000, VTD_PERM_RW), VTD_OK);
	expect_map(&pt, 0x1000, 0x1000, VTD_PERM_RW, 21);
	pt.sllps = 0;
	expect_unmapped(&pt, 0x1000);
}

/*
 * Random disjoint mappings of random sizes and alignments: every probe
 * translates as a plain list of ranges says, and overlaps are refused.
 */
static void test_slpt_random(void **state)
{
	struct range {
		uint64_t iova, hpa, size;
		unsigned int perm;
	} r[64];
	uint64_t rng_state = 0x2545f4914f6cdd1dull;
	int n = 0, refused = 0;
	struct vtd_slpt pt;

	(void)state;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 4, 3, 46), VTD_OK);
	for (int iter = 0; iter < 400 && n < 64; iter++) {
		uint64_t sizes[] = { 0x1000, 0x3000, 0x200000, 0x201000, 0x400000, 0x40000000 };
		uint64_t size = sizes[xorshift64(&rng_state) % 6];
		uint64_t iova = (xorshift64(&rng_state) % (1ull << 21)) << 12;
		uint64_t hpa = (xorshift64(&rng_state) % (1ull << 22)) << 12;
		unsigned int perm = 1 + (unsigned int)(xorshift64(&rng_state) % 3);
		bool clash = false;
		int ret;

		if (xorshift64(&rng_state) % 2) {	/* often aligned, for large pages */
			iova &= ~(size >= 0x40000000 ? 0x3fffffffull : 0x1fffffull);
			hpa &= ~(size >= 0x40000000 ? 0x3fffffffull : 0x1fffffull);
		}
		for (int k = 0; k < n; k++)
			clash |= iova < r[k].iova + r[k].size && r[k].iova < iova + size;
		if (pool.limit - pool.used < 64)
			break;
		ret = vtd_slpt_map(&pt, iova, hpa, size, perm);
		if (clash) {
			assert_int_equal(ret, VTD_EEXIST);
			refused++;
			continue;
		}
		assert_int_equal(ret, VTD_OK);
		r[n++] = (struct range){ iova, hpa, size, perm };
	}
	assert_true(n > 20);
	assert_true(refused > 5);
	for (int probe = 0; probe < 20000; probe++) {
		uint64_t iova;
		int hit = -1;
		uint64_t got;
		unsigned int perm, shift;

		if (probe % 2) {	/* near a range's edge */
			const struct range *q = &r[xorshift64(&rng_state) % (uint64_t)n];

			iova = q->iova + q->size - 0x2000 + (xorshift64(&rng_state) % 0x4000);
		} else {
			iova = xorshift64(&rng_state) % (1ull << 37);
		}
		for (int k = 0; k < n; k++)
			if (iova >= r[k].iova && iova - r[k].iova < r[k].size)
				hit = k;
		if (hit < 0) {
			expect_unmapped(&pt, iova);
			continue;
		}
		assert_int_equal(vtd_slpt_translate(&pt, iova, &got, &perm, &shift), VTD_OK);
		assert_int_equal(got, r[hit].hpa + (iova - r[hit].iova));
		assert_int_equal(perm, r[hit].perm);
	}
}

/* ---- a partition's RAM, where its EPT puts it ---- */

static void test_partition_ram(void **state)
{
	struct vtd_slpt pt;
	const uint64_t base = 0x100000000ull;	/* the partition's host range */
	const uint64_t mem = 6ull << 30;
	const uint64_t low = GUEST_RAM_LOW_MAX;

	(void)state;
	assert_int_equal(vtd_slpt_init(&pt, &ops, 4, 3, 46), VTD_OK);
	assert_int_equal(iommu_map_partition_ram(&pt, mem, base), VTD_OK);
	/* every probe agrees with guest_ram_offset, the EPT's own rule */
	for (uint64_t gpa = 0; gpa < guest_ram_end(mem) + (1ull << 30); gpa += 0x3fe000) {
		uint64_t off, hpa;
		unsigned int perm, shift;
		bool ram = guest_ram_offset(mem, gpa, 1, &off);

		assert_int_equal(vtd_slpt_translate(&pt, gpa, &hpa, &perm, &shift) == VTD_OK,
				 ram);
		if (ram) {
			assert_int_equal(hpa, base + off);
			assert_int_equal(perm, VTD_PERM_RW);
		}
	}
	expect_map(&pt, low - 0x1000, base + low - 0x1000, VTD_PERM_RW, 21);
	expect_unmapped(&pt, low);
	expect_unmapped(&pt, 0xfee00000);		/* the MMIO window: no DMA target */
	expect_map(&pt, GUEST_RAM_HIGH_BASE, base + low, VTD_PERM_RW, 21);
	expect_unmapped(&pt, guest_ram_end(mem));
	/* twice is refused, not doubled */
	assert_int_equal(iommu_map_partition_ram(&pt, mem, base), VTD_EEXIST);

	/* a small partition: no high piece */
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 1, 39), VTD_OK);
	assert_int_equal(iommu_map_partition_ram(&pt, 64ull << 20, 0x20000000), VTD_OK);
	expect_map(&pt, (64ull << 20) - 1, 0x20000000 + (64ull << 20) - 1, VTD_PERM_RW, 21);
	expect_unmapped(&pt, 64ull << 20);
	expect_unmapped(&pt, GUEST_RAM_HIGH_BASE);
	assert_int_equal(iommu_map_partition_ram(&pt, 0, 0), VTD_EINVAL);
	/* a 3-level table cannot hold RAM from 4 GiB up to 512 GiB + */
	assert_int_equal(vtd_slpt_init(&pt, &ops, 3, 3, 46), VTD_OK);
	assert_int_equal(iommu_map_partition_ram(&pt, 600ull << 30, 0), VTD_EINVAL);
}

/* ---- interrupt remapping ---- */

static void test_irte(void **state)
{
	struct vtd_irte_req r = { .dest_apic_id = 3, .vector = 0x41, .source_id = 0x0018 };
	struct vtd_entry128 e;

	(void)state;
	assert_int_equal(vtd_irte_remapped(&r, &e), VTD_OK);
	/* present, edge, fixed, physical; vector 23:16; xAPIC id in 47:40 */
	assert_int_equal(e.lo, 0x0000030000410001ull);
	/* SVT 01 (full source-id), SQ 00, SID */
	assert_int_equal(e.hi, 0x0000000000040018ull);

	r.level = true;
	r.dest_apic_id = 0xfe;
	assert_int_equal(vtd_irte_remapped(&r, &e), VTD_OK);
	assert_int_equal(e.lo, 0x0000fe0000410011ull);
	/* 0xFF in an 8-bit destination is the broadcast, not one CPU */
	r.dest_apic_id = 0xff;
	assert_int_equal(vtd_irte_remapped(&r, &e), VTD_EINVAL);

	r.x2apic = true;
	r.dest_apic_id = 0x12345678;
	assert_int_equal(vtd_irte_remapped(&r, &e), VTD_OK);
	assert_int_equal(e.lo, 0x1234567800410011ull);

	/* an id an xAPIC-mode entry cannot hold, exception vectors */
	r.x2apic = false;
	r.dest_apic_id = 0x100;
	assert_int_equal(vtd_irte_remapped(&r, &e), VTD_EINVAL);
	r.dest_apic_id = 0;
	r.vector = 15;
	assert_int_equal(vtd_irte_remapped(&r, &e), VTD_EINVAL);
	r.vector = 16;
	assert_int_equal(vtd_irte_remapped(&r, &e), VTD_OK);
}

static void test_msi_address(void **state)
{
	static const uint16_t idx[] = { 0, 1, 5, 0x7fff, 0x8000, 0x8001, 0xffff };
	uint16_t got;

	(void)state;
	assert_int_equal(vtd_msi_address(0), 0xfee00010);
	assert_int_equal(vtd_msi_address(5), 0xfee000b0);
	assert_int_equal(vtd_msi_address(0x8000), 0xfee00014);
	assert_int_equal(vtd_msi_address(0xffff), 0xfeeffff4);
	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		assert_true(vtd_msi_index(vtd_msi_address(idx[i]), 0, &got));
		assert_int_equal(got, idx[i]);
	}
	/* compatibility format: bit 4 clear */
	assert_false(vtd_msi_index(0xfee00000, 0x41, &got));
	assert_false(vtd_msi_index(0xfee01000, 0, &got));
	/* SHV: the data's sub-handle is added */
	assert_true(vtd_msi_index(vtd_msi_address(8) | 1u << 3, 3, &got));
	assert_int_equal(got, 11);
	/* without SHV the data does not matter */
	assert_true(vtd_msi_index(vtd_msi_address(8), 3, &got));
	assert_int_equal(got, 8);
}

static void test_irta(void **state)
{
	(void)state;
	assert_int_equal(vtd_irta(0x123000, 8, false), 0x123007);
	assert_int_equal(vtd_irta(0x123000, 16, true), 0x123000 | VTD_IRTA_EIME | 15);
	assert_int_equal(vtd_irta(0x123000, 1, false), 0x123000);
	assert_int_equal(vtd_irta(0x123000, 0, false), 0);
	assert_int_equal(vtd_irta(0x123000, 17, false), 0);
	assert_int_equal(vtd_irta(0x123800, 8, false), 0);
}

/* ---- invalidation descriptors ---- */

static void test_qi_descriptors(void **state)
{
	struct vtd_entry128 d;

	(void)state;
	d = vtd_qi_context_global();
	assert_int_equal(d.lo, 0x11);
	assert_int_equal(d.hi, 0);
	d = vtd_qi_iotlb_global();
	assert_int_equal(d.lo, 0xd2);	/* DR, DW, global, type 2 */
	d = vtd_qi_iotlb_domain(0x1234);
	assert_int_equal(d.lo, 0x12340000 | 0xe2);
	d = vtd_qi_iec_global();
	assert_int_equal(d.lo, 0x4);
	d = vtd_qi_iec_index(0xbeef);	/* IIDX 47:32, IM 31:27 = 0, G (4) index-selective */
	assert_int_equal(d.lo, 0x0000beef00000014ull);
	assert_int_equal(d.hi, 0);
	d = vtd_qi_wait(0x5000, 0xcafe);
	assert_int_equal(d.lo, 0x0000cafe00000065ull);	/* FN, SW, type 5 */
	assert_int_equal(d.hi, 0x5000);
	d = vtd_qi_wait(0x5003, 1);
	assert_int_equal(d.hi, 0x5000);
}

/* ---- fault records ---- */

static void test_fault_decode(void **state)
{
	struct vtd_fault f;
	char line[160];

	(void)state;
	/* a write from 00:03.0 to 0x21f000, write denied */
	assert_true(vtd_fault_decode(0x21f000 | 0xabc, VTD_FRR_F | 5ull << 32 | 0x0018, &f));
	assert_int_equal(f.source_id, 0x18);
	assert_int_equal(f.reason, 5);
	assert_false(f.read);
	assert_false(f.interrupt);
	assert_int_equal(f.addr, 0x21f000);
	assert_string_equal(vtd_fault_line(&f, "net", line, sizeof(line)),
			    "DMA_FAULT partition=net bdf=00:03.0 addr=0x21f000 access=write "
			    "reason=write-denied");
	/* a read from 3a:1f.7 beyond the width, no partition */
	assert_true(vtd_fault_decode(0x8000000000ull, VTD_FRR_F | 1ull << 62 | 4ull << 32 |
				     0x3aff, &f));
	assert_true(f.read);
	assert_string_equal(vtd_fault_line(&f, NULL, line, sizeof(line)),
			    "DMA_FAULT partition=none bdf=3a:1f.7 addr=0x8000000000 access=read "
			    "reason=address-beyond-width");
	/* an interrupt request to entry 0x1234 that is not present */
	assert_true(vtd_fault_decode(0x1234ull << 48, VTD_FRR_F | 0x22ull << 32 | 0x0018, &f));
	assert_true(f.interrupt);
	assert_int_equal(f.index, 0x1234);
	assert_int_equal(f.addr, 0);
	assert_string_equal(vtd_fault_line(&f, "net", line, sizeof(line)),
			    "IR_FAULT partition=net bdf=00:03.0 index=4660 reason=irte-not-present");
	/* F clear: no fault, whatever else the record holds */
	assert_false(vtd_fault_decode(0x21f000, 5ull << 32 | 0x18, &f));
	assert_int_equal(f.reason, 0);
	/* a short buffer is cut and terminated */
	assert_true(vtd_fault_decode(0x21f000, VTD_FRR_F | 5ull << 32 | 0x18, &f));
	vtd_fault_line(&f, "net", line, 10);
	assert_string_equal(line, "DMA_FAULT");
}

static void test_fault_reasons(void **state)
{
	(void)state;
	assert_string_equal(vtd_fault_reason_name(1), "root-not-present");
	assert_string_equal(vtd_fault_reason_name(2), "context-not-present");
	assert_string_equal(vtd_fault_reason_name(6), "read-denied");
	assert_string_equal(vtd_fault_reason_name(0xd), "translation-type-blocked");
	assert_string_equal(vtd_fault_reason_name(0x20), "request-reserved-bits");
	assert_string_equal(vtd_fault_reason_name(0x25), "compatibility-format-blocked");
	assert_string_equal(vtd_fault_reason_name(0x26), "source-id-mismatch");
	assert_string_equal(vtd_fault_reason_name(0), "unknown");
	assert_string_equal(vtd_fault_reason_name(0xe), "unknown");
	assert_string_equal(vtd_fault_reason_name(0x1f), "unknown");
	assert_string_equal(vtd_fault_reason_name(0x27), "unknown");
	assert_string_equal(vtd_fault_reason_name(0xff), "unknown");
	/* every name is one word: the result line's values have no spaces */
	for (unsigned int r = 0; r < 256; r++)
		assert_null(strchr(vtd_fault_reason_name((uint8_t)r), ' '));
}

/* A remappable MSI: entry @handle + k for message k of a multiple-message function. */
static void test_msi_remappable(void **state)
{
	uint32_t lo, hi, data;
	uint16_t index;

	(void)state;
	for (uint32_t handle = 0; handle < 0x10000; handle += 0x0fff) {
		vtd_msi_remappable((uint16_t)handle, &lo, &hi, &data);
		assert_int_equal(lo & 0xfff00000u, 0xfee00000u);
		assert_true(lo & (1u << 4));
		assert_true(lo & VTD_MSI_ADDR_SHV);
		assert_int_equal(hi, 0);
		assert_int_equal(data, 0);
		for (uint32_t k = 0; k < 32; k++) {
			assert_true(vtd_msi_index(lo, data | k, &index));
			assert_int_equal(index, (uint16_t)(handle + k));
		}
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, pool_setup, pool_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_caps_decode),
		T(test_caps_unusable),
		T(test_pick_levels),
		T(test_root_context),
		T(test_slpt_init),
		T(test_slpt_4k),
		T(test_slpt_large),
		T(test_slpt_bad_args),
		T(test_slpt_overlap),
		T(test_slpt_out_of_pages),
		T(test_slpt_no_flush),
		T(test_slpt_translate_bad_ps),
		T(test_slpt_random),
		T(test_partition_ram),
		T(test_irte),
		T(test_msi_address),
		T(test_msi_remappable),
		T(test_irta),
		T(test_qi_descriptors),
		T(test_fault_decode),
		T(test_fault_reasons),
	};

	return cmocka_run_group_tests_name("vtd", tests, NULL, NULL);
}
