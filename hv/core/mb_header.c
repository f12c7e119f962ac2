// SPDX-License-Identifier: MIT
/*
 * The multiboot header of a guest image (v1 or v2), found and checked as
 * GRUB would. The image is outside input: every field is read with memcpy,
 * every offset checked against the image length.
 *
 * References: Multiboot Specification 0.6.96, section 3.1; Multiboot2
 * Specification 2.0, section 3.1.
 */
#include "hv/core/mb_header.h"

#include <stdarg.h>

#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define MB2_MAGIC	0xe85250d6u
#define MB2_SEARCH	32768u	/* the header lies within the first 32 KiB (mb2 3.1.1) */
#define MB2_HDR_SIZE	16u	/* magic, architecture, header_length, checksum */
#define MB1_MAGIC	0x1badb002u
#define MB1_SEARCH	8192u	/* the first 8 KiB (mb1 3.1.1) */
#define MB1_HDR_SIZE	12u	/* magic, flags, checksum */

/* Multiboot1 flags (mb1 3.1.2): bits 0-15 are required, 16-31 optional. */
#define MB1_F_PAGE_ALIGN	(1u << 0)
#define MB1_F_MEMORY_INFO	(1u << 1)
#define MB1_F_VIDEO_MODE	(1u << 2)
#define MB1_F_AOUT_KLUDGE	(1u << 16)
#define MB1_F_KNOWN_REQUIRED	(MB1_F_PAGE_ALIGN | MB1_F_MEMORY_INFO | MB1_F_VIDEO_MODE)

/* Multiboot2 header tags (mb2 3.1.3 - 3.1.13). */
enum {
	MB2_HT_END = 0,
	MB2_HT_INFO_REQUEST = 1,
	MB2_HT_ADDRESS = 2,
	MB2_HT_ENTRY = 3,
	MB2_HT_CONSOLE = 4,
	MB2_HT_FRAMEBUFFER = 5,
	MB2_HT_MODULE_ALIGN = 6,
	MB2_HT_EFI_BS = 7,
	MB2_HT_ENTRY_EFI32 = 8,
	MB2_HT_ENTRY_EFI64 = 9,
	MB2_HT_RELOCATABLE = 10,
};
#define MB2_HT_OPTIONAL		1u	/* tag flags bit 0 */
#define MB2_CONSOLE_REQUIRED	1u	/* console_flags bit 0: EGA text must be offered */

#define mb_fail(c, out, ...) fmt_fail((c), (out), sizeof(struct mb_header_info), __VA_ARGS__)

/* The information tags guest_build_mb2_info() writes or could (mb2 3.6). */
static bool mb2_info_provided(uint32_t type)
{
	switch (type) {
	case 1:		/* boot command line */
	case 2:		/* boot loader name */
	case 3:		/* modules */
	case 4:		/* basic memory information */
	case 6:		/* memory map */
	case 14:	/* ACPI old RSDP */
	case 15:	/* ACPI new RSDP */
		return true;
	default:
		return false;
	}
}

/*
 * Walk the tags of the checksummed multiboot2 header at @off. A loader must
 * refuse an image with a required (flags bit 0 clear) tag it cannot honour
 * (mb2 3.1.3); GRUB does the same, so an image GRUB refuses is refused here.
 * Tags that matter only under EFI (7, 8, 9) are skipped as GRUB does on a
 * BIOS machine: the guest gets no EFI tags and takes its BIOS path.
 */
static int mb2_tags(struct fmt_err *c, const uint8_t *img, uint32_t off, uint32_t hlen,
		    struct mb_header_info *out)
{
	uint32_t end = off + hlen;	/* <= MB2_SEARCH, checked by the caller */
	uint32_t t = off + MB2_HDR_SIZE;

	while (t < end) {
		uint16_t type, flags;
		uint32_t size;
		bool required;

		if (end - t < 8)
			return mb_fail(c, out, "multiboot2 header at 0x%x: tag at 0x%x runs past "
				       "header_length %u", off, t, hlen);
		type = rd16(img + t);
		flags = rd16(img + t + 2);
		size = rd32(img + t + 4);
		required = !(flags & MB2_HT_OPTIONAL);
		if (size < 8 || size > end - t)
			return mb_fail(c, out, "multiboot2 header at 0x%x: tag %u at 0x%x: "
				       "size %u invalid (%u bytes left)", off, type, t, size,
				       end - t);
		switch (type) {
		case MB2_HT_END:
			return 0;
		case MB2_HT_INFO_REQUEST:
			if (!required)
				break;
			for (uint32_t i = 8; i + 4 <= size; i += 4) {
				uint32_t want = rd32(img + t + i);

				if (!mb2_info_provided(want))
					return mb_fail(c, out, "multiboot2 header requires "
						       "information tag %u, which is not "
						       "provided", want);
			}
			break;
		case MB2_HT_ADDRESS:
		case MB2_HT_ENTRY:
			/* GRUB honours these even when optional; the caller refuses. */
			out->has_entry_override = true;
			break;
		case MB2_HT_CONSOLE:
			if (size < 12)
				return mb_fail(c, out, "multiboot2 header at 0x%x: console tag at "
					       "0x%x: size %u, need 12", off, t, size);
			if (required && (rd32(img + t + 8) & MB2_CONSOLE_REQUIRED))
				return mb_fail(c, out, "multiboot2 header requires an EGA text "
					       "console (tag 4): not provided");
			break;
		case MB2_HT_FRAMEBUFFER:
			if (required)
				return mb_fail(c, out, "multiboot2 header requires a framebuffer "
					       "(tag 5): not provided");
			break;
		case MB2_HT_MODULE_ALIGN:	/* modules are page aligned anyway */
		case MB2_HT_EFI_BS:
		case MB2_HT_ENTRY_EFI32:
		case MB2_HT_ENTRY_EFI64:
		case MB2_HT_RELOCATABLE:	/* loading at the link address is allowed */
			break;
		default:
			if (required)
				return mb_fail(c, out, "multiboot2 header tag %u at 0x%x is "
					       "required and not supported", type, t);
			break;
		}
		/* t + size <= end <= 32 KiB, so this cannot wrap. */
		t += ALIGN_UP(size, 8u);
	}
	return mb_fail(c, out, "multiboot2 header at 0x%x: no end tag within header_length %u",
		       off, hlen);
}

#define MB_NONE_FOUND UINT32_MAX

/*
 * The first @align-aligned offset in the first @window bytes whose header
 * words (@words of them, the last being the checksum) add up to 0 with the
 * first being @magic, as GRUB searches: a bare magic with a bad checksum is
 * taken for data, not a header. Returns the offset or MB_NONE_FOUND, with
 * @bad_off set to the first magic seen with a bad checksum (or MB_NONE_FOUND).
 */
static uint32_t mb_search(const uint8_t *img, size_t len, uint32_t magic, uint32_t window,
			  uint32_t align, uint32_t words, uint32_t *bad_off)
{
	uint32_t lim = (uint32_t)MIN(len, (size_t)window);

	*bad_off = MB_NONE_FOUND;
	for (uint32_t off = 0; lim >= words * 4 && off <= lim - words * 4; off += align) {
		uint32_t sum = 0;

		if (rd32(img + off) != magic)
			continue;
		for (uint32_t i = 0; i < words; i++)
			sum += rd32(img + off + i * 4);
		if (!sum)
			return off;
		if (*bad_off == MB_NONE_FOUND)
			*bad_off = off;
	}
	return MB_NONE_FOUND;
}

static int mb2_check(struct fmt_err *c, const uint8_t *p, size_t len, uint32_t off,
		     struct mb_header_info *out)
{
	uint32_t arch = rd32(p + off + 4), hlen = rd32(p + off + 8);
	uint32_t lim = (uint32_t)MIN(len, (size_t)MB2_SEARCH);

	if (arch != 0)
		return mb_fail(c, out, "multiboot2 header at 0x%x: architecture %u, only i386 "
			       "(0) is supported", off, arch);
	/* At least the fixed words and an end tag, and within the first 32 KiB. */
	if (hlen < MB2_HDR_SIZE + 8 || hlen > lim - off)
		return mb_fail(c, out, "multiboot2 header at 0x%x: header_length %u invalid "
			       "(need 24..%u: within the image and its first 32 KiB)", off,
			       hlen, lim - off);
	out->version = MB_V2;
	out->offset = off;
	return mb2_tags(c, p, off, hlen, out);
}

static int mb1_check(struct fmt_err *c, const uint8_t *p, uint32_t off,
		     struct mb_header_info *out)
{
	uint32_t flags = rd32(p + off + 4);
	uint32_t unknown = flags & 0xffff & ~MB1_F_KNOWN_REQUIRED;

	/*
	 * The a.out kludge loads the image by the header's address fields
	 * instead of the ELF program headers; only ELF loading is supported.
	 */
	if (flags & MB1_F_AOUT_KLUDGE)
		return mb_fail(c, out, "multiboot1 header requests the a.out kludge (flag 16): "
			       "unsupported");
	/* Bits 0-15 are requirements a loader must refuse if it cannot meet (3.1.2). */
	if (unknown)
		return mb_fail(c, out, "multiboot1 header requires feature flag %u: unsupported",
			       (uint32_t)__builtin_ctz(unknown));
	out->version = MB_V1;
	out->offset = off;
	out->flags = flags;
	return 0;
}

int mb_find_header(const void *img, size_t len, struct mb_header_info *out, char *err,
		   size_t errlen)
{
	struct fmt_err c = { .msg = err, .len = err ? errlen : 0 };
	const uint8_t *p = img;
	uint32_t off, bad2, bad1;

	if (c.len)
		err[0] = 0;
	if (!out)
		return mb_fail(&c, NULL, "multiboot: no output given");
	memset(out, 0, sizeof(*out));
	if (!img)
		return mb_fail(&c, out, "multiboot: no image");

	/*
	 * A valid multiboot2 header wins over a multiboot1 one; once found it
	 * must be fully sound (no falling back to v1 past a broken v2 header).
	 */
	off = mb_search(p, len, MB2_MAGIC, MB2_SEARCH, 8, MB2_HDR_SIZE / 4, &bad2);
	if (off != MB_NONE_FOUND)
		return mb2_check(&c, p, len, off, out);
	off = mb_search(p, len, MB1_MAGIC, MB1_SEARCH, 4, MB1_HDR_SIZE / 4, &bad1);
	if (off != MB_NONE_FOUND)
		return mb1_check(&c, p, off, out);

	if (bad2 != MB_NONE_FOUND)
		return mb_fail(&c, out, "multiboot2 header checksum at 0x%x does not add up to 0",
			       bad2);
	if (bad1 != MB_NONE_FOUND)
		return mb_fail(&c, out, "multiboot1 header checksum at 0x%x does not add up to 0",
			       bad1);
	return mb_fail(&c, out, "no multiboot header in the first 32 KiB");
}
