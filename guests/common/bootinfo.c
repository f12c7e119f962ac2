// SPDX-License-Identifier: MIT
/*
 * Multiboot information parsing. The block comes from a boot loader or a
 * hypervisor, so it is outside input: the mb2 total_size is checked before
 * any tag is read, each tag is checked against what is left, strings are
 * read only up to a fixed bound, and multi-byte fields go through rd32/rd64
 * because nothing guarantees their alignment.
 */
#include "guests/common/bootinfo.h"

#include "guests/common/x86.h"
#include "hv/lib/div64.h"
#include "hv/lib/lib.h"

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_BASIC_MEMINFO = 4,
	MB2_TAG_MMAP = 6,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
};

#define MB2_HDR_SIZE		8	/* u32 total_size, u32 reserved */
#define MB2_TAG_HDR_SIZE	8	/* u32 type, u32 size */
/* GRUB's blocks are a few KiB; anything this large is taken as corruption. */
#define MB2_TOTAL_MAX		(1u << 20)
#define MB2_MMAP_HDR_SIZE	16	/* tag header, u32 entry_size, u32 entry_version */
#define MB2_MMAP_ENTRY_MIN	24	/* u64 base, u64 length, u32 type, u32 reserved */
#define MB_MMAP_AVAILABLE	1
#define RSDP_V1_LEN		20

/* Multiboot1 information structure (multiboot.h of the 0.6.96 spec). */
#define MB1_FLAG_MEM		(1u << 0)
#define MB1_FLAG_CMDLINE	(1u << 2)
#define MB1_FLAG_MMAP		(1u << 6)
#define MB1_OFF_FLAGS		0
#define MB1_OFF_MEM_LOWER	4
#define MB1_OFF_MEM_UPPER	8
#define MB1_OFF_CMDLINE		16
#define MB1_OFF_MMAP_LENGTH	44
#define MB1_OFF_MMAP_ADDR	48
#define MB1_INFO_SIZE		52	/* up to and including mmap_addr */
#define MB1_MMAP_ENTRY_MIN	20	/* after the u32 size: u64 base, u64 length, u32 type */
#define MB1_MMAP_MAX		(64u << 10)
/* Longest command line we look at before giving up on finding its NUL. */
#define CMDLINE_SCAN_MAX	4096

#define KIB			1024ull
#define MIB			(1024ull * 1024)

/* Whether [addr, addr + len) fits in the 32-bit space we can reach unpaged. */
static bool reachable(uint64_t addr, uint64_t len)
{
	return addr != 0 && len <= 0x100000000ull && addr <= 0x100000000ull - len;
}

static void copy_cmdline(struct boot_params *bp, const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n]) {
		if (n + 1 < sizeof(bp->cmdline)) {
			/* Printed as is later: keep only printable ASCII. */
			bp->cmdline[n] = (s[n] >= 0x20 && s[n] < 0x7f) ? s[n] : '?';
		} else {
			bp->cmdline_cut = true;
		}
		n++;
	}
	bp->cmdline[n < sizeof(bp->cmdline) ? n : sizeof(bp->cmdline) - 1] = '\0';
	if (n == max && !bp->error)
		bp->error = "command line not terminated";
}

static void add_ram(struct boot_params *bp, uint64_t base, uint64_t len)
{
	if (!len || base + len < base)
		return;
	if (bp->ram_count < BOOTINFO_RAM_MAX) {
		bp->ram[bp->ram_count].base = base;
		bp->ram[bp->ram_count].end = base + len;
		bp->ram_count++;
	}
}

static uint64_t highest_ram_end(const struct boot_params *bp)
{
	uint64_t top = 0;

	for (unsigned int i = 0; i < bp->ram_count; i++) {
		if (bp->ram[i].end > top)
			top = bp->ram[i].end;
	}
	return top;
}

static void mb2_mmap(struct boot_params *bp, const uint8_t *tag, uint32_t size)
{
	uint32_t entry_size;

	if (size < MB2_MMAP_HDR_SIZE) {
		bp->error = "mb2 memory map tag too short";
		return;
	}
	entry_size = rd32(tag + 8);
	if (entry_size < MB2_MMAP_ENTRY_MIN || entry_size > size) {
		bp->error = "mb2 memory map entry size invalid";
		return;
	}
	for (uint32_t off = MB2_MMAP_HDR_SIZE; size - off >= entry_size; off += entry_size) {
		const uint8_t *e = tag + off;

		if (rd32(e + 16) == MB_MMAP_AVAILABLE)
			add_ram(bp, rd64(e), rd64(e + 8));
	}
}

static void mb2_rsdp(struct boot_params *bp, const uint8_t *tag, uint32_t size, bool is_new)
{
	uint32_t len = size - MB2_TAG_HDR_SIZE;

	/* Tag 15 (ACPI 2.0+) wins over tag 14 whatever their order. */
	if (bp->rsdp_len && !is_new)
		return;
	if (len < RSDP_V1_LEN)
		return;
	if (len > BOOTINFO_RSDP_MAX)
		len = BOOTINFO_RSDP_MAX;
	memcpy(bp->rsdp, tag + MB2_TAG_HDR_SIZE, len);
	bp->rsdp_len = len;
}

static void mb2_parse(struct boot_params *bp, uint32_t info)
{
	const uint8_t *base = phys_ptr(info);
	uint32_t total, off, step, mem_upper_kib = 0;
	bool have_mmap = false, have_meminfo = false, ended = false;

	if (!reachable(info, MB2_HDR_SIZE) || (info & 7)) {
		bp->error = "mb2 info pointer invalid";
		return;
	}
	total = rd32(base);
	if (total < MB2_HDR_SIZE + MB2_TAG_HDR_SIZE || total > MB2_TOTAL_MAX ||
	    !reachable(info, total)) {
		bp->error = "mb2 info total_size invalid";
		return;
	}
	for (off = MB2_HDR_SIZE; total - off >= MB2_TAG_HDR_SIZE;) {
		const uint8_t *tag = base + off;
		uint32_t type = rd32(tag), size = rd32(tag + 4);

		if (size < MB2_TAG_HDR_SIZE || size > total - off) {
			bp->error = "mb2 tag size out of bounds";
			return;
		}
		switch (type) {
		case MB2_TAG_END:
			break;
		case MB2_TAG_CMDLINE:
			copy_cmdline(bp, (const char *)tag + MB2_TAG_HDR_SIZE,
				     size - MB2_TAG_HDR_SIZE);
			break;
		case MB2_TAG_BASIC_MEMINFO:
			if (size >= MB2_TAG_HDR_SIZE + 8) {
				mem_upper_kib = rd32(tag + 12);
				have_meminfo = true;
			}
			break;
		case MB2_TAG_MMAP:
			mb2_mmap(bp, tag, size);
			have_mmap = true;
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			mb2_rsdp(bp, tag, size, type == MB2_TAG_ACPI_NEW);
			break;
		}
		if (type == MB2_TAG_END) {
			ended = true;
			break;
		}
		/* Tags start 8-byte aligned; size <= total <= 1 MiB, so no overflow. */
		step = (size + 7) & ~7u;
		if (step >= total - off)
			break;
		off += step;
	}
	if (!ended && !bp->error)
		bp->error = "mb2 info has no end tag";
	if (have_mmap) {
		bp->ram_top = highest_ram_end(bp);
	} else if (have_meminfo) {
		add_ram(bp, MIB, mem_upper_kib * KIB);
		bp->ram_top = MIB + mem_upper_kib * KIB;
	}
}

static void mb1_mmap(struct boot_params *bp, uint32_t addr, uint32_t length)
{
	const uint8_t *base = phys_ptr(addr);

	if (length > MB1_MMAP_MAX || !reachable(addr, length)) {
		bp->error = "mb1 memory map out of bounds";
		return;
	}
	/* Each entry: u32 size (not counting itself), then base, length, type. */
	for (uint32_t off = 0; length - off >= 4 + MB1_MMAP_ENTRY_MIN;) {
		const uint8_t *e = base + off;
		uint32_t size = rd32(e);

		if (size < MB1_MMAP_ENTRY_MIN || size > length - off - 4) {
			bp->error = "mb1 memory map entry size invalid";
			return;
		}
		if (rd32(e + 20) == MB_MMAP_AVAILABLE)
			add_ram(bp, rd64(e + 4), rd64(e + 12));
		off += 4 + size;
	}
}

static void mb1_parse(struct boot_params *bp, uint32_t info)
{
	const uint8_t *base = phys_ptr(info);
	uint32_t flags;

	if (!reachable(info, MB1_INFO_SIZE)) {
		bp->error = "mb1 info pointer invalid";
		return;
	}
	flags = rd32(base + MB1_OFF_FLAGS);
	if (flags & MB1_FLAG_CMDLINE) {
		uint32_t s = rd32(base + MB1_OFF_CMDLINE);

		if (reachable(s, 1)) {
			/* Never read past 4 GiB looking for the NUL. */
			uint64_t room = 0x100000000ull - s;

			copy_cmdline(bp, phys_ptr(s), room < CMDLINE_SCAN_MAX ? room :
				     CMDLINE_SCAN_MAX);
		} else {
			bp->error = "mb1 command line pointer invalid";
		}
	}
	if (flags & MB1_FLAG_MMAP)
		mb1_mmap(bp, rd32(base + MB1_OFF_MMAP_ADDR), rd32(base + MB1_OFF_MMAP_LENGTH));
	if (flags & MB1_FLAG_MEM) {
		uint64_t upper = rd32(base + MB1_OFF_MEM_UPPER) * KIB;

		/* mem_upper: KiB from 1 MiB up to the first hole. */
		bp->ram_top = MIB + upper;
		if (!(flags & MB1_FLAG_MMAP)) {
			add_ram(bp, 0, rd32(base + MB1_OFF_MEM_LOWER) * KIB);
			add_ram(bp, MIB, upper);
		}
	} else if (bp->ram_count) {
		bp->ram_top = highest_ram_end(bp);
	}
}

void bootinfo_parse(uint32_t magic, uint32_t info, struct boot_params *bp)
{
	memset(bp, 0, sizeof(*bp));
	if (magic == MB2_BOOT_MAGIC) {
		bp->mb_version = 2;
		mb2_parse(bp, info);
	} else if (magic == MB1_BOOT_MAGIC) {
		bp->mb_version = 1;
		mb1_parse(bp, info);
	} else {
		bp->error = "unknown boot magic";
	}
}

bool bootinfo_is_ram(const struct boot_params *bp, uint64_t base, uint64_t len)
{
	for (unsigned int i = 0; i < bp->ram_count; i++) {
		if (base >= bp->ram[i].base && base + len <= bp->ram[i].end)
			return true;
	}
	return false;
}

bool cmdline_value(const char *cmdline, const char *key, char *val, size_t vallen)
{
	size_t keylen = strlen(key);
	const char *p = cmdline;

	while (*p) {
		const char *word = p;
		size_t n = 0;

		while (*p && *p != ' ')
			p++;
		if ((size_t)(p - word) > keylen && !memcmp(word, key, keylen) &&
		    word[keylen] == '=') {
			for (const char *v = word + keylen + 1; v < p && n + 1 < vallen; v++)
				val[n++] = *v;
			if (vallen)
				val[n] = '\0';
			return true;
		}
		while (*p == ' ')
			p++;
	}
	return false;
}

bool parse_number(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	uint32_t base = 10, digit;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digit = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			digit = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			digit = *s - 'A' + 10;
		else
			return false;
		/* v * base + digit must not wrap. */
		if (v > div_u64(UINT64_MAX - digit, base))
			return false;
		v = v * base + digit;
	}
	*out = v;
	return true;
}
