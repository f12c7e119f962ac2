// SPDX-License-Identifier: MIT
/* Unit tests for hv/core/elf.c (ELF load planning and the multiboot header search). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/elf.h"
#include "hv/core/mb_header.h"
#include "xorshift.h"

#define MIB (1ull << 20)
#define MEM (64 * MIB)
#define MIN_ADDR MIB

/* ---- building ELF images ---- */

#define PT_LOAD 1
#define PT_NOTE 4
#define PT_GNU_STACK 0x6474e551u
#define PF_X 1
#define PF_W 2
#define PF_R 4
#define AUTO_OFFSET UINT64_MAX

struct seg {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;	/* AUTO_OFFSET: placed after the previous segment's bytes */
	uint64_t vaddr;		/* 0: same as paddr */
	uint64_t paddr;
	uint64_t filesz;
	uint64_t memsz;
};

struct img {
	uint8_t *b;
	size_t len;
	bool is64;
	uint32_t phnum;
};

static void w16(struct img *m, size_t off, uint16_t v)
{
	assert_true(off + 2 <= m->len);
	memcpy(m->b + off, &v, 2);
}

static void w32(struct img *m, size_t off, uint32_t v)
{
	assert_true(off + 4 <= m->len);
	memcpy(m->b + off, &v, 4);
}

static void w64(struct img *m, size_t off, uint64_t v)
{
	assert_true(off + 8 <= m->len);
	memcpy(m->b + off, &v, 8);
}

static size_t ehsize(bool is64)
{
	return is64 ? 64 : 52;
}

static size_t phentsize(bool is64)
{
	return is64 ? 56 : 32;
}

static size_t ph_at(const struct img *m, uint32_t i)
{
	return ehsize(m->is64) + i * phentsize(m->is64);
}

enum ph_field { F_TYPE, F_FLAGS, F_OFFSET, F_VADDR, F_PADDR, F_FILESZ, F_MEMSZ };

/* Set one program header field, in the class's layout (gABI "Program header"). */
static void set_ph(struct img *m, uint32_t i, enum ph_field f, uint64_t v)
{
	static const size_t off64[] = { 0, 4, 8, 16, 24, 32, 40 };
	static const size_t off32[] = { 0, 24, 4, 8, 12, 16, 20 };
	size_t at = ph_at(m, i);

	if (f == F_TYPE || f == F_FLAGS || !m->is64)
		w32(m, at + (m->is64 ? off64[f] : off32[f]), (uint32_t)v);
	else
		w64(m, at + off64[f], v);
}

static void set_entry(struct img *m, uint64_t entry)
{
	if (m->is64)
		w64(m, 24, entry);
	else
		w32(m, 24, (uint32_t)entry);
}

/*
 * An ET_EXEC image: ELF header, @n program headers, then each segment's file
 * bytes (a pattern naming the segment) at its offset.
 */
static struct img build(bool is64, uint64_t entry, const struct seg *s, uint32_t n)
{
	struct img m = { .is64 = is64, .phnum = n };
	size_t pos = ehsize(is64) + n * phentsize(is64);
	uint64_t offs[64];

	assert_true(n <= 64);
	m.len = pos;
	for (uint32_t i = 0; i < n; i++) {
		offs[i] = s[i].offset == AUTO_OFFSET ? m.len : s[i].offset;
		if (s[i].filesz && offs[i] + s[i].filesz > m.len)
			m.len = offs[i] + s[i].filesz;
	}
	m.b = calloc(1, m.len);
	assert_non_null(m.b);
	memcpy(m.b, "\x7f" "ELF", 4);
	m.b[4] = is64 ? 2 : 1;
	m.b[5] = 1;
	m.b[6] = 1;
	w16(&m, 16, 2);			/* ET_EXEC */
	w16(&m, 18, is64 ? 62 : 3);
	w32(&m, 20, 1);
	set_entry(&m, entry);
	if (is64) {
		w64(&m, 32, 64);	/* e_phoff */
		w16(&m, 52, 64);
		w16(&m, 54, 56);
		w16(&m, 56, (uint16_t)n);
	} else {
		w32(&m, 28, 52);
		w16(&m, 40, 52);
		w16(&m, 42, 32);
		w16(&m, 44, (uint16_t)n);
	}
	for (uint32_t i = 0; i < n; i++) {
		set_ph(&m, i, F_TYPE, s[i].type);
		set_ph(&m, i, F_FLAGS, s[i].flags);
		set_ph(&m, i, F_OFFSET, offs[i]);
		set_ph(&m, i, F_VADDR, s[i].vaddr ? s[i].vaddr : s[i].paddr);
		set_ph(&m, i, F_PADDR, s[i].paddr);
		set_ph(&m, i, F_FILESZ, s[i].filesz);
		set_ph(&m, i, F_MEMSZ, s[i].memsz);
		if (s[i].filesz)
			memset(m.b + offs[i], 0xa0 + i, s[i].filesz);
	}
	return m;
}

static void img_free(struct img *m)
{
	free(m->b);
	m->b = NULL;
}

/* A typical kernel: text (RX), rodata (R), data (RW) with a .bss tail. */
static const struct seg kernel[] = {
	{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, 0x100000, 0x3000, 0x3000 },
	{ PT_LOAD, PF_R, AUTO_OFFSET, 0, 0x103000, 0x800, 0x1000 },
	{ PT_LOAD, PF_R | PF_W, AUTO_OFFSET, 0, 0x104000, 0x200, 0x5000 },
};

/* ---- running the planner on exact-size heap copies ---- */

static struct elf_plan plan;
static char err[160];

/*
 * Plan the first @len bytes of @m from an exact-size heap buffer, so ASan
 * reports any byte read past the image the planner was given.
 */
static int plan_n(const struct img *m, size_t len, uint64_t min_addr, uint64_t mem)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, m->b, len < m->len ? len : m->len);
	memset(err, 0x5a, sizeof(err));
	memset(&plan, 0xa5, sizeof(plan));
	ret = elf_plan_load(copy, len, min_addr, mem, &plan, err, sizeof(err));
	free(copy);
	return ret;
}

static int plan_img(const struct img *m)
{
	return plan_n(m, m->len, MIN_ADDR, MEM);
}

static void assert_plan_zeroed(void)
{
	static const struct elf_plan zero;

	assert_memory_equal(&plan, &zero, sizeof(zero));
}

static void expect_fail(int ret, const char *needle1, const char *needle2)
{
	assert_int_equal(ret, -1);
	assert_true(strlen(err) > 0);
	assert_true(strlen(err) < sizeof(err));
	assert_null(strchr(err, '\n'));
	if (needle1 && !strstr(err, needle1))
		fail_msg("message \"%s\" lacks \"%s\"", err, needle1);
	if (needle2 && !strstr(err, needle2))
		fail_msg("message \"%s\" lacks \"%s\"", err, needle2);
	assert_plan_zeroed();
}

static void expect_ok(int ret)
{
	if (ret)
		fail_msg("planning failed: %s", err);
	assert_string_equal(err, "");
}

static void check_kernel_plan(const struct img *m)
{
	size_t first = ehsize(m->is64) + 3 * phentsize(m->is64);

	assert_int_equal(plan.is64, m->is64);
	assert_int_equal(plan.entry, 0x100010);
	assert_int_equal(plan.segment_count, 3);
	assert_int_equal(plan.segments[0].file_offset, first);
	assert_int_equal(plan.segments[0].file_size, 0x3000);
	assert_int_equal(plan.segments[0].paddr, 0x100000);
	assert_int_equal(plan.segments[0].mem_size, 0x3000);
	assert_true(plan.segments[0].exec);
	assert_int_equal(plan.segments[1].file_offset, first + 0x3000);
	assert_int_equal(plan.segments[1].file_size, 0x800);
	assert_int_equal(plan.segments[1].mem_size, 0x1000);
	assert_false(plan.segments[1].exec);
	assert_int_equal(plan.segments[2].file_offset, first + 0x3800);
	assert_int_equal(plan.segments[2].file_size, 0x200);
	assert_int_equal(plan.segments[2].paddr, 0x104000);
	assert_int_equal(plan.segments[2].mem_size, 0x5000);
	assert_false(plan.segments[2].exec);
	assert_int_equal(plan.lowest, 0x100000);
	assert_int_equal(plan.highest, 0x109000);
	/* The bytes the plan points at are the segment's own. */
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(m->b[plan.segments[i].file_offset], 0xa0 + i);
}

/* ---- good images ---- */

static void test_elf64_kernel(void **state)
{
	struct img m = build(true, 0x100010, kernel, 3);

	(void)state;
	expect_ok(plan_img(&m));
	check_kernel_plan(&m);
	img_free(&m);
}

static void test_elf32_kernel(void **state)
{
	struct img m = build(false, 0x100010, kernel, 3);

	(void)state;
	expect_ok(plan_img(&m));
	check_kernel_plan(&m);
	img_free(&m);
}

/* Segments listed out of address order: lowest/highest still right. */
static void test_unsorted_segments(void **state)
{
	const struct seg s[] = {
		{ PT_LOAD, PF_R | PF_W, AUTO_OFFSET, 0, 0x300000, 0x10, 0x2000 },
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, 0x200000, 0x100, 0x100 },
		{ PT_LOAD, PF_R, AUTO_OFFSET, 0, 0x180000, 0x10, 0x10 },
	};
	struct img m = build(true, 0x2000ff, s, 3);

	(void)state;
	expect_ok(plan_img(&m));
	assert_int_equal(plan.lowest, 0x180000);
	assert_int_equal(plan.highest, 0x302000);
	assert_int_equal(plan.entry, 0x2000ff);
	img_free(&m);
}

/* Non-PT_LOAD headers and PT_LOAD with no memory are skipped. */
static void test_skipped_headers(void **state)
{
	const struct seg s[] = {
		{ PT_NOTE, PF_R, AUTO_OFFSET, 0, 0, 0x20, 0x20 },
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, 0x100000, 0x100, 0x100 },
		{ PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0 },
		{ PT_LOAD, PF_R, 0xdeadbeef, 0, 0x5000000, 0, 0 },	/* empty: ignored */
		{ PT_LOAD, PF_R | PF_W, AUTO_OFFSET, 0, 0x100100, 0x100, 0x100 },
	};
	struct img m = build(false, 0x100000, s, 5);

	(void)state;
	expect_ok(plan_img(&m));
	assert_int_equal(plan.segment_count, 2);
	assert_int_equal(plan.segments[0].paddr, 0x100000);
	assert_int_equal(plan.segments[1].paddr, 0x100100);
	img_free(&m);
}

/* A .bss-only segment may carry any offset: nothing is read from the file. */
static void test_bss_only_segment(void **state)
{
	const struct seg s[] = {
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, 0x100000, 0x100, 0x100 },
		{ PT_LOAD, PF_R | PF_W, 0xffffffffffff0000ull, 0, 0x200000, 0, 0x10000 },
	};
	struct img m = build(true, 0x100000, s, 2);

	(void)state;
	expect_ok(plan_img(&m));
	assert_int_equal(plan.segment_count, 2);
	assert_int_equal(plan.segments[1].file_offset, 0);
	assert_int_equal(plan.segments[1].file_size, 0);
	assert_int_equal(plan.segments[1].mem_size, 0x10000);
	assert_int_equal(plan.highest, 0x210000);
	img_free(&m);
}

/* Segments exactly at min_addr and ending exactly at the memory's end. */
static void test_exact_bounds(void **state)
{
	const struct seg s[] = {
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, MIN_ADDR, 0x10, 0x1000 },
		{ PT_LOAD, PF_R | PF_W, AUTO_OFFSET, 0, MEM - 0x1000, 0x10, 0x1000 },
		/* adjacent to the first */
		{ PT_LOAD, PF_R, AUTO_OFFSET, 0, MIN_ADDR + 0x1000, 0x10, 0x10 },
	};
	struct img m = build(true, MIN_ADDR + 0xfff, s, 3);

	(void)state;
	expect_ok(plan_img(&m));
	assert_int_equal(plan.lowest, MIN_ADDR);
	assert_int_equal(plan.highest, MEM);
	img_free(&m);
}

/*
 * A higher-half kernel: linked at a virtual address, loaded at p_paddr. The
 * entry is translated through the executable segment holding it.
 */
static void check_higher_half(bool is64, uint64_t vbase)
{
	const struct seg s[] = {
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, vbase, 0x100000, 0x2000, 0x2000 },
		{ PT_LOAD, PF_R | PF_W, AUTO_OFFSET, vbase + 0x2000, 0x102000, 0x100, 0x3000 },
	};
	struct img m = build(is64, vbase + 0x40, s, 2);

	expect_ok(plan_img(&m));
	assert_int_equal(plan.entry, 0x100040);
	assert_int_equal(plan.segments[0].paddr, 0x100000);
	img_free(&m);

	/* An entry that is virtual but in the data segment is refused. */
	m = build(is64, vbase + 0x2010, s, 2);
	expect_fail(plan_img(&m), "entry point", "not executable");
	img_free(&m);

	/* One in no segment at all. */
	m = build(is64, vbase + 0x100000, s, 2);
	expect_fail(plan_img(&m), "entry point", "outside");
	img_free(&m);
}

static void test_higher_half_entry(void **state)
{
	(void)state;
	check_higher_half(true, 0xffffffff80100000ull);
	check_higher_half(false, 0xc0100000ull);
}

/* An identity-linked entry (paddr range) is used as is. */
static void test_entry_at_segment_edges(void **state)
{
	struct img m = build(true, 0x100000, kernel, 3);

	(void)state;
	expect_ok(plan_img(&m));
	assert_int_equal(plan.entry, 0x100000);
	img_free(&m);
	m = build(true, 0x102fff, kernel, 3);
	expect_ok(plan_img(&m));
	img_free(&m);
	m = build(true, 0x103000, kernel, 3);	/* first byte of rodata */
	expect_fail(plan_img(&m), "0x103000", "not executable");
	img_free(&m);
	m = build(true, 0xfffff, kernel, 3);
	expect_fail(plan_img(&m), "0xfffff", "outside every loadable segment");
	img_free(&m);
	m = build(true, 0x109000, kernel, 3);
	expect_fail(plan_img(&m), "0x109000", "outside");
	img_free(&m);
}

/* ---- malformed images ---- */

/* Every strict prefix of a good image is refused, reading nothing past it. */
static void check_truncations(bool is64)
{
	struct img m = build(is64, 0x100010, kernel, 3);

	for (size_t len = 0; len < m.len; len++) {
		int ret = plan_n(&m, len, MIN_ADDR, MEM);

		if (ret != -1)
			fail_msg("%s-bit image cut to %zu of %zu bytes was accepted",
				 is64 ? "64" : "32", len, m.len);
		assert_plan_zeroed();
		assert_true(strlen(err) > 0);
	}
	expect_ok(plan_n(&m, m.len, MIN_ADDR, MEM));
	img_free(&m);
}

static void test_truncated_everywhere(void **state)
{
	(void)state;
	check_truncations(true);
	check_truncations(false);
}

static void test_bad_ident(void **state)
{
	struct img m = build(true, 0x100010, kernel, 3);
	struct img c;

	(void)state;
	c = m;
	c.b = malloc(m.len);
	assert_non_null(c.b);

#define RESET() memcpy(c.b, m.b, m.len)
	RESET();
	c.b[0] = 0x7e;
	expect_fail(plan_img(&c), "magic", NULL);
	RESET();
	c.b[3] = 'f';
	expect_fail(plan_img(&c), "magic", NULL);
	RESET();
	c.b[4] = 0;
	expect_fail(plan_img(&c), "class 0", NULL);
	RESET();
	c.b[4] = 3;
	expect_fail(plan_img(&c), "class 3", NULL);
	RESET();
	c.b[5] = 2;
	expect_fail(plan_img(&c), "little-endian", NULL);
	RESET();
	c.b[6] = 0;
	expect_fail(plan_img(&c), "version", NULL);
	RESET();
	w32(&c, 20, 2);
	expect_fail(plan_img(&c), "version", NULL);
	RESET();
	w16(&c, 16, 3);		/* ET_DYN */
	expect_fail(plan_img(&c), "type 3", "ET_EXEC");
	RESET();
	w16(&c, 16, 1);		/* ET_REL */
	expect_fail(plan_img(&c), "type 1", NULL);
	RESET();
	w16(&c, 18, 3);		/* EM_386 in a 64-bit image */
	expect_fail(plan_img(&c), "machine 3", "expected 62");
	RESET();
	w16(&c, 18, 40);	/* EM_ARM */
	expect_fail(plan_img(&c), "machine 40", NULL);
	RESET();
	w16(&c, 54, 32);
	expect_fail(plan_img(&c), "program header size 32", "expected 56");
	RESET();
	w16(&c, 56, 0);
	expect_fail(plan_img(&c), "no program headers", NULL);
	RESET();
	expect_ok(plan_img(&c));
#undef RESET
	free(c.b);
	img_free(&m);

	/* The 32-bit side: EM_X86_64 in a 32-bit image (x32) is refused. */
	m = build(false, 0x100010, kernel, 3);
	w16(&m, 18, 62);
	expect_fail(plan_img(&m), "machine 62", "expected 3");
	w16(&m, 18, 3);
	w16(&m, 42, 56);
	expect_fail(plan_img(&m), "program header size 56", "expected 32");
	img_free(&m);

	/* A class-64 ident on a 52-byte image: shorter than the 64-byte header. */
	m = build(false, 0x100010, NULL, 0);
	m.b[4] = 2;
	expect_fail(plan_img(&m), "shorter than the 64-byte", NULL);
	img_free(&m);
}

static void test_phdrs_out_of_image(void **state)
{
	struct img m = build(true, 0x100010, kernel, 3);

	(void)state;
	w64(&m, 32, m.len);			/* e_phoff at the very end */
	expect_fail(plan_img(&m), "program headers", "run past");
	w64(&m, 32, m.len - 56 * 3 + 1);	/* the last header one byte short */
	expect_fail(plan_img(&m), "program headers", NULL);
	w64(&m, 32, UINT64_MAX - 16);		/* phoff + size wraps */
	expect_fail(plan_img(&m), "program headers", NULL);
	w64(&m, 32, 64);
	w16(&m, 56, 0xffff);			/* phnum * phentsize far past the image */
	expect_fail(plan_img(&m), "65535 x 56", NULL);
	img_free(&m);

	m = build(false, 0x100010, kernel, 3);
	w32(&m, 28, 0xffffffffu);
	expect_fail(plan_img(&m), "program headers", "0xffffffff");
	img_free(&m);
}

static void test_filesz_over_memsz(void **state)
{
	struct img m = build(true, 0x100010, kernel, 3);

	(void)state;
	set_ph(&m, 1, F_FILESZ, 0x1001);
	expect_fail(plan_img(&m), "segment 1", "file size 0x1001 exceeds memory size 0x1000");
	/* A segment with file bytes but no memory is malformed, not empty. */
	set_ph(&m, 1, F_MEMSZ, 0);
	expect_fail(plan_img(&m), "segment 1", "exceeds memory size 0x0");
	img_free(&m);
}

static void test_file_bytes_out_of_image(void **state)
{
	struct img m = build(true, 0x100010, kernel, 3);

	(void)state;
	set_ph(&m, 2, F_OFFSET, m.len - 0x1ff);
	expect_fail(plan_img(&m), "segment 2", "run past");
	set_ph(&m, 2, F_OFFSET, m.len + 1);
	expect_fail(plan_img(&m), "segment 2", NULL);
	set_ph(&m, 2, F_OFFSET, UINT64_MAX - 0x100);	/* offset + filesz wraps */
	expect_fail(plan_img(&m), "segment 2", "run past");
	img_free(&m);
}

/* The message the brief promises: "segment 2: [0x100000, 0x5100000) exceeds ... 64 MiB". */
static void test_segment_outside_memory(void **state)
{
	const struct seg s[] = {
		{ PT_NOTE, 0, AUTO_OFFSET, 0, 0, 0x10, 0x10 },
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, 0x6000000, 0x10, 0x10 },
		{ PT_LOAD, PF_R | PF_W, AUTO_OFFSET, 0, 0x100000, 0x10, 0x5000000 },
	};
	struct img m = build(true, 0x6000000, s, 3);

	(void)state;
	set_ph(&m, 1, F_PADDR, 0x200000);
	expect_fail(plan_img(&m),
		    "segment 2: [0x100000, 0x5100000) exceeds the partition's 64 MiB", NULL);
	/* A size that is not whole MiB is given in bytes. */
	expect_fail(plan_n(&m, m.len, MIN_ADDR, 0x4000123), "0x4000123 bytes", NULL);
	/* One byte past the end. */
	set_ph(&m, 2, F_MEMSZ, MEM - 0x100000 + 1);
	expect_fail(plan_img(&m), "segment 2", "exceeds");
	set_ph(&m, 2, F_MEMSZ, MEM - 0x100000);
	set_ph(&m, 1, F_PADDR, 0x100000 - 0x10);
	expect_fail(plan_img(&m), "segment 1", "below the lowest loadable address 0x100000");
	img_free(&m);
}

static void test_segment_wraps(void **state)
{
	const struct seg s[] = {
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, 0xfffffffffffff000ull, 0x10, 0x2000 },
	};
	struct img m = build(true, 0xfffffffffffff000ull, s, 1);

	(void)state;
	expect_fail(plan_n(&m, m.len, 0, UINT64_MAX), "segment 0", "wraps");
	/* Ending at the last byte of memory is fine; at 2^64 it is not. */
	set_ph(&m, 0, F_MEMSZ, 0xfff);
	expect_ok(plan_n(&m, m.len, 0, UINT64_MAX));
	assert_int_equal(plan.highest, UINT64_MAX);
	set_ph(&m, 0, F_MEMSZ, 0x1000);
	expect_fail(plan_n(&m, m.len, 0, UINT64_MAX), "segment 0", "wraps");
	set_ph(&m, 0, F_MEMSZ, UINT64_MAX);
	set_ph(&m, 0, F_FILESZ, 0x10);
	expect_fail(plan_n(&m, m.len, 0, UINT64_MAX), "segment 0", NULL);
	img_free(&m);
}

static void test_below_min_addr(void **state)
{
	struct img m = build(false, 0x100010, kernel, 3);

	(void)state;
	expect_fail(plan_n(&m, m.len, 0x100001, MEM), "segment 0", "0x100000, below");
	expect_ok(plan_n(&m, m.len, 0x100000, MEM));
	expect_ok(plan_n(&m, m.len, 0, MEM));
	img_free(&m);
}

static void check_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen, bool overlaps)
{
	const struct seg s[] = {
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, a, 0, alen },
		{ PT_LOAD, PF_R | PF_W, AUTO_OFFSET, 0, b, 0, blen },
	};
	struct img m = build(true, a, s, 2);

	if (overlaps)
		expect_fail(plan_img(&m), "segment 1", "overlaps");
	else
		expect_ok(plan_img(&m));
	img_free(&m);
}

static void test_overlapping_segments(void **state)
{
	(void)state;
	check_overlap(0x200000, 0x1000, 0x200fff, 0x10, true);		/* tail */
	check_overlap(0x200000, 0x1000, 0x1ff000, 0x1001, true);	/* head */
	check_overlap(0x200000, 0x1000, 0x200000, 0x1000, true);	/* identical */
	check_overlap(0x200000, 0x1000, 0x200100, 0x10, true);		/* inside */
	check_overlap(0x200000, 0x1000, 0x1f0000, 0x20000, true);	/* around */
	check_overlap(0x200000, 0x1000, 0x201000, 0x10, false);		/* adjacent above */
	check_overlap(0x200000, 0x1000, 0x1ff000, 0x1000, false);	/* adjacent below */
}

static void test_segment_limit(void **state)
{
	struct seg s[ELF_MAX_SEGMENTS + 2];
	struct img m;

	(void)state;
	for (uint32_t i = 0; i < ELF_MAX_SEGMENTS + 2; i++)
		s[i] = (struct seg){ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, 0x100000 + i * 0x1000,
				     0x10, 0x1000 };
	m = build(true, 0x100000, s, ELF_MAX_SEGMENTS);
	expect_ok(plan_img(&m));
	assert_int_equal(plan.segment_count, ELF_MAX_SEGMENTS);
	img_free(&m);

	m = build(true, 0x100000, s, ELF_MAX_SEGMENTS + 1);
	expect_fail(plan_img(&m), "more than 16 loadable segments", "segment 16");
	img_free(&m);

	/* An empty one among 17 does not count. */
	s[5].memsz = 0;
	s[5].filesz = 0;
	m = build(true, 0x100000, s, ELF_MAX_SEGMENTS + 1);
	expect_ok(plan_img(&m));
	assert_int_equal(plan.segment_count, ELF_MAX_SEGMENTS);
	img_free(&m);
}

static void test_no_loadable_segments(void **state)
{
	const struct seg s[] = {
		{ PT_NOTE, PF_R, AUTO_OFFSET, 0, 0, 0x20, 0x20 },
		{ PT_LOAD, PF_R | PF_X, AUTO_OFFSET, 0, 0x100000, 0, 0 },
	};
	struct img m = build(true, 0x100000, s, 2);

	(void)state;
	expect_fail(plan_img(&m), "no loadable", NULL);
	img_free(&m);
}

static void test_small_err_buffers(void **state)
{
	struct img m = build(true, 0x100010, kernel, 3);
	char small[8];

	(void)state;
	m.b[0] = 0;
	assert_int_equal(elf_plan_load(m.b, m.len, MIN_ADDR, MEM, &plan, NULL, 0), -1);
	assert_int_equal(elf_plan_load(m.b, m.len, MIN_ADDR, MEM, &plan, NULL, 100), -1);
	memset(small, 0x5a, sizeof(small));
	assert_int_equal(elf_plan_load(m.b, m.len, MIN_ADDR, MEM, &plan, small, sizeof(small)),
			 -1);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(elf_plan_load(m.b, m.len, MIN_ADDR, MEM, NULL, small, sizeof(small)), -1);
	assert_int_equal(elf_plan_load(NULL, 100, MIN_ADDR, MEM, &plan, small, sizeof(small)), -1);
	img_free(&m);
}

/* Random damage to good images: refused or planned, never a bad read, never inconsistent. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	return xorshift64(&rng_state);
}

static void check_plan_sane(int ret, uint64_t min_addr, uint64_t mem, size_t len)
{
	if (ret) {
		assert_int_equal(ret, -1);
		assert_plan_zeroed();
		return;
	}
	assert_true(plan.segment_count >= 1 && plan.segment_count <= ELF_MAX_SEGMENTS);
	for (uint32_t i = 0; i < plan.segment_count; i++) {
		const struct elf_segment *s = &plan.segments[i];

		assert_true(s->file_size <= s->mem_size);
		assert_true(s->file_offset + s->file_size <= len);
		assert_true(s->paddr >= min_addr && s->paddr + s->mem_size <= mem);
		assert_true(s->paddr >= plan.lowest && s->paddr + s->mem_size <= plan.highest);
	}
}

static void test_random_damage(void **state)
{
	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		bool is64 = iter & 1;
		struct img m = build(is64, 0x100010, kernel, 3);
		int hits = 1 + rng() % 4;

		for (int h = 0; h < hits; h++) {
			size_t at = rng() % (ehsize(is64) + 3 * phentsize(is64));

			m.b[at] = rng() % 3 ? (uint8_t)rng() : 0xff;
		}
		check_plan_sane(plan_img(&m), MIN_ADDR, MEM, m.len);
		img_free(&m);
	}
}

/* ---- multiboot header search ---- */

static struct mb_header_info mbi;

#define MB2_MAGIC 0xe85250d6u
#define MB1_MAGIC 0x1badb002u

struct raw {
	uint8_t b[48 * 1024];
	size_t len;
};

static struct raw r;

static void raw_init(size_t len)
{
	memset(&r, 0, sizeof(r));
	r.len = len;
}

static void r32(size_t off, uint32_t v)
{
	assert_true(off + 4 <= sizeof(r.b));
	memcpy(r.b + off, &v, 4);
}

static void r16(size_t off, uint16_t v)
{
	assert_true(off + 2 <= sizeof(r.b));
	memcpy(r.b + off, &v, 2);
}

/* A multiboot2 header at @off: the fixed words then @tags (with their own end tag). */
static size_t mb2_put(size_t off, uint32_t arch, const void *tags, size_t tlen)
{
	uint32_t hlen = (uint32_t)(16 + tlen);

	r32(off, MB2_MAGIC);
	r32(off + 4, arch);
	r32(off + 8, hlen);
	r32(off + 12, (uint32_t)-(MB2_MAGIC + arch + hlen));
	memcpy(r.b + off + 16, tags, tlen);
	return off + 16;
}

static void mb1_put(size_t off, uint32_t flags)
{
	r32(off, MB1_MAGIC);
	r32(off + 4, flags);
	r32(off + 8, (uint32_t)-(MB1_MAGIC + flags));
}

/* Tags are built as u32 arrays: {type | flags << 16, size, payload...}. */
#define TAG(type, flags) ((uint32_t)(type) | (uint32_t)(flags) << 16)
static const uint32_t end_tag[] = { TAG(0, 0), 8 };

static int find_n(size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, r.b, len);
	memset(err, 0x5a, sizeof(err));
	memset(&mbi, 0xa5, sizeof(mbi));
	ret = mb_find_header(copy, len, &mbi, err, sizeof(err));
	free(copy);
	return ret;
}

static int find(void)
{
	return find_n(r.len);
}

static void expect_mb_fail(int ret, const char *needle1, const char *needle2)
{
	static const struct mb_header_info zero;

	assert_int_equal(ret, -1);
	assert_true(strlen(err) > 0 && strlen(err) < sizeof(err));
	if (needle1 && !strstr(err, needle1))
		fail_msg("message \"%s\" lacks \"%s\"", err, needle1);
	if (needle2 && !strstr(err, needle2))
		fail_msg("message \"%s\" lacks \"%s\"", err, needle2);
	assert_memory_equal(&mbi, &zero, sizeof(zero));
}

static void expect_mb(int ret, enum mb_version v, uint32_t off, uint32_t flags, bool ovr)
{
	if (ret)
		fail_msg("search failed: %s", err);
	assert_string_equal(err, "");
	assert_int_equal(mbi.version, v);
	assert_int_equal(mbi.offset, off);
	assert_int_equal(mbi.flags, flags);
	assert_int_equal(mbi.has_entry_override, ovr);
}

static void test_mb2_good(void **state)
{
	const uint32_t tags[] = {
		TAG(1, 0), 8 + 4 * 4, 1, 6, 15, 4,	/* required request, all provided */
		TAG(1, 1), 12, 8, 0,			/* optional request for framebuffer info */
		TAG(4, 0), 12, 2, 0,			/* console flags, EGA not required */
		TAG(5, 1), 20, 1024, 768, 32, 0,	/* optional framebuffer */
		TAG(6, 0), 8,				/* module alignment */
		TAG(7, 1), 8, TAG(9, 1), 12, 0x100000, 0,	/* EFI: not used */
		TAG(0x77, 1), 8,			/* an optional unknown tag */
		TAG(0, 0), 8,
	};

	(void)state;
	raw_init(4096);
	mb2_put(128, 0, tags, sizeof(tags));
	expect_mb(find(), MB_V2, 128, 0, false);
	/* Exactly as long as needed: the image ends with the header. */
	expect_mb(find_n(128 + 16 + sizeof(tags)), MB_V2, 128, 0, false);
	expect_mb_fail(find_n(128 + 16 + sizeof(tags) - 1), "header_length", NULL);
}

static void test_mb2_entry_override(void **state)
{
	const uint32_t entry[] = { TAG(3, 0), 12, 0x100040, 0, TAG(0, 0), 8 };
	const uint32_t addr[] = { TAG(2, 1), 24, 0x100000, 0x100000, 0, 0, TAG(0, 0), 8 };

	(void)state;
	raw_init(1024);
	mb2_put(0, 0, entry, sizeof(entry));
	expect_mb(find(), MB_V2, 0, 0, true);
	raw_init(1024);
	mb2_put(8, 0, addr, sizeof(addr));
	expect_mb(find(), MB_V2, 8, 0, true);
}

static void test_mb2_bad_checksum(void **state)
{
	(void)state;
	raw_init(1024);
	mb2_put(64, 0, end_tag, sizeof(end_tag));
	r32(64 + 12, 0);
	expect_mb_fail(find(), "multiboot2 header checksum at 0x40", NULL);
	/* A bad v2 with a good v1 behind it: v1 is taken (the v2 magic is data). */
	mb1_put(200, 0x3);
	expect_mb(find(), MB_V1, 200, 0x3, false);
	/* A good v2 later wins over the bad magic. */
	mb2_put(512, 0, end_tag, sizeof(end_tag));
	expect_mb(find(), MB_V2, 512, 0, false);
}

static void test_mb2_window(void **state)
{
	(void)state;
	raw_init(sizeof(r.b));
	mb2_put(32768, 0, end_tag, sizeof(end_tag));
	expect_mb_fail(find(), "no multiboot header in the first 32 KiB", NULL);
	/* Fixed words inside, the end tag outside the first 32 KiB. */
	raw_init(sizeof(r.b));
	mb2_put(32768 - 16, 0, end_tag, sizeof(end_tag));
	expect_mb_fail(find(), "header_length 24", NULL);
	raw_init(sizeof(r.b));
	mb2_put(32768 - 24, 0, end_tag, sizeof(end_tag));
	expect_mb(find(), MB_V2, 32768 - 24, 0, false);
	/* 4-aligned is not enough for v2. */
	raw_init(1024);
	mb2_put(12, 0, end_tag, sizeof(end_tag));
	expect_mb_fail(find(), "no multiboot header", NULL);
}

static void test_mb2_header_length(void **state)
{
	(void)state;
	raw_init(256);
	mb2_put(64, 0, end_tag, sizeof(end_tag));
	/* Longer than the image (checksum kept valid). */
	r32(64 + 8, 256);
	r32(64 + 12, (uint32_t)-(MB2_MAGIC + 256));
	expect_mb_fail(find(), "header_length 256", NULL);
	/* Too short for an end tag. */
	r32(64 + 8, 16);
	r32(64 + 12, (uint32_t)-(MB2_MAGIC + 16));
	expect_mb_fail(find(), "header_length 16", NULL);
	r32(64 + 8, 0xfffffff0u);
	r32(64 + 12, (uint32_t)-(MB2_MAGIC + 0xfffffff0u));
	expect_mb_fail(find(), "header_length", NULL);
}

static void test_mb2_bad_arch(void **state)
{
	(void)state;
	raw_init(256);
	mb2_put(0, 4, end_tag, sizeof(end_tag));	/* MIPS */
	expect_mb_fail(find(), "architecture 4", NULL);
}

static void test_mb2_malformed_tags(void **state)
{
	const uint32_t tiny[] = { TAG(4, 1), 4, 0, TAG(0, 0), 8 };
	const uint32_t past[] = { TAG(4, 1), 32, 0, 0, TAG(0, 0), 8 };
	const uint32_t no_end[] = { TAG(6, 1), 8, TAG(6, 1), 8 };
	const uint32_t short_console[] = { TAG(4, 0), 8, TAG(0, 0), 8 };
	const uint32_t end_big[] = { TAG(0, 0), 16, 0, 0 };

	(void)state;
	raw_init(512);
	mb2_put(0, 0, tiny, sizeof(tiny));
	expect_mb_fail(find(), "tag 4 at 0x10", "size 4 invalid");
	raw_init(512);
	mb2_put(0, 0, past, sizeof(past));
	expect_mb_fail(find(), "size 32 invalid", NULL);
	raw_init(512);
	mb2_put(0, 0, no_end, sizeof(no_end));
	expect_mb_fail(find(), "no end tag", NULL);
	raw_init(512);
	mb2_put(0, 0, short_console, sizeof(short_console));
	expect_mb_fail(find(), "console", "size 8");
	raw_init(512);
	mb2_put(0, 0, end_big, sizeof(end_big));
	expect_mb(find(), MB_V2, 0, 0, false);
	/* A tag whose size is not a multiple of 8: the next starts aligned. */
	{
		const uint32_t odd[] = { TAG(1, 0), 12, 1, 0, TAG(0, 0), 8 };

		raw_init(512);
		mb2_put(0, 0, odd, sizeof(odd));
		expect_mb(find(), MB_V2, 0, 0, false);
	}
	/* Header length ends inside a tag header. */
	{
		const uint32_t cut[] = { TAG(6, 1), 8, TAG(0, 0) };

		raw_init(512);
		mb2_put(0, 0, cut, sizeof(cut));
		expect_mb_fail(find(), "runs past header_length", NULL);
	}
}

static void test_mb2_required_tags(void **state)
{
	const uint32_t req_fb_info[] = { TAG(1, 0), 16, 1, 8, TAG(0, 0), 8 };
	const uint32_t req_efi[] = { TAG(1, 0), 12, 12, 0, TAG(0, 0), 8 };
	const uint32_t req_fb[] = { TAG(5, 0), 20, 0, 0, 0, 0, TAG(0, 0), 8 };
	const uint32_t req_ega[] = { TAG(4, 0), 12, 1, 0, TAG(0, 0), 8 };
	const uint32_t opt_ega[] = { TAG(4, 1), 12, 1, 0, TAG(0, 0), 8 };
	const uint32_t req_unknown[] = { TAG(0x42, 0), 8, TAG(0, 0), 8 };

	(void)state;
	raw_init(512);
	mb2_put(0, 0, req_fb_info, sizeof(req_fb_info));
	expect_mb_fail(find(), "information tag 8", NULL);
	raw_init(512);
	mb2_put(0, 0, req_efi, sizeof(req_efi));
	expect_mb_fail(find(), "information tag 12", NULL);
	raw_init(512);
	mb2_put(0, 0, req_fb, sizeof(req_fb));
	expect_mb_fail(find(), "framebuffer", NULL);
	raw_init(512);
	mb2_put(0, 0, req_ega, sizeof(req_ega));
	expect_mb_fail(find(), "EGA text console", NULL);
	raw_init(512);
	mb2_put(0, 0, opt_ega, sizeof(opt_ega));
	expect_mb(find(), MB_V2, 0, 0, false);
	raw_init(512);
	mb2_put(0, 0, req_unknown, sizeof(req_unknown));
	expect_mb_fail(find(), "tag 66", "required");
}

static void test_mb1_good(void **state)
{
	(void)state;
	raw_init(8192);
	mb1_put(4, 0x3);
	expect_mb(find(), MB_V1, 4, 0x3, false);
	raw_init(8192);
	mb1_put(8192 - 12, 0x7 | (1u << 20));	/* video mode and an optional bit: fine */
	expect_mb(find(), MB_V1, 8192 - 12, 0x7 | (1u << 20), false);
	raw_init(9000);
	mb1_put(8192 - 8, 0);			/* crosses the 8 KiB line */
	expect_mb_fail(find(), "no multiboot header", NULL);
	raw_init(8192);
	mb1_put(2, 0);				/* misaligned */
	expect_mb_fail(find(), "no multiboot header", NULL);
}

static void test_mb1_refused(void **state)
{
	(void)state;
	raw_init(1024);
	mb1_put(0, 0x10003);
	expect_mb_fail(find(),
		       "multiboot1 header requests the a.out kludge (flag 16): unsupported", NULL);
	raw_init(1024);
	mb1_put(0, 0x3 | (1u << 5));
	expect_mb_fail(find(), "feature flag 5", NULL);
	raw_init(1024);
	mb1_put(0, 0x3);
	r32(8, 0);
	expect_mb_fail(find(), "multiboot1 header checksum at 0x0", NULL);
}

static void test_both_prefers_v2(void **state)
{
	(void)state;
	raw_init(4096);
	mb1_put(0, 0x3);
	mb2_put(64, 0, end_tag, sizeof(end_tag));
	expect_mb(find(), MB_V2, 64, 0, false);
	/* A valid v2 with bad tags is refused, not passed over for v1. */
	r16(64 + 16, 0x42);
	expect_mb_fail(find(), "tag 66", NULL);
}

static void test_mb_truncations(void **state)
{
	(void)state;
	raw_init(2048);
	mb1_put(100, 0x3);
	mb2_put(1024, 0, end_tag, sizeof(end_tag));
	for (size_t len = 0; len <= 2048; len++) {
		int ret = find_n(len);

		if (len >= 1024 + 24)
			expect_mb(ret, MB_V2, 1024, 0, false);
		else if (len >= 1024 + 16)
			expect_mb_fail(ret, "header_length", NULL);
		else if (len >= 112)
			expect_mb(ret, MB_V1, 100, 0x3, false);
		else
			expect_mb_fail(ret, "no multiboot header", NULL);
	}
}

static void test_mb_null_args(void **state)
{
	char small[4];

	(void)state;
	raw_init(64);
	assert_int_equal(mb_find_header(NULL, 64, &mbi, err, sizeof(err)), -1);
	assert_int_equal(mb_find_header(r.b, 64, NULL, err, sizeof(err)), -1);
	assert_int_equal(mb_find_header(r.b, 64, &mbi, NULL, 0), -1);
	assert_int_equal(mb_find_header(r.b, 64, &mbi, small, sizeof(small)), -1);
	assert_int_equal(strlen(small), 3);
}

static void test_mb_random(void **state)
{
	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		const uint32_t tags[] = { TAG(1, 0), 12, 6, 0, TAG(4, 1), 12, 3, 0, TAG(0, 0), 8 };
		size_t len = 64 + rng() % 512;
		int ret;

		raw_init(len);
		if (len >= 16 + 16 + sizeof(tags))
			mb2_put(16, 0, tags, sizeof(tags));
		for (int h = 0; h < 3; h++)
			r.b[rng() % len] = (uint8_t)rng();
		ret = find();
		if (ret) {
			expect_mb_fail(ret, NULL, NULL);
			continue;
		}
		assert_true(mbi.version == MB_V1 || mbi.version == MB_V2);
		assert_true(mbi.offset < len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf64_kernel),
		cmocka_unit_test(test_elf32_kernel),
		cmocka_unit_test(test_unsorted_segments),
		cmocka_unit_test(test_skipped_headers),
		cmocka_unit_test(test_bss_only_segment),
		cmocka_unit_test(test_exact_bounds),
		cmocka_unit_test(test_higher_half_entry),
		cmocka_unit_test(test_entry_at_segment_edges),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_bad_ident),
		cmocka_unit_test(test_phdrs_out_of_image),
		cmocka_unit_test(test_filesz_over_memsz),
		cmocka_unit_test(test_file_bytes_out_of_image),
		cmocka_unit_test(test_segment_outside_memory),
		cmocka_unit_test(test_segment_wraps),
		cmocka_unit_test(test_below_min_addr),
		cmocka_unit_test(test_overlapping_segments),
		cmocka_unit_test(test_segment_limit),
		cmocka_unit_test(test_no_loadable_segments),
		cmocka_unit_test(test_small_err_buffers),
		cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_mb2_good),
		cmocka_unit_test(test_mb2_entry_override),
		cmocka_unit_test(test_mb2_bad_checksum),
		cmocka_unit_test(test_mb2_window),
		cmocka_unit_test(test_mb2_header_length),
		cmocka_unit_test(test_mb2_bad_arch),
		cmocka_unit_test(test_mb2_malformed_tags),
		cmocka_unit_test(test_mb2_required_tags),
		cmocka_unit_test(test_mb1_good),
		cmocka_unit_test(test_mb1_refused),
		cmocka_unit_test(test_both_prefers_v2),
		cmocka_unit_test(test_mb_truncations),
		cmocka_unit_test(test_mb_null_args),
		cmocka_unit_test(test_mb_random),
	};

	return cmocka_run_group_tests_name("elf", tests, NULL, NULL);
}
