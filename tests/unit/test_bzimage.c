// SPDX-License-Identifier: MIT
/*
 * Unit tests for hv/core/bzimage.c: synthetic bzImages built in memory, one per
 * refusal and good ones whose plan and boot state are read back at the
 * offsets boot.rst and zero-page.rst document. Guest memory is an exact-size
 * heap buffer filled with a pattern, so ASan catches a write past its end
 * and the pattern one outside the areas linux_build_boot() owns. A real
 * kernel (build/linux/bzImage or /boot/vmlinuz-*) is planned too when one is
 * present.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/bzimage.h"
#include "hv/core/elf.h"

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define GIB (1ull << 30)
#define FILL 0xcc

/* ---- a synthetic bzImage ---- */

#define IMG_SETUP_SECTS	3		/* kernel at (3 + 1) * 512 = 0x800 */
#define IMG_KOFF	0x800
#define IMG_KSIZE	0x3000
#define IMG_LEN		(IMG_KOFF + IMG_KSIZE)
#define IMG_JUMP	0x6a		/* header ends at 0x26c, as in 2.15 kernels */
#define IMG_PREF	(16 * MIB)
#define IMG_INIT_SIZE	(32 * MIB)

static uint8_t img[IMG_LEN];

static void w16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static void w32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void w64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint16_t r16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t r32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t r64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* A relocatable protocol 2.15 kernel like Debian's, every other byte patterned. */
static void img_init(void)
{
	for (size_t i = 0; i < sizeof(img); i++)
		img[i] = (uint8_t)(i * 7 + 3);
	img[0x1f1] = IMG_SETUP_SECTS;
	w32(img + 0x1f4, IMG_KSIZE / 16);	/* syssize */
	w16(img + 0x1fe, 0xaa55);
	img[0x200] = 0xeb;			/* jmp short */
	img[0x201] = IMG_JUMP;
	memcpy(img + 0x202, "HdrS", 4);
	w16(img + 0x206, 0x020f);
	img[0x210] = 0;				/* type_of_loader */
	img[0x211] = 0x01;			/* loadflags: LOADED_HIGH */
	w32(img + 0x218, 0);			/* ramdisk_image */
	w32(img + 0x21c, 0);			/* ramdisk_size */
	w16(img + 0x224, 0);			/* heap_end_ptr */
	w32(img + 0x228, 0);			/* cmd_line_ptr */
	w32(img + 0x22c, 0x7fffffff);		/* initrd_addr_max */
	w32(img + 0x230, 0x200000);		/* kernel_alignment */
	img[0x234] = 1;				/* relocatable_kernel */
	img[0x235] = 21;			/* min_alignment */
	w16(img + 0x236, 0x7f);			/* xloadflags: KERNEL_64, ABOVE_4G, ... */
	w32(img + 0x238, 0x7ff);		/* cmdline_size */
	w32(img + 0x23c, 0);			/* hardware_subarch */
	w64(img + 0x240, 0);
	w64(img + 0x250, 0);			/* setup_data */
	w64(img + 0x258, IMG_PREF);		/* pref_address */
	w32(img + 0x260, (uint32_t)IMG_INIT_SIZE);
}

/* ---- guest memory ---- */

static uint8_t *mem;
static uint64_t mem_size;

static void mem_free(void)
{
	free(mem);
	mem = NULL;
}

static void mem_new(uint64_t size)
{
	mem_free();
	mem = malloc(size ? size : 1);
	assert_non_null(mem);
	memset(mem, FILL, size);
	mem_size = size;
}

static int setup(void **state)
{
	(void)state;
	img_init();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mem_free();
	return 0;
}

/* Every byte outside the areas listed (pairs [lo, hi)) still holds the fill. */
static void assert_untouched_except(const uint64_t (*areas)[2], size_t n)
{
	uint64_t top = 0;

	for (size_t a = 0; a < n; a++)
		top = areas[a][1] > top ? areas[a][1] : top;
	for (uint64_t i = 0; i < mem_size; i++) {
		bool in = false;

		for (size_t a = 0; i < top && a < n; a++)
			in |= i >= areas[a][0] && i < areas[a][1];
		if (!in && mem[i] != FILL)
			fail_msg("byte 0x%llx written", (unsigned long long)i);
	}
}

static void assert_all_untouched(void)
{
	assert_untouched_except(NULL, 0);
}

/* ---- the plan ---- */

static struct linux_plan plan;
static char why[256];

static void assert_refused(int ret, const char *needle)
{
	static const struct linux_plan zero;

	assert_int_equal(ret, -1);
	assert_memory_equal(&plan, &zero, sizeof(plan));
	if (!strstr(why, needle))
		fail_msg("expected \"%s\" in \"%s\"", needle, why);
}

static int plan_img(size_t len, uint64_t msize, uint64_t initrd)
{
	memset(&plan, 0xa5, sizeof(plan));
	memset(why, 0x5a, sizeof(why));
	return linux_plan_load(img, len, msize, initrd, &plan, why, sizeof(why));
}

static void plan_ok(size_t len, uint64_t msize, uint64_t initrd)
{
	if (plan_img(len, msize, initrd))
		fail_msg("refused: %s", why);
	assert_string_equal(why, "");
}

static void test_plan_good(void **state)
{
	uint64_t initrd = 3 * MIB + 123;

	(void)state;
	plan_ok(IMG_LEN, 128 * MIB, initrd);
	assert_int_equal(plan.version, 0x020f);
	assert_int_equal(plan.kernel_gpa, IMG_PREF);
	assert_int_equal(plan.kernel_offset, IMG_KOFF);
	assert_int_equal(plan.kernel_size, IMG_KSIZE);
	assert_int_equal(plan.entry64, IMG_PREF + 0x200);
	assert_int_equal(plan.init_size, IMG_INIT_SIZE);
	assert_int_equal(plan.kernel_end, IMG_PREF + IMG_INIT_SIZE);
	/* As high as possible, page aligned: the end lands inside the last page. */
	assert_int_equal(plan.initrd_gpa, (128 * MIB - initrd) & ~0xfffull);
	assert_int_equal(plan.initrd_size, initrd);

	/* No initrd. */
	plan_ok(IMG_LEN, 128 * MIB, 0);
	assert_int_equal(plan.initrd_gpa, 0);
	assert_int_equal(plan.initrd_size, 0);

	/* Exactly enough memory for init_size; setup_sects 0 means 4. */
	img[0x1f1] = 0;
	w32(img + 0x1f4, (IMG_LEN - 0xa00) / 16);	/* syssize follows the kernel's size */
	plan_ok(IMG_LEN, IMG_PREF + IMG_INIT_SIZE, 0);
	assert_int_equal(plan.kernel_offset, 5 * 512);
	assert_int_equal(plan.kernel_size, IMG_LEN - 5 * 512);
}

/* A kernel that is not relocatable goes at 1 MiB and runs at pref_address. */
static void test_plan_not_relocatable(void **state)
{
	(void)state;
	img[0x234] = 0;
	plan_ok(IMG_LEN, 64 * MIB, MIB);
	assert_int_equal(plan.kernel_gpa, MIB);
	assert_int_equal(plan.entry64, MIB + 0x200);
	assert_int_equal(plan.kernel_end, IMG_PREF + IMG_INIT_SIZE);
	assert_int_equal(plan.initrd_gpa, 63 * MIB);
}

/* A relocatable kernel at an unaligned pref_address runs rounded up. */
static void test_plan_unaligned_pref(void **state)
{
	(void)state;
	w64(img + 0x258, IMG_PREF + 0x1000);
	plan_ok(IMG_LEN, 64 * MIB, 0);
	assert_int_equal(plan.kernel_gpa, IMG_PREF + 0x1000);
	assert_int_equal(plan.kernel_end, IMG_PREF + 0x200000 + IMG_INIT_SIZE);
	assert_int_equal(plan_img(IMG_LEN, IMG_PREF + IMG_INIT_SIZE + 0x1fffff, 0), -1);
	assert_refused(-1, "past the partition's");
	/* Relocatable: the run address and init_size bound the kernel ... */
	w32(img + 0x260, 0x100);
	plan_ok(IMG_LEN, 64 * MIB, 0);
	assert_int_equal(plan.kernel_end, IMG_PREF + 0x200000 + 0x100);
	/* ... fixed at 1 MiB and run there with init_size under the file: the file bytes do. */
	img[0x234] = 0;
	w64(img + 0x258, MIB);
	plan_ok(IMG_LEN, 2 * MIB, MIB - IMG_KSIZE);
	assert_int_equal(plan.kernel_gpa, MIB);
	assert_int_equal(plan.kernel_end, MIB + IMG_KSIZE);
	assert_int_equal(plan.initrd_gpa, MIB + IMG_KSIZE);
	assert_refused(plan_img(IMG_LEN, 2 * MIB, MIB - IMG_KSIZE + 1), "does not fit");
}

/* initrd_addr_max caps the initrd unless the kernel takes it above 4 GiB. */
static void test_plan_initrd_cap(void **state)
{
	(void)state;
	w16(img + 0x236, 0x1);			/* KERNEL_64 only */
	w32(img + 0x22c, 0x37ffffff);
	plan_ok(IMG_LEN, 2 * GIB, 5 * MIB);
	assert_int_equal(plan.initrd_gpa, 0x38000000 - 5 * MIB);
	/* An unaligned cap: the end may not pass initrd_addr_max + 1. */
	w32(img + 0x22c, 0x37ffefff);
	plan_ok(IMG_LEN, 2 * GIB, 5 * MIB);
	assert_int_equal(plan.initrd_gpa, 0x37fff000 - 5 * MIB);
	/* Memory ending below the cap. */
	plan_ok(IMG_LEN, 100 * MIB, 5 * MIB);
	assert_int_equal(plan.initrd_gpa, 95 * MIB);
	/*
	 * initrd_addr_max 0xffffffff with 8 GiB: up to the end of the RAM below
	 * the MMIO window, 0xFEA00000 (the rest of the RAM is from 4 GiB up).
	 */
	w32(img + 0x22c, 0xffffffff);
	plan_ok(IMG_LEN, 8 * GIB, MIB);
	assert_int_equal(plan.initrd_gpa, 0xfea00000ull - MIB);
	/* XLF_CAN_BE_LOADED_ABOVE_4G: the cap is ignored, the low RAM's end is not. */
	w16(img + 0x236, 0x3);
	w32(img + 0x22c, 0x37ffffff);
	plan_ok(IMG_LEN, 3 * GIB, MIB);
	assert_int_equal(plan.initrd_gpa, 3 * GIB - MIB);
	plan_ok(IMG_LEN, 8 * GIB, MIB);
	assert_int_equal(plan.initrd_gpa, 0xfea00000ull - MIB);
	/* Just fits between the kernel's end and the cap. */
	w16(img + 0x236, 0x1);
	w32(img + 0x22c, (uint32_t)(IMG_PREF + IMG_INIT_SIZE + 2 * MIB - 1));
	plan_ok(IMG_LEN, GIB, 2 * MIB);
	assert_int_equal(plan.initrd_gpa, IMG_PREF + IMG_INIT_SIZE);
	assert_refused(plan_img(IMG_LEN, GIB, 2 * MIB + 1), "initrd_addr_max");
}

/* A file cut short: syssize (16-byte units) says more than the file holds. */
static void test_plan_truncated(void **state)
{
	(void)state;
	plan_ok(IMG_LEN - 15, 64 * MIB, 0);		/* the last paragraph may be partial */
	assert_refused(plan_img(IMG_LEN - 16, 64 * MIB, 0), "bzImage: truncated: the "
		       "header's syssize says the protected-mode kernel is 0x3000 bytes, the "
		       "file holds 0x2ff0");
	assert_refused(plan_img(IMG_KOFF + 0x400, 64 * MIB, 0), "truncated");
}

static void test_partition_cmdline(void **state)
{
	char buf[32];
	const char *kept = "console=ttyS0 noapic quiet";

	(void)state;
	assert_ptr_equal(linux_partition_cmdline(kept, buf, sizeof(buf)), kept);
	assert_string_equal(linux_partition_cmdline(kept + 14, buf, sizeof(buf)), "noapic quiet");
	assert_ptr_equal(linux_partition_cmdline(kept + 14, buf, sizeof(buf)), kept + 14);
	assert_string_equal(linux_partition_cmdline("quiet", buf, sizeof(buf)), "quiet noapic");
	assert_string_equal(linux_partition_cmdline("", buf, sizeof(buf)), "noapic");
	/* a word that only starts or ends like it does not count */
	assert_string_equal(linux_partition_cmdline("noapicx xnoapic", buf, sizeof(buf)),
			    "noapicx xnoapic noapic");
	/* no room: refused, not cut */
	assert_null(linux_partition_cmdline("0123456789012345678901234", buf, sizeof(buf)));
}

static void test_plan_refusals(void **state)
{
	(void)state;
	assert_refused(plan_img(0, 64 * MIB, 0), "too short for a setup header");
	assert_refused(plan_img(0x263, 64 * MIB, 0), "too short for a setup header");
	assert_refused(linux_plan_load(NULL, IMG_LEN, 64 * MIB, 0, &plan, why, sizeof(why)),
		       "no image");
	assert_int_equal(linux_plan_load(img, IMG_LEN, 64 * MIB, 0, NULL, why, sizeof(why)), -1);
	assert_int_equal(linux_plan_load(img, IMG_LEN, 64 * MIB, 0, &plan, NULL, 0), 0);

	img[0x205] = 'T';
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "no \"HdrS\" magic");
	img_init();
	w16(img + 0x1fe, 0x55aa);
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "boot_flag at 0x1fe is 0x55aa");
	img_init();
	w16(img + 0x206, 0x020b);
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "boot protocol 2.11, need 2.12");
	img_init();
	img[0x201] = 0x61;				/* ends at 0x263, before init_size */
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "setup header ends at 0x263");
	img_init();
	assert_refused(plan_img(0x26b, 64 * MIB, 0), "setup header ends at 0x26c");
	img_init();
	img[0x211] = 0x80;
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "LOADED_HIGH (bit 0) clear");
	img_init();
	w16(img + 0x236, 0x7e);
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "XLF_KERNEL_64 (bit 0) clear");
	img_init();
	img[0x1f1] = 200;
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "setup_sects 200 puts the kernel at "
		       "0x19200, past the image's 0x3800 bytes");
	img_init();
	w32(img + 0x1f4, 0);	/* syssize unknown: only the entry offset limits the size */
	assert_refused(plan_img(IMG_KOFF, 64 * MIB, 0), "setup_sects 3");
	assert_refused(plan_img(IMG_KOFF + 0x200, 64 * MIB, 0), "does not reach the 64-bit "
		       "entry");
	plan_ok(IMG_KOFF + 0x201, 64 * MIB, 0);
	w32(img + 0x230, 0x300000);
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "kernel_alignment 0x300000 is not a "
		       "power of two");
	w32(img + 0x230, 0);
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "kernel_alignment 0x0");
	img_init();
	w64(img + 0x258, 0xff000);
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 0), "pref_address 0xff000 is outside");
	w64(img + 0x258, 4 * GIB);
	assert_refused(plan_img(IMG_LEN, 64 * GIB, 0), "pref_address 0x100000000 is outside");
	w64(img + 0x258, UINT64_MAX);
	assert_refused(plan_img(IMG_LEN, UINT64_MAX, 0), "is outside");
	img_init();
	w32(img + 0x260, 0xffffffff);
	assert_refused(plan_img(IMG_LEN, 64 * GIB, 0), "past the 4 GiB identity map");
	img_init();
	assert_refused(plan_img(IMG_LEN, IMG_PREF + IMG_INIT_SIZE - 1, 0),
		       "kernel needs [0x1000000, 0x3000000) (init_size 0x2000000 at 0x1000000), "
		       "past the partition's 0x2ffffff bytes");
	assert_refused(plan_img(IMG_LEN, 32 * MIB, 0), "past the partition's 32 MiB");
	assert_refused(plan_img(IMG_LEN, 0, 0), "past the partition's");
	/* The initrd: exactly the room left above the kernel, then a byte more. */
	plan_ok(IMG_LEN, 64 * MIB, 16 * MIB);
	assert_int_equal(plan.initrd_gpa, 48 * MIB);
	assert_refused(plan_img(IMG_LEN, 64 * MIB, 16 * MIB + 1), "initrd of 0x1000001 bytes "
		       "does not fit between the kernel's end 0x3000000 and 0x4000000 (end of "
		       "memory)");
	assert_refused(plan_img(IMG_LEN, 64 * MIB, UINT64_MAX), "does not fit");
	assert_refused(plan_img(IMG_LEN, UINT64_MAX, UINT64_MAX), "does not fit");
}

/* A message never overflows a short buffer and is always terminated. */
static void test_plan_short_why(void **state)
{
	char small[8];

	(void)state;
	memset(small, 0x5a, sizeof(small));
	assert_int_equal(linux_plan_load(img, 10, 64 * MIB, 0, &plan, small, sizeof(small)), -1);
	assert_string_equal(small, "bzImage");
	assert_int_equal(linux_plan_load(img, 10, 64 * MIB, 0, &plan, small, 0), -1);
}

/* ---- the boot state ---- */

#define ZP (mem + LINUX_ZERO_PAGE_GPA)

static const uint64_t owned[][2] = {
	{ LINUX_GDT_GPA, LINUX_GDT_GPA + LINUX_GDT_SIZE },
	{ LINUX_PT_GPA, LINUX_PT_GPA + LINUX_PT_SIZE },
	{ LINUX_ZERO_PAGE_GPA, LINUX_ZERO_PAGE_GPA + 0x1000 },
	{ LINUX_CMDLINE_GPA, LINUX_CMDLINE_GPA + LINUX_CMDLINE_MAX },
};

static int build(size_t len, const char *cmdline, uint64_t rsdp)
{
	memset(why, 0x5a, sizeof(why));
	return linux_build_boot(mem, mem_size, img, len, &plan, cmdline, rsdp, why, sizeof(why));
}

static void build_ok(size_t len, const char *cmdline, uint64_t rsdp)
{
	if (build(len, cmdline, rsdp))
		fail_msg("refused: %s", why);
	assert_string_equal(why, "");
	assert_untouched_except(owned, sizeof(owned) / sizeof(owned[0]));
}

static void check_gdt(void)
{
	const uint8_t *g = mem + LINUX_GDT_GPA;

	assert_int_equal(r64(g), 0);
	assert_int_equal(r64(g + 8), 0);
	/* __BOOT_CS: base 0, limit 0xfffff, G, L (not D), P, S, type 0xb (code, read, accessed). */
	assert_int_equal(r64(g + 0x10), 0x00af9b000000ffffull);
	/* __BOOT_DS: base 0, limit 0xfffff, G, D/B, P, S, type 3 (data, write, accessed). */
	assert_int_equal(r64(g + 0x18), 0x00cf93000000ffffull);
}

/* Walk the tables for one address as the MMU would (SDM Vol. 3A 4.5). */
static uint64_t translate(uint64_t va)
{
	uint64_t e = r64(mem + LINUX_PT_GPA + 8 * ((va >> 39) & 511));

	assert_int_equal(e & 0x83, 0x03);
	e = r64(mem + (e & ~0xfffull) + 8 * ((va >> 30) & 511));
	assert_int_equal(e & 0x83, 0x03);
	assert_true((e & ~0xfffull) >= LINUX_PT_GPA + 0x2000 &&
		    (e & ~0xfffull) < LINUX_PT_GPA + LINUX_PT_SIZE);
	e = r64(mem + (e & ~0xfffull) + 8 * ((va >> 21) & 511));
	assert_int_equal(e & 0x83, 0x83);
	return (e & ~0x1fffffull) | (va & 0x1fffff);
}

static void check_page_tables(void)
{
	const uint8_t *pt = mem + LINUX_PT_GPA;

	assert_int_equal(r64(pt), 0x3003);		/* PML4[0] -> PDPT */
	for (int i = 1; i < 512; i++)
		assert_int_equal(r64(pt + 8 * i), 0);
	for (int i = 0; i < 4; i++)			/* PDPT[i] -> PD i */
		assert_int_equal(r64(pt + 0x1000 + 8 * i), 0x4003 + 0x1000 * i);
	for (int i = 4; i < 512; i++)
		assert_int_equal(r64(pt + 0x1000 + 8 * i), 0);
	for (uint64_t i = 0; i < 2048; i++)
		assert_int_equal(r64(pt + 0x2000 + 8 * i), i * 2 * MIB | 0x83);
	for (uint64_t va = 0; va < 4 * GIB; va += 0x1234567)
		assert_int_equal(translate(va), va);
	assert_int_equal(translate(4 * GIB - 1), 4 * GIB - 1);
}

static void check_e820(void)
{
	static const struct { uint64_t addr, size; uint32_t type; } want[] = {
		{ 0, 0x10000, 2 },
		{ 0x10000, 0x8f000, 1 },
		{ 0x9f000, 0x61000, 2 },
		{ 0x100000, 0, 1 },
	};
	struct linux_e820 map[LINUX_E820_ENTRIES];

	assert_int_equal(ZP[0x1e8], 4);
	linux_e820_map(mem_size, map);
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = ZP + 0x2d0 + 20 * i;
		uint64_t size = i == 3 ? mem_size - MIB : want[i].size;

		assert_int_equal(r64(e), want[i].addr);
		assert_int_equal(r64(e + 8), size);
		assert_int_equal(r32(e + 16), want[i].type);
		assert_int_equal(map[i].addr, want[i].addr);
		assert_int_equal(map[i].size, size);
		assert_int_equal(map[i].type, want[i].type);
	}
	/* Nothing after the last entry. */
	for (int i = 0x2d0 + 80; i < 0x2d0 + 100; i++)
		assert_int_equal(ZP[i], 0);
}

static void test_build_good(void **state)
{
	const char *cmd = "console=ttyS0 earlyprintk=serial panic=-1";
	uint64_t initrd = 3 * MIB + 123;

	(void)state;
	mem_new(64 * MIB);
	plan_ok(IMG_LEN, mem_size, initrd);
	build_ok(IMG_LEN, cmd, 0xe0000);
	check_gdt();
	check_page_tables();
	check_e820();

	/* The setup header, 0x1f1 to 0x26c, copied; the loader's fields over it. */
	for (int i = 0; i < 0x1f1; i++)
		if ((i < 0x070 || i >= 0x078) && i != 0x1e8 && ZP[i])
			fail_msg("zero page byte 0x%x is 0x%02x", i, ZP[i]);
	assert_memory_equal(ZP + 0x1f1, img + 0x1f1, 0x210 - 0x1f1);
	assert_memory_equal(ZP + 0x202, "HdrS", 4);
	assert_int_equal(r16(ZP + 0x206), 0x020f);
	assert_int_equal(ZP[0x1ef], 0);				/* sentinel */
	assert_int_equal(ZP[0x210], 0xff);			/* type_of_loader */
	assert_int_equal(ZP[0x211], 0x01);			/* loadflags: LOADED_HIGH only */
	assert_memory_equal(ZP + 0x212, img + 0x212, 0x218 - 0x212);
	assert_int_equal(r32(ZP + 0x218), plan.initrd_gpa);	/* ramdisk_image */
	assert_int_equal(r32(ZP + 0x21c), initrd);		/* ramdisk_size */
	assert_int_equal(r32(ZP + 0x0c0), 0);			/* ext_ramdisk_image */
	assert_int_equal(r32(ZP + 0x0c4), 0);			/* ext_ramdisk_size */
	assert_int_equal(r16(ZP + 0x224), 0);			/* heap_end_ptr */
	assert_int_equal(r32(ZP + 0x228), LINUX_CMDLINE_GPA);	/* cmd_line_ptr */
	assert_int_equal(r32(ZP + 0x0c8), 0);			/* ext_cmd_line_ptr */
	assert_memory_equal(ZP + 0x22c, img + 0x22c, 0x23c - 0x22c);
	assert_int_equal(r32(ZP + 0x23c), 0);			/* hardware_subarch */
	assert_int_equal(r64(ZP + 0x240), 0);
	assert_memory_equal(ZP + 0x248, img + 0x248, 8);
	assert_int_equal(r64(ZP + 0x250), 0);			/* setup_data */
	assert_memory_equal(ZP + 0x258, img + 0x258, 0x26c - 0x258);
	for (int i = 0x26c; i < 0x2d0; i++)
		assert_int_equal(ZP[i], 0);
	assert_int_equal(r64(ZP + 0x070), 0xe0000);		/* acpi_rsdp_addr */

	assert_string_equal((const char *)mem + LINUX_CMDLINE_GPA, cmd);
	for (uint64_t i = strlen(cmd); i < LINUX_CMDLINE_MAX; i++)
		assert_int_equal(mem[LINUX_CMDLINE_GPA + i], 0);
}

/* Only 0x202 + the jump byte is header; the rest of the setup is not copied. */
static void test_build_header_length(void **state)
{
	(void)state;
	mem_new(64 * MIB);
	img[0x201] = 0x66;				/* ends at 0x268, protocol 2.12 style */
	w16(img + 0x206, 0x020c);
	plan_ok(IMG_LEN, mem_size, 0);
	build_ok(IMG_LEN, NULL, 0xe0000);
	assert_memory_equal(ZP + 0x258, img + 0x258, 0x268 - 0x258);
	for (int i = 0x268; i < 0x1000; i++)
		if (i < 0x2d0 || i >= 0x2d0 + 80)
			assert_int_equal(ZP[i], 0);
	/* Before 2.14 acpi_rsdp_addr is not there to set. */
	assert_int_equal(r64(ZP + 0x070), 0);
	assert_int_equal(r32(ZP + 0x218), 0);
	assert_int_equal(r32(ZP + 0x21c), 0);
	assert_int_equal(mem[LINUX_CMDLINE_GPA], 0);
	check_e820();

	/* The longest header a jump byte can give (0x301). */
	img_init();
	img[0x201] = 0xff;
	plan_ok(IMG_LEN, mem_size, 0);
	build_ok(IMG_LEN, "", 0);
	assert_memory_equal(ZP + 0x26c, img + 0x26c, 0x2d0 - 0x26c);
	assert_int_equal(ZP[0x1e8], 4);
	assert_int_equal(r64(ZP + 0x070), 0);
}

/*
 * A partition of 6 GiB: RAM to 0xFEA00000 below the MMIO window, the other
 * 2134 MiB from 4 GiB as a fifth E820 entry; the initrd at the top of the
 * low RAM (inside the identity map the kernel is entered with).
 */
static void test_build_ram_above_4g(void **state)
{
	const uint64_t low = 0xfea00000ull, initrd = 0x12345789ull;

	(void)state;
	plan_ok(IMG_LEN, 6 * GIB, initrd);
	assert_int_equal(plan.initrd_gpa, (low - initrd) & ~0xfffull);
	/* The builder writes only the low 64 KiB; a short buffer is enough to check that. */
	mem_new(64 * MIB);
	mem_size = 6 * GIB;
	memset(why, 0, sizeof(why));
	assert_int_equal(linux_build_boot(mem, mem_size, img, IMG_LEN, &plan, "x", 0, why,
					  sizeof(why)), 0);
	assert_int_equal(r32(ZP + 0x218), (uint32_t)plan.initrd_gpa);
	assert_int_equal(r32(ZP + 0x0c0), 0);
	assert_int_equal(r32(ZP + 0x21c), (uint32_t)initrd);
	assert_int_equal(r32(ZP + 0x0c4), 0);
	assert_int_equal(ZP[0x1e8], 5);
	assert_int_equal(r64(ZP + 0x2d0 + 60), MIB);
	assert_int_equal(r64(ZP + 0x2d0 + 60 + 8), low - MIB);
	assert_int_equal(r32(ZP + 0x2d0 + 60 + 16), 1);
	assert_int_equal(r64(ZP + 0x2d0 + 80), 4 * GIB);
	assert_int_equal(r64(ZP + 0x2d0 + 80 + 8), 6 * GIB - low);
	assert_int_equal(r32(ZP + 0x2d0 + 80 + 16), 1);
	for (int i = 0x2d0 + 100; i < 0x2d0 + 120; i++)
		assert_int_equal(ZP[i], 0);
	/* Exactly the low RAM: still four entries. */
	mem_new(64 * MIB);
	mem_size = low;
	plan_ok(IMG_LEN, mem_size, MIB);
	assert_int_equal(linux_build_boot(mem, mem_size, img, IMG_LEN, &plan, "x", 0, why,
					  sizeof(why)), 0);
	assert_int_equal(ZP[0x1e8], 4);
	assert_int_equal(r64(ZP + 0x2d0 + 60 + 8), low - MIB);
	/* A hand-made plan with the initrd above 4 GiB, or in the gap, is refused. */
	mem_new(64 * MIB);
	mem_size = 6 * GIB;
	plan_ok(IMG_LEN, mem_size, MIB);
	plan.initrd_gpa = 4 * GIB;
	assert_int_equal(linux_build_boot(mem, mem_size, img, IMG_LEN, &plan, "x", 0, why,
					  sizeof(why)), -1);
	assert_non_null(strstr(why, "is not within RAM from 1 MiB to 0xfea00000"));
	plan.initrd_gpa = low - 4096;
	assert_int_equal(linux_build_boot(mem, mem_size, img, IMG_LEN, &plan, "x", 0, why,
					  sizeof(why)), -1);
}

static void assert_build_refused(int ret, const char *needle)
{
	assert_int_equal(ret, -1);
	if (!strstr(why, needle))
		fail_msg("expected \"%s\" in \"%s\"", needle, why);
	assert_all_untouched();
}

static void test_build_cmdline_limit(void **state)
{
	static char cmd[LINUX_CMDLINE_MAX + 10];

	(void)state;
	mem_new(64 * MIB);
	plan_ok(IMG_LEN, mem_size, 0);
	/* cmdline_size 0x7ff: 2047 characters and the NUL fill the 2 KiB area. */
	memset(cmd, 'a', sizeof(cmd));
	cmd[2047] = 0;
	build_ok(IMG_LEN, cmd, 0);
	assert_int_equal(strlen((const char *)mem + LINUX_CMDLINE_GPA), 2047);
	mem_new(64 * MIB);
	cmd[2047] = 'a';
	cmd[2048] = 0;
	assert_build_refused(build(IMG_LEN, cmd, 0), "command line of 2048 bytes exceeds the "
			     "kernel's limit of 2047");
	cmd[2048] = 'a';
	cmd[sizeof(cmd) - 1] = 0;
	assert_build_refused(build(IMG_LEN, cmd, 0), "at least 2049 bytes");
	/* A smaller cmdline_size is the limit. */
	w32(img + 0x238, 255);
	plan_ok(IMG_LEN, mem_size, 0);
	cmd[256] = 0;
	assert_build_refused(build(IMG_LEN, cmd, 0), "256 bytes exceeds the kernel's limit of "
			     "255 (cmdline_size)");
	cmd[255] = 0;
	build_ok(IMG_LEN, cmd, 0);
	/* A larger one is capped by the area. */
	w32(img + 0x238, 0xffffffff);
	mem_new(64 * MIB);
	plan_ok(IMG_LEN, mem_size, 0);
	memset(cmd, 'b', sizeof(cmd));
	cmd[2048] = 0;
	assert_build_refused(build(IMG_LEN, cmd, 0), "LINUX_CMDLINE_MAX - 1");
}

static void test_build_refusals(void **state)
{
	struct linux_plan good;

	(void)state;
	mem_new(64 * MIB);
	plan_ok(IMG_LEN, mem_size, MIB);
	good = plan;
	assert_build_refused(linux_build_boot(NULL, mem_size, img, IMG_LEN, &plan, "", 0, why,
					      sizeof(why)), "no guest memory");
	assert_build_refused(linux_build_boot(mem, mem_size, img, IMG_LEN, NULL, "", 0, why,
					      sizeof(why)), "no plan");
	assert_build_refused(linux_build_boot(mem, mem_size, NULL, IMG_LEN, &plan, "", 0, why,
					      sizeof(why)), "no image");
	/* The image is checked again. */
	img[0x202] = 'h';
	assert_build_refused(build(IMG_LEN, "", 0), "no \"HdrS\" magic");
	img_init();
	assert_build_refused(build(IMG_LEN - 1, "", 0), "not made for this image");
	w16(img + 0x206, 0x020e);
	assert_build_refused(build(IMG_LEN, "", 0), "not made for this image");
	img_init();
	/* Memory, the plan's ranges and the RSDP. */
	mem_new(MIB);
	assert_build_refused(build(IMG_LEN, "", 0), "a partition of 1 MiB has no RAM above");
	mem_new(64 * MIB);
	plan.kernel_end = 64 * MIB + 1;
	assert_build_refused(build(IMG_LEN, "", 0), "planned kernel");
	plan = good;
	plan.kernel_gpa = MIB - 1;
	assert_build_refused(build(IMG_LEN, "", 0), "planned kernel");
	plan = good;
	plan.kernel_gpa = plan.kernel_end - plan.kernel_size + 1;
	assert_build_refused(build(IMG_LEN, "", 0), "planned kernel");
	plan = good;
	plan.initrd_gpa = 64 * MIB - MIB + 1;
	assert_build_refused(build(IMG_LEN, "", 0), "planned initrd");
	plan.initrd_gpa = 0x9f000;
	assert_build_refused(build(IMG_LEN, "", 0), "planned initrd");
	plan.initrd_gpa = UINT64_MAX;
	assert_build_refused(build(IMG_LEN, "", 0), "planned initrd");
	plan.initrd_gpa = 32 * MIB;
	plan.initrd_size = UINT64_MAX;
	assert_build_refused(build(IMG_LEN, "", 0), "planned initrd");
	plan.initrd_size = 0;
	assert_build_refused(build(IMG_LEN, "", 0), "planned initrd");
	plan = good;
	assert_build_refused(build(IMG_LEN, "", 64 * MIB), "RSDP at 0x4000000");
	plan.initrd_gpa = 0;
	plan.initrd_size = 0;
	build_ok(IMG_LEN, "", 0);
}

/* ---- a real kernel, when this machine has one ---- */

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

static uint8_t *find_kernel(size_t *len, char *path, size_t pathlen)
{
	static const char *const fixed[] = { "build/linux/bzImage", "../../build/linux/bzImage" };
	const char *env = getenv("TEMPO_BZIMAGE");
	uint8_t *k;
	glob_t g;

	if (env && (k = read_file(env, len))) {
		snprintf(path, pathlen, "%s", env);
		return k;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if ((k = read_file(fixed[i], len))) {
			snprintf(path, pathlen, "%s", fixed[i]);
			return k;
		}
	if (glob("/boot/vmlinuz-*", 0, NULL, &g))
		return NULL;
	k = NULL;
	for (size_t i = 0; i < g.gl_pathc && !k; i++)
		if ((k = read_file(g.gl_pathv[i], len)))
			snprintf(path, pathlen, "%s", g.gl_pathv[i]);
	globfree(&g);
	return k;
}

static void test_real_kernel(void **state)
{
	char path[512];
	size_t len = 0;
	uint8_t *k = find_kernel(&len, path, sizeof(path));
	int ret;

	(void)state;
	if (!k) {
		print_message("no build/linux/bzImage or /boot/vmlinuz-*: skipped\n");
		skip();
	}
	print_message("planning %s (%zu bytes)\n", path, len);
	memset(&plan, 0, sizeof(plan));
	ret = linux_plan_load(k, len, 256 * MIB, 2 * MIB, &plan, why, sizeof(why));
	if (ret) {
		free(k);
		fail_msg("refused %s: %s", path, why);
	}
	assert_true(plan.version >= 0x020c);
	assert_int_equal(plan.kernel_offset, ((k[0x1f1] ? k[0x1f1] : 4) + 1) * 512ull);
	assert_int_equal(plan.kernel_size, len - plan.kernel_offset);
	assert_int_equal(plan.kernel_gpa, k[0x234] ? r64(k + 0x258) : MIB);
	assert_int_equal(plan.entry64, plan.kernel_gpa + 0x200);
	assert_int_equal(plan.init_size, r32(k + 0x260));
	assert_int_equal(plan.initrd_gpa, 254 * MIB);
	mem_new(256 * MIB);
	ret = linux_build_boot(mem, mem_size, k, len, &plan, "console=ttyS0", 0xe0000, why,
			       sizeof(why));
	if (ret) {
		free(k);
		fail_msg("build refused %s: %s", path, why);
	}
	assert_memory_equal(ZP + 0x1f1, k + 0x1f1, 0x210 - 0x1f1);
	assert_int_equal(r32(ZP + 0x218), 254 * MIB);
	check_gdt();
	check_e820();
	/* Too little memory for its init_size is refused, not planned. */
	assert_int_equal(linux_plan_load(k, len, plan.kernel_end - 1, 0, &plan, why, sizeof(why)),
			 -1);
	free(k);
}

/* ---- an uncompressed kernel (vmlinux) ---- */

#define VM_PADDR	(16 * MIB)
#define VM_TEXT		0x3000		/* file bytes of the one PT_LOAD */
#define VM_MEMSZ	0x9000		/* its memory: the tail is .bss */
#define VM_LEN		(0x1000 + VM_TEXT)
#define VM_NOTE_OFF	0x1100		/* a PT_NOTE inside the PT_LOAD's bytes */

static uint8_t vm[VM_LEN];

/*
 * A vmlinux as guests/linux/vmlinux.py writes one: ELF64 x86-64 ET_EXEC,
 * one PT_LOAD at @paddr (file 0x1000, filesz VM_TEXT, memsz VM_MEMSZ,
 * R+X), entry at its start, and a PT_NOTE holding a note named @name.
 */
static void vm_make(uint64_t paddr, const char *name)
{
	uint8_t *ph = vm + 64;
	uint32_t namesz = (uint32_t)strlen(name) + 1;

	memset(vm, 0, sizeof(vm));
	memcpy(vm, "\x7f" "ELF", 4);
	vm[4] = 2;			/* ELFCLASS64 */
	vm[5] = 1;			/* little-endian */
	vm[6] = 1;
	w16(vm + 16, 2);		/* ET_EXEC */
	w16(vm + 18, 62);		/* EM_X86_64 */
	w32(vm + 20, 1);
	w64(vm + 24, paddr);		/* e_entry: startup_64's physical address */
	w64(vm + 32, 64);		/* e_phoff */
	w16(vm + 52, 64);
	w16(vm + 54, 56);
	w16(vm + 56, 2);
	w32(ph, 1);			/* PT_LOAD */
	w32(ph + 4, 5);			/* R+X */
	w64(ph + 8, 0x1000);
	w64(ph + 16, 0xffffffff81000000ull);
	w64(ph + 24, paddr);
	w64(ph + 32, VM_TEXT);
	w64(ph + 40, VM_MEMSZ);
	ph += 56;
	w32(ph, 4);			/* PT_NOTE */
	w64(ph + 8, VM_NOTE_OFF);
	w64(ph + 32, 12 + ((namesz + 3) & ~3u) + 4);
	w32(vm + VM_NOTE_OFF, namesz);
	w32(vm + VM_NOTE_OFF + 4, 4);
	w32(vm + VM_NOTE_OFF + 8, 0x100);
	memcpy(vm + VM_NOTE_OFF + 12, name, namesz);
	for (uint32_t i = 0; i < 0x100; i++)
		vm[0x1000 + i] = (uint8_t)(0x90 + i % 7);	/* not all zero */
}

/* The same as an ELF32 i386 executable: one PT_LOAD, one PT_NOTE. */
static void vm_make32(void)
{
	uint8_t *ph = vm + 52;

	memset(vm, 0, sizeof(vm));
	memcpy(vm, "\x7f" "ELF", 4);
	vm[4] = 1;			/* ELFCLASS32 */
	vm[5] = 1;
	vm[6] = 1;
	w16(vm + 16, 2);		/* ET_EXEC */
	w16(vm + 18, 3);		/* EM_386 */
	w32(vm + 20, 1);
	w32(vm + 24, VM_PADDR);		/* e_entry */
	w32(vm + 28, 52);		/* e_phoff */
	w16(vm + 40, 52);
	w16(vm + 42, 32);
	w16(vm + 44, 2);
	w32(ph, 1);			/* PT_LOAD */
	w32(ph + 4, 0x1000);		/* p_offset */
	w32(ph + 8, VM_PADDR);
	w32(ph + 12, VM_PADDR);
	w32(ph + 16, VM_TEXT);
	w32(ph + 20, VM_MEMSZ);
	w32(ph + 24, 5);		/* R+X */
	ph += 32;
	w32(ph, 4);			/* PT_NOTE */
	w32(ph + 4, VM_NOTE_OFF);
	w32(ph + 16, 12 + 8 + 4);
	w32(vm + VM_NOTE_OFF, 6);
	w32(vm + VM_NOTE_OFF + 4, 4);
	w32(vm + VM_NOTE_OFF + 8, 0x100);
	memcpy(vm + VM_NOTE_OFF + 12, "Linux", 6);
}

static int plan_vm(uint64_t msize, uint64_t initrd, struct elf_plan *segs)
{
	memset(&plan, 0xa5, sizeof(plan));
	memset(why, 0x5a, sizeof(why));
	return linux_plan_image(vm, VM_LEN, msize, initrd, &plan, segs, why, sizeof(why));
}

/* Known by its note, planned where it is linked, the initrd high as for a bzImage. */
static void test_vmlinux_plan(void **state)
{
	struct elf_plan segs;

	(void)state;
	vm_make(VM_PADDR, "Linux");
	assert_true(linux_image(vm, VM_LEN));
	if (plan_vm(64 * MIB, 3 * MIB + 5, &segs))
		fail_msg("refused: %s", why);
	assert_true(plan.vmlinux);
	assert_int_equal(plan.version, 0x020f);
	assert_int_equal(plan.kernel_gpa, VM_PADDR);
	assert_int_equal(plan.entry64, VM_PADDR);
	assert_int_equal(plan.init_size, VM_MEMSZ);
	assert_int_equal(plan.kernel_end, VM_PADDR + VM_MEMSZ);
	assert_int_equal(plan.kernel_size, 0);
	assert_int_equal(plan.initrd_gpa, (64 * MIB - (3 * MIB + 5)) & ~0xfffull);
	assert_int_equal(plan.initrd_size, 3 * MIB + 5);
	assert_int_equal(segs.segment_count, 1);
	assert_int_equal(segs.segments[0].paddr, VM_PADDR);
	assert_int_equal(segs.segments[0].file_offset, 0x1000);
	assert_int_equal(segs.segments[0].file_size, VM_TEXT);
	assert_int_equal(segs.segments[0].mem_size, VM_MEMSZ);
	/* a bzImage through the same door gets no segments */
	assert_int_equal(linux_plan_image(img, IMG_LEN, 64 * MIB, 0, &plan, &segs, why,
					  sizeof(why)), 0);
	assert_false(plan.vmlinux);
	assert_int_equal(segs.segment_count, 0);
}

/*
 * A PT_NOTE aligned to 8 (as x86-64 toolchains emit .note.gnu.property)
 * pads each name and descriptor to 8 bytes: a GNU note of a 4-byte name and
 * a 4-byte descriptor takes 28 bytes, not 20, and the Linux note after it
 * is found where it is. The same bytes in a 4-aligned segment are read with
 * 4-byte padding: the second note is then not where that reading steps.
 */
static void test_vmlinux_note_align8(void **state)
{
	uint8_t *ph = vm + 64 + 56, *n = vm + VM_NOTE_OFF;

	(void)state;
	vm_make(VM_PADDR, "Linux");
	memset(n, 0, 0x40);
	w32(n, 4);			/* "GNU": namesz 4, descsz 4, NT_GNU_PROPERTY_TYPE_0 */
	w32(n + 4, 4);
	w32(n + 8, 5);
	memcpy(n + 12, "GNU", 4);
	w32(n + 20, 0xc0000002u);	/* its descriptor, then 4 bytes of padding */
	n += 28;
	w32(n, 6);			/* "Linux": namesz 6, descsz 4 */
	w32(n + 4, 4);
	w32(n + 8, 0x100);
	memcpy(n + 12, "Linux", 6);
	w64(ph + 32, 28 + 12 + 8 + 8);	/* p_filesz */
	w64(ph + 48, 8);		/* p_align */
	assert_true(linux_image(vm, VM_LEN));
	w64(ph + 48, 4);
	assert_false(linux_image(vm, VM_LEN));
}

/* What is not a vmlinux is not taken for one; what is but cannot run is refused, saying why. */
static void test_vmlinux_refusals(void **state)
{
	struct elf_plan segs;

	(void)state;
	/* no "Linux" note: an ELF guest of another kind (multiboot's path) */
	vm_make(VM_PADDR, "Linu");
	assert_false(linux_image(vm, VM_LEN));
	vm_make(VM_PADDR, "GNU");
	assert_false(linux_image(vm, VM_LEN));
	/* a note whose name runs past its segment, or a segment past the file */
	vm_make(VM_PADDR, "Linux");
	w32(vm + VM_NOTE_OFF, 0xfffffff0u);
	assert_false(linux_image(vm, VM_LEN));
	vm_make(VM_PADDR, "Linux");
	w64(vm + 64 + 56 + 32, VM_LEN);
	assert_false(linux_image(vm, VM_LEN));
	assert_false(linux_image(vm, 40));
	assert_false(linux_image(NULL, 0));
	/* bounded work: a PT_NOTE over 64 KiB is not read, nor a 17th PT_NOTE */
	{
		uint8_t *big = calloc(1, 0x12000);

		assert_non_null(big);
		vm_make(VM_PADDR, "Linux");
		memcpy(big, vm, VM_LEN);
		w64(big + 64 + 56 + 32, 0x10000);	/* the note's segment: 64 KiB, read */
		assert_true(linux_image(big, 0x12000));
		w64(big + 64 + 56 + 32, 0x10004);	/* one word more: not read */
		assert_false(linux_image(big, 0x12000));
		free(big);
	}
	{
		static uint8_t many[64 + 17 * 56 + 0x100];

		memcpy(many, vm, 64);
		w16(many + 56, 17);		/* e_phnum */
		for (int i = 0; i < 17; i++) {
			uint8_t *ph = many + 64 + i * 56;

			w32(ph, 4);		/* PT_NOTE: an empty one, then the Linux note last */
			w64(ph + 8, sizeof(many) - 0x100);
			w64(ph + 32, i == 16 ? 24 : 0);
		}
		w32(many + sizeof(many) - 0x100, 6);
		w32(many + sizeof(many) - 0x100 + 4, 4);
		memcpy(many + sizeof(many) - 0x100 + 12, "Linux", 6);
		assert_false(linux_image(many, sizeof(many)));
		w16(many + 56, 16);		/* the 16th is read */
		w64(many + 64 + 15 * 56 + 32, 24);
		assert_true(linux_image(many, sizeof(many)));
	}
	/* not at a 2 MiB boundary: head_64.S would loop for ever */
	vm_make(VM_PADDR + 0x1000, "Linux");
	assert_refused(plan_vm(64 * MIB, 0, &segs), "not 2 MiB aligned");
	/* more than the partition holds (elf.c's check, said for this image) */
	vm_make(VM_PADDR, "Linux");
	assert_int_equal(plan_vm(16 * MIB, 0, &segs), -1);
	assert_int_equal(segs.segment_count, 0);
	assert_true(why[0] != 0);
	/* a 32-bit ELF (i386) with the note: known, and refused for its class */
	vm_make32();
	assert_true(linux_image(vm, VM_LEN));
	assert_refused(plan_vm(64 * MIB, 0, &segs), "32-bit");
	assert_int_equal(segs.segment_count, 0);
	/* an initrd that does not fit above the kernel */
	vm_make(VM_PADDR, "Linux");
	assert_refused(plan_vm(24 * MIB, 8 * MIB, &segs), "does not fit");
	/* the plan itself: entry outside the segments, past 4 GiB */
	assert_refused(linux_plan_vmlinux(VM_PADDR, VM_PADDR + VM_MEMSZ, VM_PADDR + VM_MEMSZ,
					  64 * MIB, 0, &plan, why, sizeof(why)), "entry");
	assert_refused(linux_plan_vmlinux(0, VM_MEMSZ, 0, 64 * MIB, 0, &plan, why, sizeof(why)),
		       "within");
	assert_refused(linux_plan_vmlinux(4 * GIB - 2 * MIB, 4 * GIB + 2 * MIB, 4 * GIB - 2 * MIB,
					  8 * GIB, 0, &plan, why, sizeof(why)), "within");
}

/* The zero page of a vmlinux: Tempo's setup header, the same loader fields; the image unread. */
static void test_vmlinux_build(void **state)
{
	struct elf_plan segs;
	const char *cmd = "console=ttyS0 quiet";

	(void)state;
	mem_new(64 * MIB);
	vm_make(VM_PADDR, "Linux");
	if (plan_vm(mem_size, 2 * MIB, &segs))
		fail_msg("refused: %s", why);
	/* no image given: the header must come from the plan alone */
	if (linux_build_boot(mem, mem_size, NULL, 0, &plan, cmd, 0xe0000, why, sizeof(why)))
		fail_msg("build refused: %s", why);
	check_gdt();
	check_page_tables();
	check_e820();
	assert_int_equal(r16(ZP + 0x1f2), 1);			/* root_flags: read-only */
	assert_int_equal(r16(ZP + 0x1fa), 0xffff);		/* vid_mode: normal */
	assert_int_equal(r16(ZP + 0x1fe), 0xaa55);		/* boot_flag */
	assert_memory_equal(ZP + 0x202, "HdrS", 4);
	assert_int_equal(r16(ZP + 0x206), 0x020f);		/* version */
	assert_int_equal(ZP[0x1ef], 0);				/* sentinel */
	assert_int_equal(ZP[0x210], 0xff);			/* type_of_loader */
	assert_int_equal(ZP[0x211], 0x01);			/* loadflags: LOADED_HIGH */
	assert_int_equal(r32(ZP + 0x218), plan.initrd_gpa);	/* ramdisk_image */
	assert_int_equal(r32(ZP + 0x21c), 2 * MIB);		/* ramdisk_size */
	assert_int_equal(r32(ZP + 0x228), LINUX_CMDLINE_GPA);	/* cmd_line_ptr */
	assert_int_equal(r32(ZP + 0x230), 2 * MIB);		/* kernel_alignment */
	assert_int_equal(r16(ZP + 0x236), 3);			/* xloadflags: 64-bit, above 4G */
	assert_int_equal(r32(ZP + 0x238), 2047);		/* cmdline_size */
	assert_int_equal(r64(ZP + 0x258), VM_PADDR);		/* pref_address */
	assert_int_equal(r32(ZP + 0x260), VM_MEMSZ);		/* init_size */
	assert_int_equal(r64(ZP + 0x070), 0xe0000);		/* acpi_rsdp_addr */
	assert_string_equal((const char *)mem + LINUX_CMDLINE_GPA, cmd);
	/* a bzImage plan with no image is still refused */
	plan_ok(IMG_LEN, mem_size, 0);
	assert_int_equal(linux_build_boot(mem, mem_size, NULL, 0, &plan, cmd, 0, why, sizeof(why)),
			 -1);
}

/* build/linux/vmlinux (guests/linux/vmlinux.py), when it has been made: planned as Tempo boots it. */
static void test_real_vmlinux(void **state)
{
	size_t len = 0;
	uint8_t *k = read_file("build/linux/vmlinux", &len);
	struct elf_plan segs;

	(void)state;
	if (!k) {
		print_message("no build/linux/vmlinux: skipped\n");
		skip();
	}
	assert_true(linux_image(k, len));
	if (linux_plan_image(k, len, 256 * MIB, 2 * MIB, &plan, &segs, why, sizeof(why))) {
		free(k);
		fail_msg("refused build/linux/vmlinux: %s", why);
	}
	assert_true(plan.vmlinux);
	assert_int_equal(plan.kernel_gpa, 16 * MIB);
	assert_int_equal(plan.entry64, 16 * MIB);
	assert_true(segs.segment_count >= 2);
	assert_int_equal(plan.initrd_gpa, 254 * MIB);
	free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plan_good, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_not_relocatable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_unaligned_pref, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_initrd_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_short_why, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_good, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_header_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_ram_above_4g, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_cmdline_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partition_cmdline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmlinux_plan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmlinux_note_align8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmlinux_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmlinux_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_vmlinux, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
