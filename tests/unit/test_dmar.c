// SPDX-License-Identifier: MIT
/*
 * Unit tests for the DMAR parser of drivers/acpi.c (acpi_dmar_parse and the
 * device-scope lookups): QEMU's table, a client-style table with several
 * units and an RMRR, and one malformed table per rule the parser enforces.
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

#include "drivers/acpi.h"
#include "xorshift.h"

/* ---- a DMAR builder ---- */

struct dmar_tbl {
	uint8_t b[8192];
	uint32_t len;
	uint32_t open;		/* offset of the structure being built, 0 if none */
};

static void put(struct dmar_tbl *t, const void *p, size_t n)
{
	assert_true(t->len + n <= sizeof(t->b));
	memcpy(t->b + t->len, p, n);
	t->len += (uint32_t)n;
}

static void put8(struct dmar_tbl *t, uint8_t v)
{
	put(t, &v, 1);
}

static void put16(struct dmar_tbl *t, uint16_t v)
{
	put(t, &v, 2);
}

static void put64(struct dmar_tbl *t, uint64_t v)
{
	put(t, &v, 8);
}

/* The 48 fixed bytes: a 36-byte header, host address width - 1, flags. */
static void dmar_begin(struct dmar_tbl *t, uint8_t haw, uint8_t flags)
{
	memset(t, 0, sizeof(*t));
	put(t, "DMAR", 4);
	t->len = 36;
	put8(t, (uint8_t)(haw - 1));
	put8(t, flags);
	t->len = 48;
}

/* Close the open structure: its length field = the bytes since it began. */
static void close_struct(struct dmar_tbl *t)
{
	uint16_t len;

	if (!t->open)
		return;
	len = (uint16_t)(t->len - t->open);
	memcpy(t->b + t->open + 2, &len, 2);
	t->open = 0;
}

static void drhd(struct dmar_tbl *t, uint8_t flags, uint8_t size, uint16_t seg, uint64_t base)
{
	close_struct(t);
	t->open = t->len;
	put16(t, 0);
	put16(t, 0);
	put8(t, flags);
	put8(t, size);
	put16(t, seg);
	put64(t, base);
}

static void rmrr(struct dmar_tbl *t, uint16_t seg, uint64_t base, uint64_t limit)
{
	close_struct(t);
	t->open = t->len;
	put16(t, 1);
	put16(t, 0);
	put16(t, 0);
	put16(t, seg);
	put64(t, base);
	put64(t, limit);
}

/* Any other structure: @type, @body_len bytes after its 4-byte header. */
static void other(struct dmar_tbl *t, uint16_t type, uint16_t body_len)
{
	close_struct(t);
	t->open = t->len;
	put16(t, type);
	put16(t, 0);
	for (uint16_t i = 0; i < body_len; i++)
		put8(t, 0xcc);
}

/* A device scope of @hops (device, function) pairs in @path. */
static void scope(struct dmar_tbl *t, uint8_t type, uint8_t enum_id, uint8_t bus,
		  const uint8_t (*path)[2], uint8_t hops)
{
	put8(t, type);
	put8(t, (uint8_t)(6 + 2 * hops));
	put16(t, 0);
	put8(t, enum_id);
	put8(t, bus);
	for (uint8_t h = 0; h < hops; h++) {
		put8(t, path[h][0]);
		put8(t, path[h][1]);
	}
}

static void scope1(struct dmar_tbl *t, uint8_t type, uint8_t enum_id, uint8_t bus, uint8_t dev,
		   uint8_t fn)
{
	const uint8_t path[1][2] = { { dev, fn } };

	scope(t, type, enum_id, bus, path, 1);
}

static void dmar_end(struct dmar_tbl *t)
{
	uint32_t len;

	close_struct(t);
	len = t->len;
	memcpy(t->b + 4, &len, 4);
}

/* ---- running the parser ---- */

static struct acpi_dmar d;
static char err[256];

/* Parse an exact-size heap copy, so ASan sees any read past the table. */
static int parse_len(const struct dmar_tbl *t, uint32_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, t->b, len);
	memset(&d, 0xa5, sizeof(d));
	memset(err, 0x5a, sizeof(err));
	ret = acpi_dmar_parse(copy, len, &d, err, sizeof(err));
	free(copy);
	assert_non_null(memchr(err, 0, sizeof(err)));
	return ret;
}

static int parse(const struct dmar_tbl *t)
{
	return parse_len(t, t->len);
}

static void expect_ok(int ret)
{
	if (ret)
		fail_msg("acpi_dmar_parse failed: %s", err);
	assert_string_equal(err, "");
}

/* Refused: -1, one line naming DMAR and @needle, nothing half-parsed kept. */
static void expect_refused(int ret, const char *needle)
{
	static const struct acpi_dmar zero;

	assert_int_equal(ret, -1);
	assert_null(strchr(err, '\n'));
	if (!strstr(err, "DMAR") || !strstr(err, needle))
		fail_msg("message \"%s\" lacks \"%s\"", err, needle);
	assert_memory_equal(&d, &zero, sizeof(zero));
}

/* ---- a fake PCI topology for multi-hop paths ---- */

/* 00:1c.0 is a bridge to buses 2-4; 02:00.0 a bridge to bus 3. */
static bool fake_buses(void *ctx, uint16_t segment, uint16_t bdf, uint8_t *sec, uint8_t *sub)
{
	(void)ctx;
	if (segment)
		return false;
	if (bdf == acpi_bdf(0, 0x1c, 0)) {
		*sec = 2;
		*sub = 4;
		return true;
	}
	if (bdf == acpi_bdf(2, 0, 0)) {
		*sec = 3;
		*sub = 3;
		return true;
	}
	return false;
}

static const struct acpi_pci_bridges bridges = { .buses = fake_buses };

/* ---- good tables ---- */

/*
 * QEMU 7.2's q35 with intel-iommu,intremap=on,eim=off: one unit at
 * 0xfed90000 for every function, the I/O APIC (id 0) on the pseudo bus 0xff,
 * flags: interrupt remapping and the x2APIC opt-out.
 */
static void build_qemu(struct dmar_tbl *t)
{
	dmar_begin(t, 39, ACPI_DMAR_F_INTR_REMAP | ACPI_DMAR_F_X2APIC_OPT_OUT);
	drhd(t, 1, 0, 0, 0xfed90000);
	scope1(t, ACPI_DMAR_SCOPE_IOAPIC, 0, 0xff, 0, 0);
	dmar_end(t);
}

static void test_qemu_table(void **state)
{
	struct dmar_tbl t;
	uint16_t sid = 0;

	(void)state;
	build_qemu(&t);
	expect_ok(parse(&t));
	assert_int_equal(d.host_addr_width, 39);
	assert_int_equal(d.flags, ACPI_DMAR_F_INTR_REMAP | ACPI_DMAR_F_X2APIC_OPT_OUT);
	assert_int_equal(d.unit_count, 1);
	assert_int_equal(d.units[0].reg_phys, 0xfed90000);
	assert_int_equal(d.units[0].reg_bytes, 4096);
	assert_true(d.units[0].include_pci_all);
	assert_int_equal(d.units[0].scope_count, 1);
	assert_int_equal(d.scopes[0].type, ACPI_DMAR_SCOPE_IOAPIC);
	assert_int_equal(d.rmrr_count, 0);
	assert_int_equal(d.skipped, 0);
	/* edu at 00:03.0 and anything else on segment 0: the one unit */
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(0, 3, 0), NULL), 0);
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(0x80, 31, 7), NULL), 0);
	/* another segment: nobody */
	assert_int_equal(acpi_dmar_unit_of(&d, 1, acpi_bdf(0, 3, 0), NULL), -1);
	assert_int_equal(acpi_dmar_rmrr_of(&d, 0, acpi_bdf(0, 3, 0), NULL), -1);
	assert_int_equal(acpi_dmar_ioapic_unit(&d, 0, NULL, &sid), 0);
	assert_int_equal(sid, 0xff00);
	assert_int_equal(acpi_dmar_ioapic_unit(&d, 1, NULL, &sid), -1);
}

/*
 * A client-style table: the graphics unit for 00:02.0 only, a unit for
 * everything else with the I/O APIC and HPET, an RMRR for USB (00:14.0) and
 * one behind a bridge, an ATSR and an RHSA skipped.
 */
static void build_client(struct dmar_tbl *t)
{
	const uint8_t via_bridge[2][2] = { { 0x1c, 0 }, { 0, 0 } };

	dmar_begin(t, 46, ACPI_DMAR_F_INTR_REMAP);
	drhd(t, 0, 0, 0, 0xfed90000);
	scope1(t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 2, 0);
	drhd(t, 1, 1, 0, 0xfed91000);
	scope1(t, ACPI_DMAR_SCOPE_IOAPIC, 2, 0xf0, 0x1f, 0);
	scope1(t, ACPI_DMAR_SCOPE_HPET, 0, 0, 0x1f, 0);
	rmrr(t, 0, 0x7c000000, 0x7c81ffff);
	scope1(t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 0x14, 0);
	rmrr(t, 0, 0x7d000000, 0x7d000fff);
	scope(t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, via_bridge, 2);
	other(t, 2, 4);		/* ATSR */
	other(t, 3, 16);	/* RHSA */
	dmar_end(t);
}

static void test_client_table(void **state)
{
	struct dmar_tbl t;
	uint16_t sid = 0;

	(void)state;
	build_client(&t);
	expect_ok(parse(&t));
	assert_int_equal(d.host_addr_width, 46);
	assert_int_equal(d.unit_count, 2);
	assert_int_equal(d.units[1].reg_bytes, 8192);
	assert_false(d.units[0].include_pci_all);
	assert_int_equal(d.rmrr_count, 2);
	assert_int_equal(d.rmrrs[0].base, 0x7c000000);
	assert_int_equal(d.rmrrs[0].limit, 0x7c81ffff);
	assert_int_equal(d.scope_count, 5);
	assert_int_equal(d.skipped, 2);

	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(0, 2, 0), NULL), 0);
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(0, 2, 1), NULL), 1);
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(0, 0x14, 0), NULL), 1);
	assert_int_equal(acpi_dmar_rmrr_of(&d, 0, acpi_bdf(0, 0x14, 0), NULL), 0);
	assert_int_equal(acpi_dmar_rmrr_of(&d, 0, acpi_bdf(0, 2, 0), NULL), -1);
	/* the second RMRR's path goes through 00:1c.0 (secondary bus 2) */
	assert_int_equal(acpi_dmar_rmrr_of(&d, 0, acpi_bdf(2, 0, 0), &bridges), 1);
	/* without the topology the two-hop path resolves to nothing */
	assert_int_equal(acpi_dmar_rmrr_of(&d, 0, acpi_bdf(2, 0, 0), NULL), -1);
	assert_int_equal(acpi_dmar_ioapic_unit(&d, 2, NULL, &sid), 1);
	assert_int_equal(sid, acpi_bdf(0xf0, 0x1f, 0));
}

/* A bridge scope covers the bridge and every bus below it, not beside it. */
static void test_bridge_scope(void **state)
{
	struct dmar_tbl t;
	const uint8_t two[2][2] = { { 0x1c, 0 }, { 0, 0 } };
	uint16_t bdf = 0;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 0, 0, 0, 0xfed90000);
	scope1(&t, ACPI_DMAR_SCOPE_BRIDGE, 0, 0, 0x1c, 0);
	drhd(&t, 0, 0, 0, 0xfed91000);
	scope(&t, ACPI_DMAR_SCOPE_BRIDGE, 0, 0, two, 2);
	drhd(&t, 1, 0, 0, 0xfed92000);
	dmar_end(&t);
	expect_ok(parse(&t));
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(0, 0x1c, 0), &bridges), 0);
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(4, 5, 1), &bridges), 0);
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(5, 0, 0), &bridges), 2);
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(1, 0, 0), &bridges), 2);
	/* the first unit's scope comes first even for bus 3 */
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(3, 0, 0), &bridges), 0);
	/* the two-hop bridge scope resolves to 02:00.0 */
	assert_true(acpi_dmar_scope_bdf(&d.scopes[1], 0, &bridges, &bdf));
	assert_int_equal(bdf, acpi_bdf(2, 0, 0));
	assert_true(acpi_dmar_scope_covers(&d.scopes[1], 0, acpi_bdf(3, 7, 0), &bridges));
	assert_false(acpi_dmar_scope_covers(&d.scopes[1], 0, acpi_bdf(4, 0, 0), &bridges));
	/* without the topology a bridge scope covers only its own function */
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(4, 5, 1), NULL), 2);
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(0, 0x1c, 0), NULL), 0);
}

/* A namespace-device scope (ANDD) is kept but covers no PCI function. */
static void test_namespace_scope(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 0, 0, 0, 0xfed90000);
	scope1(&t, ACPI_DMAR_SCOPE_NAMESPACE, 1, 0, 0x15, 0);
	dmar_end(&t);
	expect_ok(parse(&t));
	assert_int_equal(d.scope_count, 1);
	assert_int_equal(acpi_dmar_unit_of(&d, 0, acpi_bdf(0, 0x15, 0), NULL), -1);
}

/* Every unit and scope the limits allow is accepted. */
static void test_at_limits(void **state)
{
	struct dmar_tbl t;
	const uint8_t deep[ACPI_DMAR_MAX_PATH][2] = { { 1, 0 } };

	(void)state;
	dmar_begin(&t, 64, 0);
	for (uint32_t u = 0; u < ACPI_DMAR_MAX_UNITS; u++) {
		drhd(&t, u == 0, 8, 0, 0xfe000000ull + u * 0x1000);
		for (uint32_t s = 0; s < ACPI_DMAR_MAX_SCOPES / ACPI_DMAR_MAX_UNITS; s++)
			scope(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, (uint8_t)u, deep,
			      (uint8_t)(s % ACPI_DMAR_MAX_PATH + 1));
	}
	dmar_end(&t);
	expect_ok(parse(&t));
	assert_int_equal(d.unit_count, ACPI_DMAR_MAX_UNITS);
	assert_int_equal(d.scope_count, ACPI_DMAR_MAX_SCOPES);
	assert_int_equal(d.units[0].reg_bytes, 4096u << 8);
	assert_int_equal(d.host_addr_width, 64);
}

/* ---- malformed tables: one rule each ---- */

static void test_too_short(void **state)
{
	struct dmar_tbl t;

	(void)state;
	build_qemu(&t);
	expect_refused(parse_len(&t, 47), "too short");
	expect_refused(acpi_dmar_parse(NULL, 100, &d, err, sizeof(err)), "too short");
}

static void test_bad_width(void **state)
{
	struct dmar_tbl t;

	(void)state;
	build_qemu(&t);
	t.b[36] = 64;
	expect_refused(parse(&t), "host address width 65");
}

static void test_no_unit(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	dmar_end(&t);
	expect_refused(parse(&t), "no DRHD");
	dmar_begin(&t, 39, 0);
	rmrr(&t, 0, 0x1000, 0x1fff);
	scope1(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 1, 0);
	dmar_end(&t);
	expect_refused(parse(&t), "no DRHD");
}

/* A structure header cut by the table's end, or a length of 0 (no progress). */
static void test_struct_header(void **state)
{
	struct dmar_tbl t;

	(void)state;
	build_qemu(&t);
	put16(&t, 0);
	put8(&t, 16);
	expect_refused(parse(&t), "header runs past");

	build_qemu(&t);
	other(&t, 2, 0);
	t.open = 0;		/* leave its length 0 */
	put(&t, "\0\0\0\0\0\0\0\0", 8);
	expect_refused(parse(&t), "ATSR at offset 72: length 0 invalid");

	build_qemu(&t);
	other(&t, 7, 12);
	dmar_end(&t);
	t.b[72 + 2] = 17;	/* one past the table */
	expect_refused(parse(&t), "length 17 invalid (16 left)");
}

static void test_drhd_too_short(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	other(&t, 0, 8);	/* a DRHD of 12 bytes */
	dmar_end(&t);
	expect_refused(parse(&t), "DRHD at offset 48: length 12, need at least 16");
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	other(&t, 1, 16);	/* an RMRR of 20 bytes */
	dmar_end(&t);
	expect_refused(parse(&t), "RMRR at offset 64: length 20, need at least 24");
}

static void test_drhd_base(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0);
	dmar_end(&t);
	expect_refused(parse(&t), "register base 0x0");
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90800);
	dmar_end(&t);
	expect_refused(parse(&t), "0xfed90800 is not a 4 KiB aligned");
	dmar_begin(&t, 39, 0);
	drhd(&t, 0, 0, 0, 0xfed90000);
	drhd(&t, 1, 0, 0, 0xfed90000);
	dmar_end(&t);
	expect_refused(parse(&t), "listed twice");
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 9, 0, 0xfed90000);
	dmar_end(&t);
	expect_refused(parse(&t), "2^9 pages");
}

/* Two catch-all units for one segment would make the owner ambiguous. */
static void test_two_include_all(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	drhd(&t, 1, 0, 0, 0xfed91000);
	dmar_end(&t);
	expect_refused(parse(&t), "second INCLUDE_PCI_ALL unit for segment 0");
	/* one per segment is fine */
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	drhd(&t, 1, 0, 1, 0xfed91000);
	dmar_end(&t);
	expect_ok(parse(&t));
	assert_int_equal(acpi_dmar_unit_of(&d, 1, 0, NULL), 1);
}

static void test_too_many_units(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	for (uint32_t u = 0; u <= ACPI_DMAR_MAX_UNITS; u++)
		drhd(&t, 0, 0, 0, 0xfe000000ull + u * 0x1000);
	dmar_end(&t);
	expect_refused(parse(&t), "more than 16 DRHD units");
}

static void test_too_many_scopes(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	for (uint32_t s = 0; s <= ACPI_DMAR_MAX_SCOPES; s++)
		scope1(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, (uint8_t)s, 0, 0);
	dmar_end(&t);
	expect_refused(parse(&t), "more than 128 device scopes");
}

static void test_scope_lengths(void **state)
{
	static const struct { uint8_t len; const char *why; } bad[] = {
		{ 0, "length 0 invalid" },
		{ 6, "length 6 invalid" },	/* no path at all */
		{ 9, "length 9 invalid" },	/* half a hop */
		{ 12, "length 12 invalid" },	/* past the structure */
		{ 6 + 2 * 9, "path of 9 hops" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dmar_tbl t;

		dmar_begin(&t, 39, 0);
		drhd(&t, 1, 0, 0, 0xfed90000);
		scope1(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 3, 0);
		if (bad[i].len == 6 + 2 * 9)
			for (int k = 0; k < 16; k++)
				put8(&t, 0);
		t.b[t.len - 8 - (bad[i].len == 6 + 2 * 9 ? 16 : 0) + 1] = bad[i].len;
		dmar_end(&t);
		expect_refused(parse(&t), bad[i].why);
		assert_non_null(strstr(err, "DRHD at offset 48: device scope at offset 64"));
	}
}

/* One byte of scope left at the structure's end: its header does not fit. */
static void test_scope_header_cut(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	scope1(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 3, 0);
	put8(&t, 1);
	dmar_end(&t);
	expect_refused(parse(&t), "device scope at offset 72: header runs past");
}

static void test_scope_types(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	scope1(&t, 0, 0, 0, 3, 0);
	dmar_end(&t);
	expect_refused(parse(&t), "type 0 not allowed");
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	scope1(&t, 6, 0, 0, 3, 0);
	dmar_end(&t);
	expect_refused(parse(&t), "type 6 not allowed");
	/* an RMRR names PCI functions only */
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	rmrr(&t, 0, 0x1000, 0x1fff);
	scope1(&t, ACPI_DMAR_SCOPE_IOAPIC, 0, 0xff, 0, 0);
	dmar_end(&t);
	expect_refused(parse(&t), "RMRR at offset 64: device scope at offset 88: type 3");
}

static void test_scope_path_range(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	scope1(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 32, 0);
	dmar_end(&t);
	expect_refused(parse(&t), "hop 0 is device 32 function 0");
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	scope1(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 3, 8);
	dmar_end(&t);
	expect_refused(parse(&t), "device 3 function 8");
}

static void test_rmrr_range(void **state)
{
	static const uint64_t bad[][2] = {
		{ 0x1001, 0x1fff },	/* base not aligned */
		{ 0x1000, 0x1ffe },	/* limit not the last byte of a page */
		{ 0x3000, 0x1fff },	/* limit below base */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dmar_tbl t;

		dmar_begin(&t, 39, 0);
		drhd(&t, 1, 0, 0, 0xfed90000);
		rmrr(&t, 0, bad[i][0], bad[i][1]);
		scope1(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 0x14, 0);
		dmar_end(&t);
		expect_refused(parse(&t), "is not a range of whole 4 KiB pages");
	}
}

static void test_rmrr_no_scope(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	rmrr(&t, 0, 0x1000, 0x1fff);
	dmar_end(&t);
	expect_refused(parse(&t), "RMRR at offset 64: no device scope");
}

static void test_too_many_rmrrs(void **state)
{
	struct dmar_tbl t;

	(void)state;
	dmar_begin(&t, 39, 0);
	drhd(&t, 1, 0, 0, 0xfed90000);
	for (uint32_t r = 0; r <= ACPI_DMAR_MAX_RMRRS; r++) {
		rmrr(&t, 0, 0x1000 * (r + 1), 0x1000 * (r + 1) + 0xfff);
		scope1(&t, ACPI_DMAR_SCOPE_ENDPOINT, 0, 0, 0x14, 0);
	}
	dmar_end(&t);
	expect_refused(parse(&t), "more than 16 RMRRs");
}

/* A NULL or empty error buffer still refuses, and writes nothing. */
static void test_no_err_buffer(void **state)
{
	struct dmar_tbl t;
	static const struct acpi_dmar zero;

	(void)state;
	build_qemu(&t);
	t.b[36] = 200;
	assert_int_equal(acpi_dmar_parse(t.b, t.len, &d, NULL, 0), -1);
	assert_memory_equal(&d, &zero, sizeof(zero));
	err[0] = 'x';
	assert_int_equal(acpi_dmar_parse(t.b, t.len, &d, err, 0), -1);
	assert_int_equal(err[0], 'x');
	/* a short buffer is cut, still terminated */
	memset(err, 0x5a, sizeof(err));
	assert_int_equal(acpi_dmar_parse(t.b, t.len, &d, err, 8), -1);
	assert_int_equal(strlen(err), 7);
}

/*
 * Random bytes written over the client table: each result is either a
 * refusal with a reason and nothing kept, or a table whose every count and
 * index stays in range; lookups on it stay in range too.
 */
static void test_random(void **state)
{
	static const struct acpi_dmar zero;
	struct dmar_tbl base, t;
	uint64_t rng_state = 0x9e3779b97f4a7c15ull;
	uint32_t ok = 0, refused = 0;

	(void)state;
	build_client(&base);
	for (int iter = 0; iter < 20000; iter++) {
		uint32_t len = base.len;
		int ret;

		t = base;
		for (int f = 1 + (int)(xorshift64(&rng_state) % 4); f > 0; f--) {
			uint32_t pos = 36 + (uint32_t)(xorshift64(&rng_state) % (len - 36));

			t.b[pos] = (uint8_t)xorshift64(&rng_state);
		}
		if (xorshift64(&rng_state) % 4 == 0)
			len = 40 + (uint32_t)(xorshift64(&rng_state) % (len - 40));
		ret = parse_len(&t, len);
		if (ret) {
			assert_true(strlen(err) > 0);
			assert_memory_equal(&d, &zero, sizeof(zero));
			refused++;
			continue;
		}
		ok++;
		assert_string_equal(err, "");
		assert_true(d.unit_count >= 1 && d.unit_count <= ACPI_DMAR_MAX_UNITS);
		assert_true(d.rmrr_count <= ACPI_DMAR_MAX_RMRRS);
		assert_true(d.scope_count <= ACPI_DMAR_MAX_SCOPES);
		for (uint32_t u = 0; u < d.unit_count; u++) {
			assert_true(d.units[u].reg_phys && !(d.units[u].reg_phys & 0xfff));
			assert_true(d.units[u].scope_first + d.units[u].scope_count <= d.scope_count);
		}
		for (uint32_t r = 0; r < d.rmrr_count; r++) {
			assert_true(d.rmrrs[r].scope_count > 0);
			assert_true(d.rmrrs[r].limit >= d.rmrrs[r].base);
		}
		for (uint32_t s = 0; s < d.scope_count; s++)
			assert_true(d.scopes[s].path_len >= 1 &&
				    d.scopes[s].path_len <= ACPI_DMAR_MAX_PATH);
		for (uint32_t bus = 0; bus < 8; bus++) {
			int u = acpi_dmar_unit_of(&d, 0, acpi_bdf((uint8_t)bus, 0x1f, 0),
						  &bridges);
			int r = acpi_dmar_rmrr_of(&d, 0, acpi_bdf((uint8_t)bus, 0, 0), &bridges);

			assert_true(u >= -1 && u < (int)d.unit_count);
			assert_true(r >= -1 && r < (int)d.rmrr_count);
		}
	}
	/* both outcomes were exercised, not just one */
	assert_true(ok > 1000);
	assert_true(refused > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_table),
		cmocka_unit_test(test_client_table),
		cmocka_unit_test(test_bridge_scope),
		cmocka_unit_test(test_namespace_scope),
		cmocka_unit_test(test_at_limits),
		cmocka_unit_test(test_too_short),
		cmocka_unit_test(test_bad_width),
		cmocka_unit_test(test_no_unit),
		cmocka_unit_test(test_struct_header),
		cmocka_unit_test(test_drhd_too_short),
		cmocka_unit_test(test_drhd_base),
		cmocka_unit_test(test_two_include_all),
		cmocka_unit_test(test_too_many_units),
		cmocka_unit_test(test_too_many_scopes),
		cmocka_unit_test(test_scope_lengths),
		cmocka_unit_test(test_scope_header_cut),
		cmocka_unit_test(test_scope_types),
		cmocka_unit_test(test_scope_path_range),
		cmocka_unit_test(test_rmrr_range),
		cmocka_unit_test(test_rmrr_no_scope),
		cmocka_unit_test(test_too_many_rmrrs),
		cmocka_unit_test(test_no_err_buffer),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests_name("dmar", tests, NULL, NULL);
}
