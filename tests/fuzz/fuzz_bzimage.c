// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a Linux bzImage, as the operator hands it over. Plans it
 * with linux_plan_load() under several memory sizes and initrd sizes (one
 * pair taken from the input's last bytes), checks every plan against the
 * contract in hv/core/bzimage.h, then builds the boot state with
 * linux_build_boot() into a heap buffer of exactly the 64 KiB it may write,
 * with a command line whose length also comes from the input. The same
 * input is offered as a vmlinux too (linux_image, linux_plan_image: the ELF
 * note scan and the segment plan). ASan and UBSan catch a read past the
 * image or a write past the buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/bzimage.h"
#include "hv/core/elf.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

static uint8_t *scratch;	/* the low 64 KiB of guest memory, all the builder may touch */
static char cmdline[LINUX_CMDLINE_MAX + 64];

static void check_why(const char *why, size_t len, int ret)
{
	/* Always terminated; a message exactly when refused. */
	if (!memchr(why, 0, len))
		abort();
	if ((ret != 0) != (why[0] != 0))
		abort();
}

/*
 * The RAM the kernel and initrd may use: below the guest's MMIO window, at
 * most 0xFEA00000; a larger partition's rest is at 4 GiB, only in the E820
 * (hv/core/guest_ram.h, spelled out here).
 */
#define LOW_RAM_MAX	0xfea00000ull

static uint64_t low_ram(uint64_t mem_size)
{
	return mem_size < LOW_RAM_MAX ? mem_size : LOW_RAM_MAX;
}

static void check_plan(const uint8_t *img, size_t len, uint64_t mem_size, uint64_t initrd,
		       const struct linux_plan *p)
{
	if (p->kernel_offset >= len || p->kernel_size != len - p->kernel_offset ||
	    p->kernel_size <= 0x200)
		abort();
	if (p->kernel_gpa < MIB || p->entry64 != p->kernel_gpa + 0x200 || p->version < 0x020c)
		abort();
	if (p->kernel_end > low_ram(mem_size) || p->kernel_end > 4 * GIB ||
	    p->kernel_end - p->kernel_gpa < p->kernel_size)
		abort();
	if (p->initrd_size != initrd)
		abort();
	if (initrd) {
		if (p->initrd_gpa % 4096 || p->initrd_gpa < p->kernel_end ||
		    p->initrd_gpa > low_ram(mem_size) || initrd > low_ram(mem_size) - p->initrd_gpa)
			abort();
	} else if (p->initrd_gpa) {
		abort();
	}
	/* Touch the kernel's last byte: ASan would flag one outside the input. */
	(void)*(volatile const uint8_t *)(img + p->kernel_offset + p->kernel_size - 1);
}

static void build(const uint8_t *img, size_t len, uint64_t mem_size, const struct linux_plan *p,
		  const char *cmd, uint64_t rsdp)
{
	char why[200];
	int ret;

	memset(why, 0x5a, sizeof(why));
	ret = linux_build_boot(scratch, mem_size, img, len, p, cmd, rsdp, why, sizeof(why));
	check_why(why, sizeof(why), ret);
	if (ret)
		return;
	if (memcmp(scratch + LINUX_ZERO_PAGE_GPA + 0x202, "HdrS", 4) ||
	    scratch[LINUX_ZERO_PAGE_GPA + 0x1e8] != (mem_size > LOW_RAM_MAX ? 5 : 4) ||
	    scratch[LINUX_ZERO_PAGE_GPA + 0x210] != 0xff)
		abort();
	if (strcmp((const char *)scratch + LINUX_CMDLINE_GPA, cmd ? cmd : ""))
		abort();
}

static void plan_and_build(const uint8_t *img, size_t len, uint64_t mem_size, uint64_t initrd,
			   const char *cmd)
{
	static const struct linux_plan zero;
	struct linux_plan plan;
	char why[200];
	int ret;

	memset(why, 0x5a, sizeof(why));
	ret = linux_plan_load(img, len, mem_size, initrd, &plan, why, sizeof(why));
	check_why(why, sizeof(why), ret);
	if (ret) {
		if (ret != -1 || memcmp(&plan, &zero, sizeof(plan)))
			abort();
		/* A refused plan's zeroes must be refused by the builder too. */
		memset(why, 0x5a, sizeof(why));
		if (!linux_build_boot(scratch, mem_size, img, len, &plan, cmd, 0, why, sizeof(why)))
			abort();
		check_why(why, sizeof(why), -1);
		return;
	}
	check_plan(img, len, mem_size, initrd, &plan);
	build(img, len, mem_size, &plan, cmd, 0xe0000);
	/* A plan made for one memory size, used with a smaller one. */
	build(img, len, plan.kernel_end - 1, &plan, cmd, 0);
}

/*
 * Either kind through the one door build.c uses: a vmlinux plan's segments
 * lie where the plan says, 2 MiB aligned, the entry among them.
 */
static void plan_image(const uint8_t *img, size_t len, uint64_t mem_size, uint64_t initrd)
{
	struct linux_plan plan;
	struct elf_plan segs;
	char why[200];
	int ret;

	memset(why, 0x5a, sizeof(why));
	ret = linux_plan_image(img, len, mem_size, initrd, &plan, &segs, why, sizeof(why));
	check_why(why, sizeof(why), ret);
	if (ret) {
		if (segs.segment_count)
			abort();
		return;
	}
	if (!plan.vmlinux) {
		check_plan(img, len, mem_size, initrd, &plan);
		return;
	}
	if (!linux_image(img, len) || (plan.kernel_gpa & (2 * MIB - 1)) || plan.kernel_gpa < MIB ||
	    plan.entry64 < plan.kernel_gpa || plan.entry64 >= plan.kernel_end ||
	    plan.kernel_end > low_ram(mem_size) || !segs.segment_count)
		abort();
	for (uint32_t i = 0; i < segs.segment_count; i++) {
		const struct elf_segment *e = &segs.segments[i];

		if (e->paddr < plan.kernel_gpa || e->mem_size > plan.kernel_end - e->paddr ||
		    e->file_offset > len || e->file_size > len - e->file_offset ||
		    e->file_size > e->mem_size)
			abort();
	}
	build(img, len, mem_size, &plan, "console=ttyS0", 0xe0000);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t mem_size = 64 * MIB, initrd = 0;
	size_t cmdlen = 0;
	uint8_t *img;

	if (!scratch) {
		scratch = malloc(LINUX_RESERVED_END);
		if (!scratch)
			return 0;
	}
	/* An exact-size copy so a read one byte past the end is caught. */
	img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);

	/* The last 8 bytes, when there are more than a header's worth, pick a variant. */
	if (size >= 0x300) {
		const uint8_t *t = data + size - 8;

		mem_size = ((uint64_t)t[0] << 32 | (uint64_t)t[1] << 24 | (uint64_t)t[2] << 16) ^
			   ((uint64_t)t[3] << 8);
		initrd = (uint64_t)t[4] << 24 | (uint64_t)t[5] << 16 | (uint64_t)t[6] << 4;
		cmdlen = (size_t)t[7] * 9;	/* 0..2295: both sides of every limit */
	}
	memset(cmdline, 'c', sizeof(cmdline));
	cmdline[cmdlen < sizeof(cmdline) ? cmdlen : sizeof(cmdline) - 1] = 0;

	plan_and_build(img, size, mem_size, initrd, cmdline);
	plan_and_build(img, size, 64 * MIB, 0, NULL);
	plan_and_build(img, size, 256 * MIB, 16 * MIB, "console=ttyS0");
	plan_and_build(img, size, 8 * GIB, GIB + 1, "");
	plan_and_build(img, size, UINT64_MAX, UINT64_MAX - 4095, cmdline);
	plan_image(img, size, mem_size, initrd);
	plan_image(img, size, 256 * MIB, 2 * MIB);
	free(img);
	return 0;
}
