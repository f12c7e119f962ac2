// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a guest kernel image, as the operator hands it over.
 * Runs elf_plan_load() (under two memory layouts) and mb_find_header() on the
 * input and traps on any result that breaks their contracts; ASan and UBSan
 * catch the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/elf.h"
#include "hv/core/mb_header.h"

#define MIB (1ull << 20)

static void check_err(const char *err, size_t len, int ret)
{
	/* Always terminated; a message exactly when refused. */
	if (!memchr(err, 0, len))
		abort();
	if ((ret != 0) != (err[0] != 0))
		abort();
}

static void check_plan(const uint8_t *img, size_t len, uint64_t min_addr, uint64_t mem_size)
{
	static const struct elf_plan zero;
	struct elf_plan plan;
	char err[160];
	int ret;

	memset(err, 0x5a, sizeof(err));
	ret = elf_plan_load(img, len, min_addr, mem_size, &plan, err, sizeof(err));
	check_err(err, sizeof(err), ret);
	if (ret) {
		if (ret != -1 || memcmp(&plan, &zero, sizeof(plan)))
			abort();
		return;
	}
	if (!plan.segment_count || plan.segment_count > ELF_MAX_SEGMENTS)
		abort();
	if (plan.lowest < min_addr || plan.highest > mem_size || plan.lowest >= plan.highest)
		abort();
	for (uint32_t i = 0; i < plan.segment_count; i++) {
		const struct elf_segment *s = &plan.segments[i];

		if (!s->mem_size || s->file_size > s->mem_size)
			abort();
		if (s->file_offset > len || s->file_size > len - s->file_offset)
			abort();
		if (s->paddr < plan.lowest || s->mem_size > plan.highest - s->paddr)
			abort();
		for (uint32_t j = 0; j < i; j++) {
			const struct elf_segment *o = &plan.segments[j];

			if (s->paddr < o->paddr + o->mem_size && o->paddr < s->paddr + s->mem_size)
				abort();
		}
		/* Touch the planned bytes: ASan would flag any outside the input. */
		if (s->file_size)
			(void)*(volatile const uint8_t *)(img + s->file_offset + s->file_size - 1);
	}
	/* The entry lies in an executable segment. */
	for (uint32_t i = 0; i < plan.segment_count; i++) {
		const struct elf_segment *s = &plan.segments[i];

		if (s->exec && plan.entry >= s->paddr && plan.entry - s->paddr < s->mem_size)
			return;
	}
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mb_header_info mb;
	char err[160];
	uint8_t *img;
	int ret;

	/* An exact-size copy so a read one byte past the end is caught. */
	img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);

	check_plan(img, size, MIB, 64 * MIB);
	check_plan(img, size, 0, UINT64_MAX);

	memset(err, 0x5a, sizeof(err));
	ret = mb_find_header(img, size, &mb, err, sizeof(err));
	check_err(err, sizeof(err), ret);
	if (!ret) {
		if (mb.version == MB_V2) {
			if (mb.offset % 8 || mb.offset + 24 > size || mb.offset + 24 > 32768)
				abort();
		} else if (mb.version == MB_V1) {
			if (mb.offset % 4 || mb.offset + 12 > size || mb.offset + 12 > 8192)
				abort();
		} else {
			abort();
		}
	}
	free(img);
	return 0;
}
