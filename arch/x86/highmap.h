/* SPDX-License-Identifier: MIT */
/*
 * RAM above 4 GiB, mapped one to one into the boot page tables (which map
 * 0..4 GiB, boot/entry.S) once the memory map is known. Pure: the tables are
 * reached through their addresses (identity-mapped in Tempo, heap pages in
 * the host unit test), so it is unit-tested on the host.
 */
#ifndef TEMPO_ARCH_X86_HIGHMAP_H
#define TEMPO_ARCH_X86_HIGHMAP_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Four-level paging, lower half: an identity map ends where canonical
 * addresses do (2^47), whatever MAXPHYADDR the CPU reports.
 */
#define HIGHMAP_LIMIT	(1ull << 47)
#define HIGHMAP_GRAIN	(1ull << 21)	/* 2 MiB: the smallest page used */

/* A zeroed, 4 KiB-aligned page for a table, or NULL when none is left. */
typedef uint64_t *(*highmap_alloc_fn)(void *ctx);

/*
 * Map [@base, @end) to itself, present, writable, write-back (PAT index 0),
 * in the tables under @pml4: 1 GiB pages where @page_1g (CPUID
 * 80000001H:EDX[26]) and a whole aligned GiB lies in the range, else 2 MiB
 * pages, taking new PDPTs and PDs from @alloc. @base and @end must be 2 MiB
 * aligned with @base < @end <= HIGHMAP_LIMIT (else nothing is done and -1
 * returned). An entry already present is kept (a large page covers its
 * range; a table is descended into), so overlapping or repeated calls and
 * the boot map's first 4 GiB are safe. Returns the bytes newly mapped, or
 * -1 when @alloc ran out (what was mapped stays mapped).
 */
int64_t highmap_map(uint64_t *pml4, uint64_t base, uint64_t end, bool page_1g,
		    highmap_alloc_fn alloc, void *ctx);

#endif
