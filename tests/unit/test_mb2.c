// SPDX-License-Identifier: MIT
/* Unit tests for hv/core/mb2.c (multiboot2 information parser). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/mb2.h"
#include "xorshift.h"

/* ---- building information blocks ---- */

struct blk {
	uint8_t *b;
	size_t len;
	size_t cap;
};

static void put(struct blk *k, const void *p, size_t n)
{
	if (k->len + n > k->cap) {
		k->cap = (k->len + n) * 2 + 64;
		k->b = realloc(k->b, k->cap);
		assert_non_null(k->b);
	}
	if (p)
		memcpy(k->b + k->len, p, n);
	else
		memset(k->b + k->len, 0, n);
	k->len += n;
}

static void put32(struct blk *k, uint32_t v)
{
	put(k, &v, 4);
}

static void put64(struct blk *k, uint64_t v)
{
	put(k, &v, 8);
}

static void set32(struct blk *k, size_t off, uint32_t v)
{
	assert_true(off + 4 <= k->len);
	memcpy(k->b + off, &v, 4);
}

static void blk_init(struct blk *k)
{
	memset(k, 0, sizeof(*k));
	put32(k, 0);	/* total_size, set by blk_finish() */
	put32(k, 0);	/* reserved */
}

/* Tags start 8-byte aligned; the padding before them is not part of any tag. */
static size_t tag_begin(struct blk *k, uint32_t type)
{
	size_t start;

	while (k->len % 8)
		put(k, NULL, 1);
	start = k->len;
	put32(k, type);
	put32(k, 0);	/* size, set by tag_end() */
	return start;
}

static void tag_end(struct blk *k, size_t start)
{
	set32(k, start + 4, (uint32_t)(k->len - start));
}

/* A tag with @n raw payload bytes and the size field they imply. */
static size_t add_raw(struct blk *k, uint32_t type, const void *p, size_t n)
{
	size_t t = tag_begin(k, type);

	put(k, p, n);
	tag_end(k, t);
	return t;
}

static size_t add_str(struct blk *k, uint32_t type, const char *s)
{
	return add_raw(k, type, s, strlen(s) + 1);
}

static size_t add_module(struct blk *k, uint32_t start, uint32_t end, const char *s)
{
	size_t t = tag_begin(k, 3);

	put32(k, start);
	put32(k, end);
	put(k, s, strlen(s) + 1);
	tag_end(k, t);
	return t;
}

/* @n entries of @esize bytes; entry i is base i << 20, length (i+1) << 12, type i % 5 + 1. */
static size_t add_mmap(struct blk *k, uint32_t esize, uint32_t n)
{
	size_t t = tag_begin(k, 6);

	put32(k, esize);
	put32(k, 0);
	for (uint32_t i = 0; i < n; i++) {
		size_t e = k->len;

		put64(k, (uint64_t)i << 20);
		put64(k, (uint64_t)(i + 1) << 12);
		put32(k, i % 5 + 1);
		put32(k, 0);
		while (k->len - e < esize)
			put(k, "\xee", 1);	/* newer fields a parser must skip */
	}
	tag_end(k, t);
	return t;
}

static void make_rsdp(uint8_t *r, size_t len, uint8_t rev, uint8_t marker)
{
	memset(r, 0, len);
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "TEMPO ", 6);
	r[15] = rev;
	r[16] = marker;
}

static size_t add_end(struct blk *k)
{
	size_t t = tag_begin(k, 0);

	tag_end(k, t);
	return t;
}

static void blk_finish(struct blk *k)
{
	set32(k, 0, (uint32_t)k->len);
}

static void blk_free(struct blk *k)
{
	free(k->b);
	k->b = NULL;
}

/* ---- running the parser on exact-size heap copies ---- */

static struct boot_info bi;
static char err[160];

/*
 * Parse the first @avail bytes of @k from an exact-size heap buffer, so ASan
 * reports any byte read past what the parser was told is readable.
 */
static int parse_n(const struct blk *k, size_t avail)
{
	uint8_t *copy = malloc(avail ? avail : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, k->b, avail < k->len ? avail : k->len);
	memset(err, 0x5a, sizeof(err));
	memset(&bi, 0xa5, sizeof(bi));
	ret = mb2_parse(copy, avail, 0x10000, &bi, err, sizeof(err));
	free(copy);
	return ret;
}

static int parse(const struct blk *k)
{
	return parse_n(k, k->len);
}

static void assert_zeroed(const struct boot_info *b)
{
	static const struct boot_info zero;

	assert_memory_equal(b, &zero, sizeof(zero));
}

/* A refusal: negative, a one-line message naming what it should, nothing half-parsed. */
static void expect_fail(int ret, const char *needle1, const char *needle2)
{
	assert_true(ret < 0);
	assert_true(strlen(err) > 0);
	assert_true(strlen(err) < sizeof(err));
	assert_null(strchr(err, '\n'));
	assert_non_null(strstr(err, "mb2"));
	if (needle1 && !strstr(err, needle1))
		fail_msg("message \"%s\" lacks \"%s\"", err, needle1);
	if (needle2 && !strstr(err, needle2))
		fail_msg("message \"%s\" lacks \"%s\"", err, needle2);
	assert_zeroed(&bi);
}

static void expect_ok(int ret)
{
	if (ret)
		fail_msg("parse failed: %s", err);
	assert_string_equal(err, "");
}

static char at[32];

/* "offset 0x48" for a tag starting at @off, as messages spell it. */
static const char *off_str(size_t off)
{
	snprintf(at, sizeof(at), "offset 0x%zx", off);
	return at;
}

/* ---- good blocks ---- */

static void test_minimal(void **state)
{
	struct blk k;

	(void)state;
	blk_init(&k);
	add_end(&k);
	blk_finish(&k);
	assert_int_equal(k.len, 16);
	expect_ok(parse(&k));
	assert_int_equal(bi.info_phys, 0x10000);
	assert_int_equal(bi.info_size, 16);
	assert_string_equal(bi.cmdline, "");
	assert_string_equal(bi.loader_name, "");
	assert_int_equal(bi.mmap_count, 0);
	assert_int_equal(bi.module_count, 0);
	assert_false(bi.has_rsdp);
	assert_false(bi.has_efi64_system_table);
	blk_free(&k);
}

static void test_cmdline_and_loader(void **state)
{
	struct blk k;

	(void)state;
	blk_init(&k);
	add_str(&k, 1, "console=com1 loglevel=7");
	add_str(&k, 2, "GRUB 2.12");
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_string_equal(bi.cmdline, "console=com1 loglevel=7");
	assert_string_equal(bi.loader_name, "GRUB 2.12");
	assert_int_equal(bi.info_size, k.len);
	blk_free(&k);
}

/* A NUL-terminated string longer than the field is cut to fit, terminated. */
static void test_long_strings_cut(void **state)
{
	char longs[1000];
	struct blk k;

	(void)state;
	memset(longs, 'c', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = 0;
	blk_init(&k);
	add_str(&k, 1, longs);
	add_str(&k, 2, longs);
	add_module(&k, 0x1000, 0x2000, longs);
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_int_equal(strlen(bi.cmdline), BOOT_INFO_CMDLINE_LEN - 1);
	assert_int_equal(strlen(bi.loader_name), BOOT_INFO_NAME_LEN - 1);
	assert_int_equal(strlen(bi.modules[0].cmdline), BOOT_INFO_MOD_CMDLINE_LEN - 1);
	assert_memory_equal(bi.cmdline, longs, BOOT_INFO_CMDLINE_LEN - 1);
	blk_free(&k);
}

static void test_modules(void **state)
{
	struct blk k;

	(void)state;
	blk_init(&k);
	add_module(&k, 0x200000, 0x345678, "guest-kernel console=ttyS0");
	add_module(&k, 0x400000, 0x400000, "");	/* empty module, empty string */
	add_module(&k, 0x500000, 0x501001, "initrd");
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_int_equal(bi.module_count, 3);
	assert_false(bi.modules_truncated);
	assert_int_equal(bi.modules[0].start, 0x200000);
	assert_int_equal(bi.modules[0].end, 0x345678);
	assert_string_equal(bi.modules[0].cmdline, "guest-kernel console=ttyS0");
	assert_int_equal(bi.modules[1].start, 0x400000);
	assert_int_equal(bi.modules[1].end, 0x400000);
	assert_string_equal(bi.modules[1].cmdline, "");
	assert_int_equal(bi.modules[2].start, 0x500000);
	assert_int_equal(bi.modules[2].end, 0x501001);
	assert_string_equal(bi.modules[2].cmdline, "initrd");
	blk_free(&k);
}

static void test_modules_truncated(void **state)
{
	struct blk k;
	char name[16];

	(void)state;
	blk_init(&k);
	for (uint32_t i = 0; i < BOOT_INFO_MAX_MODULES + 3; i++) {
		snprintf(name, sizeof(name), "mod%u", i);
		add_module(&k, 0x100000 * (i + 1), 0x100000 * (i + 1) + 0x100, name);
	}
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_int_equal(bi.module_count, BOOT_INFO_MAX_MODULES);
	assert_true(bi.modules_truncated);
	assert_string_equal(bi.modules[0].cmdline, "mod0");
	assert_string_equal(bi.modules[BOOT_INFO_MAX_MODULES - 1].cmdline, "mod15");
	assert_int_equal(bi.modules[BOOT_INFO_MAX_MODULES - 1].start, 0x1000000);
	blk_free(&k);
}

/* A dropped module is still checked: a bad one past the limit is refused. */
static void test_modules_bad_past_limit(void **state)
{
	struct blk k;
	size_t t;

	(void)state;
	blk_init(&k);
	for (uint32_t i = 0; i < BOOT_INFO_MAX_MODULES; i++)
		add_module(&k, 0x1000, 0x2000, "m");
	t = add_module(&k, 0x3000, 0x2000, "bad");
	add_end(&k);
	blk_finish(&k);
	expect_fail(parse(&k), "tag 3", off_str(t));
	blk_free(&k);
}

static void check_mmap(uint32_t esize, uint32_t n)
{
	struct blk k;

	blk_init(&k);
	add_str(&k, 1, "x");
	add_mmap(&k, esize, n);
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_int_equal(bi.mmap_count, n < BOOT_INFO_MAX_MMAP ? n : BOOT_INFO_MAX_MMAP);
	assert_int_equal(bi.mmap_truncated, n > BOOT_INFO_MAX_MMAP);
	for (uint32_t i = 0; i < bi.mmap_count; i++) {
		assert_int_equal(bi.mmap[i].base, (uint64_t)i << 20);
		assert_int_equal(bi.mmap[i].length, (uint64_t)(i + 1) << 12);
		assert_int_equal(bi.mmap[i].type, i % 5 + 1);
	}
	blk_free(&k);
}

static void test_mmap_entry_sizes(void **state)
{
	(void)state;
	check_mmap(24, 5);
	check_mmap(32, 5);	/* an extended entry: the extra bytes are skipped */
	check_mmap(48, 3);
	check_mmap(24, 0);	/* an empty map is legal */
}

static void test_mmap_truncated(void **state)
{
	(void)state;
	check_mmap(24, BOOT_INFO_MAX_MMAP);	/* exactly full: not truncated */
	check_mmap(24, BOOT_INFO_MAX_MMAP + 1);
	check_mmap(32, BOOT_INFO_MAX_MMAP + 72);
}

/* Bytes after the last whole entry are ignored, not read as an entry. */
static void test_mmap_partial_entry_ignored(void **state)
{
	struct blk k;
	size_t t;

	(void)state;
	blk_init(&k);
	t = add_mmap(&k, 24, 2);
	put(&k, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", 10);
	tag_end(&k, t);
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_int_equal(bi.mmap_count, 2);
	blk_free(&k);
}

/* Several mmap tags append into one list (and share the limit). */
static void test_mmap_two_tags(void **state)
{
	struct blk k;

	(void)state;
	blk_init(&k);
	add_mmap(&k, 24, 100);
	add_mmap(&k, 24, 100);
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_int_equal(bi.mmap_count, BOOT_INFO_MAX_MMAP);
	assert_true(bi.mmap_truncated);
	assert_int_equal(bi.mmap[100].base, 0);
	blk_free(&k);
}

static void check_rsdp(bool old_first)
{
	uint8_t v1[20], v2[36];
	struct blk k;

	make_rsdp(v1, sizeof(v1), 0, 0x11);
	make_rsdp(v2, sizeof(v2), 2, 0x22);
	blk_init(&k);
	if (old_first)
		add_raw(&k, 14, v1, sizeof(v1));
	add_raw(&k, 15, v2, sizeof(v2));
	if (!old_first)
		add_raw(&k, 14, v1, sizeof(v1));
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_true(bi.has_rsdp);
	assert_int_equal(bi.rsdp_revision, 2);
	assert_int_equal(bi.rsdp_len, 36);
	assert_memory_equal(bi.rsdp, v2, 36);
	assert_int_equal(bi.rsdp_phys, 0);
	blk_free(&k);
}

static void test_rsdp_new_preferred(void **state)
{
	(void)state;
	check_rsdp(true);
	check_rsdp(false);
}

static void test_rsdp_old_only(void **state)
{
	uint8_t v1[24];	/* a loader may pad the copy: only 20 bytes are kept */
	struct blk k;

	(void)state;
	make_rsdp(v1, sizeof(v1), 0, 0x11);
	memset(v1 + 20, 0x77, 4);
	blk_init(&k);
	add_raw(&k, 14, v1, sizeof(v1));
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_true(bi.has_rsdp);
	assert_int_equal(bi.rsdp_revision, 0);
	assert_int_equal(bi.rsdp_len, 20);
	assert_memory_equal(bi.rsdp, v1, 20);
	for (size_t i = 20; i < sizeof(bi.rsdp); i++)
		assert_int_equal(bi.rsdp[i], 0);
	blk_free(&k);
}

static void test_efi_tags(void **state)
{
	uint8_t efimap[16 + 48] = { 48, 0, 0, 0, 1, 0, 0, 0 };
	uint32_t st32 = 0x7f001234;
	uint64_t st64 = 0x12345678abcdULL;
	struct blk k;

	(void)state;
	blk_init(&k);
	add_raw(&k, 11, &st32, 4);
	add_raw(&k, 12, &st64, 8);
	add_raw(&k, 17, efimap, sizeof(efimap) - 8);
	add_raw(&k, 18, NULL, 0);
	add_raw(&k, 20, &st64, 8);	/* EFI64 image handle: ignored */
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_true(bi.has_efi32_system_table);
	assert_int_equal(bi.efi32_system_table, 0x7f001234);
	assert_true(bi.has_efi64_system_table);
	assert_int_equal(bi.efi64_system_table, 0x12345678abcdULL);
	assert_true(bi.has_efi_mmap);
	assert_true(bi.efi_boot_services_active);
	blk_free(&k);
}

/* Known-but-ignored and unknown tags, of odd sizes, are stepped over. */
static void test_unknown_tags_skipped(void **state)
{
	uint8_t junk[77];
	struct blk k;

	(void)state;
	memset(junk, 0xcc, sizeof(junk));
	blk_init(&k);
	add_raw(&k, 4, junk, 8);	/* basic meminfo */
	add_raw(&k, 5, junk, 12);	/* bootdev */
	add_raw(&k, 0x1234, junk, 1);	/* size 9: next tag after 7 pad bytes */
	add_str(&k, 1, "after-odd");
	add_raw(&k, 8, junk, 31);	/* framebuffer */
	add_raw(&k, 9, junk, 20);	/* ELF sections */
	add_raw(&k, 21, junk, 4);	/* load base */
	add_raw(&k, 0xffffffffu, junk, sizeof(junk));
	add_raw(&k, 99, NULL, 0);	/* header only */
	add_str(&k, 2, "last");
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_string_equal(bi.cmdline, "after-odd");
	assert_string_equal(bi.loader_name, "last");
	blk_free(&k);
}

/* Bytes after the end tag (within total_size) are not looked at. */
static void test_bytes_after_end_tag(void **state)
{
	struct blk k;

	(void)state;
	blk_init(&k);
	add_str(&k, 1, "a");
	add_end(&k);
	put(&k, "\xff\xff\xff\xff\x03\x00\x00\x00", 8);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_string_equal(bi.cmdline, "a");
	blk_free(&k);
}

/* More readable bytes than total_size is fine (GRUB's block sits in a larger page). */
static void test_avail_larger(void **state)
{
	struct blk k;
	size_t len;

	(void)state;
	blk_init(&k);
	add_str(&k, 2, "ldr");
	add_end(&k);
	blk_finish(&k);
	len = k.len;
	put(&k, NULL, 4096);
	expect_ok(parse(&k));
	assert_int_equal(bi.info_size, len);
	blk_free(&k);
}

/* ---- malformed blocks ---- */

static void test_null_and_tiny(void **state)
{
	uint8_t eight[8] = { 16, 0, 0, 0, 0, 0, 0, 0 };
	struct blk k;

	(void)state;
	memset(&bi, 0xa5, sizeof(bi));
	expect_fail(mb2_parse(NULL, 4096, 0, &bi, err, sizeof(err)), "NULL", NULL);
	assert_true(mb2_parse(eight, 8, 0, NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "NULL"));

	blk_init(&k);
	add_end(&k);
	blk_finish(&k);
	for (size_t avail = 0; avail < 8; avail++)
		expect_fail(parse_n(&k, avail), "readable", NULL);
	blk_free(&k);
}

static void test_total_size_bad(void **state)
{
	static const uint32_t bad[] = { 0, 8, 12, 15, 17, 4096 };
	struct blk k;

	(void)state;
	blk_init(&k);
	add_end(&k);
	blk_finish(&k);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[32];

		set32(&k, 0, bad[i]);
		snprintf(want, sizeof(want), "total_size %u", bad[i]);
		/* 17 is in range but larger than the 16 readable bytes. */
		expect_fail(parse(&k), want, NULL);
	}
	blk_free(&k);
}

static void test_total_size_over_max(void **state)
{
	size_t n = MB2_INFO_MAX_SIZE + 64;
	struct blk k;

	(void)state;
	blk_init(&k);
	add_raw(&k, 0x77, NULL, MB2_INFO_MAX_SIZE);	/* one huge unknown tag */
	add_end(&k);
	blk_finish(&k);
	assert_true(k.len > MB2_INFO_MAX_SIZE && k.len <= n);
	expect_fail(parse(&k), "total_size", NULL);
	blk_free(&k);
}

static void test_tag_size_too_small(void **state)
{
	(void)state;
	for (uint32_t size = 0; size < 8; size++) {
		struct blk k;
		size_t t;

		blk_init(&k);
		add_str(&k, 1, "ok");
		t = add_raw(&k, 0x55, NULL, 8);
		set32(&k, t + 4, size);
		add_end(&k);
		blk_finish(&k);
		expect_fail(parse(&k), "tag 85", off_str(t));
		blk_free(&k);
	}
}

static void test_tag_size_past_end(void **state)
{
	struct blk k;
	size_t t;

	(void)state;
	blk_init(&k);
	t = add_str(&k, 1, "hello");
	add_end(&k);
	blk_finish(&k);
	set32(&k, t + 4, (uint32_t)(k.len - t + 1));
	expect_fail(parse(&k), "tag 1", off_str(t));
	set32(&k, t + 4, 0xfffffff8u);	/* would wrap a careless offset sum */
	expect_fail(parse(&k), "tag 1", off_str(t));
	blk_free(&k);
}

/* The end tag's own size must fit too. */
static void test_end_tag_size_past_end(void **state)
{
	struct blk k;
	size_t t;

	(void)state;
	blk_init(&k);
	t = add_end(&k);
	blk_finish(&k);
	set32(&k, t + 4, 16);
	expect_fail(parse(&k), "tag 0", off_str(t));
	blk_free(&k);
}

static void test_missing_end_tag(void **state)
{
	struct blk k;

	(void)state;
	/* The last tag fills total_size exactly. */
	blk_init(&k);
	add_str(&k, 1, "no end tag here");
	add_raw(&k, 0x40, NULL, 16);
	blk_finish(&k);
	expect_fail(parse(&k), "end tag", NULL);
	blk_free(&k);

	/* total_size stops part-way into the end tag's header. */
	blk_init(&k);
	add_str(&k, 1, "abcdefg");	/* 16 bytes: the end tag follows unpadded */
	add_end(&k);
	set32(&k, 0, (uint32_t)k.len - 4);
	expect_fail(parse_n(&k, k.len - 4), "header", off_str(24));
	blk_free(&k);

	/* The last tag's padding would carry past total_size. */
	blk_init(&k);
	add_str(&k, 1, "ab");	/* size 11, padded to 16 */
	blk_finish(&k);
	set32(&k, 0, 8 + 11);
	expect_fail(parse_n(&k, 8 + 11), "end tag", NULL);
	blk_free(&k);
}

static void check_mmap_esize_bad(uint32_t esize)
{
	struct blk k;
	char want[32];
	size_t t;

	blk_init(&k);
	add_str(&k, 1, "x");
	t = add_mmap(&k, 24, 2);
	set32(&k, t + 8, esize);
	add_end(&k);
	blk_finish(&k);
	snprintf(want, sizeof(want), "entry_size %u", esize);
	expect_fail(parse(&k), want, off_str(t));
	assert_non_null(strstr(err, "tag 6"));
	blk_free(&k);
}

static void test_mmap_entry_size_bad(void **state)
{
	(void)state;
	check_mmap_esize_bad(0);
	check_mmap_esize_bad(7);
	check_mmap_esize_bad(8);
	check_mmap_esize_bad(16);
	check_mmap_esize_bad(20);
	check_mmap_esize_bad(28);
	check_mmap_esize_bad(0xfffffffcu);
}

static void test_mmap_huge_entry_size(void **state)
{
	struct blk k;
	size_t t;

	(void)state;
	/* Valid entry_size bigger than the tag: zero entries, not an overread. */
	blk_init(&k);
	t = add_mmap(&k, 24, 1);
	set32(&k, t + 8, 4096);
	add_end(&k);
	blk_finish(&k);
	expect_ok(parse(&k));
	assert_int_equal(bi.mmap_count, 0);
	set32(&k, t + 8, 0xfffffff8u);	/* a careless index * size would wrap */
	expect_ok(parse(&k));
	assert_int_equal(bi.mmap_count, 0);
	blk_free(&k);
}

static void test_short_fixed_fields(void **state)
{
	static const struct { uint32_t type; uint32_t payload; } cases[] = {
		{ 3, 0 }, { 3, 4 },	/* module: needs start and end */
		{ 6, 0 }, { 6, 4 },	/* mmap: needs entry_size and version */
		{ 11, 3 },		/* EFI32 pointer */
		{ 12, 4 }, { 12, 7 },	/* EFI64 pointer */
		{ 14, 0 }, { 14, 19 },	/* old RSDP copy */
		{ 15, 20 }, { 15, 35 },	/* new RSDP copy */
		{ 17, 4 },		/* EFI mmap: descriptor size and version */
	};
	uint8_t payload[64];

	(void)state;
	memset(payload, 0, sizeof(payload));
	make_rsdp(payload, 36, 2, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct blk k;
		char want[16];
		size_t t;

		blk_init(&k);
		add_str(&k, 2, "ldr");
		t = add_raw(&k, cases[i].type, payload, cases[i].payload);
		add_end(&k);
		blk_finish(&k);
		snprintf(want, sizeof(want), "tag %u", cases[i].type);
		expect_fail(parse(&k), want, off_str(t));
		blk_free(&k);
	}
}

static void test_module_end_before_start(void **state)
{
	struct blk k;
	size_t t;

	(void)state;
	blk_init(&k);
	add_module(&k, 0x1000, 0x1000, "ok");
	t = add_module(&k, 0x2000, 0x1fff, "bad");
	add_end(&k);
	blk_finish(&k);
	expect_fail(parse(&k), "tag 3", off_str(t));
	assert_non_null(strstr(err, "mod_end"));
	blk_free(&k);
}

/* Strings without a NUL inside their tag are refused (not truncated). */
static void test_string_without_nul(void **state)
{
	static const uint32_t types[] = { 1, 2 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct blk k;
		char want[16];
		size_t t;

		blk_init(&k);
		t = add_raw(&k, types[i], "abc", 3);
		/* The padding after it is zero, but lies outside the tag. */
		add_end(&k);
		blk_finish(&k);
		snprintf(want, sizeof(want), "tag %u", types[i]);
		expect_fail(parse(&k), want, off_str(t));
		assert_non_null(strstr(err, "NUL"));
		blk_free(&k);

		/* An empty payload has no room for the NUL either. */
		blk_init(&k);
		t = add_raw(&k, types[i], NULL, 0);
		add_end(&k);
		blk_finish(&k);
		expect_fail(parse(&k), want, off_str(t));
		blk_free(&k);
	}
}

static void test_module_string_without_nul(void **state)
{
	struct blk k;
	size_t t;

	(void)state;
	blk_init(&k);
	t = tag_begin(&k, 3);
	put32(&k, 0x1000);
	put32(&k, 0x2000);
	put(&k, "xyz", 3);
	tag_end(&k, t);
	add_end(&k);
	blk_finish(&k);
	expect_fail(parse(&k), "tag 3", off_str(t));
	assert_non_null(strstr(err, "NUL"));
	blk_free(&k);

	/* Exactly the fixed fields, no string byte at all. */
	blk_init(&k);
	t = tag_begin(&k, 3);
	put32(&k, 0x1000);
	put32(&k, 0x2000);
	tag_end(&k, t);
	add_end(&k);
	blk_finish(&k);
	expect_fail(parse(&k), "tag 3", off_str(t));
	blk_free(&k);
}

/* The string at the very end of the block, without NUL, at avail == total_size. */
static void test_string_at_block_end(void **state)
{
	struct blk k;

	(void)state;
	blk_init(&k);
	add_raw(&k, 1, "abcdefgh", 8);
	blk_finish(&k);
	expect_fail(parse(&k), "tag 1", NULL);
	blk_free(&k);
}

static void test_small_err_buffers(void **state)
{
	uint8_t bad[16] = { 99, 0, 0, 0 };
	char e[4];

	(void)state;
	memset(e, 0x5a, sizeof(e));
	assert_true(mb2_parse(bad, sizeof(bad), 0, &bi, e, 1) < 0);
	assert_int_equal(e[0], 0);
	assert_int_equal((unsigned char)e[1], 0x5a);
	assert_true(mb2_parse(bad, sizeof(bad), 0, &bi, e, sizeof(e)) < 0);
	assert_int_equal(strlen(e), 3);
	assert_true(mb2_parse(bad, sizeof(bad), 0, &bi, NULL, 100) < 0);
	assert_true(mb2_parse(bad, sizeof(bad), 0, &bi, e, 0) < 0);
}

/* ---- robustness ---- */

static void build_rich(struct blk *k)
{
	uint8_t v1[20], v2[36];
	uint64_t st64 = 0xabcdef;

	make_rsdp(v1, sizeof(v1), 0, 1);
	make_rsdp(v2, sizeof(v2), 2, 2);
	blk_init(k);
	add_str(k, 1, "hv console=com1");
	add_str(k, 2, "GRUB");
	add_module(k, 0x100000, 0x180000, "linux root=/dev/vda");
	add_module(k, 0x200000, 0x280001, "initrd");
	add_raw(k, 4, "\x80\x02\0\0\0\0\x10\0", 8);
	add_mmap(k, 24, 6);
	add_raw(k, 14, v1, sizeof(v1));
	add_raw(k, 15, v2, sizeof(v2));
	add_raw(k, 12, &st64, 8);
	add_raw(k, 0x999, "odd", 3);
	add_raw(k, 18, NULL, 0);
	add_mmap(k, 40, 3);
	add_end(k);
	blk_finish(k);
}

/*
 * Every prefix of a valid block: first as a lying total_size (larger than
 * what is readable), then with total_size shrunk to the prefix, so the walk
 * itself has to stop at every possible cut without reading past it.
 */
static void test_every_truncation(void **state)
{
	struct blk k;

	(void)state;
	build_rich(&k);
	expect_ok(parse(&k));
	assert_int_equal(bi.module_count, 2);
	assert_int_equal(bi.mmap_count, 9);
	for (size_t avail = 0; avail < k.len; avail++)
		expect_fail(parse_n(&k, avail), NULL, NULL);

	for (size_t cut = 16; cut < k.len; cut++) {
		struct blk c;

		c = k;
		c.b = malloc(k.len);
		assert_non_null(c.b);
		memcpy(c.b, k.b, k.len);
		set32(&c, 0, (uint32_t)cut);
		/* Every cut loses the end tag, so every cut must be refused. */
		expect_fail(parse_n(&c, cut), NULL, NULL);
		free(c.b);
	}
	blk_free(&k);
}

static uint64_t rng_state;

static uint32_t rng(void)
{
	return (uint32_t)(xorshift64(&rng_state) >> 16);
}

/* A success must leave every string terminated and every count in range. */
static void check_sane(int ret)
{
	if (ret < 0) {
		assert_true(strlen(err) > 0 && strlen(err) < sizeof(err));
		assert_zeroed(&bi);
		return;
	}
	assert_int_equal(ret, 0);
	assert_true(memchr(bi.cmdline, 0, sizeof(bi.cmdline)) != NULL);
	assert_true(memchr(bi.loader_name, 0, sizeof(bi.loader_name)) != NULL);
	assert_true(bi.mmap_count <= BOOT_INFO_MAX_MMAP);
	assert_true(bi.module_count <= BOOT_INFO_MAX_MODULES);
	for (uint32_t i = 0; i < bi.module_count; i++) {
		assert_true(memchr(bi.modules[i].cmdline, 0, BOOT_INFO_MOD_CMDLINE_LEN) != NULL);
		assert_true(bi.modules[i].end >= bi.modules[i].start);
	}
	assert_true(bi.rsdp_len == 0 || bi.rsdp_len == 20 || bi.rsdp_len == 36);
	assert_true(bi.info_size >= 16 && bi.info_size <= MB2_INFO_MAX_SIZE);
}

/* Seeded random corruption of a valid block, and fully random blocks. */
static void test_random_bytes(void **state)
{
	struct blk k;
	uint32_t ok = 0;

	(void)state;
	rng_state = 0x9e3779b97f4a7c15ULL;
	build_rich(&k);
	for (int iter = 0; iter < 20000; iter++) {
		struct blk c = k;
		int flips = 1 + rng() % 4;

		c.b = malloc(k.len);
		assert_non_null(c.b);
		memcpy(c.b, k.b, k.len);
		for (int f = 0; f < flips; f++) {
			size_t pos = rng() % k.len;

			/* Small values hit the size fields' edge cases more often. */
			c.b[pos] = rng() % 3 ? (uint8_t)rng() : (uint8_t)(rng() % 40);
		}
		if (rng() % 8 == 0)
			set32(&c, 0, rng() % (uint32_t)(k.len + 8));
		check_sane(parse_n(&c, rng() % 16 ? k.len : rng() % (k.len + 1)));
		ok += bi.info_size != 0;
		free(c.b);
	}
	/* Most single-byte hits land in payloads and must still parse. */
	assert_true(ok > 1000);

	for (int iter = 0; iter < 5000; iter++) {
		size_t len = 16 + rng() % 256;
		struct blk c = { 0 };

		put(&c, NULL, len);
		for (size_t i = 0; i < len; i++)
			c.b[i] = rng() % 2 ? (uint8_t)rng() : 0;
		set32(&c, 0, (uint32_t)len);
		for (size_t off = 8; off + 8 <= len; off += 8 * (1 + rng() % 3))
			set32(&c, off + 4, 8 + rng() % 48);
		check_sane(parse(&c));
		free(c.b);
	}
	blk_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_cmdline_and_loader),
		cmocka_unit_test(test_long_strings_cut),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_modules_truncated),
		cmocka_unit_test(test_modules_bad_past_limit),
		cmocka_unit_test(test_mmap_entry_sizes),
		cmocka_unit_test(test_mmap_truncated),
		cmocka_unit_test(test_mmap_partial_entry_ignored),
		cmocka_unit_test(test_mmap_two_tags),
		cmocka_unit_test(test_rsdp_new_preferred),
		cmocka_unit_test(test_rsdp_old_only),
		cmocka_unit_test(test_efi_tags),
		cmocka_unit_test(test_unknown_tags_skipped),
		cmocka_unit_test(test_bytes_after_end_tag),
		cmocka_unit_test(test_avail_larger),
		cmocka_unit_test(test_null_and_tiny),
		cmocka_unit_test(test_total_size_bad),
		cmocka_unit_test(test_total_size_over_max),
		cmocka_unit_test(test_tag_size_too_small),
		cmocka_unit_test(test_tag_size_past_end),
		cmocka_unit_test(test_end_tag_size_past_end),
		cmocka_unit_test(test_missing_end_tag),
		cmocka_unit_test(test_mmap_entry_size_bad),
		cmocka_unit_test(test_mmap_huge_entry_size),
		cmocka_unit_test(test_short_fixed_fields),
		cmocka_unit_test(test_module_end_before_start),
		cmocka_unit_test(test_string_without_nul),
		cmocka_unit_test(test_module_string_without_nul),
		cmocka_unit_test(test_string_at_block_end),
		cmocka_unit_test(test_small_err_buffers),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_random_bytes),
	};

	return cmocka_run_group_tests_name("mb2", tests, NULL, NULL);
}
