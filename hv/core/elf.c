// SPDX-License-Identifier: MIT
/*
 * Guest kernel images: ELF program headers and the multiboot header.
 *
 * The image is outside input (a GRUB module the operator chose), so it is
 * never trusted: every field is read with memcpy (the image need not be
 * aligned), every offset is checked against the image length and every
 * address range against the partition's memory before the caller copies a
 * byte, with arithmetic arranged so that no sum can wrap. Nothing is written
 * but the plan and the message.
 *
 * References: System V ABI, "ELF header" and "Program header" (gABI 4.1);
 * Multiboot Specification 0.6.96, section 3.1; Multiboot2 Specification
 * 2.0, section 3.1.
 */
#include "hv/core/elf.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

/* e_ident */
#define EI_NIDENT	16
#define EI_CLASS	4
#define EI_DATA		5
#define EI_VERSION	6
#define ELFCLASS32	1
#define ELFCLASS64	2
#define ELFDATA2LSB	1
#define EV_CURRENT	1

#define ET_EXEC		2
#define EM_386		3
#define EM_X86_64	62
#define PT_LOAD		1
#define PF_X		1

#define EHDR32_SIZE	52
#define EHDR64_SIZE	64
#define PHDR32_SIZE	32
#define PHDR64_SIZE	56

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

/* A size for a message: "64 MiB" when it is whole MiB, else hex bytes. */
static void size_str(char *buf, size_t len, uint64_t bytes)
{
	if (bytes && !(bytes & 0xfffff))
		fmt_snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
	else
		fmt_snprintf(buf, len, "0x%llx bytes", (unsigned long long)bytes);
}

/* One PT_LOAD entry, widened to 64 bits whatever the class. */
struct phdr {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t filesz;
	uint64_t memsz;
};

static void read_phdr(const uint8_t *p, bool is64, struct phdr *ph)
{
	ph->type = rd32(p);
	if (is64) {
		ph->flags = rd32(p + 4);
		ph->offset = rd64(p + 8);
		ph->vaddr = rd64(p + 16);
		ph->paddr = rd64(p + 24);
		ph->filesz = rd64(p + 32);
		ph->memsz = rd64(p + 40);
	} else {
		ph->offset = rd32(p + 4);
		ph->vaddr = rd32(p + 8);
		ph->paddr = rd32(p + 12);
		ph->filesz = rd32(p + 16);
		ph->memsz = rd32(p + 20);
		ph->flags = rd32(p + 24);
	}
}

struct elf_ctx {
	char *err;
	size_t errlen;
};

static int elf_fail(struct elf_ctx *c, struct elf_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int elf_fail(struct elf_ctx *c, struct elf_plan *plan, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	/* Never hand back a half-made plan. */
	if (plan)
		memset(plan, 0, sizeof(*plan));
	return -1;
}

/*
 * Check one PT_LOAD segment (program header @idx) and append it to the plan.
 * Segments occupying no memory are skipped (once file size <= memory size
 * holds, they have no file bytes either): they load nothing, and linkers do
 * emit them.
 */
static int plan_segment(struct elf_ctx *c, struct elf_plan *plan, uint32_t idx,
			const struct phdr *ph, size_t len, uint64_t min_addr, uint64_t mem_size)
{
	struct elf_segment *s;
	char sz[32];

	if (ph->filesz > ph->memsz)
		return elf_fail(c, plan, "ELF: segment %u: file size 0x%llx exceeds memory size "
				"0x%llx", idx, (unsigned long long)ph->filesz,
				(unsigned long long)ph->memsz);
	if (!ph->memsz)
		return 0;
	/*
	 * Only the file bytes actually copied must lie in the image: a
	 * segment with no file bytes (all .bss) may carry any p_offset.
	 */
	if (ph->filesz && (ph->offset > len || ph->filesz > len - ph->offset))
		return elf_fail(c, plan, "ELF: segment %u: file bytes [0x%llx, +0x%llx) run past "
				"the image's 0x%zx bytes", idx, (unsigned long long)ph->offset,
				(unsigned long long)ph->filesz, len);
	if (ph->paddr < min_addr)
		return elf_fail(c, plan, "ELF: segment %u: starts at 0x%llx, below the lowest "
				"loadable address 0x%llx", idx, (unsigned long long)ph->paddr,
				(unsigned long long)min_addr);
	if (ph->memsz > mem_size || ph->paddr > mem_size - ph->memsz) {
		size_str(sz, sizeof(sz), mem_size);
		/* paddr + memsz may wrap; print the end the way it was meant. */
		if (ph->memsz > UINT64_MAX - ph->paddr)
			return elf_fail(c, plan, "ELF: segment %u: [0x%llx, +0x%llx) wraps around "
					"the address space", idx, (unsigned long long)ph->paddr,
					(unsigned long long)ph->memsz);
		return elf_fail(c, plan, "ELF: segment %u: [0x%llx, 0x%llx) exceeds the "
				"partition's %s", idx, (unsigned long long)ph->paddr,
				(unsigned long long)(ph->paddr + ph->memsz), sz);
	}
	if (plan->segment_count >= ELF_MAX_SEGMENTS)
		return elf_fail(c, plan, "ELF: more than %u loadable segments (segment %u)",
				ELF_MAX_SEGMENTS, idx);
	/* Both ranges are within [0, mem_size), so the ends below cannot wrap. */
	for (uint32_t i = 0; i < plan->segment_count; i++) {
		const struct elf_segment *o = &plan->segments[i];

		if (ph->paddr < o->paddr + o->mem_size && o->paddr < ph->paddr + ph->memsz)
			return elf_fail(c, plan, "ELF: segment %u: [0x%llx, 0x%llx) overlaps "
					"[0x%llx, 0x%llx) of an earlier segment", idx,
					(unsigned long long)ph->paddr,
					(unsigned long long)(ph->paddr + ph->memsz),
					(unsigned long long)o->paddr,
					(unsigned long long)(o->paddr + o->mem_size));
	}
	s = &plan->segments[plan->segment_count++];
	s->file_offset = ph->filesz ? ph->offset : 0;
	s->file_size = ph->filesz;
	s->paddr = ph->paddr;
	s->mem_size = ph->memsz;
	s->exec = ph->flags & PF_X;
	if (plan->segment_count == 1 || s->paddr < plan->lowest)
		plan->lowest = s->paddr;
	if (s->paddr + s->mem_size > plan->highest)
		plan->highest = s->paddr + s->mem_size;
	return 0;
}

/*
 * The entry point as a physical address. The guest starts with paging off
 * (multiboot's machine state), so e_entry is normally physical and must lie
 * in an executable segment's paddr range. A higher-half kernel links e_entry
 * at a virtual address (p_vaddr != p_paddr); then, as GRUB does for
 * multiboot ELF images of either class (multiboot_elfxx.c), the entry is
 * translated through the executable segment whose vaddr range holds it.
 * Only the planned (non-empty) segments are considered; their vaddr ranges
 * are re-read from the program headers.
 */
static int plan_entry(struct elf_ctx *c, struct elf_plan *plan, uint64_t entry,
		      const uint8_t *phdrs, uint32_t phnum, uint32_t phentsize)
{
	bool in_data = false;

	for (uint32_t i = 0; i < plan->segment_count; i++) {
		const struct elf_segment *s = &plan->segments[i];

		if (entry >= s->paddr && entry - s->paddr < s->mem_size) {
			if (s->exec) {
				plan->entry = entry;
				return 0;
			}
			in_data = true;
		}
	}
	for (uint32_t i = 0; i < phnum; i++) {
		struct phdr ph;

		read_phdr(phdrs + (size_t)i * phentsize, plan->is64, &ph);
		if (ph.type != PT_LOAD || !ph.memsz || ph.vaddr == ph.paddr)
			continue;
		if (entry < ph.vaddr || entry - ph.vaddr >= ph.memsz)
			continue;
		if (!(ph.flags & PF_X)) {
			in_data = true;
			continue;
		}
		/* The segment was planned, so paddr + memsz is within memory. */
		plan->entry = ph.paddr + (entry - ph.vaddr);
		return 0;
	}
	return elf_fail(c, plan, "ELF: entry point 0x%llx is %s", (unsigned long long)entry,
			in_data ? "in a segment that is not executable" :
			"outside every loadable segment");
}

int elf_plan_load(const void *img, size_t len, uint64_t min_addr, uint64_t mem_size,
		  struct elf_plan *plan, char *err, size_t errlen)
{
	struct elf_ctx c = { .err = err, .errlen = err ? errlen : 0 };
	const uint8_t *p = img;
	uint64_t phoff, entry;
	uint32_t phnum, phentsize, want_phent, ehsize;
	uint16_t type, machine, want_machine;
	bool is64;

	if (c.errlen)
		err[0] = 0;
	if (!plan)
		return elf_fail(&c, NULL, "ELF: no plan given");
	memset(plan, 0, sizeof(*plan));
	if (!img)
		return elf_fail(&c, plan, "ELF: no image");
	if (len < 4 || memcmp(p, "\x7f" "ELF", 4))
		return elf_fail(&c, plan, "ELF: no ELF magic (image is %zu bytes)", len);
	if (len < EI_NIDENT)
		return elf_fail(&c, plan, "ELF: image of %zu bytes is shorter than the ELF header",
				len);
	if (p[EI_CLASS] != ELFCLASS32 && p[EI_CLASS] != ELFCLASS64)
		return elf_fail(&c, plan, "ELF: class %u is neither 32-bit (1) nor 64-bit (2)",
				p[EI_CLASS]);
	is64 = p[EI_CLASS] == ELFCLASS64;
	ehsize = is64 ? EHDR64_SIZE : EHDR32_SIZE;
	if (len < ehsize)
		return elf_fail(&c, plan, "ELF: image of %zu bytes is shorter than the %u-byte "
				"ELF header", len, ehsize);
	if (p[EI_DATA] != ELFDATA2LSB)
		return elf_fail(&c, plan, "ELF: data encoding %u is not little-endian (1)",
				p[EI_DATA]);
	if (p[EI_VERSION] != EV_CURRENT || rd32(p + 20) != EV_CURRENT)
		return elf_fail(&c, plan, "ELF: version %u/%u, expected 1", p[EI_VERSION],
				rd32(p + 20));
	type = rd16(p + 16);
	if (type != ET_EXEC)
		return elf_fail(&c, plan, "ELF: type %u is not an executable (ET_EXEC, 2)", type);
	machine = rd16(p + 18);
	want_machine = is64 ? EM_X86_64 : EM_386;
	if (machine != want_machine)
		return elf_fail(&c, plan, "ELF: machine %u, expected %u (%s) for a %d-bit image",
				machine, want_machine, is64 ? "x86-64" : "i386", is64 ? 64 : 32);

	if (is64) {
		entry = rd64(p + 24);
		phoff = rd64(p + 32);
		phentsize = rd16(p + 54);
		phnum = rd16(p + 56);
	} else {
		entry = rd32(p + 24);
		phoff = rd32(p + 28);
		phentsize = rd16(p + 42);
		phnum = rd16(p + 44);
	}
	want_phent = is64 ? PHDR64_SIZE : PHDR32_SIZE;
	if (phentsize != want_phent)
		return elf_fail(&c, plan, "ELF: program header size %u, expected %u", phentsize,
				want_phent);
	/*
	 * phnum <= 0xffff and phentsize <= 56, so the product fits easily;
	 * only phoff + product could wrap, hence the subtraction.
	 */
	if (!phnum)
		return elf_fail(&c, plan, "ELF: no program headers");
	if (phoff > len || (uint64_t)phnum * phentsize > len - phoff)
		return elf_fail(&c, plan, "ELF: program headers [0x%llx, +%u x %u) run past the "
				"image's 0x%zx bytes", (unsigned long long)phoff, phnum, phentsize,
				len);

	plan->is64 = is64;
	for (uint32_t i = 0; i < phnum; i++) {
		struct phdr ph;

		read_phdr(p + phoff + (size_t)i * phentsize, is64, &ph);
		if (ph.type != PT_LOAD)
			continue;
		if (plan_segment(&c, plan, i, &ph, len, min_addr, mem_size))
			return -1;
	}
	if (!plan->segment_count)
		return elf_fail(&c, plan, "ELF: no loadable (PT_LOAD) segment with memory");
	return plan_entry(&c, plan, entry, p + phoff, phnum, phentsize);
}

/* ---- multiboot header ---- */

static int mb_fail(struct elf_ctx *c, struct mb_header_info *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int mb_fail(struct elf_ctx *c, struct mb_header_info *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	if (out)
		memset(out, 0, sizeof(*out));
	return -1;
}

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
static int mb2_tags(struct elf_ctx *c, const uint8_t *img, uint32_t off, uint32_t hlen,
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

static int mb2_check(struct elf_ctx *c, const uint8_t *p, size_t len, uint32_t off,
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

static int mb1_check(struct elf_ctx *c, const uint8_t *p, uint32_t off,
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
	struct elf_ctx c = { .err = err, .errlen = err ? errlen : 0 };
	const uint8_t *p = img;
	uint32_t off, bad2, bad1;

	if (c.errlen)
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
