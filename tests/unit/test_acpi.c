// SPDX-License-Identifier: MIT
/* Unit tests for drivers/acpi.c (RSDP, RSDT/XSDT, MADT, HPET, MCFG, finding the DMAR). */
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

/* ---- fake physical memory ---- */

/*
 * Each region is an exact-size heap buffer, so a read one byte past what
 * map() handed out is an ASan heap-buffer-overflow.
 */
struct region {
	uint64_t base;
	size_t len;
	uint8_t *buf;
};

#define MAX_REGIONS 128

struct fake_mem {
	struct region r[MAX_REGIONS];
	int n;
	unsigned int maps;
};

static const void *fake_map(void *ctx, uint64_t phys, size_t len)
{
	struct fake_mem *m = ctx;

	m->maps++;
	for (int i = 0; i < m->n; i++) {
		const struct region *r = &m->r[i];

		if (phys >= r->base && len <= r->len && phys - r->base <= r->len - len)
			return r->buf + (phys - r->base);
	}
	return NULL;
}

static struct fake_mem fm;
static const struct acpi_mem mem = { .map = fake_map, .ctx = &fm };

static void mem_add(uint64_t base, const void *p, size_t len)
{
	struct region *r;

	assert_true(fm.n < MAX_REGIONS);
	r = &fm.r[fm.n++];
	r->base = base;
	r->len = len;
	r->buf = malloc(len ? len : 1);
	assert_non_null(r->buf);
	memcpy(r->buf, p, len);
}

static uint8_t *mem_at(uint64_t base)
{
	for (int i = 0; i < fm.n; i++)
		if (fm.r[i].base == base)
			return fm.r[i].buf;
	fail_msg("no region at 0x%llx", (unsigned long long)base);
	return NULL;
}

static int mem_reset(void **state)
{
	(void)state;
	for (int i = 0; i < fm.n; i++)
		free(fm.r[i].buf);
	memset(&fm, 0, sizeof(fm));
	return 0;
}

/* ---- table builders ---- */

struct tbl {
	uint8_t b[80 * 1024];	/* a MADT of ACPI_MAX_CPUS x2APIC entries */
	size_t len;
};

static void put(struct tbl *t, const void *p, size_t n)
{
	assert_true(t->len + n <= sizeof(t->b));
	memcpy(t->b + t->len, p, n);
	t->len += n;
}

static void put8(struct tbl *t, uint8_t v)
{
	put(t, &v, 1);
}

static void put16(struct tbl *t, uint16_t v)
{
	put(t, &v, 2);
}

static void put32(struct tbl *t, uint32_t v)
{
	put(t, &v, 4);
}

static void put64(struct tbl *t, uint64_t v)
{
	put(t, &v, 8);
}

static void set32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void sdt_begin(struct tbl *t, const char *sig)
{
	memset(t, 0, sizeof(*t));
	put(t, sig, 4);
	put32(t, 0);		/* length */
	put8(t, 1);		/* revision */
	put8(t, 0);		/* checksum */
	put(t, "TEMPO ", 6);
	put(t, "TEMPOTBL", 8);
	put32(t, 1);
	put(t, "TMPO", 4);
	put32(t, 1);
}

/* Make the table sum to 0 over its first @len bytes. */
static void fix_checksum(uint8_t *p, size_t len)
{
	uint8_t sum = 0;

	p[9] = 0;
	for (size_t i = 0; i < len; i++)
		sum += p[i];
	p[9] = (uint8_t)-sum;
}

static void sdt_finish(struct tbl *t)
{
	set32(t->b + 4, (uint32_t)t->len);
	fix_checksum(t->b, t->len);
}

static void sdt_add(uint64_t phys, struct tbl *t)
{
	sdt_finish(t);
	mem_add(phys, t->b, t->len);
}

static void madt_begin(struct tbl *t, uint32_t lapic, uint32_t flags)
{
	sdt_begin(t, "APIC");
	put32(t, lapic);
	put32(t, flags);
}

static void madt_lapic(struct tbl *t, uint8_t uid, uint8_t apic_id, uint32_t flags)
{
	put8(t, 0);
	put8(t, 8);
	put8(t, uid);
	put8(t, apic_id);
	put32(t, flags);
}

static void madt_ioapic(struct tbl *t, uint8_t id, uint32_t addr, uint32_t gsi)
{
	put8(t, 1);
	put8(t, 12);
	put8(t, id);
	put8(t, 0);
	put32(t, addr);
	put32(t, gsi);
}

static void madt_override(struct tbl *t, uint64_t addr)
{
	put8(t, 5);
	put8(t, 12);
	put16(t, 0);
	put64(t, addr);
}

static void madt_irq_override(struct tbl *t, uint8_t bus, uint8_t irq, uint32_t gsi,
			      uint16_t flags)
{
	put8(t, 2);
	put8(t, 10);
	put8(t, bus);
	put8(t, irq);
	put32(t, gsi);
	put16(t, flags);
}

static void madt_x2apic(struct tbl *t, uint32_t id, uint32_t flags, uint32_t uid)
{
	put8(t, 9);
	put8(t, 16);
	put16(t, 0);
	put32(t, id);
	put32(t, flags);
	put32(t, uid);
}

/* An entry of any type and length, its payload filled with @fill. */
static void madt_raw(struct tbl *t, uint8_t type, uint8_t len, uint8_t fill)
{
	put8(t, type);
	put8(t, len);
	for (int i = 2; i < len; i++)
		put8(t, fill);
}

static void hpet_build(struct tbl *t, uint8_t space, uint64_t addr, uint8_t num, uint16_t tick)
{
	sdt_begin(t, "HPET");
	put32(t, 0x8086a201);	/* event timer block id */
	put8(t, space);
	put8(t, 64);
	put8(t, 0);
	put8(t, 0);
	put64(t, addr);
	put8(t, num);
	put16(t, tick);
	put8(t, 0);
}

static void root_build(struct tbl *t, bool xsdt, const uint64_t *phys, size_t n)
{
	sdt_begin(t, xsdt ? "XSDT" : "RSDT");
	for (size_t i = 0; i < n; i++) {
		if (xsdt)
			put64(t, phys[i]);
		else
			put32(t, (uint32_t)phys[i]);
	}
}

static size_t rsdp_build(uint8_t *r, uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
	uint8_t sum = 0;

	memset(r, 0, 36);
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "BOCHS ", 6);
	r[15] = rev;
	memcpy(r + 16, &rsdt, 4);
	for (int i = 0; i < 20; i++)
		sum += r[i];
	r[8] = (uint8_t)-sum;
	if (rev < 2)
		return 20;
	set32(r + 20, 36);
	memcpy(r + 24, &xsdt, 8);
	sum = 0;
	for (int i = 0; i < 36; i++)
		sum += r[i];
	r[32] = (uint8_t)-sum;
	return 36;
}

/* ---- a standard machine ---- */

#define RSDT_PHYS	0x7fe0000ull
#define XSDT_PHYS	0x7fe1000ull
#define MADT_PHYS	0x7fe2000ull
#define HPET_PHYS	0x7fe3000ull
#define FACP_PHYS	0x7fe4000ull
#define MCFG_PHYS	0x7fe5000ull
#define DMAR_PHYS	0x7fe6000ull
#define HI_MADT_PHYS	0x100002000ull	/* above 4 GiB: only an XSDT can point here */

static uint8_t rsdp[36];
static size_t rsdp_len;
static struct acpi_info info;
static char err[192];
static char warn[512];

static void add_madt_4cpus(uint64_t phys)
{
	struct tbl t;

	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 2, 1);
	madt_ioapic(&t, 8, 0xfec00000, 0);
	madt_lapic(&t, 2, 4, 1);
	madt_raw(&t, 2, 10, 0);	/* interrupt source override: ISA IRQ 0 -> GSI 0 */
	madt_lapic(&t, 3, 6, 0);	/* disabled */
	madt_raw(&t, 4, 6, 0xff);	/* local APIC NMI: skipped */
	sdt_add(phys, &t);
}

static void add_hpet(uint64_t phys)
{
	struct tbl t;

	hpet_build(&t, 0, 0xfed00000, 0, 0x80);
	sdt_add(phys, &t);
}

/*
 * A FADT of @len bytes (ACPI 6.5 Table 5.9; 276 since 6.0, 116 in ACPI
 * 1.0): filler bytes, then Flags at 112, RESET_REG (a Generic Address
 * Structure) at 116 and RESET_VALUE at 128, as far as @len reaches.
 */
static void fadt_build(struct tbl *t, uint32_t len, uint8_t rev, uint32_t flags,
		       const uint8_t gas_head[4], uint64_t addr, uint8_t value)
{
	sdt_begin(t, "FACP");
	t->b[8] = rev;
	while (t->len < 112)
		put8(t, (uint8_t)t->len);
	put32(t, flags);
	put(t, gas_head, 4);
	put64(t, addr);
	put8(t, value);
	while (t->len < 276)
		put8(t, 0);
	t->len = len;
}

static const uint8_t gas_io8[4] = { 1, 8, 0, 1 };	/* system I/O, 8 bits at bit 0, byte access */

#define FADT_RESET_REG_SUP	(1u << 10)

/* A current FADT: the reset register is port 0xCF9, value 6, as most PCs have it. */
static void add_facp(uint64_t phys)
{
	struct tbl t;

	fadt_build(&t, 276, 6, FADT_RESET_REG_SUP | 0xf, gas_io8, 0xcf9, 6);
	sdt_add(phys, &t);
}

/* An XSDT-based machine: MADT, HPET, FACP. */
static void machine_xsdt(void)
{
	const uint64_t tables[] = { FACP_PHYS, MADT_PHYS, HPET_PHYS };
	struct tbl t;

	add_facp(FACP_PHYS);
	add_madt_4cpus(MADT_PHYS);
	add_hpet(HPET_PHYS);
	root_build(&t, true, tables, 3);
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
}

static int run(void)
{
	memset(err, 0x5a, sizeof(err));
	err[sizeof(err) - 1] = 0;
	memset(warn, 0x5a, sizeof(warn));
	warn[sizeof(warn) - 1] = 0;
	memset(&info, 0xa5, sizeof(info));
	return acpi_parse(rsdp, rsdp_len, &mem, &info, err, sizeof(err), warn, sizeof(warn));
}

static void assert_has(const char *msg, const char *needle)
{
	if (!needle || strstr(msg, needle))
		return;
	fail_msg("message \"%s\" lacks \"%s\"", msg, needle);
}

static void expect_ok(int ret)
{
	if (ret)
		fail_msg("acpi_parse failed: %s", err);
	assert_string_equal(err, "");
}

/* Fatal: negative, one non-empty line naming @table, nothing half-parsed. */
static void expect_fail(int ret, const char *table, const char *needle)
{
	static const struct acpi_info zero;

	assert_true(ret < 0);
	assert_true(strlen(err) > 0);
	assert_null(strchr(err, '\n'));
	assert_has(err, "ACPI");
	assert_has(err, table);
	assert_has(err, needle);
	assert_memory_equal(&info, &zero, sizeof(zero));
}

/* A warning: non-empty, one line, naming @table and @needle. */
static void expect_warn(const char *table, const char *needle)
{
	assert_true(strlen(warn) > 0);
	assert_null(strchr(warn, '\n'));
	assert_has(warn, table);
	assert_has(warn, needle);
}

/* ---- good cases ---- */

static void test_checksum(void **state)
{
	uint8_t b[4] = { 0xff, 0x02, 0x80, 0x80 };

	(void)state;
	assert_int_equal(acpi_checksum(b, 0), 0);
	assert_int_equal(acpi_checksum(b, 1), 0xff);
	assert_int_equal(acpi_checksum(b, 2), 0x01);
	assert_int_equal(acpi_checksum(b, 4), 0x01);
}

static void check_4cpus(void)
{
	static const uint32_t ids[] = { 0, 2, 4, 6 };

	assert_true(info.has_madt);
	assert_int_equal(info.lapic_phys, 0xfee00000);
	assert_int_equal(info.madt_flags, 1);
	assert_int_equal(info.cpu_count, 4);
	assert_false(info.cpus_truncated);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(info.cpus[i].apic_id, ids[i]);
		assert_int_equal(info.cpus[i].acpi_uid, i);
		assert_int_equal(info.cpus[i].enabled, i != 3);
		assert_false(info.cpus[i].online_capable);
		assert_false(info.cpus[i].from_x2apic_entry);
	}
	assert_int_equal(info.ioapic_count, 1);
	assert_int_equal(info.ioapics[0].id, 8);
	assert_int_equal(info.ioapics[0].phys, 0xfec00000);
	assert_int_equal(info.ioapics[0].gsi_base, 0);
	assert_int_equal(info.irq_override_count, 1);
	assert_int_equal(info.irq_overrides[0].source, 0);
	assert_int_equal(info.irq_overrides[0].gsi, 0);
}

/* ISA interrupt source overrides: kept in order, other buses and the excess left out. */
static void machine_madt(struct tbl *madt)
{
	const uint64_t tables[] = { MADT_PHYS };
	static struct tbl t;

	sdt_add(MADT_PHYS, madt);
	root_build(&t, true, tables, 1);
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
}

static void test_madt_irq_overrides(void **state)
{
	static struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, 1);
	madt_irq_override(&t, 0, 0, 2, 0);
	madt_irq_override(&t, 1, 5, 5, 0);		/* not ISA: no such bus in ACPI */
	madt_irq_override(&t, 0, 9, 9, 0xd);		/* level, active high */
	for (uint8_t i = 0; i < 20; i++)
		madt_irq_override(&t, 0, i, 100 + i, 0);
	machine_madt(&t);
	assert_int_equal(run(), 0);
	assert_int_equal(info.irq_override_count, ACPI_MAX_IRQ_OVERRIDES);
	assert_int_equal(info.irq_overrides[0].source, 0);
	assert_int_equal(info.irq_overrides[0].gsi, 2);
	assert_int_equal(info.irq_overrides[1].source, 9);
	assert_int_equal(info.irq_overrides[1].gsi, 9);
	assert_int_equal(info.irq_overrides[1].flags, 0xd);
	assert_int_equal(info.irq_overrides[2].gsi, 100);
	assert_int_equal(info.cpu_count, 1);
}

/* One too short ends the walk; the CPUs before it are kept. */
static void test_madt_irq_override_short(void **state)
{
	static struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, 1);
	madt_raw(&t, 2, 8, 0);
	madt_lapic(&t, 1, 1, 1);
	machine_madt(&t);
	assert_int_equal(run(), 0);
	assert_int_equal(info.irq_override_count, 0);
	assert_int_equal(info.cpu_count, 1);
	assert_has(warn, "entry type 2 at offset 52: length 8 invalid (need 10");
}

static void test_rsdt_path(void **state)
{
	const uint64_t tables[] = { MADT_PHYS, HPET_PHYS };
	struct tbl t;

	(void)state;
	add_madt_4cpus(MADT_PHYS);
	add_hpet(HPET_PHYS);
	root_build(&t, false, tables, 2);
	sdt_add(RSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 0, RSDT_PHYS, 0);
	assert_int_equal(rsdp_len, 20);

	expect_ok(run());
	assert_string_equal(warn, "");
	assert_int_equal(info.rsdp_revision, 0);
	assert_string_equal(info.oem_id, "BOCHS ");
	assert_false(info.use_xsdt);
	assert_int_equal(info.root_phys, RSDT_PHYS);
	assert_int_equal(info.table_count, 2);
	assert_string_equal(info.table_sigs[0], "APIC");
	assert_int_equal(info.table_phys[0], MADT_PHYS);
	assert_string_equal(info.table_sigs[1], "HPET");
	assert_int_equal(info.table_phys[1], HPET_PHYS);
	check_4cpus();
	assert_true(info.has_hpet);
	assert_int_equal(info.hpet_phys, 0xfed00000);
	assert_int_equal(info.hpet_number, 0);
	assert_int_equal(info.hpet_min_tick, 0x80);
}

static void test_xsdt_path(void **state)
{
	const uint64_t rtables[] = { FACP_PHYS };
	struct tbl t;

	(void)state;
	machine_xsdt();
	/* An RSDT the parser must ignore in favour of the XSDT. */
	root_build(&t, false, rtables, 1);
	sdt_add(RSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, RSDT_PHYS, XSDT_PHYS);

	expect_ok(run());
	assert_string_equal(warn, "");
	assert_int_equal(info.rsdp_revision, 2);
	assert_true(info.use_xsdt);
	assert_int_equal(info.root_phys, XSDT_PHYS);
	assert_int_equal(info.table_count, 3);
	assert_string_equal(info.table_sigs[0], "FACP");
	assert_string_equal(info.table_sigs[1], "APIC");
	assert_string_equal(info.table_sigs[2], "HPET");
	assert_int_equal(info.table_phys[0], FACP_PHYS);
	assert_int_equal(info.table_phys[1], MADT_PHYS);
	assert_int_equal(info.table_phys[2], HPET_PHYS);
	check_4cpus();
	assert_true(info.has_hpet);
	assert_int_equal(info.hpet_phys, 0xfed00000);
}

/* XSDT entries above 4 GiB: all 64 bits are used. */
static void test_xsdt_high_table(void **state)
{
	const uint64_t tables[] = { HI_MADT_PHYS };
	struct tbl t;

	(void)state;
	add_madt_4cpus(HI_MADT_PHYS);
	root_build(&t, true, tables, 1);
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
	expect_ok(run());
	assert_int_equal(info.table_phys[0], HI_MADT_PHYS);
	check_4cpus();
	assert_false(info.has_hpet);
	expect_warn("HPET", NULL);
}

/* Revision 2 without an XSDT address falls back to the RSDT. */
static void test_v2_without_xsdt(void **state)
{
	const uint64_t tables[] = { MADT_PHYS };
	struct tbl t;

	(void)state;
	add_madt_4cpus(MADT_PHYS);
	root_build(&t, false, tables, 1);
	sdt_add(RSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, RSDT_PHYS, 0);
	expect_ok(run());
	assert_false(info.use_xsdt);
	assert_int_equal(info.root_phys, RSDT_PHYS);
	check_4cpus();
}

static void one_table_machine(struct tbl *table, uint64_t phys)
{
	const uint64_t tables[] = { phys };
	struct tbl t;

	sdt_add(phys, table);
	root_build(&t, true, tables, 1);
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
}

static void test_x2apic_and_override(void **state)
{
	struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 0);
	madt_lapic(&t, 0, 0, 1);
	madt_override(&t, 0x123400000ull);
	madt_x2apic(&t, 0x100, 1, 0x10);
	madt_x2apic(&t, 0x12345, 2, 0x11);	/* online capable, not enabled */
	madt_x2apic(&t, 0xfffffffe, 3, 0xffffffff);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_true(info.has_madt);
	assert_int_equal(info.lapic_phys, 0x123400000ull);
	assert_int_equal(info.madt_flags, 0);
	assert_int_equal(info.cpu_count, 4);
	assert_false(info.cpus[0].from_x2apic_entry);
	assert_int_equal(info.cpus[1].apic_id, 0x100);
	assert_int_equal(info.cpus[1].acpi_uid, 0x10);
	assert_true(info.cpus[1].enabled);
	assert_false(info.cpus[1].online_capable);
	assert_true(info.cpus[1].from_x2apic_entry);
	assert_int_equal(info.cpus[2].apic_id, 0x12345);
	assert_false(info.cpus[2].enabled);
	assert_true(info.cpus[2].online_capable);
	assert_int_equal(info.cpus[3].apic_id, 0xfffffffe);
	assert_int_equal(info.cpus[3].acpi_uid, 0xffffffff);
	assert_true(info.cpus[3].enabled);
	assert_true(info.cpus[3].online_capable);
}

/* Unknown types and longer-than-needed entries are stepped over by their length. */
static void test_madt_unknown_and_long_entries(void **state)
{
	struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 1);
	madt_raw(&t, 0x7f, 2, 0);		/* header only */
	madt_raw(&t, 0x80, 40, 0x00);		/* OEM range */
	madt_raw(&t, 0x10, 255, 0x09);		/* future type, max length */
	put8(&t, 0);				/* a type 0 entry with 4 extra bytes */
	put8(&t, 12);
	put8(&t, 7);
	put8(&t, 9);
	put32(&t, 1);
	put32(&t, 0xdeadbeef);
	madt_lapic(&t, 8, 10, 1);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_int_equal(info.cpu_count, 2);
	assert_int_equal(info.cpus[0].apic_id, 9);
	assert_int_equal(info.cpus[0].acpi_uid, 7);
	assert_int_equal(info.cpus[1].apic_id, 10);
}

/* Disabled and online-capable CPUs are all stored; the caller decides. */
static void test_cpu_flags(void **state)
{
	struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, 0);
	madt_lapic(&t, 1, 1, 1);
	madt_lapic(&t, 2, 2, 2);
	madt_lapic(&t, 3, 3, 3);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_int_equal(info.cpu_count, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(info.cpus[i].apic_id, i);
		assert_int_equal(info.cpus[i].enabled, (i & 1) != 0);
		assert_int_equal(info.cpus[i].online_capable, (i & 2) != 0);
	}
}

static void test_madt_no_entries(void **state)
{
	struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 0);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_true(info.has_madt);
	assert_int_equal(info.cpu_count, 0);
}

/* ---- fatal: RSDP ---- */

static void test_rsdp_bad_signature(void **state)
{
	(void)state;
	machine_xsdt();
	rsdp[3] = 'X';
	expect_fail(run(), "RSDP", "signature");
}

static void test_rsdp_bad_checksum(void **state)
{
	(void)state;
	machine_xsdt();
	rsdp[10] ^= 0x40;
	expect_fail(run(), "RSDP", "checksum");
	/* A v1 RSDP: same check. */
	rsdp_len = rsdp_build(rsdp, 0, RSDT_PHYS, 0);
	rsdp[16]++;
	expect_fail(run(), "RSDP", "checksum 0x01");
}

static void test_rsdp_bad_ext_checksum(void **state)
{
	(void)state;
	machine_xsdt();
	rsdp[33] ^= 1;	/* reserved byte, only in the extended checksum */
	expect_fail(run(), "RSDP", "extended checksum");
}

static void test_rsdp_too_short(void **state)
{
	uint8_t *exact;

	(void)state;
	machine_xsdt();
	for (size_t len = 0; len < 20; len++) {
		rsdp_len = len;
		expect_fail(run(), "RSDP", NULL);
	}
	/* Revision 2 needs the whole 36 bytes; hand exactly 20 on the heap. */
	exact = malloc(20);
	assert_non_null(exact);
	memcpy(exact, rsdp, 20);
	memset(&info, 0xa5, sizeof(info));
	assert_true(acpi_parse(exact, 20, &mem, &info, err, sizeof(err), NULL, 0) < 0);
	assert_has(err, "RSDP");
	assert_has(err, "36");
	free(exact);
	expect_fail(acpi_parse(NULL, 36, &mem, &info, err, sizeof(err), NULL, 0), "RSDP", NULL);
}

static void test_rsdp_bad_length_field(void **state)
{
	static const uint32_t lens[] = { 0, 20, 35, 37, 0xffffffff };
	uint8_t sum;

	(void)state;
	machine_xsdt();
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
		set32(rsdp + 20, lens[i]);
		sum = 0;
		for (int j = 0; j < 36; j++)
			sum += rsdp[j];
		rsdp[32] -= sum;	/* keep the extended checksum right over 36 */
		expect_fail(run(), "RSDP", "length");
	}
}

static void test_no_mem_or_output(void **state)
{
	struct acpi_mem nomap = { 0 };

	(void)state;
	machine_xsdt();
	memset(&info, 0xa5, sizeof(info));
	expect_fail(acpi_parse(rsdp, rsdp_len, NULL, &info, err, sizeof(err), NULL, 0), NULL,
		    NULL);
	memset(&info, 0xa5, sizeof(info));
	expect_fail(acpi_parse(rsdp, rsdp_len, &nomap, &info, err, sizeof(err), NULL, 0), NULL,
		    NULL);
	assert_true(acpi_parse(rsdp, rsdp_len, &mem, NULL, err, sizeof(err), NULL, 0) < 0);
	assert_true(strlen(err) > 0);
}

/* ---- fatal: root table ---- */

static void test_root_unmappable(void **state)
{
	(void)state;
	machine_xsdt();
	rsdp_len = rsdp_build(rsdp, 2, 0, 0x9990000);
	expect_fail(run(), "XSDT", "0x9990000");
	rsdp_len = rsdp_build(rsdp, 0, 0x9990000, 0);
	expect_fail(run(), "RSDT", "mapped");
	rsdp_len = rsdp_build(rsdp, 0, 0, 0);
	expect_fail(run(), "RSDT", "0");
	/* The last byte of the header just outside memory. */
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS - 1);
	expect_fail(run(), "XSDT", NULL);
	rsdp_len = rsdp_build(rsdp, 2, 0, 0xffffffffffffffe0ull);
	expect_fail(run(), "XSDT", NULL);
}

static void test_root_wrong_signature(void **state)
{
	(void)state;
	machine_xsdt();
	rsdp_len = rsdp_build(rsdp, 2, 0, FACP_PHYS);
	expect_fail(run(), "XSDT", "\"FACP\"");
	/* An RSDT pointer must not accept an XSDT either. */
	rsdp_len = rsdp_build(rsdp, 0, XSDT_PHYS, 0);
	expect_fail(run(), "RSDT", "\"XSDT\"");
}

static void test_root_bad_checksum(void **state)
{
	uint8_t *x;

	(void)state;
	machine_xsdt();
	x = mem_at(XSDT_PHYS);
	x[20] += 0x3c;
	expect_fail(run(), "XSDT", NULL);
	assert_string_equal(err, "ACPI: XSDT at 0x7fe1000: checksum 0x3c, expected 0");
}

static void test_root_length_bad(void **state)
{
	static const uint32_t lens[] = { 0, 1, 35, (1u << 20) + 1, 0xffffffff };
	uint8_t *x;

	(void)state;
	machine_xsdt();
	x = mem_at(XSDT_PHYS);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		set32(x + 4, lens[i]);
		fix_checksum(x, 36);
		expect_fail(run(), "XSDT", "length");
	}
}

/* The header claims entries the memory region does not hold. */
static void test_root_length_beyond_mapping(void **state)
{
	uint8_t *x;

	(void)state;
	machine_xsdt();
	x = mem_at(XSDT_PHYS);
	set32(x + 4, 36 + 8 * 3 + 8);
	fix_checksum(x, 36 + 8 * 3);
	expect_fail(run(), "XSDT", "mapped");
}

static void test_root_odd_entry_bytes(void **state)
{
	const uint64_t tables[] = { MADT_PHYS, HPET_PHYS };
	struct tbl t;

	(void)state;
	add_madt_4cpus(MADT_PHYS);
	add_hpet(HPET_PHYS);
	root_build(&t, true, tables, 2);
	t.len -= 4;	/* 1.5 entries */
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
	expect_fail(run(), "XSDT", "entries");

	root_build(&t, false, tables, 2);
	t.len -= 2;
	sdt_add(RSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 0, RSDT_PHYS, 0);
	expect_fail(run(), "RSDT", "entries");
}

/* ---- non-fatal: MADT ---- */

/* A MADT whose 5th entry is @bad_type with length @bad_len (the rest follows). */
static void madt_with_bad_entry(uint8_t bad_type, uint8_t bad_len, bool at_end)
{
	struct tbl t;

	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 1, 1);
	madt_ioapic(&t, 2, 0xfec00000, 0);
	madt_lapic(&t, 2, 2, 1);
	put8(&t, bad_type);
	put8(&t, bad_len);
	if (!at_end) {
		put16(&t, 0);
		madt_lapic(&t, 3, 3, 1);
		madt_lapic(&t, 4, 4, 1);
	}
	one_table_machine(&t, MADT_PHYS);
}

static void expect_madt_cut(void)
{
	expect_ok(run());
	assert_true(info.has_madt);
	assert_int_equal(info.cpu_count, 3);	/* the three before the bad entry */
	assert_int_equal(info.cpus[2].apic_id, 2);
	assert_int_equal(info.ioapic_count, 1);
	expect_warn("MADT", "offset");
}

static void test_madt_entry_len_0_1(void **state)
{
	(void)state;
	madt_with_bad_entry(0, 0, false);
	expect_madt_cut();
	assert_has(warn, "length 0");
	mem_reset(NULL);
	madt_with_bad_entry(0x42, 1, false);
	expect_madt_cut();
	assert_has(warn, "length 1");
}

static void test_madt_entry_too_short_for_type(void **state)
{
	static const struct { uint8_t type, len; } cases[] = {
		{ 0, 7 }, { 1, 11 }, { 5, 11 }, { 9, 15 }, { 9, 8 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mem_reset(NULL);
		madt_with_bad_entry(cases[i].type, cases[i].len, false);
		expect_madt_cut();
		assert_has(warn, "type");
	}
}

static void test_madt_entry_overruns(void **state)
{
	(void)state;
	/* The entry claims 16 bytes, but the table ends 2 bytes into it. */
	madt_with_bad_entry(9, 16, true);
	expect_madt_cut();
	mem_reset(NULL);
	/* An unknown type running past the end. */
	madt_with_bad_entry(0x33, 200, false);
	expect_madt_cut();
}

/* A single trailing byte cannot even hold an entry header. */
static void test_madt_trailing_byte(void **state)
{
	struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, 1);
	put8(&t, 0);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_true(info.has_madt);
	assert_int_equal(info.cpu_count, 1);
	expect_warn("MADT", NULL);
}

/* Shorter than its own fixed fields: no MADT at all. */
static void test_madt_truncated(void **state)
{
	(void)state;
	for (int cut = 36; cut < 44; cut++) {
		struct tbl t;

		mem_reset(NULL);
		madt_begin(&t, 0xfee00000, 1);
		t.len = (size_t)cut;
		one_table_machine(&t, MADT_PHYS);
		expect_ok(run());
		assert_false(info.has_madt);
		assert_int_equal(info.cpu_count, 0);
		assert_int_equal(info.table_count, 1);
		assert_string_equal(info.table_sigs[0], "APIC");
		expect_warn("MADT", "length");
	}
}

static void test_madt_bad_checksum(void **state)
{
	(void)state;
	machine_xsdt();
	mem_at(MADT_PHYS)[40] ^= 0x10;
	expect_ok(run());
	assert_false(info.has_madt);
	assert_int_equal(info.cpu_count, 0);
	assert_int_equal(info.table_count, 3);
	assert_string_equal(info.table_sigs[1], "APIC");
	assert_int_equal(info.table_phys[1], MADT_PHYS);
	assert_true(info.has_hpet);	/* the other tables still count */
	expect_warn("MADT", "checksum");
}

/* A MADT whose length runs past mapped memory is never read past it. */
static void test_madt_length_beyond_mapping(void **state)
{
	uint8_t *m;

	(void)state;
	machine_xsdt();
	m = mem_at(MADT_PHYS);
	set32(m + 4, 200);
	expect_ok(run());
	assert_false(info.has_madt);
	expect_warn("MADT", "mapped");
}

static void test_table_unmappable(void **state)
{
	const uint64_t tables[] = { 0x5550000, MADT_PHYS, 0 };
	struct tbl t;

	(void)state;
	add_madt_4cpus(MADT_PHYS);
	root_build(&t, true, tables, 3);
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
	expect_ok(run());
	assert_int_equal(info.table_count, 3);
	assert_string_equal(info.table_sigs[0], "????");
	assert_int_equal(info.table_phys[0], 0x5550000);
	assert_string_equal(info.table_sigs[1], "APIC");
	assert_int_equal(info.table_phys[2], 0);
	check_4cpus();
	expect_warn("XSDT entry 0", "0x5550000");
	assert_has(warn, "XSDT entry 2");
}

static void test_no_madt(void **state)
{
	const uint64_t tables[] = { FACP_PHYS };
	struct tbl t;

	(void)state;
	add_facp(FACP_PHYS);
	root_build(&t, true, tables, 1);
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
	expect_ok(run());
	assert_false(info.has_madt);
	assert_false(info.has_hpet);
	expect_warn("no MADT", NULL);
	assert_has(warn, "no HPET");
}

static void test_duplicate_apic_ids(void **state)
{
	struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 5, 1);
	madt_lapic(&t, 2, 5, 0);	/* same APIC ID again */
	madt_x2apic(&t, 5, 1, 9);	/* and once more as x2APIC */
	madt_lapic(&t, 3, 6, 1);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_int_equal(info.cpu_count, 3);
	assert_int_equal(info.cpus[1].apic_id, 5);
	assert_int_equal(info.cpus[1].acpi_uid, 1);	/* the first one kept */
	assert_true(info.cpus[1].enabled);
	assert_false(info.cpus[1].from_x2apic_entry);
	assert_int_equal(info.cpus[2].apic_id, 6);
	expect_warn("MADT", "twice");
	assert_has(warn, "0x5");
}

static void test_too_many_cpus(void **state)
{
	struct tbl t;

	(void)state;
	/* 255 xAPIC entries, then x2APIC ids above 255, sparse (a stride of 7), 10 too many */
	madt_begin(&t, 0xfee00000, 1);
	for (uint32_t i = 0; i < 255; i++)
		madt_lapic(&t, (uint8_t)i, (uint8_t)i, 1);
	for (uint32_t i = 0; i < ACPI_MAX_CPUS - 255 + 10; i++)
		madt_x2apic(&t, 0x1000 + 7 * i, 1, 0x1000 + i);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_int_equal(info.cpu_count, ACPI_MAX_CPUS);
	assert_true(info.cpus_truncated);
	assert_int_equal(info.cpus[254].apic_id, 254);
	assert_int_equal(info.cpus[255].apic_id, 0x1000);
	assert_true(info.cpus[255].from_x2apic_entry);
	assert_int_equal(info.cpus[ACPI_MAX_CPUS - 1].apic_id, 0x1000 + 7 * (ACPI_MAX_CPUS - 256));
	assert_int_equal(info.cpus[ACPI_MAX_CPUS - 1].acpi_uid, 0x1000 + ACPI_MAX_CPUS - 256);

	/* Exactly full is not truncated. */
	mem_reset(NULL);
	madt_begin(&t, 0xfee00000, 1);
	for (uint32_t i = 0; i < ACPI_MAX_CPUS; i++)
		madt_x2apic(&t, i, 1, i);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_int_equal(info.cpu_count, ACPI_MAX_CPUS);
	assert_false(info.cpus_truncated);
}

static void test_too_many_ioapics(void **state)
{
	struct tbl t;

	(void)state;
	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, 1);
	for (uint8_t i = 0; i < ACPI_MAX_IOAPICS + 2; i++)
		madt_ioapic(&t, i, 0xfec00000 + 0x1000u * i, 24u * i);
	madt_lapic(&t, 1, 1, 1);
	one_table_machine(&t, MADT_PHYS);
	expect_ok(run());
	assert_int_equal(info.ioapic_count, ACPI_MAX_IOAPICS);
	assert_int_equal(info.ioapics[7].phys, 0xfec07000);
	assert_int_equal(info.ioapics[7].gsi_base, 168);
	assert_int_equal(info.cpu_count, 2);	/* parsing went on */
	expect_warn("MADT", "IO APIC");
}

/* ---- non-fatal: HPET ---- */

static void test_hpet_too_short(void **state)
{
	(void)state;
	for (size_t len = 36; len < 56; len++) {
		struct tbl t;

		mem_reset(NULL);
		hpet_build(&t, 0, 0xfed00000, 0, 0x80);
		t.len = len;
		one_table_machine(&t, HPET_PHYS);
		expect_ok(run());
		assert_false(info.has_hpet);
		expect_warn("HPET", "short");
	}
}

static void test_hpet_not_memory(void **state)
{
	struct tbl t;

	(void)state;
	hpet_build(&t, 1, 0x40, 0, 0x80);	/* system I/O space */
	one_table_machine(&t, HPET_PHYS);
	expect_ok(run());
	assert_false(info.has_hpet);
	assert_int_equal(info.hpet_phys, 0);
	expect_warn("HPET", "address space 1");
}

static void test_hpet_fields(void **state)
{
	struct tbl t;

	(void)state;
	hpet_build(&t, 0, 0xfed00000ull | (1ull << 40), 3, 0x3fff);
	put32(&t, 0xaaaaaaaa);	/* a longer table is fine */
	one_table_machine(&t, HPET_PHYS);
	expect_ok(run());
	assert_true(info.has_hpet);
	assert_int_equal(info.hpet_phys, 0xfed00000ull | (1ull << 40));
	assert_int_equal(info.hpet_number, 3);
	assert_int_equal(info.hpet_min_tick, 0x3fff);
}

/* ---- MCFG ---- */

static void mcfg_begin(struct tbl *t)
{
	sdt_begin(t, "MCFG");
	put64(t, 0);		/* reserved */
}

static void mcfg_entry(struct tbl *t, uint64_t base, uint16_t seg, uint8_t start, uint8_t end)
{
	put64(t, base);
	put16(t, seg);
	put8(t, start);
	put8(t, end);
	put32(t, 0);
}

/* A machine with a MADT and the MCFG @t. */
static void mcfg_machine(struct tbl *t)
{
	const uint64_t tables[] = { MADT_PHYS, MCFG_PHYS };
	struct tbl root;

	add_madt_4cpus(MADT_PHYS);
	sdt_add(MCFG_PHYS, t);
	root_build(&root, true, tables, 2);
	sdt_add(XSDT_PHYS, &root);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
}

static void test_mcfg_entries(void **state)
{
	struct tbl t;

	(void)state;
	mcfg_begin(&t);
	mcfg_entry(&t, 0xb0000000, 0, 0, 255);		/* QEMU q35 */
	mcfg_entry(&t, 0x400000000ull, 1, 0x80, 0xff);	/* a second segment, high */
	mcfg_machine(&t);
	expect_ok(run());
	assert_true(info.has_mcfg);
	assert_int_equal(info.mcfg_count, 2);
	assert_int_equal(info.mcfg[0].base, 0xb0000000);
	assert_int_equal(info.mcfg[0].segment, 0);
	assert_int_equal(info.mcfg[0].bus_start, 0);
	assert_int_equal(info.mcfg[0].bus_end, 255);
	assert_int_equal(info.mcfg[1].base, 0x400000000ull);
	assert_int_equal(info.mcfg[1].segment, 1);
	assert_int_equal(info.mcfg[1].bus_start, 0x80);
	assert_null(strstr(warn, "MCFG"));
	assert_true(info.has_madt);
}

/* No MCFG is normal (a PC without PCI Express): no warning. */
static void test_mcfg_absent(void **state)
{
	(void)state;
	machine_xsdt();
	expect_ok(run());
	assert_false(info.has_mcfg);
	assert_int_equal(info.mcfg_count, 0);
	assert_null(strstr(warn, "MCFG"));
}

static void test_mcfg_bad_entries(void **state)
{
	struct tbl t;

	(void)state;
	mcfg_begin(&t);
	mcfg_entry(&t, 0, 0, 0, 255);			/* no base */
	mcfg_entry(&t, 0xe0000000, 0, 9, 8);		/* buses backwards */
	mcfg_entry(&t, 0xfffffffff8000000ull, 0, 0, 255);	/* past 2^64 */
	mcfg_entry(&t, 0xfffffffff0000000ull, 0, 0, 255);	/* up to 2^64 exactly */
	mcfg_entry(&t, 0xe0000000, 0, 0, 63);
	mcfg_machine(&t);
	expect_ok(run());
	expect_warn("MCFG", "entry 0 (base 0x0, segment 0, buses 0-255) is not a usable range");
	assert_has(warn, "entry 1 (base 0xe0000000, segment 0, buses 9-8)");
	assert_has(warn, "entry 2 (base 0xfffffffff8000000");
	assert_null(strstr(warn, "entry 3"));
	assert_int_equal(info.mcfg_count, 2);
	assert_int_equal(info.mcfg[0].base, 0xfffffffff0000000ull);
	assert_int_equal(info.mcfg[0].bus_end, 255);
	assert_int_equal(info.mcfg[1].base, 0xe0000000);
	assert_int_equal(info.mcfg[1].bus_end, 63);
}

static void test_mcfg_odd_length(void **state)
{
	struct tbl t;

	(void)state;
	mcfg_begin(&t);
	mcfg_entry(&t, 0xb0000000, 0, 0, 255);
	put32(&t, 0xb0000000);	/* a cut entry */
	mcfg_machine(&t);
	expect_ok(run());
	expect_warn("MCFG", "length 64 is not header + 16-byte entries, ignoring the 4 bytes left");
	assert_int_equal(info.mcfg_count, 1);
	assert_true(info.has_mcfg);
}

static void test_mcfg_too_short(void **state)
{
	struct tbl t;

	(void)state;
	sdt_begin(&t, "MCFG");
	put32(&t, 0);
	mcfg_machine(&t);
	expect_ok(run());
	expect_warn("MCFG", "length 40 too short (need 44)");
	assert_false(info.has_mcfg);
}

static void test_mcfg_too_many(void **state)
{
	struct tbl t;

	(void)state;
	mcfg_begin(&t);
	for (uint16_t i = 0; i < ACPI_MAX_MCFG + 2; i++)
		mcfg_entry(&t, 0x100000000ull * (i + 1), i, 0, 255);
	mcfg_machine(&t);
	expect_ok(run());
	expect_warn("MCFG", "more than 8 ranges, ignoring segment 8 buses 0-255");
	assert_has(warn, "ignoring segment 9");
	assert_int_equal(info.mcfg_count, ACPI_MAX_MCFG);
	assert_int_equal(info.mcfg[7].segment, 7);
}

static void test_mcfg_bad_checksum(void **state)
{
	struct tbl t;

	(void)state;
	mcfg_begin(&t);
	mcfg_entry(&t, 0xb0000000, 0, 0, 255);
	mcfg_machine(&t);
	mem_at(MCFG_PHYS)[20] ^= 1;
	expect_ok(run());
	expect_warn("MCFG", "checksum");
	assert_false(info.has_mcfg);
	assert_int_equal(info.mcfg_count, 0);
}

/* ---- DMAR (its rules: tests/unit/test_dmar.c) ---- */

/* A machine with a MADT and QEMU's DMAR; @haw_field is the raw width byte. */
static void dmar_machine(uint8_t haw_field)
{
	const uint64_t tables[] = { MADT_PHYS, DMAR_PHYS };
	struct tbl t, root;

	add_madt_4cpus(MADT_PHYS);
	sdt_begin(&t, "DMAR");
	put8(&t, haw_field);
	put8(&t, 1);			/* interrupt remapping */
	for (int i = 0; i < 10; i++)
		put8(&t, 0);
	put16(&t, 0);			/* DRHD */
	put16(&t, 24);
	put8(&t, 1);			/* INCLUDE_PCI_ALL */
	put8(&t, 0);
	put16(&t, 0);
	put64(&t, 0xfed90000);
	put8(&t, 3);			/* I/O APIC 0 at ff:00.0 */
	put8(&t, 8);
	put16(&t, 0);
	put8(&t, 0);
	put8(&t, 0xff);
	put16(&t, 0);
	sdt_add(DMAR_PHYS, &t);
	root_build(&root, true, tables, 2);
	sdt_add(XSDT_PHYS, &root);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
}

static void test_dmar_found(void **state)
{
	(void)state;
	dmar_machine(38);
	expect_ok(run());
	assert_true(info.has_dmar);
	assert_int_equal(info.dmar.host_addr_width, 39);
	assert_int_equal(info.dmar.unit_count, 1);
	assert_int_equal(info.dmar.units[0].reg_phys, 0xfed90000);
	assert_null(strstr(warn, "DMAR"));
	assert_true(info.has_madt);
}

/* A DMAR the parser refuses is a warning, the machine has no IOMMU. */
static void test_dmar_refused(void **state)
{
	(void)state;
	dmar_machine(70);
	expect_ok(run());
	assert_false(info.has_dmar);
	assert_int_equal(info.dmar.unit_count, 0);
	expect_warn("DMAR", "host address width 71");
	assert_has(warn, "treated as no IOMMU");
	assert_true(info.has_madt);
}

/* ---- table count ---- */

static void test_too_many_tables(void **state)
{
	uint64_t tables[ACPI_MAX_TABLES + 6];
	size_t n = sizeof(tables) / sizeof(tables[0]);
	struct tbl t;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char sig[5];

		snprintf(sig, sizeof(sig), "T%03zu", i);
		tables[i] = 0x8000000 + 0x1000 * i;
		if (i == n - 2) {
			add_madt_4cpus(tables[i]);	/* beyond the recorded ones */
			continue;
		}
		sdt_begin(&t, sig);
		sdt_add(tables[i], &t);
	}
	root_build(&t, true, tables, n);
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
	expect_ok(run());
	assert_int_equal(info.table_count, ACPI_MAX_TABLES);
	assert_string_equal(info.table_sigs[0], "T000");
	assert_string_equal(info.table_sigs[ACPI_MAX_TABLES - 1], "T063");
	assert_int_equal(info.table_phys[ACPI_MAX_TABLES - 1], 0x8000000 + 0x1000 * 63);
	check_4cpus();	/* still found */
	expect_warn("XSDT", "64");
}

/* Warnings that do not fit are cut, never overflow, and NULL is accepted. */
static void test_small_warn_buffers(void **state)
{
	char w[8];

	(void)state;
	machine_xsdt();
	mem_at(MADT_PHYS)[40] ^= 0x10;
	mem_at(HPET_PHYS)[40] ^= 0x10;
	memset(w, 0x5a, sizeof(w));
	assert_int_equal(acpi_parse(rsdp, rsdp_len, &mem, &info, err, sizeof(err), w, 1), 0);
	assert_int_equal(w[0], 0);
	assert_int_equal((unsigned char)w[1], 0x5a);
	assert_int_equal(acpi_parse(rsdp, rsdp_len, &mem, &info, err, sizeof(err), w,
				    sizeof(w)), 0);
	assert_int_equal(strlen(w), sizeof(w) - 1);
	assert_int_equal(acpi_parse(rsdp, rsdp_len, &mem, &info, NULL, 0, NULL, 0), 0);
	/* Both problems reported in one line. */
	assert_int_equal(run(), 0);
	expect_warn("MADT", "HPET");
}

/* ---- robustness ---- */

static uint64_t rng_state;

static uint32_t rng(void)
{
	return (uint32_t)(xorshift64(&rng_state) >> 16);
}

/*
 * Random bytes in a MADT and HPET whose checksums are then fixed (so the
 * parser gets past them into the entries), and in the XSDT and RSDP (mostly
 * refused). Nothing may crash or read outside a region; results stay in range.
 */
static void test_random_tables(void **state)
{
	uint32_t madt_ok = 0;

	(void)state;
	rng_state = 0x243f6a8885a308d3ULL;
	for (int iter = 0; iter < 4000; iter++) {
		uint8_t *m, *h, *x;
		size_t mlen, hlen;
		int ret;

		mem_reset(NULL);
		machine_xsdt();
		m = mem_at(MADT_PHYS);
		h = mem_at(HPET_PHYS);
		x = mem_at(XSDT_PHYS);
		mlen = fm.r[1].len;
		hlen = fm.r[2].len;
		for (int f = 1 + rng() % 4; f > 0; f--) {
			size_t pos = 36 + rng() % (mlen - 36);

			m[pos] = rng() % 2 ? (uint8_t)rng() : (uint8_t)(rng() % 20);
		}
		if (rng() % 4 == 0)
			set32(m + 4, 36 + rng() % (uint32_t)(mlen + 8 - 36));
		fix_checksum(m, mlen);
		h[36 + rng() % (hlen - 36)] = (uint8_t)rng();
		if (rng() % 4 == 0)
			set32(h + 4, 36 + rng() % 40);
		fix_checksum(h, hlen);
		if (rng() % 8 == 0)
			x[rng() % 60] = (uint8_t)rng();
		if (rng() % 16 == 0)
			rsdp[rng() % 36] = (uint8_t)rng();

		ret = run();
		if (ret < 0) {
			assert_true(strlen(err) > 0);
			continue;
		}
		assert_true(info.cpu_count <= ACPI_MAX_CPUS);
		assert_true(info.ioapic_count <= ACPI_MAX_IOAPICS);
		assert_true(info.table_count <= ACPI_MAX_TABLES);
		assert_non_null(memchr(warn, 0, sizeof(warn)));
		madt_ok += info.has_madt;
	}
	assert_true(madt_ok > 1000);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, mem_reset, mem_reset)

/* ---- the FADT's reset register ---- */

/* A machine whose only table is this FADT. */
static void fadt_machine(uint32_t len, uint8_t rev, uint32_t flags, const uint8_t gas_head[4],
			 uint64_t addr, uint8_t value)
{
	struct tbl t;

	mem_reset(NULL);
	fadt_build(&t, len, rev, flags, gas_head, addr, value);
	one_table_machine(&t, FACP_PHYS);
}

static void test_fadt_reset_reg(void **state)
{
	static const uint8_t mem8[4] = { 0, 8, 0, 1 }, pci8[4] = { 2, 8, 0, 1 };

	(void)state;
	machine_xsdt();
	expect_ok(run());
	assert_string_equal(warn, "");
	assert_true(info.has_fadt);
	assert_int_equal(info.fadt_revision, 6);
	assert_true(info.has_reset_reg);
	assert_int_equal(info.reset_reg.space, ACPI_SPACE_IO);
	assert_int_equal(info.reset_reg.address, 0xcf9);
	assert_int_equal(info.reset_reg.value, 6);

	fadt_machine(276, 5, FADT_RESET_REG_SUP, mem8, 0xfed30000, 0x0e);
	expect_ok(run());
	assert_true(info.has_reset_reg);
	assert_int_equal(info.reset_reg.space, ACPI_SPACE_MEMORY);
	assert_int_equal(info.reset_reg.address, 0xfed30000);
	assert_int_equal(info.reset_reg.value, 0x0e);

	/* PCI configuration space, bus 0: device 31, function 0, register 0xac */
	fadt_machine(276, 6, FADT_RESET_REG_SUP, pci8, (31ull << 32) | 0xac, 0x02);
	expect_ok(run());
	assert_true(info.has_reset_reg);
	assert_int_equal(info.reset_reg.space, ACPI_SPACE_PCI_CONFIG);
	assert_int_equal(info.reset_reg.address, (31ull << 32) | 0xac);

	/* ACPI 2.0's FADT ends right after RESET_VALUE */
	fadt_machine(129, 3, FADT_RESET_REG_SUP, gas_io8, 0x92, 1);
	expect_ok(run());
	assert_true(info.has_reset_reg);
	assert_int_equal(info.reset_reg.address, 0x92);
}

/*
 * The FADT's fixed-hardware ports (what Tempo keeps, devassign_reserved):
 * read from their offsets (ACPI 6.5 Table 5.9); a FADT too short to hold
 * PM_TMR_LEN gives none, and the parse keeps them in acpi_info.
 */
static void test_fadt_ports(void **state)
{
	uint8_t t[276];
	struct acpi_fadt_ports fp;
	struct tbl tb;

	(void)state;
	memset(t, 0, sizeof(t));
	t[48] = 0xb2;				/* SMI_CMD */
	t[56] = 0x00, t[57] = 0x06;		/* PM1a_EVT_BLK 0x600 */
	t[60] = 0x00, t[61] = 0x07;		/* PM1b_EVT_BLK 0x700 */
	t[64] = 0x04, t[65] = 0x06;		/* PM1a_CNT_BLK 0x604 */
	t[68] = 0x04, t[69] = 0x07;		/* PM1b_CNT_BLK 0x704 */
	t[76] = 0x08, t[77] = 0x06;		/* PM_TMR_BLK 0x608 */
	t[88] = 4, t[89] = 2, t[91] = 4;	/* PM1_EVT_LEN, PM1_CNT_LEN, PM_TMR_LEN */
	acpi_fadt_ports(t, sizeof(t), &fp);
	assert_int_equal(fp.smi_cmd, 0xb2);
	assert_int_equal(fp.pm1a_evt, 0x600);
	assert_int_equal(fp.pm1b_evt, 0x700);
	assert_int_equal(fp.pm1a_cnt, 0x604);
	assert_int_equal(fp.pm1b_cnt, 0x704);
	assert_int_equal(fp.pm_tmr, 0x608);
	assert_int_equal(fp.pm1_evt_len, 4);
	assert_int_equal(fp.pm1_cnt_len, 2);
	assert_int_equal(fp.pm_tmr_len, 4);
	/* one byte short of PM_TMR_LEN, or no table: nothing */
	acpi_fadt_ports(t, 91, &fp);
	assert_int_equal(fp.smi_cmd + fp.pm1a_evt + fp.pm_tmr + fp.pm_tmr_len, 0);
	acpi_fadt_ports(NULL, 276, &fp);
	assert_int_equal(fp.pm1a_cnt, 0);
	/* through acpi_parse: the filler bytes fadt_build writes are the ports */
	mem_reset(NULL);
	fadt_build(&tb, 276, 6, 0, gas_io8, 0xcf9, 6);
	one_table_machine(&tb, FACP_PHYS);
	expect_ok(run());
	assert_int_equal(info.fadt_ports.smi_cmd, 0x33323130);
	assert_int_equal(info.fadt_ports.pm_tmr_len, 91);
}

/* No reset register offered: normal, no warning, nothing kept. */
static void test_fadt_no_reset_reg(void **state)
{
	(void)state;
	/* ACPI 1.0: 116 bytes, no RESET_REG at all (the flag bit means nothing there) */
	fadt_machine(116, 1, FADT_RESET_REG_SUP, gas_io8, 0xcf9, 6);
	expect_ok(run());
	assert_true(info.has_fadt);
	assert_false(info.has_reset_reg);
	assert_null(strstr(warn, "FADT"));
	/* cut inside the register or before the value */
	fadt_machine(120, 2, FADT_RESET_REG_SUP, gas_io8, 0xcf9, 6);
	expect_ok(run());
	assert_false(info.has_reset_reg);
	fadt_machine(128, 2, FADT_RESET_REG_SUP, gas_io8, 0xcf9, 6);
	expect_ok(run());
	assert_false(info.has_reset_reg);
	/* RESET_REG_SUP clear: the register is not to be used, whatever it holds */
	fadt_machine(276, 6, ~FADT_RESET_REG_SUP, gas_io8, 0xcf9, 6);
	expect_ok(run());
	assert_false(info.has_reset_reg);
	assert_null(strstr(warn, "FADT"));
}

/* A register the spec does not allow is refused with a warning, never kept. */
static void test_fadt_bad_reset_reg(void **state)
{
	static const struct {
		uint8_t gas[4];
		uint64_t addr;
		const char *needle;
	} bad[] = {
		{ { 3, 8, 0, 1 }, 0xcf9, "address space 3" },		/* embedded controller */
		{ { 0x7f, 8, 0, 1 }, 0xcf9, "address space 127" },	/* functional fixed hw */
		{ { 0xff, 8, 0, 1 }, 0xcf9, "address space 255" },
		{ { 1, 16, 0, 2 }, 0xcf9, "16 bits at bit 0" },
		{ { 1, 0, 0, 1 }, 0xcf9, "0 bits at bit 0" },
		{ { 1, 8, 1, 1 }, 0xcf9, "8 bits at bit 1" },
		{ { 1, 8, 0, 1 }, 0, "address 0x0 is not valid" },
		{ { 1, 8, 0, 1 }, 0x10000, "address 0x10000 is not valid" },
		{ { 0, 8, 0, 1 }, 0, "address 0x0 is not valid" },
		{ { 2, 8, 0, 1 }, 32ull << 32, "is not valid in address space 2" },	/* device 32 */
		{ { 2, 8, 0, 1 }, 8ull << 16, "is not valid in address space 2" },	/* function 8 */
		{ { 2, 8, 0, 1 }, 0x100, "is not valid in address space 2" },	/* offset 0x100 */
		{ { 2, 8, 0, 1 }, 1ull << 48, "is not valid in address space 2" },	/* bits above */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fadt_machine(276, 6, FADT_RESET_REG_SUP, bad[i].gas, bad[i].addr, 6);
		expect_ok(run());
		assert_true(info.has_fadt);
		assert_false(info.has_reset_reg);
		expect_warn("FADT", bad[i].needle);
		assert_has(warn, "reset register");
	}
}

/* A FADT that fails its checksum is not read; the first valid one wins. */
static void test_fadt_checksum_and_duplicates(void **state)
{
	const uint64_t tables[] = { FACP_PHYS, FACP_PHYS + 0x1000 };
	struct tbl t;

	(void)state;
	fadt_build(&t, 276, 6, FADT_RESET_REG_SUP, gas_io8, 0x64, 0xfe);
	sdt_finish(&t);
	t.b[9] ^= 1;
	mem_add(FACP_PHYS, t.b, t.len);
	fadt_build(&t, 276, 6, FADT_RESET_REG_SUP, gas_io8, 0xcf9, 6);
	sdt_add(FACP_PHYS + 0x1000, &t);
	root_build(&t, true, tables, 2);
	sdt_add(XSDT_PHYS, &t);
	rsdp_len = rsdp_build(rsdp, 2, 0, XSDT_PHYS);
	expect_ok(run());
	expect_warn("FACP", "checksum");
	assert_true(info.has_reset_reg);
	assert_int_equal(info.reset_reg.address, 0xcf9);

	/* two valid ones: the first is kept */
	mem_reset(NULL);
	fadt_build(&t, 276, 6, FADT_RESET_REG_SUP, gas_io8, 0xcf9, 6);
	sdt_add(FACP_PHYS + 0x1000, &t);
	fadt_build(&t, 276, 6, FADT_RESET_REG_SUP, gas_io8, 0x64, 0xfe);
	sdt_add(FACP_PHYS, &t);
	root_build(&t, true, tables, 2);
	sdt_add(XSDT_PHYS, &t);
	expect_ok(run());
	assert_int_equal(info.reset_reg.address, 0x64);
	assert_int_equal(info.reset_reg.value, 0xfe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fadt_reset_reg),
		T(test_fadt_ports),
		T(test_fadt_no_reset_reg),
		T(test_fadt_bad_reset_reg),
		T(test_fadt_checksum_and_duplicates),
		T(test_checksum),
		T(test_madt_irq_overrides),
		T(test_madt_irq_override_short),
		T(test_rsdt_path),
		T(test_xsdt_path),
		T(test_xsdt_high_table),
		T(test_v2_without_xsdt),
		T(test_x2apic_and_override),
		T(test_madt_unknown_and_long_entries),
		T(test_cpu_flags),
		T(test_madt_no_entries),
		T(test_rsdp_bad_signature),
		T(test_rsdp_bad_checksum),
		T(test_rsdp_bad_ext_checksum),
		T(test_rsdp_too_short),
		T(test_rsdp_bad_length_field),
		T(test_no_mem_or_output),
		T(test_root_unmappable),
		T(test_root_wrong_signature),
		T(test_root_bad_checksum),
		T(test_root_length_bad),
		T(test_root_length_beyond_mapping),
		T(test_root_odd_entry_bytes),
		T(test_madt_entry_len_0_1),
		T(test_madt_entry_too_short_for_type),
		T(test_madt_entry_overruns),
		T(test_madt_trailing_byte),
		T(test_madt_truncated),
		T(test_madt_bad_checksum),
		T(test_madt_length_beyond_mapping),
		T(test_table_unmappable),
		T(test_no_madt),
		T(test_duplicate_apic_ids),
		T(test_too_many_cpus),
		T(test_too_many_ioapics),
		T(test_hpet_too_short),
		T(test_hpet_not_memory),
		T(test_hpet_fields),
		T(test_too_many_tables),
		T(test_mcfg_entries),
		T(test_mcfg_absent),
		T(test_mcfg_bad_entries),
		T(test_mcfg_odd_length),
		T(test_mcfg_too_short),
		T(test_mcfg_too_many),
		T(test_mcfg_bad_checksum),
		T(test_dmar_found),
		T(test_dmar_refused),
		T(test_small_warn_buffers),
		T(test_random_tables),
	};

	return cmocka_run_group_tests_name("acpi", tests, NULL, NULL);
}
