/* SPDX-License-Identifier: MIT */
/*
 * Guest kernel images: the ELF program headers and the multiboot header.
 * Outside input: every offset and size is checked against the image length
 * and the partition's memory before a byte is copied. Host-testable; fuzzed.
 */
#ifndef TEMPO_HV_ELF_H
#define TEMPO_HV_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_MAX_SEGMENTS 16

struct elf_segment {
	uint64_t file_offset;	/* where the bytes are in the image */
	uint64_t file_size;	/* bytes to copy */
	uint64_t paddr;		/* guest-physical load address (p_paddr) */
	uint64_t mem_size;	/* bytes occupied; the tail past file_size is zeroed */
	bool exec;		/* PF_X */
};

struct elf_plan {
	bool is64;		/* ELFCLASS64 (x86-64) or ELFCLASS32 (i386) */
	uint64_t entry;		/* e_entry (the multiboot entry unless overridden) */
	uint32_t segment_count;
	struct elf_segment segments[ELF_MAX_SEGMENTS];
	uint64_t lowest;	/* lowest paddr loaded */
	uint64_t highest;	/* one past the highest byte loaded */
};

/*
 * Check @img (@len bytes) is a little-endian i386 or x86-64 executable ELF
 * (ET_EXEC) and plan its PT_LOAD segments: each lies within
 * [@min_addr, @mem_size) of guest-physical memory, its file bytes within the
 * image, file_size <= mem_size, no two segments overlap, and the entry point
 * lies in an executable segment. Returns 0, or -1 with a reason in @err.
 */
int elf_plan_load(const void *img, size_t len, uint64_t min_addr, uint64_t mem_size,
		  struct elf_plan *plan, char *err, size_t errlen);

/*
 * Does @img (@len bytes), an ELF of either class, hold a note named @name
 * (NUL-terminated, as the note's n_namesz counts it) in one of its PT_NOTE
 * segments? A Linux vmlinux has "Linux" notes (hv/build/build.c). Reads
 * nothing outside the image: a malformed header or note ends the search
 * with false. Bounded work: the first 16 PT_NOTEs, each up to 64 KiB.
 */
bool elf_has_note(const void *img, size_t len, const char *name);

#endif
