// SPDX-License-Identifier: MIT
/*
 * Guest page-table walks in every paging mode over tables built in a host
 * buffer that stands for guest RAM [0, 1 MiB): 4 KiB, 4 MiB, 2 MiB and 1 GiB
 * pages, reserved bits, permissions, page-crossing fetches, and hostile
 * tables (loops, tables outside RAM, garbage).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/guest_walk.h"
#include "hv/core/mmio_decode.h"
#include "hv/lib/lib.h"
#include "xorshift.h"

#define RAM_BYTES	0x100000ull

struct guest_ram {
	uint8_t *bytes;
	uint64_t size;
	unsigned int reads;
};

static struct guest_ram ram;

static bool ram_read(void *ctx, uint64_t gpa, void *dst, uint32_t len)
{
	struct guest_ram *r = ctx;

	r->reads++;
	if (gpa > r->size || len > r->size - gpa)
		return false;
	memcpy(dst, r->bytes + gpa, len);
	return true;
}

static const struct guest_mem mem = { .read = ram_read, .ctx = &ram };

static int ram_setup(void **state)
{
	(void)state;
	ram.size = RAM_BYTES;
	ram.bytes = calloc(1, RAM_BYTES);
	ram.reads = 0;
	return ram.bytes ? 0 : -1;
}

static int ram_teardown(void **state)
{
	(void)state;
	free(ram.bytes);
	ram.bytes = NULL;
	return 0;
}

static void put32(uint64_t gpa, uint32_t v)
{
	st32(ram.bytes + gpa, v);
}

static void put64(uint64_t gpa, uint64_t v)
{
	st64(ram.bytes + gpa, v);
}

/* Entry @index of the table at @table */
static void set_pte(uint64_t table, unsigned int index, uint64_t v)
{
	put64(table + index * 8ull, v);
}

#define P	GW_PTE_P
#define RW	GW_PTE_RW
#define US	GW_PTE_US
#define PS	GW_PTE_PS
#define XD	GW_PTE_XD

#define EXPECT_WALK(pg, linear, access, res, lvl, addr)                                    \
	do {                                                                               \
		struct gw_walk w_;                                                         \
		assert_int_equal(guest_walk(pg, &mem, linear, access, &w_), res);          \
		assert_int_equal(w_.result, res);                                          \
		assert_int_equal(w_.level, lvl);                                           \
		assert_int_equal(w_.gpa, addr);                                            \
	} while (0)

static void test_paging_off(void **state)
{
	struct guest_paging pg = { .cr0 = 0x11 };	/* PE, ET: protected mode, no paging */
	struct gw_walk w;

	(void)state;
	assert_int_equal(guest_paging_mode(&pg), GW_MODE_NONE);
	assert_int_equal(guest_walk(&pg, &mem, 0xfee00020, 0, &w), GW_OK);
	assert_int_equal(w.gpa, 0xfee00020);
	assert_int_equal(w.page_bytes, GW_PAGE_4K);
	assert_int_equal(w.level, 0);
	/* a 32-bit linear address: the high half is not there */
	EXPECT_WALK(&pg, 0x100001234ull, 0, GW_OK, 0, 0x1234);
	/* no tables, no reads */
	assert_int_equal(ram.reads, 0);
	/* CR4.PAE without CR0.PG is still no paging */
	pg.cr4 = GW_CR4_PAE;
	EXPECT_WALK(&pg, 0x5000, GW_ACCESS_WRITE | GW_ACCESS_USER, GW_OK, 0, 0x5000);
}

static void test_32bit(void **state)
{
	struct guest_paging pg = { .cr0 = GW_CR0_PG | 1, .cr3 = 0x1000, .maxphyaddr = 40 };
	struct gw_walk w;

	(void)state;
	assert_int_equal(guest_paging_mode(&pg), GW_MODE_32);
	put32(0x1000 + 0 * 4, 0x2000 | P | RW | US);		/* PDE 0: the PT at 0x2000 */
	put32(0x2000 + 5 * 4, 0x7000 | P | RW | US);		/* 0x5000 -> 0x7000 */
	put32(0x2000 + 6 * 4, 0x8000 | P | US);		/* 0x6000, read-only */
	put32(0x2000 + 7 * 4, 0x9000 | P | RW);		/* 0x7000, supervisor */
	put32(0x1000 + 1 * 4, 0x00800000 | PS | P | RW);	/* 4 MiB at 8 MiB, or a PT there */
	/* PSE-36: physical 39:32 = 0x12 in bits 20:13 */
	put32(0x1000 + 2 * 4, 0xffc00000u | 0x12u << 13 | PS | P | RW);
	put32(0x1000 + 3 * 4, 0x00c00000u | 1u << 21 | PS | P);	/* bit 21 is reserved */

	EXPECT_WALK(&pg, 0x5123, 0, GW_OK, 1, 0x7123);
	assert_int_equal(guest_walk(&pg, &mem, 0x5123, 0, &w), GW_OK);
	assert_int_equal(w.page_bytes, GW_PAGE_4K);
	assert_int_equal(w.entry, 0x7000 | P | RW | US);
	/* 32-bit linear addresses: bit 32 and up are dropped */
	EXPECT_WALK(&pg, 0xf00005123ull, 0, GW_OK, 1, 0x7123);
	EXPECT_WALK(&pg, 0x4000, 0, GW_NOT_PRESENT, 1, 0);
	EXPECT_WALK(&pg, 0x01000000, 0, GW_NOT_PRESENT, 2, 0);

	/* without CR4.PSE the PS bit is ignored: the PDE points at a PT at 8 MiB */
	EXPECT_WALK(&pg, 0x00412345, 0, GW_TABLE_NOT_RAM, 1, 0x00800000 + 0x12 * 4);
	pg.cr4 = GW_CR4_PSE;
	EXPECT_WALK(&pg, 0x00412345, 0, GW_OK, 2, 0x00812345);
	assert_int_equal(guest_walk(&pg, &mem, 0x00412345, 0, &w), GW_OK);
	assert_int_equal(w.page_bytes, GW_PAGE_4M);
	EXPECT_WALK(&pg, 0x008abcde, 0, GW_OK, 2, 0x12ffc00000ull | 0xabcde);
	/* MAXPHYADDR 36: bits 21:17 are reserved and 0x12 sets bit 17 */
	pg.maxphyaddr = 36;
	EXPECT_WALK(&pg, 0x008abcde, 0, GW_RESERVED, 2, 0);
	pg.maxphyaddr = 40;
	EXPECT_WALK(&pg, 0x00c00000, 0, GW_RESERVED, 2, 0);

	/* permissions, only when asked */
	EXPECT_WALK(&pg, 0x6000, GW_ACCESS_WRITE, GW_OK, 1, 0x8000);	/* CR0.WP = 0 */
	EXPECT_WALK(&pg, 0x6000, GW_ACCESS_WRITE | GW_ACCESS_USER, GW_PROTECTION, 1, 0x8000);
	EXPECT_WALK(&pg, 0x6000, GW_ACCESS_USER, GW_OK, 1, 0x8000);
	EXPECT_WALK(&pg, 0x7000, GW_ACCESS_USER | GW_ACCESS_FETCH, GW_PROTECTION, 1, 0x9000);
	EXPECT_WALK(&pg, 0x7000, GW_ACCESS_FETCH, GW_OK, 1, 0x9000);	/* no XD here */
	pg.cr0 |= GW_CR0_WP;
	EXPECT_WALK(&pg, 0x6000, GW_ACCESS_WRITE, GW_PROTECTION, 1, 0x8000);
	/* the 4 MiB PDE has no U/S */
	EXPECT_WALK(&pg, 0x00412345, GW_ACCESS_USER, GW_PROTECTION, 2, 0x00812345);
}

static void test_pae(void **state)
{
	struct guest_paging pg = {
		.cr0 = GW_CR0_PG | 1, .cr3 = 0x1020, .cr4 = GW_CR4_PAE, .maxphyaddr = 46,
	};
	struct gw_walk w;

	(void)state;
	assert_int_equal(guest_paging_mode(&pg), GW_MODE_PAE);
	/* the PDPT is at CR3[31:5], not page-aligned */
	set_pte(0x1020, 0, 0x2000 | P);
	set_pte(0x1020, 1, 0x5000 | P);
	set_pte(0x1020, 3, 0x6000 | P | RW);	/* R/W is reserved in a PAE PDPTE */
	set_pte(0x2000, 0, 0x3000 | P | RW);
	set_pte(0x3000, 1, 0x9000 | P | RW);
	set_pte(0x2000, 1, 0x00200000 | PS | P | RW);
	set_pte(0x2000, 2, 0x00400000 | 1ull << 13 | PS | P);	/* 20:13 reserved */
	set_pte(0x2000, 3, 0x00600000 | XD | PS | P);
	set_pte(0x2000, 4, 0x3000 | 1ull << 50 | P);		/* above MAXPHYADDR 46 */

	EXPECT_WALK(&pg, 0x1abc, 0, GW_OK, 1, 0x9abc);
	EXPECT_WALK(&pg, 0x100001abcull, 0, GW_OK, 1, 0x9abc);
	EXPECT_WALK(&pg, 0x00212345, 0, GW_OK, 2, 0x00212345);
	assert_int_equal(guest_walk(&pg, &mem, 0x00212345, 0, &w), GW_OK);
	assert_int_equal(w.page_bytes, GW_PAGE_2M);
	EXPECT_WALK(&pg, 0x00400000, 0, GW_RESERVED, 2, 0);
	EXPECT_WALK(&pg, 0x00800000, 0, GW_RESERVED, 2, 0);
	EXPECT_WALK(&pg, 0x00000000, 0, GW_NOT_PRESENT, 1, 0);
	EXPECT_WALK(&pg, 0x80000000, 0, GW_NOT_PRESENT, 3, 0);
	EXPECT_WALK(&pg, 0xc0000000, 0, GW_RESERVED, 3, 0);
	EXPECT_WALK(&pg, 0x40000000, 0, GW_NOT_PRESENT, 2, 0);

	/* XD: reserved without EFER.NXE; with it, only a fetch minds */
	EXPECT_WALK(&pg, 0x00612345, 0, GW_RESERVED, 2, 0);
	pg.efer = GW_EFER_NXE;
	EXPECT_WALK(&pg, 0x00612345, 0, GW_OK, 2, 0x00612345);
	EXPECT_WALK(&pg, 0x00612345, GW_ACCESS_FETCH, GW_PROTECTION, 2, 0x00612345);

	/* the VMCS's PDPTEs, when given, are used instead of memory */
	pg.pdpte_valid = true;
	pg.pdpte[0] = 0x4000 | P;
	set_pte(0x4000, 0, 0x3000 | P);
	set_pte(0x3000, 1, 0xa000 | P);
	EXPECT_WALK(&pg, 0x1abc, 0, GW_OK, 1, 0xaabc);
	EXPECT_WALK(&pg, 0x80000000, 0, GW_NOT_PRESENT, 3, 0);
	pg.pdpte[0] = 0x4000 | P | 1ull << 5;
	EXPECT_WALK(&pg, 0x1abc, 0, GW_RESERVED, 3, 0);
	/* a PDPT outside RAM */
	pg.pdpte_valid = false;
	pg.cr3 = 0xfffff000;
	EXPECT_WALK(&pg, 0xc0000000, 0, GW_TABLE_NOT_RAM, 3, 0xfffff018);
}

/* 4-level tables: PML4 0x1000, PDPT 0x2000, PD 0x3000, PT 0x4000 */
static void build_4level(void)
{
	set_pte(0x1000, 0, 0x2000 | P | RW | US);
	set_pte(0x2000, 0, 0x3000 | P | RW | US);
	set_pte(0x3000, 0, 0x4000 | P | RW | US);
	set_pte(0x4000, 0x10, 0x55000 | P | RW | US);
	set_pte(0x3000, 1, 0x40000000 | PS | P | RW);		/* 2 MiB */
	set_pte(0x2000, 1, 0x80000000 | PS | P | RW);		/* 1 GiB */
	set_pte(0x2000, 2, 0xc0000000 | 1ull << 13 | PS | P);	/* 29:13 reserved */
	set_pte(0x2000, 3, 0x3000 | 1ull << 45 | P);		/* past MAXPHYADDR 40 */
	set_pte(0x1000, 1, 0x2000 | PS | P);			/* PS in a PML4E */
	set_pte(0x1000, 256, 0x5000 | P | RW);			/* the upper half */
	set_pte(0x5000, 0, 0x6000 | P | RW);
	set_pte(0x6000, 0, 0x7000 | P | RW);
	set_pte(0x7000, 1, 0x66000 | P | XD);
}

static void test_4level(void **state)
{
	struct guest_paging pg = {
		.cr0 = GW_CR0_PG | GW_CR0_WP | 1, .cr3 = 0x1000, .cr4 = GW_CR4_PAE,
		.efer = GW_EFER_LMA | GW_EFER_NXE, .maxphyaddr = 40,
	};
	struct gw_walk w;

	(void)state;
	build_4level();
	assert_int_equal(guest_paging_mode(&pg), GW_MODE_4LEVEL);
	EXPECT_WALK(&pg, 0x10010, 0, GW_OK, 1, 0x55010);
	assert_int_equal(ram.reads, 4);
	EXPECT_WALK(&pg, 0x201234, 0, GW_OK, 2, 0x40001234);
	EXPECT_WALK(&pg, 0x40123456, 0, GW_OK, 3, 0x80123456);
	assert_int_equal(guest_walk(&pg, &mem, 0x7fffffff, 0, &w), GW_OK);
	assert_int_equal(w.gpa, 0xbfffffff);
	assert_int_equal(w.page_bytes, GW_PAGE_1G);
	assert_int_equal(guest_walk(&pg, &mem, 0x3fffff, 0, &w), GW_OK);
	assert_int_equal(w.page_bytes, GW_PAGE_2M);
	/* the PCID in CR3's low 12 bits is not part of the address */
	pg.cr3 = 0x1000 | 0x7;
	EXPECT_WALK(&pg, 0x10010, 0, GW_OK, 1, 0x55010);
	pg.cr3 = 0x1000;

	EXPECT_WALK(&pg, 0x80000000, 0, GW_RESERVED, 3, 0);
	EXPECT_WALK(&pg, 0xc0000000, 0, GW_RESERVED, 3, 0);
	EXPECT_WALK(&pg, 0x8000000000ull, 0, GW_RESERVED, 4, 0);
	EXPECT_WALK(&pg, 0x11000, 0, GW_NOT_PRESENT, 1, 0);
	EXPECT_WALK(&pg, 0x400000, 0, GW_NOT_PRESENT, 2, 0);
	EXPECT_WALK(&pg, 0x10000000000ull, 0, GW_NOT_PRESENT, 4, 0);

	/* with MAXPHYADDR 52 the same PDPTE is a table at 32 TiB: not RAM */
	pg.maxphyaddr = 0;
	EXPECT_WALK(&pg, 0xc0000000, 0, GW_TABLE_NOT_RAM, 2, 1ull << 45 | 0x3000);
	pg.maxphyaddr = 40;

	/* the upper half, and the hole between the halves */
	EXPECT_WALK(&pg, 0xffff800000001234ull, 0, GW_OK, 1, 0x66234);
	EXPECT_WALK(&pg, 0x0000800000000000ull, 0, GW_NOT_CANONICAL, 0, 0);
	EXPECT_WALK(&pg, 0xffff7fffffffffffull, 0, GW_NOT_CANONICAL, 0, 0);
	EXPECT_WALK(&pg, 0x00ff800000001234ull, 0, GW_NOT_CANONICAL, 0, 0);

	/* U/S, R/W with CR0.WP, XD with EFER.NXE */
	EXPECT_WALK(&pg, 0x10010, GW_ACCESS_USER | GW_ACCESS_WRITE | GW_ACCESS_FETCH, GW_OK, 1,
		    0x55010);
	EXPECT_WALK(&pg, 0x201234, GW_ACCESS_USER, GW_PROTECTION, 2, 0x40001234);
	EXPECT_WALK(&pg, 0xffff800000001234ull, GW_ACCESS_FETCH, GW_PROTECTION, 1, 0x66234);
	EXPECT_WALK(&pg, 0xffff800000001234ull, GW_ACCESS_WRITE, GW_PROTECTION, 1, 0x66234);
	pg.cr0 &= ~GW_CR0_WP;
	EXPECT_WALK(&pg, 0xffff800000001234ull, GW_ACCESS_WRITE, GW_OK, 1, 0x66234);
	/* without NXE the XD bit is reserved */
	pg.efer = GW_EFER_LMA;
	EXPECT_WALK(&pg, 0xffff800000001234ull, 0, GW_RESERVED, 1, 0);
}

static void test_5level(void **state)
{
	struct guest_paging pg = {
		.cr0 = GW_CR0_PG | 1, .cr3 = 0x8000, .cr4 = GW_CR4_PAE | GW_CR4_LA57,
		.efer = GW_EFER_LMA, .maxphyaddr = 52,
	};
	const uint64_t high = 0x00ff800000001234ull;	/* PML5 index 255, PML4 index 256 */

	(void)state;
	build_4level();
	assert_int_equal(guest_paging_mode(&pg), GW_MODE_5LEVEL);
	set_pte(0x8000, 0, 0x1000 | P | RW);		/* PML5E 0: the 4-level tables */
	set_pte(0x8000, 255, 0x9000 | P | RW);
	set_pte(0x9000, 256, 0x5000 | P | RW);
	set_pte(0x8000, 1, 0x1000 | PS | P);		/* PS in a PML5E */
	set_pte(0x7000, 1, 0x66000 | P);		/* no XD: this walk has no NXE */
	ram.reads = 0;
	EXPECT_WALK(&pg, 0x10010, 0, GW_OK, 1, 0x55010);
	assert_int_equal(ram.reads, 5);
	EXPECT_WALK(&pg, 0x40123456, 0, GW_OK, 3, 0x80123456);
	/* canonical in 57 bits only */
	EXPECT_WALK(&pg, high, 0, GW_OK, 1, 0x66234);
	EXPECT_WALK(&pg, 0xff00000000000000ull, 0, GW_NOT_PRESENT, 5, 0);
	EXPECT_WALK(&pg, 0x0100000000000000ull, 0, GW_NOT_CANONICAL, 0, 0);
	EXPECT_WALK(&pg, 0xfe00000000000000ull, 0, GW_NOT_CANONICAL, 0, 0);
	EXPECT_WALK(&pg, 0x0001000000000000ull, 0, GW_RESERVED, 5, 0);
	pg.cr4 &= ~GW_CR4_LA57;
	EXPECT_WALK(&pg, high, 0, GW_NOT_CANONICAL, 0, 0);
}

#define FETCH(linear, access) guest_fetch(&pg, &mem, linear, access, buf, sizeof(buf), &stop)

/* Code at linear 0x400000 on gpa 0x20000; the next page is set per case. */
static void test_fetch(void **state)
{
	struct guest_paging pg = {
		.cr0 = GW_CR0_PG | 1, .cr3 = 0x1000, .cr4 = GW_CR4_PAE,
		.efer = GW_EFER_LMA | GW_EFER_NXE,
	};
	uint8_t buf[X86_INSN_MAX_BYTES];
	struct gw_walk stop;

	(void)state;
	build_4level();
	set_pte(0x3000, 2, 0x8000 | P | RW | US);	/* the PT for 0x400000 */
	set_pte(0x8000, 0, 0x20000 | P | US);
	for (unsigned int i = 0; i < 16; i++) {
		ram.bytes[0x20ff8 + i] = (uint8_t)(0xa0 + i);
		ram.bytes[0x30000 + i] = (uint8_t)(0xb0 + i);
		ram.bytes[0x20000 + i] = (uint8_t)(0xc0 + i);
	}

	/* within one page */
	assert_int_equal(FETCH(0x400000, GW_ACCESS_FETCH), 15);
	assert_int_equal(stop.result, GW_OK);
	assert_int_equal(buf[0], 0xc0);
	assert_int_equal(buf[14], 0xce);

	/* the next page is not present: the 8 bytes before it */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(FETCH(0x400ff8, GW_ACCESS_FETCH), 8);
	assert_int_equal(stop.result, GW_NOT_PRESENT);
	assert_int_equal(stop.level, 1);
	assert_int_equal(buf[7], 0xa7);
	assert_int_equal(buf[8], 0);
	/* NULL is a fine stop */
	assert_int_equal(guest_fetch(&pg, &mem, 0x400ff8, 0, buf, sizeof(buf), NULL), 8);

	/* present, elsewhere: translated on its own */
	set_pte(0x8000, 1, 0x30000 | P | US);
	assert_int_equal(FETCH(0x400ff8, GW_ACCESS_FETCH), 15);
	assert_int_equal(stop.result, GW_OK);
	assert_int_equal(buf[7], 0xa7);
	assert_int_equal(buf[8], 0xb0);
	assert_int_equal(buf[14], 0xb6);

	/* not executable: the first page's bytes only */
	set_pte(0x8000, 1, 0x30000 | P | US | XD);
	assert_int_equal(FETCH(0x400ffc, GW_ACCESS_FETCH | GW_ACCESS_USER), 4);
	assert_int_equal(stop.result, GW_PROTECTION);
	assert_int_equal(guest_fetch(&pg, &mem, 0x400ffc, 0, buf, sizeof(buf), &stop), 15);

	/* mapped, but on a page that is not RAM (an MMIO BAR) */
	set_pte(0x8000, 1, 0x200000000ull | P);
	assert_int_equal(FETCH(0x400ff1, GW_ACCESS_FETCH), 15);
	assert_int_equal(FETCH(0x400ff2, GW_ACCESS_FETCH), 14);
	assert_int_equal(stop.result, GW_PAGE_NOT_RAM);
	assert_int_equal(stop.gpa, 0x200000000ull);
	set_pte(0x8000, 0, 0x200000000ull | P);
	assert_int_equal(FETCH(0x400ff2, GW_ACCESS_FETCH), 0);
	assert_int_equal(stop.result, GW_PAGE_NOT_RAM);

	/* the first page not there at all */
	assert_int_equal(FETCH(0x600000, GW_ACCESS_FETCH), 0);
	assert_int_equal(stop.result, GW_NOT_PRESENT);
	assert_int_equal(stop.level, 2);
	/* non-canonical past the end of the lower half */
	set_pte(0x1000, 255, 0x2000 | P);
	set_pte(0x2000, 511, 0x3000 | P);
	set_pte(0x3000, 511, 0x8000 | P);
	set_pte(0x8000, 511, 0x20000 | P);
	assert_int_equal(guest_fetch(&pg, &mem, 0x7ffffffffffaull, 0, buf, sizeof(buf), &stop), 6);
	assert_int_equal(stop.result, GW_NOT_CANONICAL);
	assert_int_equal(guest_fetch(&pg, &mem, 0x400000, 0, buf, 0, &stop), 0);
	assert_int_equal(stop.result, GW_OK);
}

/* 32-bit paging: a fetch at 0xfffffff8 goes on at linear 0 */
static void test_fetch_wraps_4g(void **state)
{
	struct guest_paging pg = { .cr0 = GW_CR0_PG | 1, .cr3 = 0x1000 };
	uint8_t buf[X86_INSN_MAX_BYTES];
	struct gw_walk stop;

	(void)state;
	put32(0x1000 + 1023 * 4, 0x2000 | P);
	put32(0x2000 + 1023 * 4, 0x5000 | P);
	put32(0x1000, 0x3000 | P);
	put32(0x3000, 0x6000 | P);
	memset(ram.bytes + 0x5ff8, 0x11, 8);
	memset(ram.bytes + 0x6000, 0x22, 8);
	assert_int_equal(guest_fetch(&pg, &mem, 0xfffffff8, 0, buf, sizeof(buf), &stop), 15);
	assert_int_equal(buf[7], 0x11);
	assert_int_equal(buf[8], 0x22);
	/* paging off: the same wrap, as a 32-bit linear address */
	pg.cr0 = 1;
	ram.bytes[0] = 0x33;
	assert_int_equal(guest_fetch(&pg, &mem, 0xffffffff, 0, buf, sizeof(buf), &stop), 0);
	assert_int_equal(stop.result, GW_PAGE_NOT_RAM);
	assert_int_equal(guest_fetch(&pg, &mem, RAM_BYTES - 4, 0, buf, sizeof(buf), &stop), 4);
	assert_int_equal(stop.gpa, RAM_BYTES);
}

static void test_hostile_tables(void **state)
{
	struct guest_paging pg = {
		.cr0 = GW_CR0_PG | 1, .cr3 = 0x1000, .cr4 = GW_CR4_PAE | GW_CR4_LA57,
		.efer = GW_EFER_LMA | GW_EFER_NXE,
	};
	struct gw_walk w;

	(void)state;
	/* a table that is its own entry at every level: five reads, and a page */
	set_pte(0x1000, 0, 0x1000 | P | RW);
	ram.reads = 0;
	EXPECT_WALK(&pg, 0x123, 0, GW_OK, 1, 0x1123);
	assert_int_equal(ram.reads, 5);
	/* the same loop ending in a 2 MiB page: at 0 for 0x1000, reserved for 0x3000 */
	set_pte(0x1000, 1, 0x1000 | PS | P);
	EXPECT_WALK(&pg, 0x201000, 0, GW_OK, 2, 0x1000);
	set_pte(0x1000, 1, 0x3000 | PS | P);
	EXPECT_WALK(&pg, 0x201000, 0, GW_RESERVED, 2, 0);
	/* a PML5E pointing past RAM, and a CR3 past it */
	set_pte(0x1000, 2, 0xfffff000 | P);
	EXPECT_WALK(&pg, 2ull << 48, 0, GW_TABLE_NOT_RAM, 4, 0xfffff000);
	pg.cr3 = RAM_BYTES;
	EXPECT_WALK(&pg, 0, 0, GW_TABLE_NOT_RAM, 5, RAM_BYTES);
	/* CR3 bits above MAXPHYADDR are not followed */
	pg.cr3 = 0xfff0000000001000ull;
	EXPECT_WALK(&pg, 0x123, 0, GW_OK, 1, 0x1123);
	/* all ones: PS in the PML5E (and every other reserved bit) */
	pg.cr3 = 0x1000;
	set_pte(0x1000, 3, ~0ull);
	EXPECT_WALK(&pg, 3ull << 48, 0, GW_RESERVED, 5, 0);
	assert_int_equal(guest_walk(&pg, &mem, 3ull << 48, 0, &w), GW_RESERVED);
	assert_int_equal(w.entry, ~0ull);
	/* MAXPHYADDR out of range is clamped: 200 -> 52, 1 -> 32 */
	pg.maxphyaddr = 200;
	EXPECT_WALK(&pg, 0x123, 0, GW_OK, 1, 0x1123);
	pg.maxphyaddr = 1;
	set_pte(0x1000, 4, 0x100000000ull | P);
	EXPECT_WALK(&pg, 4ull << 48, 0, GW_RESERVED, 5, 0);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	return xorshift64(&rng_state);
}

/* Random tables and addresses in every mode: bounded reads, sane outcomes. */
static void test_garbage_tables(void **state)
{
	static const uint64_t cr4s[] = { 0, GW_CR4_PSE, GW_CR4_PAE, GW_CR4_PAE | GW_CR4_LA57 };
	uint8_t buf[X86_INSN_MAX_BYTES];

	(void)state;
	for (uint64_t i = 0; i < RAM_BYTES; i += 8) {
		/* mostly present entries that point into RAM, some not */
		uint64_t e = rng();

		if (e & 0x100)
			e = (e & ~0xffffffff00000000ull & ~0xff000ull) % RAM_BYTES | P;
		put64(i, e);
	}
	for (unsigned int n = 0; n < 20000; n++) {
		uint64_t r = rng();
		struct guest_paging pg = {
			.cr0 = GW_CR0_PG | (r & GW_CR0_WP), .cr3 = rng() % (RAM_BYTES + 0x2000),
			.cr4 = cr4s[r & 3], .efer = (r & 4 ? GW_EFER_LMA : 0) | (r & GW_EFER_NXE),
			.maxphyaddr = (uint8_t)(r >> 16), .pdpte_valid = r & 8,
			.pdpte = { rng(), rng() & 0xff0ff1, rng(), 0x2001 },
		};
		uint64_t linear = rng();
		struct gw_walk w;
		enum gw_result res;
		uint32_t got;

		if (r & 0x20)
			linear &= 0x7fffffffffffull;	/* canonical for 4-level */
		ram.reads = 0;
		res = guest_walk(&pg, &mem, linear, (uint32_t)(r >> 8) & 7, &w);
		assert_true(ram.reads <= 5);
		assert_int_equal(res, w.result);
		assert_true(w.level <= 5);
		if (res == GW_OK) {
			assert_true(w.page_bytes == GW_PAGE_4K || w.page_bytes == GW_PAGE_2M ||
				    w.page_bytes == GW_PAGE_4M || w.page_bytes == GW_PAGE_1G);
			assert_int_equal(w.gpa & (w.page_bytes - 1), linear & (w.page_bytes - 1));
			assert_true(w.gpa < 1ull << 52);
		}
		ram.reads = 0;
		got = guest_fetch(&pg, &mem, linear, (uint32_t)r & 7, buf, sizeof(buf), &w);
		assert_true(got <= sizeof(buf));
		assert_true(ram.reads <= 12);
		assert_true((got == sizeof(buf)) == (w.result == GW_OK));
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(gw_result_name(GW_OK), "ok");
	assert_string_equal(gw_result_name(GW_NOT_PRESENT), "not-present");
	assert_string_equal(gw_result_name(GW_PAGE_NOT_RAM), "page-not-ram");
	assert_string_equal(gw_result_name((enum gw_result)99), "?");
}

/* What MOV to CR0 checks before PAE PDPTEs go into the VMCS (hv/exit/cr.c). */
static void test_pdpte_reserved(void **state)
{
	(void)state;
	assert_false(gw_pdpte_reserved(0, 36));			/* not present: anything goes */
	assert_false(gw_pdpte_reserved(0xfffffffffffffffeull, 36));
	assert_false(gw_pdpte_reserved(0x12345000ull | 1, 36));	/* present, clean */
	assert_false(gw_pdpte_reserved(0x12345000ull | 1 | (1 << 3) | (1 << 4) | (7 << 9), 36));
	assert_true(gw_pdpte_reserved(1 | (1 << 1), 36));		/* R/W: reserved here */
	assert_true(gw_pdpte_reserved(1 | (1 << 2), 36));		/* U/S */
	for (unsigned int b = 5; b <= 8; b++)
		assert_true(gw_pdpte_reserved(1 | (1ull << b), 36));
	assert_true(gw_pdpte_reserved(1 | (1ull << 63), 52));		/* no XD in a PDPTE */
	/* address bits from MAXPHYADDR up */
	assert_true(gw_pdpte_reserved(1 | (1ull << 36), 36));
	assert_false(gw_pdpte_reserved(1 | (1ull << 35), 36));
	assert_false(gw_pdpte_reserved(1 | (1ull << 45), 46));
	assert_true(gw_pdpte_reserved(1 | (1ull << 46), 46));
	assert_false(gw_pdpte_reserved(1 | (1ull << 51), 0));		/* 0: 52 bits */
	assert_true(gw_pdpte_reserved(1 | (1ull << 52), 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_paging_off, ram_setup, ram_teardown),
		cmocka_unit_test_setup_teardown(test_32bit, ram_setup, ram_teardown),
		cmocka_unit_test_setup_teardown(test_pae, ram_setup, ram_teardown),
		cmocka_unit_test_setup_teardown(test_4level, ram_setup, ram_teardown),
		cmocka_unit_test_setup_teardown(test_5level, ram_setup, ram_teardown),
		cmocka_unit_test_setup_teardown(test_fetch, ram_setup, ram_teardown),
		cmocka_unit_test_setup_teardown(test_fetch_wraps_4g, ram_setup, ram_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_tables, ram_setup, ram_teardown),
		cmocka_unit_test_setup_teardown(test_garbage_tables, ram_setup, ram_teardown),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_pdpte_reserved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
