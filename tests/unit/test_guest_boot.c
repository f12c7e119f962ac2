// SPDX-License-Identifier: MIT
/*
 * Unit tests for hv/core/guest_boot.c. What the builders write is read back with
 * the hypervisor's own parsers (drivers/acpi.c, hv/core/mb2.c), so a guest gets
 * nothing those would refuse; multiboot1 fields are checked as a kernel
 * reads them. Guest memory is an exact-size heap buffer filled with a
 * pattern, so ASan catches a write past its end and the pattern one outside
 * the area a builder owns.
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
#include "hv/core/guest_boot.h"
#include "hv/core/mb2.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)
#define ALIGN16(x) (((x) + 15) & ~15ull)
#define FILL 0xcc

/* ---- guest memory ---- */

static uint8_t *mem;
static uint64_t mem_size;	/* what the builders are told */
static size_t buf_size;		/* what is allocated (less only where a test says why) */

static void mem_free(void)
{
	free(mem);
	mem = NULL;
}

static void mem_new(size_t alloc, uint64_t told)
{
	mem_free();
	mem = malloc(alloc ? alloc : 1);
	assert_non_null(mem);
	memset(mem, FILL, alloc);
	buf_size = alloc;
	mem_size = told;
}

static int teardown(void **state)
{
	(void)state;
	mem_free();
	return 0;
}

static uint32_t ld32(uint64_t gpa)
{
	uint32_t v;

	assert_true(gpa + 4 <= buf_size);
	memcpy(&v, mem + gpa, 4);
	return v;
}

static uint64_t ld64(uint64_t gpa)
{
	uint64_t v;

	assert_true(gpa + 8 <= buf_size);
	memcpy(&v, mem + gpa, 8);
	return v;
}

/* Every byte outside [lo, hi) still holds the fill pattern. */
static void assert_untouched_outside(uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < buf_size; i++)
		if ((i < lo || i >= hi) && mem[i] != FILL)
			fail_msg("byte 0x%zx written, outside [0x%llx, 0x%llx)", i,
				 (unsigned long long)lo, (unsigned long long)hi);
}

static void assert_all_untouched(void)
{
	assert_untouched_outside(0, 0);
}

/* ---- the platform ---- */

static struct guest_platform plat;

static void plat_init(uint32_t ncpu, const uint32_t *ids)
{
	memset(&plat, 0, sizeof(plat));
	plat.mem_size = mem_size;
	plat.cpu_count = ncpu;
	for (uint32_t i = 0; i < ncpu; i++)
		plat.apic_ids[i] = ids ? ids[i] : i;
	plat.cmdline = "console=ttyS0 quiet";
	plat.loader_name = "Tempo 0.1";
}

static void plat_module(uint64_t start, uint64_t end, const char *s)
{
	struct guest_module *m = &plat.modules[plat.module_count++];

	m->start = start;
	m->end = end;
	m->string = s;
}

/* ---- ACPI read back through drivers/acpi.c ---- */

/* Serves guest-physical ranges inside the buffer only. */
static const void *fake_map(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	if (phys > buf_size || len > buf_size - phys)
		return NULL;
	return mem + phys;
}

static const struct acpi_mem amem = { .map = fake_map };
static struct acpi_info ai;
static char err[256];
static char warn[512];

static void acpi_read(const uint8_t *rsdp, size_t len)
{
	memset(&ai, 0xa5, sizeof(ai));
	if (acpi_parse(rsdp, len, &amem, &ai, err, sizeof(err), warn, sizeof(warn)))
		fail_msg("acpi_parse: %s", err);
	/* The only complaint allowed: there is no HPET. */
	if (strcmp(warn, "ACPI: no HPET listed in the XSDT") &&
	    strcmp(warn, "ACPI: no HPET listed in the RSDT"))
		fail_msg("acpi_parse warned: %s", warn);
}

static void check_header(uint64_t gpa, const char *sig, uint32_t min_len)
{
	uint32_t len = ld32(gpa + 4);

	assert_memory_equal(mem + gpa, sig, 4);
	assert_true(len >= min_len);
	assert_int_equal(acpi_checksum(mem + gpa, len), 0);
	assert_memory_equal(mem + gpa + 10, "TEMPO ", 6);
	assert_memory_equal(mem + gpa + 16, "TEMPOHV ", 8);
	assert_memory_equal(mem + gpa + 28, "TMPO", 4);
	assert_int_equal(gpa % 16, 0);
	assert_true(gpa >= GUEST_ACPI_GPA && gpa + len <= GUEST_ACPI_GPA + GUEST_ACPI_MAX);
}

/* End of the MADT, the last table written. */
static uint64_t check_acpi(uint64_t rsdp)
{
	uint64_t rsdt, xsdt, madt;

	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	assert_memory_equal(mem + rsdp, "RSD PTR ", 8);
	assert_int_equal(acpi_checksum(mem + rsdp, 20), 0);
	assert_int_equal(acpi_checksum(mem + rsdp, 36), 0);
	assert_memory_equal(mem + rsdp + 9, "TEMPO ", 6);
	assert_int_equal(mem[rsdp + 15], 2);
	assert_int_equal(ld32(rsdp + 20), 36);
	assert_int_equal(mem[rsdp + 33] | mem[rsdp + 34] | mem[rsdp + 35], 0);
	rsdt = ld32(rsdp + 16);
	xsdt = ld64(rsdp + 24);

	check_header(rsdt, "RSDT", 40);
	assert_int_equal(ld32(rsdt + 4), 40);
	assert_true(rsdt >= rsdp + 36);
	check_header(xsdt, "XSDT", 44);
	assert_int_equal(ld32(xsdt + 4), 44);
	assert_true(xsdt >= rsdt + 40);
	madt = ld64(xsdt + 36);
	assert_int_equal(ld32(rsdt + 36), madt);
	check_header(madt, "APIC", 44);
	assert_true(madt >= xsdt + 44);
	assert_int_equal(ld32(madt + 36), 0xfee00000u);
	assert_int_equal(ld32(madt + 40), 0);

	/* Through the XSDT (what a 2.0+ OS uses) ... */
	acpi_read(mem + rsdp, 36);
	assert_int_equal(ai.rsdp_revision, 2);
	assert_string_equal(ai.oem_id, "TEMPO ");
	assert_true(ai.use_xsdt);
	assert_int_equal(ai.root_phys, xsdt);
	assert_int_equal(ai.table_count, 1);
	assert_string_equal(ai.table_sigs[0], "APIC");
	assert_int_equal(ai.table_phys[0], madt);
	assert_true(ai.has_madt);
	assert_false(ai.has_hpet);
	assert_int_equal(ai.lapic_phys, 0xfee00000u);
	assert_int_equal(ai.madt_flags, 0);
	assert_int_equal(ai.ioapic_count, 0);
	return madt + ld32(madt + 4);
}

static void check_cpus(void)
{
	assert_int_equal(ai.cpu_count, plat.cpu_count);
	assert_false(ai.cpus_truncated);
	for (uint32_t i = 0; i < plat.cpu_count; i++) {
		assert_int_equal(ai.cpus[i].apic_id, plat.apic_ids[i]);
		assert_int_equal(ai.cpus[i].acpi_uid, i);
		assert_true(ai.cpus[i].enabled);
		assert_false(ai.cpus[i].online_capable);
		assert_int_equal(ai.cpus[i].from_x2apic_entry, plat.apic_ids[i] > 254);
	}
}

/* ... and through the RSDT, as an ACPI 1.0 reader of the same RSDP would. */
static void check_via_rsdt(uint64_t rsdp)
{
	uint8_t v1[20];

	memcpy(v1, mem + rsdp, 20);
	v1[15] = 0;
	v1[8] = 0;
	v1[8] = (uint8_t)-acpi_checksum(v1, 20);
	acpi_read(v1, 20);
	assert_false(ai.use_xsdt);
	assert_int_equal(ai.root_phys, ld32(rsdp + 16));
	check_cpus();
}

static uint64_t build_and_check_acpi(uint32_t ncpu, const uint32_t *ids)
{
	uint64_t rsdp, end;

	mem_new(2 * MIB, 2 * MIB);
	plat_init(ncpu, ids);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	end = check_acpi(rsdp);
	check_cpus();
	check_via_rsdt(rsdp);
	assert_untouched_outside(GUEST_ACPI_GPA, end);
	return end;
}

static void test_acpi_one_cpu(void **state)
{
	const uint32_t ids[] = { 0 };

	(void)state;
	/* RSDP 36, RSDT at +0x30 (40), XSDT at +0x60 (44), MADT at +0x90 (44 + 8). */
	assert_int_equal(build_and_check_acpi(1, ids), GUEST_ACPI_GPA + 0x90 + 52);
	assert_int_equal(ld32(GUEST_ACPI_GPA + 16), GUEST_ACPI_GPA + 0x30);
	assert_int_equal(ld64(GUEST_ACPI_GPA + 24), GUEST_ACPI_GPA + 0x60);
	/* The type 0 entry, byte by byte (ACPI 6.5 5.2.12.2). */
	assert_memory_equal(mem + GUEST_ACPI_GPA + 0x90 + 44, "\x00\x08\x00\x00\x01\x00\x00\x00",
			    8);
}

static void test_acpi_two_cpus(void **state)
{
	const uint32_t ids[] = { 2, 6 };

	(void)state;
	build_and_check_acpi(2, ids);
}

static void test_acpi_four_cpus(void **state)
{
	const uint32_t ids[] = { 0, 1, 2, 3 };

	(void)state;
	assert_int_equal(build_and_check_acpi(4, ids), GUEST_ACPI_GPA + 0x90 + 44 + 4 * 8);
}

/* IDs of 255 and up need x2APIC entries (255 is the xAPIC broadcast ID). */
static void test_acpi_x2apic_ids(void **state)
{
	const uint32_t ids[] = { 254, 255, 256, 0x12345678, 0, 0xffffffffu };
	uint64_t madt;

	(void)state;
	madt = GUEST_ACPI_GPA + 0x90;
	assert_int_equal(build_and_check_acpi(6, ids), madt + 44 + 2 * 8 + 4 * 16);
	/* The second entry, a type 9, byte by byte (ACPI 6.5 5.2.12.12). */
	assert_memory_equal(mem + madt + 44 + 8,
			    "\x09\x10\x00\x00\xff\x00\x00\x00"
			    "\x01\x00\x00\x00\x01\x00\x00\x00", 16);
}

/*
 * A partition with irqs =: its virtual IOAPIC and the ISA overrides in the
 * MADT, read back by the hypervisor's own parser as a guest OS would.
 */
static void test_acpi_ioapic(void **state)
{
	const uint32_t ids[] = { 1, 2 };
	uint64_t rsdp, madt = GUEST_ACPI_GPA + 0x90;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(2, ids);
	plat.ioapic = true;
	plat.irq_override_count = 2;
	plat.irq_overrides[0] = (struct guest_irq_override){ 0, 2, 0 };
	plat.irq_overrides[1] = (struct guest_irq_override){ 9, 9, 0xd };
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	assert_int_equal(ld32(madt + 4), 44 + 2 * 8 + 12 + 2 * 10);
	/* the I/O APIC entry, byte by byte (ACPI 6.5 5.2.12.3) */
	assert_memory_equal(mem + madt + 44 + 16, "\x01\x0c\x00\x00\x00\x00\xc0\xfe\x00\x00\x00\x00",
			    12);
	acpi_read(mem + rsdp, 36);
	assert_true(ai.has_madt);
	assert_int_equal(ai.cpu_count, 2);
	assert_int_equal(ai.ioapic_count, 1);
	assert_int_equal(ai.ioapics[0].phys, 0xfec00000u);
	assert_int_equal(ai.ioapics[0].gsi_base, 0);
	assert_int_equal(ai.irq_override_count, 2);
	assert_int_equal(ai.irq_overrides[0].source, 0);
	assert_int_equal(ai.irq_overrides[0].gsi, 2);
	assert_int_equal(ai.irq_overrides[1].flags, 0xd);
	/* more overrides than the MADT takes: the first GUEST_IRQ_OVERRIDES_MAX */
	plat.irq_override_count = GUEST_IRQ_OVERRIDES_MAX + 5;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_GPA);
	acpi_read(mem + rsdp, 36);
	assert_int_equal(ai.irq_override_count, GUEST_IRQ_OVERRIDES_MAX);
}

/* An assigned function's INTx on GSI 9: an override to level, active low, in the MADT. */
static void test_acpi_pci_intx_override(void **state)
{
	const uint32_t ids[] = { 1 };
	uint64_t rsdp;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, ids);
	plat.ioapic = true;
	plat.irq_override_count = 3;
	plat.irq_overrides[0] = (struct guest_irq_override){ 0, 2, 0 };
	plat.irq_overrides[1] = (struct guest_irq_override){ 9, 9, 0xd };	/* the SCI's */
	plat.irq_overrides[2] = (struct guest_irq_override){ 5, 10, 0 };	/* to GSI 10 */
	assert_true(guest_irq_override_pci(&plat, 9));
	assert_true(guest_irq_override_pci(&plat, 10));
	assert_int_equal(plat.irq_override_count, 3);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	acpi_read(mem + rsdp, 36);
	assert_int_equal(ai.irq_override_count, 3);
	assert_int_equal(ai.irq_overrides[0].source, 0);
	assert_int_equal(ai.irq_overrides[0].gsi, 2);
	assert_int_equal(ai.irq_overrides[1].source, 9);
	assert_int_equal(ai.irq_overrides[1].gsi, 9);
	assert_int_equal(ai.irq_overrides[1].flags, 0xf);
	assert_int_equal(ai.irq_overrides[2].source, 10);
	assert_int_equal(ai.irq_overrides[2].gsi, 10);
	assert_int_equal(ai.irq_overrides[2].flags, 0xf);
	/* twice is once */
	assert_true(guest_irq_override_pci(&plat, 9));
	assert_int_equal(plat.irq_override_count, 3);
	/* no ISA IRQ above 15; a full table is left alone */
	assert_false(guest_irq_override_pci(&plat, 16));
	assert_false(guest_irq_override_pci(&plat, 0xffffffffu));
	plat.irq_override_count = GUEST_IRQ_OVERRIDES_MAX;
	for (uint32_t i = 0; i < GUEST_IRQ_OVERRIDES_MAX; i++)
		plat.irq_overrides[i] = (struct guest_irq_override){ (uint8_t)(i + 16), i + 16, 0 };
	assert_false(guest_irq_override_pci(&plat, 11));
	assert_int_equal(plat.irq_override_count, GUEST_IRQ_OVERRIDES_MAX);
	assert_int_equal(plat.irq_overrides[0].gsi, 16);
	plat.irq_override_count = GUEST_IRQ_OVERRIDES_MAX + 1;	/* hostile count */
	assert_false(guest_irq_override_pci(&plat, 11));
}

/* The most CPUs a partition can have, all x2APIC: the largest MADT. */
static void test_acpi_max_cpus(void **state)
{
	uint32_t ids[GUEST_MAX_CPUS];

	(void)state;
	for (uint32_t i = 0; i < GUEST_MAX_CPUS; i++)
		ids[i] = 0x1000 + 3 * i;
	build_and_check_acpi(GUEST_MAX_CPUS, ids);
	for (uint32_t i = 0; i < GUEST_MAX_CPUS; i++)
		ids[i] = GUEST_MAX_CPUS - 1 - i;	/* boot vCPU need not be 0 */
	build_and_check_acpi(GUEST_MAX_CPUS, ids);
}

static void test_acpi_bad_platform(void **state)
{
	const uint32_t dup[] = { 1, 2, 1 };

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(0, NULL);
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat_init(GUEST_MAX_CPUS, NULL);
	plat.cpu_count = GUEST_MAX_CPUS + 1;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat_init(3, dup);
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat_init(1, NULL);
	assert_int_equal(guest_build_acpi(NULL, mem_size, &plat), 0);
	assert_int_equal(guest_build_acpi(mem, mem_size, NULL), 0);
	assert_all_untouched();
}

/*
 * Memory ending anywhere before the MADT's last byte is refused with
 * nothing written past it; ending exactly there is enough.
 */
/*
 * Build the tables of @plat in memories of @from bytes up to @end (64 KiB
 * steps below the tables' area, then byte by byte): every one smaller than
 * @end is refused before a byte is written (a dry run measures first); at
 * @end they fit and @built checks them.
 */
static void sweep_acpi_sizes(uint64_t from, uint64_t end, void (*built)(uint64_t rsdp))
{
	for (uint64_t size = from; size <= end; size += size < GUEST_ACPI_GPA ? 0x10000 : 1) {
		uint64_t ret;

		mem_new(size, size);
		ret = guest_build_acpi(mem, mem_size, &plat);
		if (size < end) {
			assert_int_equal(ret, 0);
			assert_all_untouched();
		} else {
			built(ret);
		}
	}
}

static void built_plain(uint64_t rsdp)
{
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	check_acpi(rsdp);
	check_cpus();
}

static uint64_t check_acpi_pm(uint64_t rsdp, uint16_t port);

static void built_pm(uint64_t rsdp)
{
	check_acpi_pm(rsdp, GUEST_ACPI_PM_PORT);
}

static void check_acpi_sizes(uint32_t ncpu, const uint32_t *ids)
{
	mem_new(2 * MIB, 2 * MIB);
	plat_init(ncpu, ids);
	assert_true(guest_build_acpi(mem, mem_size, &plat));
	sweep_acpi_sizes(0, check_acpi(GUEST_ACPI_GPA), built_plain);
}

static void test_acpi_small_memory(void **state)
{
	const uint32_t ids[] = { 0, 300, 1 };

	(void)state;
	check_acpi_sizes(1, NULL);
	check_acpi_sizes(3, ids);
}

/* ---- the FADT and DSDT a Linux guest powers off through ---- */

/*
 * The one-CPU tables as they were before the FADT existed: with no PM port
 * they must not change by a byte.
 */
static const uint8_t acpi_one_cpu_golden[] = {
	0x52, 0x53, 0x44, 0x20, 0x50, 0x54, 0x52, 0x20, 0xfc, 0x54, 0x45, 0x4d,
	0x50, 0x4f, 0x20, 0x02, 0x30, 0x00, 0x0e, 0x00, 0x24, 0x00, 0x00, 0x00,
	0x60, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6e, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x52, 0x53, 0x44, 0x54, 0x28, 0x00, 0x00, 0x00, 0x01, 0xd2, 0x54, 0x45,
	0x4d, 0x50, 0x4f, 0x20, 0x54, 0x45, 0x4d, 0x50, 0x4f, 0x48, 0x56, 0x20,
	0x01, 0x00, 0x00, 0x00, 0x54, 0x4d, 0x50, 0x4f, 0x01, 0x00, 0x00, 0x00,
	0x90, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x58, 0x53, 0x44, 0x54, 0x2c, 0x00, 0x00, 0x00, 0x01, 0xc8, 0x54, 0x45,
	0x4d, 0x50, 0x4f, 0x20, 0x54, 0x45, 0x4d, 0x50, 0x4f, 0x48, 0x56, 0x20,
	0x01, 0x00, 0x00, 0x00, 0x54, 0x4d, 0x50, 0x4f, 0x01, 0x00, 0x00, 0x00,
	0x90, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x41, 0x50, 0x49, 0x43, 0x34, 0x00, 0x00, 0x00, 0x03, 0x9b, 0x54, 0x45,
	0x4d, 0x50, 0x4f, 0x20, 0x54, 0x45, 0x4d, 0x50, 0x4f, 0x48, 0x56, 0x20,
	0x01, 0x00, 0x00, 0x00, 0x54, 0x4d, 0x50, 0x4f, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xe0, 0xfe, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00,
};

static void test_acpi_no_pm_port_unchanged(void **state)
{
	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	assert_int_equal(plat.acpi_pm_port, 0);
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_GPA);
	assert_memory_equal(mem + GUEST_ACPI_GPA, acpi_one_cpu_golden,
			    sizeof(acpi_one_cpu_golden));
	assert_untouched_outside(GUEST_ACPI_GPA, GUEST_ACPI_GPA + sizeof(acpi_one_cpu_golden));
}

/* Name (_S5, Package () {5, 5, 0, 0}), hand-assembled (ACPI 6.5 20.2). */
static const uint8_t s5_aml[] = {
	0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 0x05, 0x0a, 0x05, 0x00, 0x00,
	/* Device (\_SB.COM1) { _HID PNP0501, _UID 1, _CRS IO (Decode16, 0x3F8, 0x3F8, 1, 8) } */
	0x5b, 0x82, 0x2e, 0x5c, 0x2e, '_', 'S', 'B', '_', 'C', 'O', 'M', '1',
	0x08, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x05, 0x01,
	0x08, '_', 'U', 'I', 'D', 0x01,
	0x08, '_', 'C', 'R', 'S', 0x11, 0x0d, 0x0a, 0x0a,
	0x47, 0x01, 0xf8, 0x03, 0xf8, 0x03, 0x01, 0x08, 0x79, 0x00,
};

/* A GAS for an 8-bit I/O port with byte access (ACPI 6.5 5.2.3.2). */
static void check_gas_io8(uint64_t gpa, uint16_t port)
{
	assert_memory_equal(mem + gpa, "\x01\x08\x00\x01", 4);
	assert_int_equal(ld64(gpa + 4), port);
}

/* Every FADT byte but those named is zero. */
static void check_fadt_zeroes(uint64_t fadt)
{
	static const struct { uint32_t off, len; } set[] = {
		{ 0, 36 },	/* header */
		{ 109, 2 },	/* IAPC_BOOT_ARCH */
		{ 112, 4 },	/* Flags */
		{ 116, 12 },	/* RESET_REG */
		{ 128, 1 },	/* RESET_VALUE */
		{ 131, 1 },	/* FADT Minor Version */
		{ 140, 8 },	/* X_DSDT */
		{ 244, 12 },	/* SLEEP_CONTROL_REG */
		{ 256, 12 },	/* SLEEP_STATUS_REG */
		{ 268, 8 },	/* Hypervisor Vendor Identity */
	};

	for (uint32_t i = 0; i < 276; i++) {
		bool named = false;

		for (size_t j = 0; j < sizeof(set) / sizeof(set[0]); j++)
			named |= i >= set[j].off && i < set[j].off + set[j].len;
		if (!named && mem[fadt + i])
			fail_msg("FADT byte %u is 0x%02x", i, mem[fadt + i]);
	}
}

/*
 * The tables with a PM port, whose DSDT holds @pci_len bytes of AML after
 * the \_S5 and COM1 ones, those of @pci; returns the end of the last table
 * (the FADT).
 */
static uint64_t check_acpi_pm_dsdt(uint64_t rsdp, uint16_t port, const uint8_t *pci,
				   size_t pci_len)
{
	uint64_t rsdt, xsdt, madt, fadt, dsdt;

	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	assert_int_equal(acpi_checksum(mem + rsdp, 20), 0);
	assert_int_equal(acpi_checksum(mem + rsdp, 36), 0);
	rsdt = ld32(rsdp + 16);
	xsdt = ld64(rsdp + 24);
	check_header(rsdt, "RSDT", 44);
	assert_int_equal(ld32(rsdt + 4), 44);
	check_header(xsdt, "XSDT", 52);
	assert_int_equal(ld32(xsdt + 4), 52);
	madt = ld64(xsdt + 36);
	fadt = ld64(xsdt + 44);
	assert_int_equal(ld32(rsdt + 36), madt);
	assert_int_equal(ld32(rsdt + 40), fadt);
	check_header(madt, "APIC", 44);

	check_header(fadt, "FACP", 276);
	assert_int_equal(ld32(fadt + 4), 276);
	assert_int_equal(mem[fadt + 8], 6);			/* revision */
	assert_int_equal(mem[fadt + 131], 5);			/* minor: ACPI 6.5 */
	assert_int_equal(ld32(fadt + 36), 0);			/* FIRMWARE_CTRL: no FACS */
	assert_int_equal(ld32(fadt + 40), 0);			/* DSDT: X_DSDT instead */
	assert_int_equal(ld32(fadt + 112), 1u << 20 | 1u << 10);	/* HW_REDUCED_ACPI, RESET_REG_SUP */
	/* RESET_REG: system I/O, 8 bits at offset 0, byte access, port 0xCF9; value 6 */
	assert_int_equal(mem[fadt + 116], 1);
	assert_int_equal(mem[fadt + 117], 8);
	assert_int_equal(mem[fadt + 118], 0);
	assert_int_equal(mem[fadt + 119], 1);
	assert_int_equal(ld64(fadt + 120), 0xcf9);
	assert_int_equal(mem[fadt + 128], 6);
	assert_int_equal(mem[fadt + 109] | mem[fadt + 110] << 8, 0x24);	/* no VGA, no RTC */
	assert_false(mem[fadt + 109] & 1u << 3);		/* MSI not supported: clear */
	check_gas_io8(fadt + 244, port);
	check_gas_io8(fadt + 256, (uint16_t)(port + 1));
	assert_memory_equal(mem + fadt + 268, "TEMPO   ", 8);
	check_fadt_zeroes(fadt);

	dsdt = ld64(fadt + 140);
	check_header(dsdt, "DSDT", 36 + sizeof(s5_aml) + pci_len);
	assert_int_equal(ld32(dsdt + 4), 36 + sizeof(s5_aml) + pci_len);
	assert_int_equal(mem[dsdt + 8], 2);
	assert_memory_equal(mem + dsdt + 36, s5_aml, sizeof(s5_aml));
	if (pci_len)
		assert_memory_equal(mem + dsdt + 36 + sizeof(s5_aml), pci, pci_len);

	/* Nothing overlaps: MADT, DSDT, FADT in that order. */
	assert_true(madt >= xsdt + 52);
	assert_true(dsdt >= madt + ld32(madt + 4));
	assert_true(fadt >= dsdt + ld32(dsdt + 4));

	/* The hypervisor's parser sees the MADT and the FADT through either root. */
	acpi_read(mem + rsdp, 36);
	assert_true(ai.use_xsdt);
	assert_int_equal(ai.table_count, 2);
	assert_string_equal(ai.table_sigs[0], "APIC");
	assert_string_equal(ai.table_sigs[1], "FACP");
	assert_int_equal(ai.table_phys[1], fadt);
	assert_true(ai.has_madt);
	check_cpus();
	check_via_rsdt(rsdp);
	assert_int_equal(ai.table_count, 2);
	assert_string_equal(ai.table_sigs[1], "FACP");
	return fadt + 276;
}

static uint64_t check_acpi_pm(uint64_t rsdp, uint16_t port)
{
	return check_acpi_pm_dsdt(rsdp, port, NULL, 0);
}

static void test_acpi_pm_port(void **state)
{
	const uint32_t ids[] = { 0, 1, 300 };
	uint64_t end, info;
	bool found;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(3, ids);
	plat.acpi_pm_port = GUEST_ACPI_PM_PORT;
	end = check_acpi_pm(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_PM_PORT);
	assert_untouched_outside(GUEST_ACPI_GPA, end);
	/* RSDP 0, RSDT 0x30 (44), XSDT 0x60 (52), MADT 0xa0 (76), DSDT 0xf0 (98), FADT 0x160. */
	assert_int_equal(ld32(GUEST_ACPI_GPA + 0x30 + 36), GUEST_ACPI_GPA + 0xa0);
	assert_int_equal(ld32(GUEST_ACPI_GPA + 0x30 + 40), GUEST_ACPI_GPA + 0x160);
	assert_int_equal(ld64(GUEST_ACPI_GPA + 0x160 + 140), GUEST_ACPI_GPA + 0xf0);
	assert_int_equal(end, GUEST_ACPI_GPA + 0x160 + 276);
	/* The multiboot2 RSDP tag copies the same RSDP. */
	info = guest_build_mb2_info(mem, mem_size, &plat, GUEST_ACPI_GPA);
	assert_int_equal(info, GUEST_INFO_GPA);
	found = false;
	for (uint64_t i = info; i + 36 <= info + ld32(info) && !found; i += 8)
		found = !memcmp(mem + i, mem + GUEST_ACPI_GPA, 36);
	assert_true(found);

	/* Any port but the last (the status register is the next one). */
	mem_new(2 * MIB, 2 * MIB);
	plat.acpi_pm_port = 1;
	check_acpi_pm(guest_build_acpi(mem, mem_size, &plat), 1);
	mem_new(2 * MIB, 2 * MIB);
	plat.acpi_pm_port = 0xfffe;
	check_acpi_pm(guest_build_acpi(mem, mem_size, &plat), 0xfffe);
	mem_new(2 * MIB, 2 * MIB);
	plat.acpi_pm_port = 0xffff;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	assert_all_untouched();
}

/* What the sleep control register takes as power-off: SLP_EN with S5's type. */
static void test_acpi_poweroff_value(void **state)
{
	(void)state;
	assert_true(guest_acpi_is_poweroff(0x34));	/* Linux's write */
	assert_true(guest_acpi_is_poweroff(0x34 | 0xc3));	/* other bits ignored */
	assert_false(guest_acpi_is_poweroff(0x14));	/* no SLP_EN */
	assert_false(guest_acpi_is_poweroff(0x20));	/* SLP_TYP 0 */
	assert_false(guest_acpi_is_poweroff(0x30));	/* SLP_TYP 4 */
	assert_false(guest_acpi_is_poweroff(0x80));	/* WAK_STS clear, to the status port */
}

/* Memory ending before the FADT's last byte is refused with nothing written. */
static void test_acpi_pm_small_memory(void **state)
{
	uint64_t end;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	plat.acpi_pm_port = GUEST_ACPI_PM_PORT;
	end = check_acpi_pm(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_PM_PORT);
	sweep_acpi_sizes(GUEST_ACPI_GPA, end, built_pm);
}

/* ---- the PCI host bridge in the DSDT ---- */

/*
 * Device (\_SB.PCI0), hand-assembled (ACPI 6.5 6.4, 20.2) for one 64-bit
 * window, [1 GiB, 1 GiB + 64 KiB):
 *   _HID EisaId ("PNP0A03"), _UID 0, _BBN 0, _SEG 0,
 *   _CRS { WordBusNumber 0-0, IO 0xCF8 len 8, DWordMemory 0xFEB00000-0xFEBFFFFF,
 *          QWordMemory 0x40000000-0x4000FFFF prefetchable }
 */
static const uint8_t pci0_one_window[] = {
	0x5b, 0x82, 0x44, 0x09,		/* DeviceOp, PkgLength 148 (0x94): two bytes */
	0x5c, 0x2e, '_', 'S', 'B', '_', 'P', 'C', 'I', '0',
	0x08, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x0a, 0x03,
	0x08, '_', 'U', 'I', 'D', 0x00,
	0x08, '_', 'B', 'B', 'N', 0x00,
	0x08, '_', 'S', 'E', 'G', 0x00,
	0x08, '_', 'C', 'R', 'S',
	0x11, 0x46, 0x06, 0x0a, 98,	/* BufferOp, PkgLength 102 (0x66), size 98 */
	/* WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode, 0, 0, 0, 0, 1) */
	0x88, 0x0d, 0x00, 0x02, 0x0c, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
	/* IO (Decode16, 0xCF8, 0xCF8, 1, 8) */
	0x47, 0x01, 0xf8, 0x0c, 0xf8, 0x0c, 0x01, 0x08,
	/* DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, NonCacheable, ReadWrite,
	 *              0, 0xFEB00000, 0xFEBFFFFF, 0, 0x100000) */
	0x87, 0x17, 0x00, 0x00, 0x0c, 0x01,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xb0, 0xfe,
	0xff, 0xff, 0xbf, 0xfe,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x10, 0x00,
	/* QWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, Prefetchable, ReadWrite,
	 *              0, 0x40000000, 0x4000FFFF, 0, 0x10000) */
	0x8a, 0x2b, 0x00, 0x00, 0x0c, 0x07,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x79, 0x00,			/* End Tag */
};
_Static_assert(sizeof(pci0_one_window) == 150, "2 + 2 + 146");

static void plat_pci(uint32_t count)
{
	plat.acpi_pm_port = GUEST_ACPI_PM_PORT;
	plat.pci_bus = true;
	plat.pci_mem64_count = count;
	for (uint32_t i = 0; i < count; i++)
		plat.pci_mem64[i] = (struct guest_range){ (1 + i) * GIB, (1 + i) * GIB + 64 * 1024 };
}

/* TEMPO_DUMP_DSDT=FILE: write the DSDT to FILE@suffix, for iasl -d. */
static void dump_dsdt(uint64_t rsdp, const char *suffix)
{
	const char *dir = getenv("TEMPO_DUMP_DSDT");
	uint64_t dsdt = ld64(ld64(ld64(rsdp + 24) + 44) + 140);
	char path[512];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s%s", dir, suffix);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(mem + dsdt, 1, ld32(dsdt + 4), f), ld32(dsdt + 4));
	assert_int_equal(fclose(f), 0);
}

static void test_acpi_pci_one_window(void **state)
{
	const uint32_t ids[] = { 0, 1 };
	uint64_t rsdp, end;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(2, ids);
	plat_pci(1);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	end = check_acpi_pm_dsdt(rsdp, GUEST_ACPI_PM_PORT, pci0_one_window,
				 sizeof(pci0_one_window));
	dump_dsdt(rsdp, "");
	assert_untouched_outside(GUEST_ACPI_GPA, end);
	/*
	 * RSDP 0, RSDT 0x30 (44), XSDT 0x60 (52), MADT 0xa0 (60), DSDT 0xe0 (36 +
	 * 62 + 150 = 248), FADT 0x1e0 (276).
	 */
	assert_int_equal(ld64(GUEST_ACPI_GPA + 0x60 + 36), GUEST_ACPI_GPA + 0xa0);
	assert_int_equal(ld32(GUEST_ACPI_GPA + 0xe0 + 4), 248);
	assert_int_equal(ld64(GUEST_ACPI_GPA + 0x1e0 + 140), GUEST_ACPI_GPA + 0xe0);
	assert_int_equal(ld64(GUEST_ACPI_GPA + 0x60 + 44), GUEST_ACPI_GPA + 0x1e0);
	assert_int_equal(end, GUEST_ACPI_GPA + 0x1e0 + 276);

	/* An empty range is left out: the same bytes. */
	mem_new(2 * MIB, 2 * MIB);
	plat.pci_mem64_count = 3;
	plat.pci_mem64[1] = plat.pci_mem64[0];
	plat.pci_mem64[0] = (struct guest_range){ 5 * GIB, 5 * GIB };
	plat.pci_mem64[2] = (struct guest_range){ 0, 0 };
	check_acpi_pm_dsdt(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_PM_PORT,
			   pci0_one_window, sizeof(pci0_one_window));
}

/* No 64-bit window: the device is 47 bytes shorter and its buffer's PkgLength one byte. */
static void test_acpi_pci_no_window(void **state)
{
	uint8_t aml[sizeof(pci0_one_window)];
	size_t n = 0;

	(void)state;
	/* the one-window bytes without the QWordMemory descriptor, lengths redone */
	memcpy(aml, pci0_one_window, 47);
	aml[2] = 0x45;		/* device PkgLength 101 (0x65): body 99 */
	aml[3] = 0x06;
	n = 47;
	aml[n++] = 0x11;
	aml[n++] = 55;		/* buffer PkgLength 55: one byte */
	aml[n++] = 0x0a;
	aml[n++] = 52;
	memcpy(aml + n, pci0_one_window + 52, 16 + 8 + 26);
	n += 16 + 8 + 26;
	aml[n++] = 0x79;
	aml[n++] = 0x00;
	assert_int_equal(n, 103);

	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	plat_pci(0);
	check_acpi_pm_dsdt(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_PM_PORT, aml, n);
}

/*
 * Eight windows: the resource buffer is 420 bytes, so its size takes a
 * WordPrefix and both PkgLengths take two bytes.
 */
static void test_acpi_pci_eight_windows(void **state)
{
	uint64_t rsdp, dsdt, d;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	plat_pci(GUEST_PCI_MEM64_MAX);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	dump_dsdt(rsdp, ".8");
	dsdt = ld64(ld64(ld64(rsdp + 24) + 44) + 140);
	check_header(dsdt, "DSDT", 0);
	assert_int_equal(ld32(dsdt + 4), 36 + 62 + 473);
	d = dsdt + 36 + 62;
	/* Device: PkgLength 471 (0x1D7) = body 469 + 2 */
	assert_memory_equal(mem + d, "\x5b\x82\x47\x1d", 4);
	assert_memory_equal(mem + d + 4, pci0_one_window + 4, 43);	/* path, names, _CRS */
	/* Buffer: PkgLength 425 (0x1A9) = 423 + 2; WordPrefix 420 (0x1A4) */
	assert_memory_equal(mem + d + 47, "\x11\x49\x1a\x0b\xa4\x01", 6);
	assert_memory_equal(mem + d + 53, pci0_one_window + 52, 16 + 8 + 26);
	for (uint32_t i = 0; i < GUEST_PCI_MEM64_MAX; i++) {
		uint64_t q = d + 53 + 16 + 8 + 26 + 46 * i;

		assert_memory_equal(mem + q, "\x8a\x2b\x00\x00\x0c\x07", 6);
		assert_int_equal(ld64(q + 6), 0);
		assert_int_equal(ld64(q + 14), (1 + i) * GIB);
		assert_int_equal(ld64(q + 22), (1 + i) * GIB + 0xffff);
		assert_int_equal(ld64(q + 30), 0);
		assert_int_equal(ld64(q + 38), 0x10000);
	}
	assert_memory_equal(mem + d + 471, "\x79\x00", 2);
	assert_int_equal(d + 473, dsdt + ld32(dsdt + 4));
	/* the FADT follows, 16-aligned */
	assert_int_equal(ld64(ld64(rsdp + 24) + 44), ALIGN16(dsdt + ld32(dsdt + 4)));
}

/* Refused with nothing written: too many windows, one backwards, one on the BAR0s. */
static const uint8_t *find_bytes(const uint8_t *hay, size_t len, const uint8_t *needle, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(hay + i, needle, n))
			return hay + i;
	return NULL;
}

/* An assigned function's BARs: a WordIO and a non-cacheable QWordMemory window more. */
static void test_acpi_pci_assigned_windows(void **state)
{
	/* WordIO producer, EntireRange: 0xc040-0xc05f */
	static const uint8_t word_io[] = { 0x88, 0x0d, 0x00, 0x01, 0x0c, 0x03, 0, 0,
					   0x40, 0xc0, 0x5f, 0xc0, 0, 0, 0x20, 0x00 };
	/* QWordMemory producer, non-cacheable read/write: 0xfe000000-0xfe00ffff */
	static const uint8_t qword_np[] = { 0x8a, 0x2b, 0x00, 0x00, 0x0c, 0x01 };
	uint64_t rsdp, dsdt;
	uint32_t len0, len1;
	const uint8_t *hit;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	plat_pci(0);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	len0 = ld32(ld64(ld64(ld64(rsdp + 24) + 44) + 140) + 4);
	plat.pci_io_count = 2;
	plat.pci_io[0] = (struct guest_range){ 0xc040, 0xc060 };
	plat.pci_io[1] = (struct guest_range){ 0x300, 0x300 };	/* empty: left out */
	plat.pci_mem_count = 1;
	plat.pci_mem[0] = (struct guest_range){ 0xfe000000u, 0xfe010000u };
	mem_new(2 * MIB, 2 * MIB);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	dump_dsdt(rsdp, "-assigned");
	dsdt = ld64(ld64(ld64(rsdp + 24) + 44) + 140);
	len1 = ld32(dsdt + 4);
	/* 16 + 46 bytes of descriptors, and the buffer's and device's PkgLengths a byte longer */
	assert_int_equal(len1, len0 + 16 + 46 + 1);
	assert_int_equal(acpi_checksum(mem + dsdt, len1), 0);
	hit = find_bytes(mem + dsdt, len1, word_io, sizeof(word_io));
	assert_non_null(hit);
	hit = find_bytes(hit, (size_t)(mem + dsdt + len1 - hit), qword_np, sizeof(qword_np));
	assert_non_null(hit);
	assert_int_equal(ld64((uint64_t)(hit - mem) + 14), 0xfe000000u);
	assert_int_equal(ld64((uint64_t)(hit - mem) + 22), 0xfe00ffffu);
	assert_int_equal(ld64((uint64_t)(hit - mem) + 38), 0x10000);
	/* its INTx: INTA of device 1 to GSI 9, INTD of device 31 to GSI 23, in _PRT */
	plat.pci_intx_count = 2;
	plat.pci_intx[0] = (struct guest_pci_intx){ 1, 0, 9 };
	plat.pci_intx[1] = (struct guest_pci_intx){ 31, 3, 23 };
	mem_new(2 * MIB, 2 * MIB);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	dump_dsdt(rsdp, "-prt");
	dsdt = ld64(ld64(ld64(rsdp + 24) + 44) + 140);
	assert_int_equal(ld32(dsdt + 4), len1 + 8 + 2 * 16);	/* NameOp _PRT PackageOp PkgLength 2 */
	/* no IOAPIC: the FADT leaves the APIC destination mode to the guest */
	assert_int_equal(ld32(ld64(ld64(rsdp + 24) + 44) + 112), 1u << 20 | 1u << 10);
	plat.ioapic = true;
	mem_new(2 * MIB, 2 * MIB);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	/* with one: physical destination mode forced (bit 19) */
	assert_int_equal(ld32(ld64(ld64(rsdp + 24) + 44) + 112), 1u << 20 | 1u << 19 | 1u << 10);
	plat.ioapic = false;
	assert_int_equal(acpi_checksum(mem + dsdt, ld32(dsdt + 4)), 0);
	{
		static const uint8_t prt[] = {
			0x08, '_', 'P', 'R', 'T', 0x12, 34, 2,
			0x12, 15, 4, 0x0c, 0xff, 0xff, 0x01, 0x00, 0x0a, 0, 0x00, 0x0c, 9, 0, 0, 0,
			0x12, 15, 4, 0x0c, 0xff, 0xff, 0x1f, 0x00, 0x0a, 3, 0x00, 0x0c, 23, 0, 0, 0 };

		assert_non_null(find_bytes(mem + dsdt, ld32(dsdt + 4), prt, sizeof(prt)));
	}
	plat.pci_intx[1].pin = 4;				/* no INTE */
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_intx[1] = (struct guest_pci_intx){ 32, 0, 9 };	/* no device 32 */
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_intx_count = GUEST_PCI_INTX_MAX + 1;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_intx_count = 0;

	/* refused: ports past 0xffff or over 0xcf8-0xcff, memory over the BAR0 window, too many */
	plat.pci_io[0] = (struct guest_range){ 0xfff0, 0x10010 };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_io[0] = (struct guest_range){ 0xcf0, 0xcf9 };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_io[0] = (struct guest_range){ 0xd00, 0xcff };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_io[0] = (struct guest_range){ 0xd00, 0xd20 };	/* next to them: fine */
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_GPA);
	plat.pci_mem[0] = (struct guest_range){ 0xfebff000u, 0xfec00000u };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_mem[0] = (struct guest_range){ 0xfe000000u, 0xfe010000u };
	plat.pci_io_count = GUEST_PCI_IO_MAX + 1;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_io_count = 1;
	plat.pci_mem_count = GUEST_PCI_MEM_MAX + 1;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
}

static void test_acpi_pci_bad_windows(void **state)
{
	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	plat_pci(GUEST_PCI_MEM64_MAX);
	plat.pci_mem64_count = GUEST_PCI_MEM64_MAX + 1;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat_pci(1);
	plat.pci_mem64[0] = (struct guest_range){ 2 * GIB, 2 * GIB - 1 };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_mem64[0] = (struct guest_range){ 0xfeaff000u, 0xfeb00001u };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_mem64[0] = (struct guest_range){ 0xfebff000u, 0x100000000ull };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	plat.pci_mem64[0] = (struct guest_range){ 0xc0000000u, 0x140000000ull };	/* spans it */
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	/* refused even where there is no DSDT to put them in */
	plat.acpi_pm_port = 0;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), 0);
	assert_all_untouched();
	/* next to the window on either side is fine */
	plat.acpi_pm_port = GUEST_ACPI_PM_PORT;
	plat.pci_mem64[0] = (struct guest_range){ 0xfea00000u, 0xfeb00000u };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_GPA);
	plat.pci_mem64[0] = (struct guest_range){ 0xfec00000u, 0xfec01000u };
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_GPA);
}

/* Without a PCI bus, or without a DSDT, not a byte changes. */
static void test_acpi_pci_off_unchanged(void **state)
{
	(void)state;
	/* no DSDT: the golden one-CPU tables, bus or no bus */
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	plat_pci(2);
	plat.acpi_pm_port = 0;
	assert_int_equal(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_GPA);
	assert_memory_equal(mem + GUEST_ACPI_GPA, acpi_one_cpu_golden,
			    sizeof(acpi_one_cpu_golden));
	assert_untouched_outside(GUEST_ACPI_GPA, GUEST_ACPI_GPA + sizeof(acpi_one_cpu_golden));
	/* pci_bus off: windows given or not, the DSDT is \_S5 and COM1 only */
	mem_new(2 * MIB, 2 * MIB);
	plat_init(3, NULL);
	plat_pci(2);
	plat.pci_bus = false;
	check_acpi_pm(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_PM_PORT);
}

static void built_pci(uint64_t rsdp)
{
	check_acpi_pm_dsdt(rsdp, GUEST_ACPI_PM_PORT, pci0_one_window, sizeof(pci0_one_window));
}

/* Memory ending before the FADT's last byte is refused with nothing written. */
static void test_acpi_pci_small_memory(void **state)
{
	uint64_t end;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	plat_pci(1);
	end = check_acpi_pm_dsdt(guest_build_acpi(mem, mem_size, &plat), GUEST_ACPI_PM_PORT,
				 pci0_one_window, sizeof(pci0_one_window));
	sweep_acpi_sizes(GUEST_ACPI_GPA, end, built_pci);
}

/* ---- multiboot2 information read back through hv/core/mb2.c ---- */

static struct boot_info bi;

static uint64_t build_all_mb2(void)
{
	uint64_t rsdp = guest_build_acpi(mem, mem_size, &plat), info;

	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	info = guest_build_mb2_info(mem, mem_size, &plat, rsdp);
	assert_int_equal(info, GUEST_INFO_GPA);
	return info;
}

static void mb2_read(uint64_t info)
{
	size_t avail = (size_t)(buf_size - info);

	if (avail > GUEST_INFO_MAX)
		avail = GUEST_INFO_MAX;
	/* An exact-size copy of the block: mb2_parse must not read past total_size. */
	memset(err, 0, sizeof(err));
	if (mb2_parse(mem + info, avail, info, &bi, err, sizeof(err)))
		fail_msg("mb2_parse: %s", err);
	assert_int_equal(bi.info_phys, info);
	assert_int_equal(bi.info_size, ld32(info));
	assert_true(bi.info_size <= GUEST_INFO_MAX);
	assert_int_equal(bi.info_size % 8, 0);
}

/* The tag of @type, walked the way the spec lays them out; 0 when absent. */
static uint64_t mb2_find_tag(uint64_t info, uint32_t type)
{
	uint64_t end = info + ld32(info);

	for (uint64_t t = info + 8; t < end; t += (ld32(t + 4) + 7) & ~7u) {
		assert_int_equal(t % 8, 0);
		if (ld32(t) == type)
			return t;
		if (ld32(t) == 0)
			break;
	}
	return 0;
}

/*
 * RAM below the guest's MMIO window (0xFEB00000) ends at 0xFEA00000, the last
 * 2 MiB boundary before it; the rest of a larger partition starts at 4 GiB.
 * Spelled out here rather than taken from hv/core/guest_ram.h.
 */
#define LOW_RAM_MAX	0xfea00000ull

static uint64_t low_ram(void)
{
	return mem_size < LOW_RAM_MAX ? mem_size : LOW_RAM_MAX;
}

static void check_map(const struct boot_mmap_entry *m, uint32_t n)
{
	assert_int_equal(n, mem_size > LOW_RAM_MAX ? 4 : 3);
	assert_int_equal(m[0].base, 0);
	assert_int_equal(m[0].length, GUEST_LOW_USABLE_END);
	assert_int_equal(m[0].type, 1);
	assert_int_equal(m[1].base, GUEST_LOW_USABLE_END);
	assert_int_equal(m[1].length, GUEST_HIGH_START - GUEST_LOW_USABLE_END);
	assert_int_equal(m[1].type, 2);
	assert_int_equal(m[2].base, GUEST_HIGH_START);
	assert_int_equal(m[2].length, low_ram() - GUEST_HIGH_START);
	assert_int_equal(m[2].type, 1);
	if (n == 4) {
		assert_int_equal(m[3].base, 4 * GIB);
		assert_int_equal(m[3].length, mem_size - LOW_RAM_MAX);
		assert_int_equal(m[3].type, 1);
	}
}

static void check_mb2(uint64_t info)
{
	uint64_t t;

	mb2_read(info);
	assert_string_equal(bi.cmdline, plat.cmdline ? plat.cmdline : "");
	assert_string_equal(bi.loader_name, plat.loader_name ? plat.loader_name : "");
	assert_int_equal(bi.module_count, plat.module_count);
	for (uint32_t i = 0; i < plat.module_count; i++) {
		assert_int_equal(bi.modules[i].start, plat.modules[i].start);
		assert_int_equal(bi.modules[i].end, plat.modules[i].end);
		assert_string_equal(bi.modules[i].cmdline,
				    plat.modules[i].string ? plat.modules[i].string : "");
	}
	check_map(bi.mmap, bi.mmap_count);
	assert_int_equal(ld32(mb2_find_tag(info, 6) + 8), 24);	/* entry_size */
	assert_int_equal(ld32(mb2_find_tag(info, 6) + 12), 0);	/* entry_version */
	assert_true(bi.has_rsdp);
	assert_int_equal(bi.rsdp_len, 36);
	assert_int_equal(bi.rsdp_revision, 2);
	assert_memory_equal(bi.rsdp, mem + GUEST_ACPI_GPA, 36);
	assert_false(bi.has_efi64_system_table || bi.has_efi_mmap || bi.efi_boot_services_active);

	/* Basic meminfo (not kept by mb2_parse): 636 KiB low, RAM above 1 MiB high. */
	t = mb2_find_tag(info, 4);
	assert_true(t);
	assert_int_equal(ld32(t + 4), 16);
	assert_int_equal(ld32(t + 8), GUEST_LOW_USABLE_END / 1024);
	assert_int_equal(ld32(t + 12), (low_ram() - MIB) / 1024);
	/* Exactly one ACPI tag, the new one; the block ends with the end tag. */
	assert_false(mb2_find_tag(info, 14));
	assert_int_equal(ld32(mb2_find_tag(info, 15) + 4), 8 + 36);
	t = mb2_find_tag(info, 0);
	assert_int_equal(ld32(t + 4), 8);
	assert_int_equal(t + 8, info + ld32(info));

	/* And the RSDP copy leads to the CPUs. */
	acpi_read(bi.rsdp, bi.rsdp_len);
	check_cpus();
}

static void test_mb2_info(void **state)
{
	const uint32_t ids[] = { 0, 2, 4, 400 };
	uint64_t info;

	(void)state;
	mem_new(4 * MIB, 4 * MIB);
	plat_init(4, ids);
	plat_module(0x200000, 0x212345, "initrd");
	plat_module(0x300000, 0x300000, "");
	plat_module(0x301000, 0x400000, "extra module string with spaces");
	info = build_all_mb2();
	check_mb2(info);
	/* Nothing outside the info block and the ACPI area was written. */
	for (size_t i = 0; i < buf_size; i++)
		if ((i < info || i >= info + ld32(info)) &&
		    (i < GUEST_ACPI_GPA || i >= GUEST_ACPI_GPA + 0x200))
			assert_int_equal(mem[i], FILL);
	/* total_size: 8 + cmdline 28->32 + name 18->24 + 3 modules + 16 + 88 + 44->48 + 8. */
	assert_int_equal(ld32(info), 8 + 32 + 24 + 24 + 24 + 48 + 16 + 88 + 48 + 8);
	assert_int_equal(ld32(info + 4), 0);
}

static void test_mb2_info_minimal(void **state)
{
	(void)state;
	mem_new(MIB + 4096, MIB + 4096);
	plat_init(1, NULL);
	plat.cmdline = NULL;
	plat.loader_name = NULL;
	check_mb2(build_all_mb2());
	plat_init(1, NULL);
	plat.cmdline = "";
	plat_module(0x100000, 0x101000, NULL);
	plat_module(0x100000, 0x101000, NULL);
	plat_module(0x100000, 0x101000, NULL);
	plat_module(0x100800, 0x101000, NULL);
	check_mb2(build_all_mb2());
}

/*
 * Past the MMIO window the map goes on at 4 GiB; mem_upper stops at the
 * window. The builders touch only the info block and the ACPI area, so a
 * 2 MiB buffer stands for the large memory; ASan would report a write
 * anywhere past it.
 */
static void test_mb2_info_large_memory(void **state)
{
	(void)state;
	mem_new(2 * MIB, 64 * GIB);
	plat_init(2, NULL);
	check_mb2(build_all_mb2());
	assert_int_equal(bi.mmap_count, 4);
	assert_int_equal(bi.mmap[3].base + bi.mmap[3].length, 4 * GIB + 64 * GIB - LOW_RAM_MAX);
	mem_new(2 * MIB, 4 * GIB + MIB);
	plat_init(2, NULL);
	check_mb2(build_all_mb2());
	mem_new(2 * MIB, LOW_RAM_MAX + 2 * MIB);	/* 2 MiB above 4 GiB */
	plat_init(2, NULL);
	check_mb2(build_all_mb2());
	assert_int_equal(bi.mmap_count, 4);
	assert_int_equal(bi.mmap[3].length, 2 * MIB);
	mem_new(2 * MIB, LOW_RAM_MAX);			/* exactly fills the low piece */
	plat_init(2, NULL);
	check_mb2(build_all_mb2());
	assert_int_equal(bi.mmap_count, 3);
	mem_new(2 * MIB, 4 * GIB - 4096);
	plat_init(2, NULL);
	check_mb2(build_all_mb2());
}

static void test_mb2_info_bad_input(void **state)
{
	(void)state;
	mem_new(4 * MIB, 4 * MIB);
	plat_init(1, NULL);
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, 0), 0);
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, mem_size - 35), 0);
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, UINT64_MAX - 10), 0);
	assert_int_equal(guest_build_mb2_info(NULL, mem_size, &plat, GUEST_ACPI_GPA), 0);
	assert_int_equal(guest_build_mb2_info(mem, mem_size, NULL, GUEST_ACPI_GPA), 0);
	/* Too many modules; an end below the start; past memory; past 4 GiB. */
	for (int i = 0; i < GUEST_MAX_MODULES; i++)
		plat_module(0x200000, 0x201000, "m");
	plat.module_count++;
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, GUEST_ACPI_GPA), 0);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	plat_init(1, NULL);
	plat_module(0x201000, 0x200000, "m");
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, GUEST_ACPI_GPA), 0);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	plat_init(1, NULL);
	plat_module(0x200000, mem_size + 1, "m");
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, GUEST_ACPI_GPA), 0);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	mem_size = 8 * GIB;	/* (a lie, but nothing reaches that far) */
	plat_init(1, NULL);
	plat_module(4 * GIB - 4096, 4 * GIB + 4096, "m");
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, GUEST_ACPI_GPA), 0);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	/* Modules lie in the RAM below the MMIO window, not in the gap above it. */
	plat.modules[0].start = LOW_RAM_MAX - 4096;
	plat.modules[0].end = 4 * GIB - 1;
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	plat.modules[0].end = LOW_RAM_MAX + 1;
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, GUEST_ACPI_GPA), 0);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	plat.modules[0].end = LOW_RAM_MAX;	/* exclusive: the last byte is RAM */
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), GUEST_INFO_GPA);
	assert_int_equal(ld32(ld32(GUEST_INFO_GPA + 24) + 4), (uint32_t)LOW_RAM_MAX);
	assert_untouched_outside(GUEST_INFO_GPA, GUEST_INFO_GPA + GUEST_INFO_MAX);
}

/* The tags' sizes for a command line of @n bytes and the default loader name. */
static uint64_t mb2_total(size_t n)
{
	size_t name = strlen("Tempo 0.1") + 1;

	return 8 + ((8 + n + 1 + 7) & ~7ull) + ((8 + name + 7) & ~7ull) + 16 + 88 + 48 + 8;
}

/* The longest command line that fits is taken whole; one byte more is refused. */
static void test_mb2_info_cmdline_limit(void **state)
{
	static char line[GUEST_INFO_MAX + 16];
	uint64_t rsdp;
	bool fitted = false, refused = false;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	plat_init(1, NULL);
	rsdp = guest_build_acpi(mem, mem_size, &plat);
	assert_int_equal(rsdp, GUEST_ACPI_GPA);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	for (size_t n = GUEST_INFO_MAX - 300; n < GUEST_INFO_MAX; n++) {
		uint64_t info;

		line[n] = 0;
		plat.cmdline = line;
		info = guest_build_mb2_info(mem, mem_size, &plat, rsdp);
		if (mb2_total(n) <= GUEST_INFO_MAX) {
			assert_int_equal(info, GUEST_INFO_GPA);
			mb2_read(info);
			assert_int_equal(ld32(info), mb2_total(n));
			/* The tag holds it all; the parser keeps what fits its field. */
			assert_int_equal(strlen((const char *)mem + info + 16), n);
			assert_int_equal(strlen(bi.cmdline), sizeof(bi.cmdline) - 1);
			fitted = true;
		} else {
			assert_int_equal(info, 0);
			refused = true;
		}
		line[n] = 'x';
	}
	assert_true(fitted && refused);
	/* A string longer than any area, with no NUL in sight of the scan. */
	plat.cmdline = line;
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, rsdp), 0);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	plat.cmdline = "ok";
	plat.loader_name = line;
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, rsdp), 0);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	plat.loader_name = "ok";
	plat_module(0x200000, 0x300000, line);
	assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat, rsdp), 0);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat), 0);
	/* Nothing ever went past the info area. */
	assert_untouched_outside(GUEST_INFO_GPA, GUEST_ACPI_GPA + 0x200);
	for (uint64_t i = GUEST_INFO_GPA + GUEST_INFO_MAX; i < GUEST_ACPI_GPA; i++)
		assert_int_equal(mem[i], FILL);
}

static void test_mb_too_small_memory(void **state)
{
	(void)state;
	for (uint64_t size = 0; size <= MIB + 8; size += size < MIB - 16 ? 0x1000 : 1) {
		uint64_t rsdp;

		mem_new(size, size);
		plat_init(1, NULL);
		rsdp = guest_build_acpi(mem, mem_size, &plat);
		assert_true(rsdp == 0 || rsdp == GUEST_ACPI_GPA);
		assert_int_equal(guest_build_mb2_info(mem, mem_size, &plat,
						      rsdp ? rsdp : GUEST_ACPI_GPA),
				 size > MIB ? GUEST_INFO_GPA : 0);
		assert_int_equal(guest_build_mb1_info(mem, mem_size, &plat),
				 size > MIB ? GUEST_INFO_GPA : 0);
		if (size <= MIB && !rsdp)
			assert_all_untouched();
	}
	/* NULL memory or platform. */
	plat_init(1, NULL);
	assert_int_equal(guest_build_mb1_info(NULL, 4 * MIB, &plat), 0);
	mem_new(4 * MIB, 4 * MIB);
	assert_int_equal(guest_build_mb1_info(mem, mem_size, NULL), 0);
	assert_all_untouched();
}

/* ---- multiboot1 information, read the way a kernel reads it (mb1 3.3) ---- */

static const char *mb1_str(uint32_t ptr)
{
	assert_true(ptr >= GUEST_INFO_GPA && ptr < GUEST_INFO_GPA + GUEST_INFO_MAX);
	assert_non_null(memchr(mem + ptr, 0, GUEST_INFO_GPA + GUEST_INFO_MAX - ptr));
	return (const char *)mem + ptr;
}

/* The larger of @hi and one past @s's NUL, as a guest-physical address. */
static uint64_t str_end(const char *s, uint64_t hi)
{
	uint64_t end = (uint64_t)(s - (const char *)mem) + strlen(s) + 1;

	return end > hi ? end : hi;
}

/* One past the highest byte of the block (its strings come last). */
static uint64_t check_mb1(uint64_t info)
{
	uint32_t mods, mmap, len, n = 0;
	uint64_t hi = info + 120;
	struct boot_mmap_entry map[8];
	const char *s;

	assert_int_equal(info, GUEST_INFO_GPA);
	assert_int_equal(ld32(info), 0x24d);	/* MEM, CMDLINE, MODS, MMAP, LOADER_NAME */
	assert_int_equal(ld32(info + 4), 636);
	assert_int_equal(ld32(info + 8), (low_ram() - MIB) / 1024);
	assert_int_equal(ld32(info + 12), 0);	/* boot_device: flag 1 clear */
	for (uint32_t off = 28; off < 44; off += 4)
		assert_int_equal(ld32(info + off), 0);	/* syms */
	for (uint32_t off = 52; off < 120; off += 4)
		if (off != 64)
			assert_int_equal(ld32(info + off), 0);	/* drives .. framebuffer */

	s = mb1_str(ld32(info + 16));
	assert_string_equal(s, plat.cmdline ? plat.cmdline : "");
	hi = str_end(s, hi);
	s = mb1_str(ld32(info + 64));
	assert_string_equal(s, plat.loader_name ? plat.loader_name : "");
	hi = str_end(s, hi);

	assert_int_equal(ld32(info + 20), plat.module_count);
	mods = ld32(info + 24);
	assert_int_equal(mods % 4, 0);
	assert_true(mods >= info + 120);
	for (uint32_t i = 0; i < plat.module_count; i++) {
		uint32_t m = mods + 16 * i;

		assert_int_equal(ld32(m), plat.modules[i].start);
		assert_int_equal(ld32(m + 4), plat.modules[i].end);
		s = mb1_str(ld32(m + 8));
		assert_string_equal(s, plat.modules[i].string ? plat.modules[i].string : "");
		hi = str_end(s, hi);
		assert_int_equal(ld32(m + 12), 0);
	}

	/* The memory map walked by each entry's size field, as the spec shows. */
	len = ld32(info + 44);
	mmap = ld32(info + 48);
	assert_int_equal(len, (mem_size > LOW_RAM_MAX ? 4 : 3) * 24);
	assert_int_equal(mmap % 4, 0);
	assert_true(mmap >= mods + 16 * plat.module_count);
	for (uint32_t p = mmap; p < mmap + len; p += ld32(p) + 4) {
		assert_true(n < 8);
		assert_int_equal(ld32(p), 20);
		map[n].base = ld64(p + 4);
		map[n].length = ld64(p + 12);
		map[n].type = ld32(p + 20);
		n++;
	}
	check_map(map, n);
	assert_untouched_outside(info, hi);
	return hi;
}

static void test_mb1_info(void **state)
{
	(void)state;
	mem_new(4 * MIB, 4 * MIB);
	plat_init(2, NULL);
	plat_module(0x200000, 0x212345, "initrd");
	plat_module(0x300000, 0x300000, "");
	plat_module(0x301000, 0x400000, NULL);
	check_mb1(guest_build_mb1_info(mem, mem_size, &plat));

	mem_new(MIB + 4096, MIB + 4096);
	plat_init(1, NULL);
	plat.cmdline = NULL;
	plat.loader_name = NULL;
	check_mb1(guest_build_mb1_info(mem, mem_size, &plat));

	mem_new(2 * MIB, 16 * GIB);	/* see test_mb2_info_large_memory */
	plat_init(1, NULL);
	for (int i = 0; i < GUEST_MAX_MODULES; i++)
		plat_module(0x100000 * (i + 1), 0x100000 * (i + 1) + 0x1000, "mod");
	check_mb1(guest_build_mb1_info(mem, mem_size, &plat));
}

/* Sizes: structure 120, modules 16 each, map 72, then the strings. */
static void test_mb1_info_cmdline_limit(void **state)
{
	static char line[GUEST_INFO_MAX + 16];
	const uint64_t fixed = 120 + 2 * 16 + 72 + strlen("Tempo 0.1") + 1 + 2 + 4;
	bool fitted = false, refused = false;

	(void)state;
	mem_new(2 * MIB, 2 * MIB);
	memset(line, 'y', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	for (size_t n = GUEST_INFO_MAX - 300; n < GUEST_INFO_MAX; n++) {
		uint64_t info;

		plat_init(1, NULL);
		plat_module(0x180000, 0x181000, "a");
		plat_module(0x181000, 0x182000, "bcd");
		line[n] = 0;
		plat.cmdline = line;
		info = guest_build_mb1_info(mem, mem_size, &plat);
		if (fixed + n + 1 <= GUEST_INFO_MAX) {
			assert_int_equal(check_mb1(info), GUEST_INFO_GPA + fixed + n + 1);
			fitted = true;
		} else {
			assert_int_equal(info, 0);
			refused = true;
		}
		line[n] = 'y';
		memset(mem, FILL, buf_size);
	}
	assert_true(fitted && refused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_acpi_one_cpu, teardown),
		cmocka_unit_test_teardown(test_acpi_two_cpus, teardown),
		cmocka_unit_test_teardown(test_acpi_four_cpus, teardown),
		cmocka_unit_test_teardown(test_acpi_x2apic_ids, teardown),
		cmocka_unit_test_teardown(test_acpi_max_cpus, teardown),
		cmocka_unit_test_teardown(test_acpi_bad_platform, teardown),
		cmocka_unit_test_teardown(test_acpi_small_memory, teardown),
		cmocka_unit_test_teardown(test_acpi_no_pm_port_unchanged, teardown),
		cmocka_unit_test_teardown(test_acpi_pm_port, teardown),
		cmocka_unit_test_teardown(test_acpi_pm_small_memory, teardown),
		cmocka_unit_test(test_acpi_poweroff_value),
		cmocka_unit_test_teardown(test_acpi_ioapic, teardown),
		cmocka_unit_test_teardown(test_acpi_pci_intx_override, teardown),
		cmocka_unit_test_teardown(test_acpi_pci_one_window, teardown),
		cmocka_unit_test_teardown(test_acpi_pci_no_window, teardown),
		cmocka_unit_test_teardown(test_acpi_pci_eight_windows, teardown),
		cmocka_unit_test_teardown(test_acpi_pci_assigned_windows, teardown),
		cmocka_unit_test_teardown(test_acpi_pci_bad_windows, teardown),
		cmocka_unit_test_teardown(test_acpi_pci_off_unchanged, teardown),
		cmocka_unit_test_teardown(test_acpi_pci_small_memory, teardown),
		cmocka_unit_test_teardown(test_mb2_info, teardown),
		cmocka_unit_test_teardown(test_mb2_info_minimal, teardown),
		cmocka_unit_test_teardown(test_mb2_info_large_memory, teardown),
		cmocka_unit_test_teardown(test_mb2_info_bad_input, teardown),
		cmocka_unit_test_teardown(test_mb2_info_cmdline_limit, teardown),
		cmocka_unit_test_teardown(test_mb_too_small_memory, teardown),
		cmocka_unit_test_teardown(test_mb1_info, teardown),
		cmocka_unit_test_teardown(test_mb1_info_cmdline_limit, teardown),
	};

	return cmocka_run_group_tests_name("guest_boot", tests, NULL, NULL);
}
