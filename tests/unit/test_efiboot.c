// SPDX-License-Identifier: MIT
/*
 * Unit tests for boot/efi/efiboot.c: the EFI loader's tempo.conf parser,
 * the EFI memory map conversion and the ConOut device-path check.
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

#include "boot/efi/efiboot.h"

static struct efi_conf conf;
static char err[160];

static int parse(const char *text)
{
	/* An exact-size heap copy, so ASan sees any read past the end. */
	size_t n = strlen(text);
	char *copy = malloc(n ? n : 1);
	int r;

	memcpy(copy, text, n);
	r = efi_conf_parse(copy, n, &conf, err, sizeof(err));
	free(copy);
	return r;
}

static void conf_full(void **state)
{
	(void)state;
	assert_int_equal(parse("# Tempo\n"
			       "hypervisor = \\EFI\\tempo\\tempo.elf\n"
			       "\tcmdline =  exit=emu loglevel=3  # trailing comment\r\n"
			       "\n"
			       "module = \\EFI\\tempo\\demo.cfg partitions\n"
			       "module=/EFI/tempo/hello-mb2.elf   hello-mb2 extra words\n"
			       "module = \\EFI\\tempo\\blob"),
			 0);
	assert_string_equal(conf.hypervisor, "\\EFI\\tempo\\tempo.elf");
	assert_string_equal(conf.cmdline, "exit=emu loglevel=3");
	assert_int_equal(conf.module_count, 3);
	assert_string_equal(conf.modules[0].path, "\\EFI\\tempo\\demo.cfg");
	assert_string_equal(conf.modules[0].string, "partitions");
	assert_string_equal(conf.modules[1].path, "\\EFI\\tempo\\hello-mb2.elf");
	assert_string_equal(conf.modules[1].string, "hello-mb2 extra words");
	assert_string_equal(conf.modules[2].path, "\\EFI\\tempo\\blob");
	assert_string_equal(conf.modules[2].string, "");
}

static void conf_minimal(void **state)
{
	(void)state;
	assert_int_equal(parse("hypervisor=a.elf"), 0);
	assert_string_equal(conf.hypervisor, "a.elf");
	assert_string_equal(conf.cmdline, "");
	assert_int_equal(conf.module_count, 0);
}

static void expect_error(const char *text, const char *msg)
{
	assert_int_equal(parse(text), -1);
	if (!strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
	/* nothing half-parsed is handed back */
	assert_string_equal(conf.hypervisor, "");
	assert_int_equal(conf.module_count, 0);
}

static void conf_errors(void **state)
{
	char big[600];

	(void)state;
	expect_error("", "no 'hypervisor = PATH' line");
	expect_error("# only a comment\n", "no 'hypervisor = PATH' line");
	expect_error("cmdline = x\n", "no 'hypervisor = PATH' line");
	expect_error("hypervisor = a\nhypervisor = b\n", "line 2: hypervisor given twice");
	expect_error("hypervisor = a\ncmdline = 1\ncmdline = 2\n", "line 3: cmdline given twice");
	expect_error("hypervisor = a\nkernel = b\n", "line 2: unknown key 'kernel'");
	expect_error("hypervisor = a\nmodule\n", "line 2: expected KEY = VALUE");
	expect_error("hypervisor =\n", "line 1: expected a path");
	expect_error("hypervisor = a\nmodule =   \n", "line 2: expected a path");
	expect_error("hypervisor = a\x01" "b\n", "line 1: path has character 0x01");
	assert_int_equal(efi_conf_parse("hypervisor = a\0b\n", 16, &conf, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 1: NUL byte"));

	memset(big, 'x', sizeof(big));
	memcpy(big, "hypervisor = ", 13);
	big[sizeof(big) - 1] = 0;
	expect_error(big, "line 1: the path is 586 characters, at most 255");
	memcpy(big, "hypervisor = a\ncmdline = ", 25);
	expect_error(big, "line 2: cmdline is 574 characters, at most 255");
}

static void conf_module_limit(void **state)
{
	char text[4096];
	size_t n = 0;

	(void)state;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "hypervisor = hv\n");
	for (int i = 0; i < BOOT_INFO_MAX_MODULES; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "module = m%d name%d\n", i, i);
	assert_int_equal(parse(text), 0);
	assert_int_equal(conf.module_count, BOOT_INFO_MAX_MODULES);
	assert_string_equal(conf.modules[15].string, "name15");
	snprintf(text + n, sizeof(text) - n, "module = one-more\n");
	expect_error(text, "line 18: more than 16 modules");
}

/* ---- the memory map ---- */

static struct boot_info bi;

struct desc48 {
	struct efi_mem_desc d;
	uint64_t extra;		/* descriptors may be larger: step by desc_size */
};

static int convert(const struct desc48 *d, size_t n)
{
	memset(&bi, 0xa5, sizeof(bi));
	return efi_mmap_convert(d, n * sizeof(*d), sizeof(*d), &bi);
}

#define D(t, base, n) { .d = { .type = (t), .phys_start = (base), .pages = (n) } }

static void expect_entry(uint32_t i, uint64_t base, uint64_t len, uint32_t type)
{
	assert_true(i < bi.mmap_count);
	assert_int_equal(bi.mmap[i].base, base);
	assert_int_equal(bi.mmap[i].length, len);
	assert_int_equal(bi.mmap[i].type, type);
}

static void mmap_types(void **state)
{
	(void)state;
	assert_int_equal(efi_mem_type_to_boot(EFI_MT_CONVENTIONAL), BOOT_MEM_USABLE);
	assert_int_equal(efi_mem_type_to_boot(EFI_MT_BS_CODE), BOOT_MEM_USABLE);
	assert_int_equal(efi_mem_type_to_boot(EFI_MT_BS_DATA), BOOT_MEM_USABLE);
	/* the loader's own allocations: hypervisor image, modules, boot_info */
	assert_int_equal(efi_mem_type_to_boot(EFI_MT_LOADER_CODE), BOOT_MEM_RESERVED);
	assert_int_equal(efi_mem_type_to_boot(EFI_MT_LOADER_DATA), BOOT_MEM_RESERVED);
	assert_int_equal(efi_mem_type_to_boot(EFI_MT_ACPI_RECLAIM), BOOT_MEM_ACPI_RECLAIM);
	assert_int_equal(efi_mem_type_to_boot(EFI_MT_ACPI_NVS), BOOT_MEM_ACPI_NVS);
	assert_int_equal(efi_mem_type_to_boot(EFI_MT_UNUSABLE), BOOT_MEM_BAD);
	assert_int_equal(efi_mem_type_to_boot(5), BOOT_MEM_RESERVED);	/* runtime code */
	assert_int_equal(efi_mem_type_to_boot(6), BOOT_MEM_RESERVED);	/* runtime data */
	assert_int_equal(efi_mem_type_to_boot(11), BOOT_MEM_RESERVED);	/* MMIO */
	assert_int_equal(efi_mem_type_to_boot(14), BOOT_MEM_RESERVED);	/* persistent */
	assert_int_equal(efi_mem_type_to_boot(0x80000001), BOOT_MEM_RESERVED);
}

static void mmap_sort_merge(void **state)
{
	const struct desc48 d[] = {
		D(EFI_MT_CONVENTIONAL, 0x100000, 0x10),
		D(EFI_MT_BS_DATA, 0x0, 0x9f),
		D(EFI_MT_LOADER_DATA, 0x110000, 0x4),
		D(EFI_MT_BS_CODE, 0x114000, 0x2),
		D(EFI_MT_CONVENTIONAL, 0x116000, 0x100),
		D(EFI_MT_ACPI_NVS, 0x800000, 0x8),
		D(EFI_MT_CONVENTIONAL, 0x100000000ull, 0x1000),
		D(EFI_MT_CONVENTIONAL, 0x300000, 0),	/* empty: dropped */
	};

	(void)state;
	assert_int_equal(convert(d, 8), 0);
	assert_int_equal(bi.mmap_count, 6);
	assert_false(bi.mmap_truncated);
	expect_entry(0, 0, 0x9f000, BOOT_MEM_USABLE);
	expect_entry(1, 0x100000, 0x10000, BOOT_MEM_USABLE);
	expect_entry(2, 0x110000, 0x4000, BOOT_MEM_RESERVED);
	expect_entry(3, 0x114000, 0x102000, BOOT_MEM_USABLE);
	expect_entry(4, 0x800000, 0x8000, BOOT_MEM_ACPI_NVS);
	expect_entry(5, 0x100000000ull, 0x1000000, BOOT_MEM_USABLE);
	assert_true(boot_mmap_usable_page(&bi, 0x1000, 0x9f000));
	assert_false(boot_mmap_usable_page(&bi, 0x9f000, 0x100000));
	assert_false(boot_mmap_usable_page(&bi, 0x110000, 0x114000));
}

/* Overlapping firmware entries never make non-usable memory usable. */
static void mmap_overlap(void **state)
{
	const struct desc48 d[] = {
		D(EFI_MT_CONVENTIONAL, 0x0, 0x10),	/* [0, 0x10000) */
		D(EFI_MT_ACPI_NVS, 0x8000, 0x4),	/* [0x8000, 0xc000) inside it */
		D(EFI_MT_ACPI_RECLAIM, 0x20000, 0x10),	/* [0x20000, 0x30000) */
		D(EFI_MT_CONVENTIONAL, 0x28000, 0x10),	/* [0x28000, 0x38000) overlaps */
		D(EFI_MT_LOADER_DATA, 0x2a000, 0x1),	/* inside both */
	};

	(void)state;
	assert_int_equal(convert(d, 5), 0);
	assert_int_equal(bi.mmap_count, 7);
	expect_entry(0, 0x0, 0x8000, BOOT_MEM_USABLE);
	expect_entry(1, 0x8000, 0x4000, BOOT_MEM_ACPI_NVS);
	expect_entry(2, 0xc000, 0x4000, BOOT_MEM_USABLE);
	expect_entry(3, 0x20000, 0xa000, BOOT_MEM_ACPI_RECLAIM);
	expect_entry(4, 0x2a000, 0x1000, BOOT_MEM_RESERVED);
	expect_entry(5, 0x2b000, 0x5000, BOOT_MEM_ACPI_RECLAIM);
	expect_entry(6, 0x30000, 0x8000, BOOT_MEM_USABLE);
}

/*
 * The fuzzer's find (tests/fuzz/crashes/efiboot/overlap-underflow): a usable
 * entry overlapping a reserved one before it, and a reserved one inside
 * both, once wrapped a length around.
 */
static void mmap_overlap_nested(void **state)
{
	const struct desc48 d[] = {
		D(EFI_MT_CONVENTIONAL, 0x1000, 0x1f),	/* [0x1000, 0x20000) */
		D(EFI_MT_LOADER_DATA, 0x0, 0x10),	/* [0, 0x10000) */
		D(EFI_MT_LOADER_DATA, 0x5000, 0x1),	/* inside both */
	};

	(void)state;
	assert_int_equal(convert(d, 3), 0);
	assert_int_equal(bi.mmap_count, 2);
	expect_entry(0, 0x0, 0x10000, BOOT_MEM_RESERVED);
	expect_entry(1, 0x10000, 0x10000, BOOT_MEM_USABLE);
}

static void mmap_bad_input(void **state)
{
	const struct desc48 wrap[] = {
		D(EFI_MT_CONVENTIONAL, 0xfffffffffffff000ull, 2),
		D(EFI_MT_CONVENTIONAL, 0x1000, 1),
	};

	(void)state;
	/* a descriptor size smaller than the structure */
	assert_int_equal(efi_mmap_convert(wrap, sizeof(wrap), 16, &bi), -1);
	/* an empty map, and a partial descriptor at the end, ignored */
	assert_int_equal(convert(wrap, 0), 0);
	assert_int_equal(bi.mmap_count, 0);
	assert_int_equal(efi_mmap_convert(wrap, sizeof(wrap) - 1, sizeof(wrap[0]), &bi), 0);
	assert_int_equal(bi.mmap_count, 0);
	/* a wrapping entry is dropped */
	assert_int_equal(convert(wrap, 2), 0);
	assert_int_equal(bi.mmap_count, 1);
	expect_entry(0, 0x1000, 0x1000, BOOT_MEM_USABLE);
}

static void mmap_truncated(void **state)
{
	static struct desc48 d[BOOT_INFO_MAX_MMAP + 10];
	size_t n = BOOT_INFO_MAX_MMAP + 10;

	(void)state;
	/* alternating types: nothing merges */
	for (size_t i = 0; i < n; i++)
		d[i] = (struct desc48)D(i % 2 ? EFI_MT_ACPI_NVS : EFI_MT_CONVENTIONAL,
					i * 0x1000, 1);
	assert_int_equal(efi_mmap_convert(d, sizeof(d), sizeof(d[0]), &bi), 0);
	assert_int_equal(bi.mmap_count, BOOT_INFO_MAX_MMAP);
	assert_true(bi.mmap_truncated);
}

/* ---- device paths ---- */

static void devpath_uart(void **state)
{
	/* PciRoot/Pci/Serial/Uart/VenVt100-ish, then end of path */
	const uint8_t with_uart[] = {
		0x02, 0x01, 0x0c, 0x00, 0xd0, 0x41, 0x03, 0x0a, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x01, 0x06, 0x00, 0x00, 0x1f,
		0x03, 0x0e, 0x13, 0x00, 0, 0, 0, 0, 0x00, 0xc2, 0x01, 0, 0, 0, 0, 0, 8, 1, 1,
		0x7f, 0xff, 0x04, 0x00,
	};
	const uint8_t gop_then_uart[] = {
		0x01, 0x01, 0x06, 0x00, 0x00, 0x02,
		0x7f, 0x01, 0x04, 0x00,				/* end of this instance */
		0x03, 0x0e, 0x04, 0x00,
		0x7f, 0xff, 0x04, 0x00,
	};
	const uint8_t no_uart[] = { 0x01, 0x01, 0x06, 0x00, 0x00, 0x02, 0x7f, 0xff, 0x04, 0x00 };
	const uint8_t after_end[] = { 0x7f, 0xff, 0x04, 0x00, 0x03, 0x0e, 0x04, 0x00 };
	const uint8_t zero_len[] = { 0x01, 0x01, 0x00, 0x00, 0x03, 0x0e, 0x04, 0x00 };
	const uint8_t too_long[] = { 0x01, 0x01, 0x40, 0x00, 0x03, 0x0e, 0x04, 0x00 };

	(void)state;
	assert_true(efi_devpath_has_uart(with_uart, sizeof(with_uart)));
	assert_true(efi_devpath_has_uart(gop_then_uart, sizeof(gop_then_uart)));
	assert_false(efi_devpath_has_uart(no_uart, sizeof(no_uart)));
	assert_false(efi_devpath_has_uart(after_end, sizeof(after_end)));
	assert_false(efi_devpath_has_uart(zero_len, sizeof(zero_len)));
	assert_false(efi_devpath_has_uart(too_long, sizeof(too_long)));
	assert_false(efi_devpath_has_uart(with_uart, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(conf_full),
		cmocka_unit_test(conf_minimal),
		cmocka_unit_test(conf_errors),
		cmocka_unit_test(conf_module_limit),
		cmocka_unit_test(mmap_types),
		cmocka_unit_test(mmap_sort_merge),
		cmocka_unit_test(mmap_overlap),
		cmocka_unit_test(mmap_overlap_nested),
		cmocka_unit_test(mmap_bad_input),
		cmocka_unit_test(mmap_truncated),
		cmocka_unit_test(devpath_uart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
