/* SPDX-License-Identifier: MIT */
/* The multiboot header of a guest image: which version, where, what it asks. */
#ifndef TEMPO_HV_CORE_MB_HEADER_H
#define TEMPO_HV_CORE_MB_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mb_version {
	MB_NONE = 0,
	MB_V1 = 1,	/* magic 0x1BADB002, 4-byte aligned in the first 8 KiB */
	MB_V2 = 2,	/* magic 0xE85250D6, 8-byte aligned in the first 32 KiB */
};

struct mb_header_info {
	enum mb_version version;
	uint32_t offset;	/* of the header in the image */
	uint32_t flags;		/* multiboot1 flags word (0 for v2) */
	bool has_entry_override;	/* v2 entry address tag (type 3) / v1 address fields
					   are not supported and make the image refused */
};

/*
 * Find the multiboot header (v2 preferred when both exist) with a valid
 * checksum, and for v2 a header_length that fits the image and tags that are
 * well formed. Returns 0 with @out filled, or -1 with a reason in @err
 * ("no multiboot header in the first 32 KiB", "multiboot2 header checksum
 * ...", "multiboot1 header requests the a.out kludge (flag 16): unsupported").
 */
int mb_find_header(const void *img, size_t len, struct mb_header_info *out, char *err,
		   size_t errlen);

#endif
