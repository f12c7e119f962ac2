// SPDX-License-Identifier: MIT
/*
 * Host unit tests (cmocka, ASan+UBSan) for the guests' parsers of outside
 * input: multiboot1/2 information, ACPI RSDP/RSDT/XSDT/MADT, the command line,
 * and the formatter. Guest-physical 0..4 GiB is one host mapping with a
 * guard page after it, so a read past 4 GiB crashes the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "guests/common/acpi.h"
#include "guests/common/bootinfo.h"
#include "hv/lib/fmt.h"

#define PHYS_SIZE	0x100000000ull
#define GUARD_SIZE	4096ull

uint8_t *guest_test_phys;

/* Where the tests put things, as Tempo's hv/core/guest_boot.h does. */
#define INFO_GPA	0x1000u
#define MB1_CMDLINE_GPA	0x2000u
#define MB1_MMAP_GPA	0x3000u
#define RSDP_GPA	0xe0000u
#define RSDT_GPA	0xe0100u
#define XSDT_GPA	0xe0200u
#define MADT_GPA	0xe0300u
#define MIB		(1024ull * 1024)

static void w8(uint32_t a, uint8_t v)
{
	guest_test_phys[a] = v;
}

static void w32(uint32_t a, uint32_t v)
{
	memcpy(guest_test_phys + a, &v, sizeof(v));
}

static void w64(uint32_t a, uint64_t v)
{
	memcpy(guest_test_phys + a, &v, sizeof(v));
}

static uint8_t sum(uint32_t a, uint32_t len)
{
	uint8_t s = 0;

	while (len--)
		s += guest_test_phys[a++];
	return s;
}

static void fix_checksum(uint32_t table, uint32_t len, uint32_t field)
{
	guest_test_phys[table + field] = 0;
	guest_test_phys[table + field] = (uint8_t)-sum(table, len);
}

static void sdt_header(uint32_t a, const char *sig, uint32_t len)
{
	memcpy(guest_test_phys + a, sig, 4);
	w32(a + 4, len);
	w8(a + 8, 2);
	memcpy(guest_test_phys + a + 10, "TEMPO ", 6);
}

static void build_rsdp(uint32_t a, int revision)
{
	memcpy(guest_test_phys + a, "RSD PTR ", 8);
	memcpy(guest_test_phys + a + 9, "TEMPO ", 6);
	w8(a + 15, revision);
	w32(a + 16, RSDT_GPA);
	if (revision >= 2) {
		w32(a + 20, 36);
		w64(a + 24, XSDT_GPA);
		fix_checksum(a, 20, 8);
		fix_checksum(a, 36, 32);
	} else {
		fix_checksum(a, 20, 8);
	}
}

/*
 * MADT: CPU 0 (type 0, enabled), CPU 1 (type 0, disabled), an I/O APIC,
 * CPU 300 (type 9, enabled), CPU 0 again as type 9 (a duplicate).
 */
static uint32_t build_madt(void)
{
	uint32_t a = MADT_GPA, off = 44;

	w32(a + 36, 0xfee00000);
	w32(a + 40, 0);
	/* type 0: uid, apic id, flags */
	w8(a + off, 0), w8(a + off + 1, 8), w8(a + off + 2, 0), w8(a + off + 3, 0);
	w32(a + off + 4, 1);
	off += 8;
	w8(a + off, 0), w8(a + off + 1, 8), w8(a + off + 2, 1), w8(a + off + 3, 1);
	w32(a + off + 4, 0);
	off += 8;
	w8(a + off, 1), w8(a + off + 1, 12);
	off += 12;
	/* type 9: reserved, x2apic id, flags, uid */
	w8(a + off, 9), w8(a + off + 1, 16);
	w32(a + off + 4, 300), w32(a + off + 8, 1), w32(a + off + 12, 2);
	off += 16;
	w8(a + off, 9), w8(a + off + 1, 16);
	w32(a + off + 4, 0), w32(a + off + 8, 1), w32(a + off + 12, 3);
	off += 16;
	sdt_header(a, "APIC", off);
	fix_checksum(a, off, 9);
	return off;
}

static void build_acpi(int revision)
{
	build_madt();
	sdt_header(RSDT_GPA, "RSDT", 36 + 4);
	w32(RSDT_GPA + 36, MADT_GPA);
	fix_checksum(RSDT_GPA, 40, 9);
	sdt_header(XSDT_GPA, "XSDT", 36 + 8);
	w64(XSDT_GPA + 36, MADT_GPA);
	fix_checksum(XSDT_GPA, 44, 9);
	build_rsdp(RSDP_GPA, revision);
}

/* Appends a tag at *off; returns the tag's start. */
static uint32_t mb2_tag(uint32_t *off, uint32_t type, uint32_t size)
{
	uint32_t t = INFO_GPA + *off;

	w32(t, type);
	w32(t + 4, size);
	*off += (size + 7) & ~7u;
	return t;
}

/* cmdline, basic meminfo, memory map (0-0x9f000, 1 MiB-64 MiB usable), RSDP, end. */
static uint32_t build_mb2(const char *cmdline)
{
	uint32_t off = 8, t;
	size_t n = strlen(cmdline) + 1;

	t = mb2_tag(&off, 1, 8 + n);
	memcpy(guest_test_phys + t + 8, cmdline, n);
	t = mb2_tag(&off, 4, 16);
	w32(t + 8, 636), w32(t + 12, 63 * 1024);
	t = mb2_tag(&off, 6, 16 + 3 * 24);
	w32(t + 8, 24), w32(t + 12, 0);
	w64(t + 16, 0), w64(t + 24, 0x9f000), w32(t + 32, 1);
	w64(t + 40, 0x9f000), w64(t + 48, 0x61000), w32(t + 56, 2);
	w64(t + 64, MIB), w64(t + 72, 63 * MIB), w32(t + 80, 1);
	t = mb2_tag(&off, 15, 8 + 36);
	memcpy(guest_test_phys + t + 8, guest_test_phys + RSDP_GPA, 36);
	mb2_tag(&off, 0, 8);
	w32(INFO_GPA, off);
	return off;
}

static void build_mb1(const char *cmdline)
{
	uint32_t e = MB1_MMAP_GPA;

	w32(INFO_GPA, (1u << 0) | (1u << 2) | (1u << 6));
	w32(INFO_GPA + 4, 636);
	w32(INFO_GPA + 8, 63 * 1024);
	w32(INFO_GPA + 16, MB1_CMDLINE_GPA);
	memcpy(guest_test_phys + MB1_CMDLINE_GPA, cmdline, strlen(cmdline) + 1);
	w32(INFO_GPA + 44, 2 * 24);
	w32(INFO_GPA + 48, e);
	w32(e, 20), w64(e + 4, 0), w64(e + 12, 0x9f000), w32(e + 20, 1);
	e += 24;
	w32(e, 20), w64(e + 4, MIB), w64(e + 12, 63 * MIB), w32(e + 20, 1);
}

static int setup(void **state)
{
	(void)state;
	/* Fresh zero pages for each test; untouched pages cost nothing. */
	memset(guest_test_phys, 0, 0x100000);
	return 0;
}

static void check_cpus(const uint8_t *rsdp, uint32_t len)
{
	struct acpi_cpus cpus;

	assert_null(acpi_madt_cpus(rsdp, len, &cpus));
	assert_int_equal(cpus.count, 2);
	assert_int_equal(cpus.apic_ids[0], 0);
	assert_int_equal(cpus.apic_ids[1], 300);
	assert_false(cpus.cut);
}

static void test_mb2_good(void **state)
{
	struct boot_params bp;

	(void)state;
	build_acpi(2);
	build_mb2("exit=emu fault=oob");
	bootinfo_parse(MB2_BOOT_MAGIC, INFO_GPA, &bp);
	assert_null(bp.error);
	assert_int_equal(bp.mb_version, 2);
	assert_string_equal(bp.cmdline, "exit=emu fault=oob");
	assert_int_equal(bp.ram_top, 64 * MIB);
	assert_int_equal(bp.ram_count, 2);
	assert_true(bootinfo_is_ram(&bp, 0x8000, 4096));
	assert_false(bootinfo_is_ram(&bp, 0x9f000, 4096));
	assert_int_equal(bp.rsdp_len, 36);
	check_cpus(bp.rsdp, bp.rsdp_len);
}

static void test_mb1_good_and_bios_scan(void **state)
{
	struct boot_params bp;
	uint8_t rsdp[ACPI_RSDP_MAX];
	uint32_t len;

	(void)state;
	build_acpi(2);
	build_mb1("fault=vmxon");
	bootinfo_parse(MB1_BOOT_MAGIC, INFO_GPA, &bp);
	assert_null(bp.error);
	assert_int_equal(bp.mb_version, 1);
	assert_string_equal(bp.cmdline, "fault=vmxon");
	assert_int_equal(bp.ram_top, 64 * MIB);
	assert_true(bootinfo_is_ram(&bp, 0x8000, 4096));
	assert_int_equal(bp.rsdp_len, 0);
	len = acpi_find_rsdp_bios(rsdp);
	assert_int_equal(len, 36);
	check_cpus(rsdp, len);
}

static void test_acpi_v1_uses_rsdt(void **state)
{
	uint8_t rsdp[ACPI_RSDP_MAX];

	(void)state;
	build_acpi(0);
	memset(guest_test_phys + XSDT_GPA, 0, 64);	/* must not be needed */
	assert_int_equal(acpi_find_rsdp_bios(rsdp), 20);
	check_cpus(rsdp, 20);
}

static void test_acpi_bad(void **state)
{
	struct acpi_cpus cpus;
	uint8_t rsdp[ACPI_RSDP_MAX];
	uint32_t len;

	(void)state;
	build_acpi(2);
	memcpy(rsdp, guest_test_phys + RSDP_GPA, 36);

	rsdp[0] = 'X';
	assert_non_null(acpi_madt_cpus(rsdp, 36, &cpus));
	rsdp[0] = 'R';

	/* A broken MADT checksum. */
	guest_test_phys[MADT_GPA + 50] ^= 1;
	assert_non_null(acpi_madt_cpus(rsdp, 36, &cpus));
	guest_test_phys[MADT_GPA + 50] ^= 1;

	/* An entry of length 0, checksum fixed: must not loop. */
	len = build_madt();
	w8(MADT_GPA + 44 + 8 + 1, 0);
	fix_checksum(MADT_GPA, len, 9);
	assert_non_null(acpi_madt_cpus(rsdp, 36, &cpus));

	/* An entry running past the table. */
	len = build_madt();
	w8(MADT_GPA + 44 + 1, 200);
	fix_checksum(MADT_GPA, len, 9);
	assert_non_null(acpi_madt_cpus(rsdp, 36, &cpus));

	/* A MADT that claims to end past 4 GiB. */
	len = build_madt();
	w32(RSDT_GPA + 36, 0xfffffff0);
	fix_checksum(RSDT_GPA, 40, 9);
	w64(XSDT_GPA + 36, 0xfffffff0);
	fix_checksum(XSDT_GPA, 44, 9);
	assert_non_null(acpi_madt_cpus(rsdp, 36, &cpus));

	/* No RSDP anywhere. */
	memset(guest_test_phys + RSDP_GPA, 0, 36);
	assert_int_equal(acpi_find_rsdp_bios(rsdp), 0);
}

static void test_mb2_bad(void **state)
{
	struct boot_params bp;
	uint32_t total;

	(void)state;
	build_acpi(2);
	total = build_mb2("a");

	bootinfo_parse(MB2_BOOT_MAGIC, 0, &bp);
	assert_non_null(bp.error);
	bootinfo_parse(MB2_BOOT_MAGIC, INFO_GPA + 4, &bp);
	assert_non_null(bp.error);
	bootinfo_parse(MB2_BOOT_MAGIC, 0xfffffff8, &bp);
	assert_non_null(bp.error);

	w32(INFO_GPA, 0xffffff00);
	bootinfo_parse(MB2_BOOT_MAGIC, INFO_GPA, &bp);
	assert_non_null(bp.error);
	w32(INFO_GPA, total);

	/* First tag (cmdline) with size 4, then with a size past the end. */
	w32(INFO_GPA + 12, 4);
	bootinfo_parse(MB2_BOOT_MAGIC, INFO_GPA, &bp);
	assert_non_null(bp.error);
	w32(INFO_GPA + 12, total);
	bootinfo_parse(MB2_BOOT_MAGIC, INFO_GPA, &bp);
	assert_non_null(bp.error);
	w32(INFO_GPA + 12, 10);

	/* Cut before the end tag. */
	w32(INFO_GPA, total - 8);
	bootinfo_parse(MB2_BOOT_MAGIC, INFO_GPA, &bp);
	assert_non_null(bp.error);

	bootinfo_parse(0x12345678, INFO_GPA, &bp);
	assert_int_equal(bp.mb_version, 0);
	assert_non_null(bp.error);
}

static void test_mb1_bad(void **state)
{
	struct boot_params bp;

	(void)state;
	build_mb1("x");

	/* A command line with no NUL right below 4 GiB: read up to 4 GiB only. */
	memset(guest_test_phys + PHYS_SIZE - 64, 'a', 64);
	w32(INFO_GPA + 16, 0xffffffc0);
	bootinfo_parse(MB1_BOOT_MAGIC, INFO_GPA, &bp);
	assert_non_null(bp.error);
	assert_int_equal(strlen(bp.cmdline), 64);

	/* Longer than the buffer: cut, still terminated. */
	memset(guest_test_phys + MB1_CMDLINE_GPA, 'b', 1000);
	w32(INFO_GPA + 16, MB1_CMDLINE_GPA);
	bootinfo_parse(MB1_BOOT_MAGIC, INFO_GPA, &bp);
	assert_true(bp.cmdline_cut);
	assert_int_equal(strlen(bp.cmdline), BOOTINFO_CMDLINE_MAX - 1);

	/* Memory map entry size 0. */
	w32(MB1_MMAP_GPA, 0);
	bootinfo_parse(MB1_BOOT_MAGIC, INFO_GPA, &bp);
	assert_non_null(bp.error);

	/* Memory map running past 4 GiB. */
	build_mb1("x");
	w32(INFO_GPA + 48, 0xfffffff0);
	bootinfo_parse(MB1_BOOT_MAGIC, INFO_GPA, &bp);
	assert_non_null(bp.error);

	bootinfo_parse(MB1_BOOT_MAGIC, 0xfffffff0, &bp);
	assert_non_null(bp.error);
}

/* Random byte corruption of the info block and tables: no crash, sane output. */
static void test_fuzz(void **state)
{
	static uint8_t info_copy[512], acpi_copy[0x400];
	struct boot_params bp;
	struct acpi_cpus cpus;
	uint32_t total;

	(void)state;
	srand(1);
	build_acpi(2);
	total = build_mb2("exit=emu fault=none");
	memcpy(info_copy, guest_test_phys + INFO_GPA, sizeof(info_copy));
	memcpy(acpi_copy, guest_test_phys + RSDP_GPA, sizeof(acpi_copy));
	for (int i = 0; i < 20000; i++) {
		int flips = 1 + rand() % 4;

		memcpy(guest_test_phys + INFO_GPA, info_copy, sizeof(info_copy));
		memcpy(guest_test_phys + RSDP_GPA, acpi_copy, sizeof(acpi_copy));
		for (int f = 0; f < flips; f++) {
			if (rand() & 1)
				guest_test_phys[INFO_GPA + rand() % total] = rand();
			else
				guest_test_phys[RSDP_GPA + rand() % sizeof(acpi_copy)] = rand();
		}
		bootinfo_parse(i & 1 ? MB2_BOOT_MAGIC : MB1_BOOT_MAGIC, INFO_GPA, &bp);
		assert_true(strlen(bp.cmdline) < BOOTINFO_CMDLINE_MAX);
		assert_true(bp.ram_count <= BOOTINFO_RAM_MAX);
		assert_true(bp.rsdp_len <= BOOTINFO_RSDP_MAX);
		if (bp.rsdp_len && !acpi_madt_cpus(bp.rsdp, bp.rsdp_len, &cpus))
			assert_true(cpus.count >= 1 && cpus.count <= ACPI_MAX_CPUS);
	}
}

static void test_cmdline_value(void **state)
{
	char v[8];

	(void)state;
	assert_true(cmdline_value("exit=emu fault=oob", "fault", v, sizeof(v)));
	assert_string_equal(v, "oob");
	assert_true(cmdline_value("  fault=triple  exit=emu", "exit", v, sizeof(v)));
	assert_string_equal(v, "emu");
	assert_true(cmdline_value("fault=", "fault", v, sizeof(v)));
	assert_string_equal(v, "");
	assert_true(cmdline_value("fault=verylongvalue", "fault", v, sizeof(v)));
	assert_string_equal(v, "verylon");
	assert_false(cmdline_value("faults=oob fault", "fault", v, sizeof(v)));
	assert_false(cmdline_value("xfault=oob", "fault", v, sizeof(v)));
	assert_false(cmdline_value("", "fault", v, sizeof(v)));
}

/*
 * The guests print with hv/lib/fmt.c (tests/unit/test_fmt.c tests it in
 * full); here the conversions their lines use, and fmt_scnprintf, which
 * their `n += ...` line builders rely on.
 */
static void test_fmt(void **state)
{
	char b[64];
	size_t n;

	(void)state;
	fmt_snprintf(b, sizeof(b), "%llu", 18446744073709551615ull);
	assert_string_equal(b, "18446744073709551615");
	fmt_snprintf(b, sizeof(b), "%llx %x %08x %lx", 0x123456789abull, 0xdeadbeefu, 0x2au,
		     0xfeedul);
	assert_string_equal(b, "123456789ab deadbeef 0000002a feed");
	fmt_snprintf(b, sizeof(b), "%d %u %s %c%%", -42, 7u, "s", 'c');
	assert_string_equal(b, "-42 7 s c%");
	fmt_snprintf(b, sizeof(b), "[%12lld] [%10llu] [%03u] [%lld]", -1234ll, 5ull, 7u,
		     -9223372036854775807ll - 1);
	assert_string_equal(b, "[       -1234] [         5] [007] [-9223372036854775808]");
	fmt_snprintf(b, sizeof(b), "[%14s] [%24s]", "1.500", "< 0");
	assert_string_equal(b, "[         1.500] [                     < 0]");

	/* snprintf: the length the whole output has; scnprintf: what it wrote */
	assert_int_equal(fmt_snprintf(b, 5, "%s", "abcdefgh"), 8);
	assert_string_equal(b, "abcd");
	assert_int_equal(fmt_scnprintf(b, 5, "%s", "abcdefgh"), 4);
	assert_string_equal(b, "abcd");
	assert_int_equal(fmt_scnprintf(b, 5, "%s", "abc"), 3);
	assert_int_equal(fmt_scnprintf(b, 0, "%s", "abc"), 0);
	n = fmt_scnprintf(b, 8, "%s", "0123");
	n += fmt_scnprintf(b + n, 8 - n, "%s", "4567");
	n += fmt_scnprintf(b + n, 8 - n, "%s", "89");
	assert_int_equal(n, 7);
	assert_string_equal(b, "0123456");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_mb2_good, setup),
		cmocka_unit_test_setup(test_mb1_good_and_bios_scan, setup),
		cmocka_unit_test_setup(test_acpi_v1_uses_rsdt, setup),
		cmocka_unit_test_setup(test_acpi_bad, setup),
		cmocka_unit_test_setup(test_mb2_bad, setup),
		cmocka_unit_test_setup(test_mb1_bad, setup),
		cmocka_unit_test_setup(test_fuzz, setup),
		cmocka_unit_test(test_cmdline_value),
		cmocka_unit_test(test_fmt),
	};
	uint8_t *p = mmap(NULL, PHYS_SIZE + GUARD_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED || mprotect(p + PHYS_SIZE, GUARD_SIZE, PROT_NONE))
		return 1;
	guest_test_phys = p;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
