// SPDX-License-Identifier: MIT
/*
 * Multiboot2 information parser. The block comes from the boot loader, so it
 * is treated as outside input: every tag is bounds-checked against the
 * block's total_size (itself checked against what the caller can read) before
 * any of its bytes are touched, and all multi-byte reads go through memcpy
 * because the tags' payloads need not be naturally aligned.
 */
#include "hv/core/mb2.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_EFI32 = 11,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_EFI_MMAP = 17,
	MB2_TAG_EFI_BS = 18,
};

#define MB2_HDR_SIZE		8	/* u32 total_size, u32 reserved */
#define MB2_TAG_HDR_SIZE	8	/* u32 type, u32 size */
#define MB2_MMAP_ENTRY_MIN	24	/* u64 base, u64 length, u32 type, u32 reserved */
#define MB2_RSDP_V1_LEN		20
#define MB2_RSDP_V2_LEN		36
#define MB2_RSDP_REV_OFF	15

struct mb2_ctx {
	const uint8_t *base;
	struct boot_info *out;
	char *err;
	size_t errlen;
	bool have_new_rsdp;
};

/* A tag must hold at least its header plus the fixed fields its type defines. */
static int need(struct mb2_ctx *c, uint32_t type, uint32_t off, uint32_t size, uint32_t min,
		const char *what)
{
	if (size >= min)
		return 0;
	fmt_snprintf(c->err, c->errlen,
		     "mb2: tag %u (%s) at offset 0x%x: size %u, need at least %u", type, what, off,
		     size, min);
	return -1;
}

/*
 * Strings must be NUL-terminated inside their tag: a missing NUL means the
 * tag is corrupt (every loader terminates them), so it is refused rather
 * than silently truncated. A terminated string longer than the destination
 * is cut to fit, which str_copy always NUL-terminates.
 */
static int get_str(struct mb2_ctx *c, uint32_t type, uint32_t off, const uint8_t *s,
		   uint32_t len, char *dst, size_t dst_size)
{
	if (strnlen((const char *)s, len) == len) {
		fmt_snprintf(c->err, c->errlen,
			     "mb2: tag %u at offset 0x%x: string lacks a NUL in its %u bytes",
			     type, off, len);
		return -1;
	}
	if (dst)
		str_copy(dst, dst_size, (const char *)s, len);
	return 0;
}

static int parse_module(struct mb2_ctx *c, uint32_t off, const uint8_t *t, uint32_t size)
{
	struct boot_info *out = c->out;
	struct boot_module *m = NULL;
	uint32_t start, end;

	if (need(c, MB2_TAG_MODULE, off, size, MB2_TAG_HDR_SIZE + 8, "module"))
		return -1;
	start = rd32(t + 8);
	end = rd32(t + 12);
	if (end < start) {
		fmt_snprintf(c->err, c->errlen,
			     "mb2: tag 3 (module) at offset 0x%x: mod_end 0x%x < mod_start 0x%x",
			     off, end, start);
		return -1;
	}
	if (out->module_count < BOOT_INFO_MAX_MODULES) {
		m = &out->modules[out->module_count];
		m->start = start;
		m->end = end;
	}
	/* Checked even when the module is not kept: the whole block must be sound. */
	if (get_str(c, MB2_TAG_MODULE, off, t + 16, size - 16, m ? m->cmdline : NULL,
		    BOOT_INFO_MOD_CMDLINE_LEN))
		return -1;
	if (m)
		out->module_count++;
	else
		out->modules_truncated = true;
	return 0;
}

/*
 * Entries are entry_size bytes apart (a newer loader may append fields, hence
 * "at least 24"). Bytes after the last whole entry are ignored: they cannot
 * form an entry and GRUB never emits them.
 */
static int parse_mmap(struct mb2_ctx *c, uint32_t off, const uint8_t *t, uint32_t size)
{
	struct boot_info *out = c->out;
	uint32_t esize, n;

	if (need(c, MB2_TAG_MMAP, off, size, MB2_TAG_HDR_SIZE + 8, "memory map"))
		return -1;
	esize = rd32(t + 8);
	if (esize < MB2_MMAP_ENTRY_MIN || esize % 8) {
		fmt_snprintf(c->err, c->errlen,
			     "mb2: tag 6 (memory map) at offset 0x%x: entry_size %u invalid "
			     "(need >= 24, multiple of 8)", off, esize);
		return -1;
	}
	n = (size - 16) / esize;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = t + 16 + (size_t)i * esize;
		struct boot_mmap_entry *d;

		if (out->mmap_count >= BOOT_INFO_MAX_MMAP) {
			out->mmap_truncated = true;
			break;
		}
		d = &out->mmap[out->mmap_count++];
		d->base = rd64(e);
		d->length = rd64(e + 8);
		d->type = rd32(e + 16);
	}
	return 0;
}

static int parse_rsdp(struct mb2_ctx *c, uint32_t type, uint32_t off, const uint8_t *t,
		      uint32_t size)
{
	struct boot_info *out = c->out;
	bool is_new = type == MB2_TAG_ACPI_NEW;
	uint32_t len = is_new ? MB2_RSDP_V2_LEN : MB2_RSDP_V1_LEN;

	if (need(c, type, off, size, MB2_TAG_HDR_SIZE + len, is_new ? "ACPI new RSDP" :
		 "ACPI old RSDP"))
		return -1;
	/* The 2.0+ copy wins whichever order the tags come in. */
	if (!is_new && c->have_new_rsdp)
		return 0;
	if (is_new)
		c->have_new_rsdp = true;
	memset(out->rsdp, 0, sizeof(out->rsdp));
	memcpy(out->rsdp, t + MB2_TAG_HDR_SIZE, len);
	out->rsdp_len = len;
	out->rsdp_revision = out->rsdp[MB2_RSDP_REV_OFF];
	out->rsdp_phys = 0;
	out->has_rsdp = true;
	return 0;
}

static int parse_tag(struct mb2_ctx *c, uint32_t type, uint32_t off, uint32_t size)
{
	const uint8_t *t = c->base + off;
	struct boot_info *out = c->out;

	switch (type) {
	case MB2_TAG_CMDLINE:
		return get_str(c, type, off, t + 8, size - 8, out->cmdline, sizeof(out->cmdline));
	case MB2_TAG_LOADER_NAME:
		return get_str(c, type, off, t + 8, size - 8, out->loader_name,
			       sizeof(out->loader_name));
	case MB2_TAG_MODULE:
		return parse_module(c, off, t, size);
	case MB2_TAG_MMAP:
		return parse_mmap(c, off, t, size);
	case MB2_TAG_EFI32:
		if (need(c, type, off, size, 12, "EFI32 system table"))
			return -1;
		out->efi32_system_table = rd32(t + 8);
		out->has_efi32_system_table = true;
		return 0;
	case MB2_TAG_EFI64:
		if (need(c, type, off, size, 16, "EFI64 system table"))
			return -1;
		out->efi64_system_table = rd64(t + 8);
		out->has_efi64_system_table = true;
		return 0;
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW:
		return parse_rsdp(c, type, off, t, size);
	case MB2_TAG_EFI_MMAP:
		/* u32 descriptor size, u32 descriptor version, then the map. */
		if (need(c, type, off, size, 16, "EFI memory map"))
			return -1;
		out->has_efi_mmap = true;
		return 0;
	case MB2_TAG_EFI_BS:
		out->efi_boot_services_active = true;
		return 0;
	default:
		/* Tags we do not use, known or not: skipping keeps newer loaders working. */
		return 0;
	}
}

int mb2_parse(const void *info, size_t avail, uint64_t info_phys, struct boot_info *out,
	      char *err, size_t errlen)
{
	struct mb2_ctx c = { .base = info, .out = out, .err = err, .errlen = errlen };
	uint32_t total, off;
	bool end = false;

	if (err && errlen)
		err[0] = 0;
	else
		c.errlen = 0;	/* fmt_snprintf with size 0 writes nothing */
	if (out)
		memset(out, 0, sizeof(*out));
	if (!info || !out) {
		fmt_snprintf(c.err, c.errlen, "mb2: %s is NULL", info ? "output" : "info block");
		return -1;
	}
	if (avail < MB2_HDR_SIZE) {
		fmt_snprintf(c.err, c.errlen, "mb2: only %zu bytes readable, header needs 8",
			     avail);
		return -1;
	}
	total = rd32(c.base);
	if (total < MB2_HDR_SIZE + MB2_TAG_HDR_SIZE || total > avail ||
	    total > MB2_INFO_MAX_SIZE) {
		fmt_snprintf(c.err, c.errlen,
			     "mb2: total_size %u invalid (need 16..%u and <= %zu readable)",
			     total, MB2_INFO_MAX_SIZE, avail);
		return -1;
	}

	for (off = MB2_HDR_SIZE; off < total;) {
		uint32_t type, size;

		if (total - off < MB2_TAG_HDR_SIZE) {
			fmt_snprintf(c.err, c.errlen,
				     "mb2: tag at offset 0x%x: header runs past total_size %u",
				     off, total);
			goto fail;
		}
		type = rd32(c.base + off);
		size = rd32(c.base + off + 4);
		if (size < MB2_TAG_HDR_SIZE || size > total - off) {
			fmt_snprintf(c.err, c.errlen,
				     "mb2: tag %u at offset 0x%x: size %u invalid (%u bytes left)",
				     type, off, size, total - off);
			goto fail;
		}
		if (type == MB2_TAG_END) {
			end = true;
			break;
		}
		if (parse_tag(&c, type, off, size))
			goto fail;
		/* total <= 1 MiB, so this cannot wrap. */
		off += ALIGN_UP(size, 8u);
	}
	if (!end) {
		fmt_snprintf(c.err, c.errlen, "mb2: no end tag within total_size %u", total);
		goto fail;
	}
	out->info_phys = info_phys;
	out->info_size = total;
	return 0;

fail:
	/* Never hand back a half-parsed block. */
	memset(out, 0, sizeof(*out));
	return -1;
}
