/* SPDX-License-Identifier: MIT */
/* Multiboot2 information parser: outside input, so every length is checked. */
#ifndef TEMPO_HV_MB2_H
#define TEMPO_HV_MB2_H

#include "hv/core/boot_info.h"

#define MB2_BOOTLOADER_MAGIC	0x36d76289u
#define MB2_INFO_MAX_SIZE	(1u << 20)	/* we refuse info blocks larger than 1 MiB */

/*
 * Parse the multiboot2 information block at @info. @avail is how many bytes
 * the caller knows are readable at @info; the block's own total_size must fit
 * in it. On success fills @out and returns 0. On failure returns a negative
 * number and writes a one-line reason (naming the tag type and offset where
 * one applies) into @err (always NUL-terminated when @errlen > 0).
 * @info_phys is recorded in @out->info_phys.
 */
int mb2_parse(const void *info, size_t avail, uint64_t info_phys, struct boot_info *out,
	      char *err, size_t errlen);

#endif
