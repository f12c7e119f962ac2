// SPDX-License-Identifier: MIT
/*
 * Guest kernel images: ELF program headers (the multiboot header is
 * hv/core/mb_header.c's).
 *
 * The image is outside input (a GRUB module the operator chose), so it is
 * never trusted: every field is read with memcpy (the image need not be
 * aligned), every offset is checked against the image length and every
 * address range against the partition's memory before the caller copies a
 * byte, with arithmetic arranged so that no sum can wrap. Nothing is written
 * but the plan and the message.
 *
 * References: System V ABI, "ELF header" and "Program header" (gABI 4.1).
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
#define PT_NOTE		4
#define PF_X		1

#define EHDR32_SIZE	52
#define EHDR64_SIZE	64
#define PHDR32_SIZE	32
#define PHDR64_SIZE	56

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
	uint64_t align;
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
		ph->align = rd64(p + 48);
	} else {
		ph->offset = rd32(p + 4);
		ph->vaddr = rd32(p + 8);
		ph->paddr = rd32(p + 12);
		ph->filesz = rd32(p + 16);
		ph->memsz = rd32(p + 20);
		ph->flags = rd32(p + 24);
		ph->align = rd32(p + 28);
	}
}

#define elf_fail(c, out, ...) fmt_fail((c), (out), sizeof(struct elf_plan), __VA_ARGS__)

/*
 * Check one PT_LOAD segment (program header @idx) and append it to the plan.
 * Segments occupying no memory are skipped (once file size <= memory size
 * holds, they have no file bytes either): they load nothing, and linkers do
 * emit them.
 */
static int plan_segment(struct fmt_err *c, struct elf_plan *plan, uint32_t idx,
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
static int plan_entry(struct fmt_err *c, struct elf_plan *plan, uint64_t entry,
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
	struct fmt_err c = { .msg = err, .len = err ? errlen : 0 };
	const uint8_t *p = img;
	uint64_t phoff, entry;
	uint32_t phnum, phentsize, want_phent, ehsize;
	uint16_t type, machine, want_machine;
	bool is64;

	if (c.len)
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

/*
 * The notes of one PT_NOTE segment (gABI "Note Section"): namesz, descsz
 * and type, each 4 bytes in both classes, then the name and the descriptor,
 * each padded to @pad bytes: the segment's alignment, 8 where it is 8 (the
 * GNU property notes that x86-64 toolchains emit: .note.gnu.property),
 * else 4, as binutils' readelf reads them.
 */
static bool notes_hold(const uint8_t *n, uint64_t size, const char *name, uint32_t want,
		       uint32_t pad)
{
	while (size >= 12) {
		uint32_t namesz = rd32(n), descsz = rd32(n + 4);
		uint64_t step = 12 + ALIGN_UP((uint64_t)namesz, pad) + ALIGN_UP((uint64_t)descsz, pad);

		if (step > size)
			return false;
		if (namesz == want && !memcmp(n + 12, name, want))
			return true;
		n += step;
		size -= step;
	}
	return false;
}

/*
 * The scan's bound: each PT_NOTE of at most NOTE_SEGMENT_MAX bytes, at most
 * NOTE_SEGMENTS_MAX of them (Linux's is 0x1fc bytes, one segment), so an
 * image of 65,535 headers all naming one zero-filled region cannot hold
 * the boot in a 12-byte stepping loop for minutes.
 */
#define NOTE_SEGMENT_MAX	0x10000u
#define NOTE_SEGMENTS_MAX	16u

bool elf_has_note(const void *img, size_t len, const char *name)
{
	const uint8_t *p = img;
	uint32_t want = (uint32_t)strlen(name) + 1, phnum, phentsize, seen = 0;
	uint64_t phoff;
	bool is64;

	if (!p || len < EHDR32_SIZE || rd32(p) != 0x464c457fu || p[EI_DATA] != ELFDATA2LSB ||
	    (p[EI_CLASS] != ELFCLASS32 && p[EI_CLASS] != ELFCLASS64))
		return false;
	is64 = p[EI_CLASS] == ELFCLASS64;
	if (is64 && len < EHDR64_SIZE)
		return false;
	phoff = is64 ? rd64(p + 32) : rd32(p + 28);
	phentsize = rd16(p + (is64 ? 54 : 42));
	phnum = rd16(p + (is64 ? 56 : 44));
	if (phentsize < (is64 ? PHDR64_SIZE : PHDR32_SIZE) || phoff > len ||
	    (uint64_t)phnum * phentsize > len - phoff)
		return false;
	for (uint32_t i = 0; i < phnum; i++) {
		struct phdr ph;

		read_phdr(p + phoff + (size_t)i * phentsize, is64, &ph);
		if (ph.type != PT_NOTE)
			continue;
		if (++seen > NOTE_SEGMENTS_MAX)
			return false;
		if (ph.offset > len || ph.filesz > len - ph.offset || ph.filesz > NOTE_SEGMENT_MAX)
			continue;
		if (notes_hold(p + ph.offset, ph.filesz, name, want, ph.align == 8 ? 8 : 4))
			return true;
	}
	return false;
}
