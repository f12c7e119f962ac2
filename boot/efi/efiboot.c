// SPDX-License-Identifier: MIT
/*
 * The EFI loader's pure logic: the loader file parser and the memory map
 * conversion. Both read outside input (a file on the ESP, the firmware's
 * map), so every length is checked; host-testable (tests/unit).
 */
#include "boot/efi/efiboot.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define PAGE_SIZE	4096ull

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Trim [*s, *e) of surrounding blanks. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && is_space(**s))
		(*s)++;
	while (*e > *s && is_space((*e)[-1]))
		(*e)--;
}

/* Copy [s, e) into @dst (@size bytes) or fail with what it was. */
static int put_str(char *dst, size_t size, const char *s, const char *e, unsigned int line,
		   const char *what, char *err, size_t errlen)
{
	size_t n = (size_t)(e - s);

	if (n >= size) {
		fmt_snprintf(err, errlen, "line %u: %s is %zu characters, at most %zu", line,
			     what, n, size - 1);
		return -1;
	}
	memcpy(dst, s, n);
	dst[n] = 0;
	return 0;
}

static int put_path(char *dst, const char *s, const char *e, unsigned int line, char *err,
		    size_t errlen)
{
	if (s == e) {
		fmt_snprintf(err, errlen, "line %u: expected a path", line);
		return -1;
	}
	for (const char *p = s; p < e; p++) {
		if (*p < 0x21 || *p > 0x7e) {
			fmt_snprintf(err, errlen,
				     "line %u: path has character 0x%02x; use printable ASCII",
				     line, (unsigned char)*p);
			return -1;
		}
	}
	if (put_str(dst, EFI_CONF_PATH_LEN, s, e, line, "the path", err, errlen))
		return -1;
	for (char *p = dst; *p; p++)
		if (*p == '/')
			*p = '\\';
	return 0;
}

static bool key_is(const char *s, const char *e, const char *key)
{
	size_t n = strlen(key);

	return (size_t)(e - s) == n && !memcmp(s, key, n);
}

static int parse_line(const char *s, const char *e, unsigned int line, struct efi_conf *out,
		      bool *seen_hv, bool *seen_cmdline, char *err, size_t errlen)
{
	const char *eq = s, *ks = s, *ke, *vs, *ve = e;

	while (eq < e && *eq != '=')
		eq++;
	if (eq == e) {
		fmt_snprintf(err, errlen, "line %u: expected KEY = VALUE", line);
		return -1;
	}
	ke = eq;
	trim(&ks, &ke);
	vs = eq + 1;
	trim(&vs, &ve);

	if (key_is(ks, ke, "hypervisor")) {
		if (*seen_hv) {
			fmt_snprintf(err, errlen, "line %u: hypervisor given twice", line);
			return -1;
		}
		*seen_hv = true;
		return put_path(out->hypervisor, vs, ve, line, err, errlen);
	}
	if (key_is(ks, ke, "cmdline")) {
		if (*seen_cmdline) {
			fmt_snprintf(err, errlen, "line %u: cmdline given twice", line);
			return -1;
		}
		*seen_cmdline = true;
		return put_str(out->cmdline, sizeof(out->cmdline), vs, ve, line, "cmdline", err,
			       errlen);
	}
	if (key_is(ks, ke, "module")) {
		struct efi_conf_module *m;
		const char *pe = vs, *ss;

		if (out->module_count >= BOOT_INFO_MAX_MODULES) {
			fmt_snprintf(err, errlen, "line %u: more than %u modules", line,
				     BOOT_INFO_MAX_MODULES);
			return -1;
		}
		m = &out->modules[out->module_count];
		while (pe < ve && !is_space(*pe))
			pe++;
		if (put_path(m->path, vs, pe, line, err, errlen))
			return -1;
		ss = pe;
		trim(&ss, &ve);
		if (put_str(m->string, sizeof(m->string), ss, ve, line, "the module string", err,
			    errlen))
			return -1;
		out->module_count++;
		return 0;
	}
	fmt_snprintf(err, errlen, "line %u: unknown key '%.*s' (hypervisor, cmdline or module)",
		     line, (int)(ke - ks), ks);
	return -1;
}

int efi_conf_parse(const char *text, size_t len, struct efi_conf *out, char *err,
		   size_t errlen)
{
	const char *p = text, *end = text + len;
	bool seen_hv = false, seen_cmdline = false;
	unsigned int line = 0;

	if (err && errlen)
		err[0] = 0;
	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *s = p, *e = p, *c;

		while (e < end && *e != '\n')
			e++;
		p = e < end ? e + 1 : e;
		line++;
		for (c = s; c < e; c++) {
			if (!*c) {
				fmt_snprintf(err, errlen, "line %u: NUL byte: not a text file",
					     line);
				goto fail;
			}
		}
		for (c = s; c < e && *c != '#'; c++)
			;
		e = c;
		trim(&s, &e);
		if (s == e)
			continue;
		if (parse_line(s, e, line, out, &seen_hv, &seen_cmdline, err, errlen))
			goto fail;
	}
	if (!seen_hv) {
		fmt_snprintf(err, errlen, "no 'hypervisor = PATH' line");
		goto fail;
	}
	return 0;

fail:
	memset(out, 0, sizeof(*out));
	return -1;
}

uint32_t efi_mem_type_to_boot(uint32_t efi_type)
{
	switch (efi_type) {
	case EFI_MT_BS_CODE:
	case EFI_MT_BS_DATA:
	case EFI_MT_CONVENTIONAL:
		return BOOT_MEM_USABLE;
	case EFI_MT_ACPI_RECLAIM:
		return BOOT_MEM_ACPI_RECLAIM;
	case EFI_MT_ACPI_NVS:
		return BOOT_MEM_ACPI_NVS;
	case EFI_MT_UNUSABLE:
		return BOOT_MEM_BAD;
	default:
		/* loader code and data, runtime services, MMIO, persistent, unknown */
		return BOOT_MEM_RESERVED;
	}
}

/* Which type wins where the firmware's entries overlap: never usable. */
static int type_rank(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_USABLE:
		return 0;
	case BOOT_MEM_ACPI_RECLAIM:
		return 1;
	case BOOT_MEM_ACPI_NVS:
		return 2;
	case BOOT_MEM_BAD:
		return 4;
	default:
		return 3;
	}
}

/* Descriptor @i as [*base, *end); false for an empty or wrapping one. */
static bool desc_range(const void *map, size_t desc_size, size_t i, uint64_t *base,
		       uint64_t *end, uint32_t *type)
{
	struct efi_mem_desc d;

	memcpy(&d, (const uint8_t *)map + i * desc_size, sizeof(d));
	if (!d.pages || d.pages > (UINT64_MAX - d.phys_start) / PAGE_SIZE)
		return false;
	*base = d.phys_start;
	*end = d.phys_start + d.pages * PAGE_SIZE;
	*type = efi_mem_type_to_boot(d.type);
	return true;
}

static void append(struct boot_info *bi, uint64_t base, uint64_t end, uint32_t type)
{
	struct boot_mmap_entry *last = bi->mmap_count ? &bi->mmap[bi->mmap_count - 1] : NULL;

	if (last && last->type == type && last->base + last->length == base) {
		last->length += end - base;
		return;
	}
	if (bi->mmap_count >= BOOT_INFO_MAX_MMAP) {
		bi->mmap_truncated = true;
		return;
	}
	bi->mmap[bi->mmap_count++] = (struct boot_mmap_entry){
		.base = base, .length = end - base, .type = type
	};
}

/*
 * A sweep over the descriptors' boundaries: from each boundary to the next,
 * the covering descriptor of the highest rank decides the type. Quadratic in
 * the descriptor count (a few hundred at most), and it needs no memory, no
 * sort, and no trust in the firmware's order or in the entries not
 * overlapping.
 */
int efi_mmap_convert(const void *map, size_t map_size, size_t desc_size, struct boot_info *bi)
{
	uint64_t pos = 0;
	size_t n;

	if (desc_size < sizeof(struct efi_mem_desc))
		return -1;
	n = map_size / desc_size;
	bi->mmap_count = 0;
	bi->mmap_truncated = false;
	for (;;) {
		uint64_t next = UINT64_MAX, base, end;
		uint32_t type, best = 0;
		bool covered = false;

		for (size_t i = 0; i < n; i++) {
			if (!desc_range(map, desc_size, i, &base, &end, &type))
				continue;
			if (base <= pos && pos < end) {
				if (!covered || type_rank(type) > type_rank(best))
					best = type;
				covered = true;
				next = MIN(next, end);
			} else if (base > pos) {
				next = MIN(next, base);
			}
		}
		if (covered)
			append(bi, pos, next, best);
		if (next == UINT64_MAX)
			return 0;
		pos = next;
	}
}

bool boot_mmap_usable_page(const struct boot_info *bi, uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];
		uint64_t s = ALIGN_UP(MAX(e->base, lo), PAGE_SIZE);
		uint64_t t = MIN(e->base + e->length, hi);

		if (e->type == BOOT_MEM_USABLE && s < t && t - s >= PAGE_SIZE)
			return true;
	}
	return false;
}

bool efi_devpath_has_uart(const void *dp, size_t len)
{
	const uint8_t *p = dp;
	size_t off = 0;

	/* Node: u8 type, u8 subtype, u16 length (header included). */
	while (len - off >= 4) {
		uint8_t type = p[off], sub = p[off + 1];
		uint16_t n = (uint16_t)(p[off + 2] | p[off + 3] << 8);

		if (n < 4 || n > len - off)
			return false;
		if (type == 0x03 && sub == 0x0e)
			return true;
		if (type == 0x7f && sub == 0xff)	/* end of the whole path */
			return false;
		off += n;
	}
	return false;
}
