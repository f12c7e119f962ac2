// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a multiboot2 information block as a boot loader hands
 * it over. The input is the block, all of it readable (avail = size); the
 * parser's result is checked against its contract.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/mb2.h"

static bool terminated(const char *s, size_t len)
{
	return memchr(s, 0, len) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct boot_info zero;
	static struct boot_info bi;
	char err[160];
	uint8_t *info;
	int ret;

	/* An exact-size copy so a read one byte past the end is caught. */
	info = malloc(size ? size : 1);
	if (!info)
		return 0;
	memcpy(info, data, size);
	memset(err, 0x5a, sizeof(err));
	ret = mb2_parse(info, size, 0x10000, &bi, err, sizeof(err));
	if (!terminated(err, sizeof(err)))
		abort();
	if (ret) {
		if (!err[0] || memcmp(&bi, &zero, sizeof(bi)))
			abort();
		goto out;
	}
	if (err[0] || bi.info_size > size || bi.info_size < 16 || bi.info_phys != 0x10000)
		abort();
	if (!terminated(bi.cmdline, sizeof(bi.cmdline)) ||
	    !terminated(bi.loader_name, sizeof(bi.loader_name)))
		abort();
	if (bi.mmap_count > BOOT_INFO_MAX_MMAP || bi.module_count > BOOT_INFO_MAX_MODULES)
		abort();
	for (uint32_t i = 0; i < bi.module_count; i++)
		if (!terminated(bi.modules[i].cmdline, sizeof(bi.modules[i].cmdline)) ||
		    bi.modules[i].end < bi.modules[i].start)
			abort();
	if (bi.has_rsdp && bi.rsdp_len != 20 && bi.rsdp_len != 36)
		abort();
out:
	free(info);
	return 0;
}
