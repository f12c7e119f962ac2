// SPDX-License-Identifier: MIT
#include "arch/x86/highmap.h"

#include <stddef.h>

#define PTE_PRESENT	(1ull << 0)
#define PTE_WRITE	(1ull << 1)
#define PTE_LARGE	(1ull << 7)	/* PS: a 1 GiB page in a PDPTE, 2 MiB in a PDE */
#define PTE_ADDR	0x000ffffffffff000ull	/* bits 51:12 (SDM Vol. 3A 4.5) */
#define GIB		(1ull << 30)

/* The table @e points to, taken from @alloc when @e is empty; NULL when none. */
static uint64_t *next_table(uint64_t *e, highmap_alloc_fn alloc, void *ctx)
{
	uint64_t *t;

	if (*e & PTE_PRESENT)
		return (uint64_t *)(uintptr_t)(*e & PTE_ADDR);
	t = alloc(ctx);
	if (!t)
		return NULL;
	*e = (uint64_t)(uintptr_t)t | PTE_PRESENT | PTE_WRITE;
	return t;
}

int64_t highmap_map(uint64_t *pml4, uint64_t base, uint64_t end, bool page_1g,
		    highmap_alloc_fn alloc, void *ctx)
{
	int64_t mapped = 0;
	uint64_t a = base;

	if (!pml4 || base >= end || end > HIGHMAP_LIMIT || (base | end) & (HIGHMAP_GRAIN - 1))
		return -1;
	while (a < end) {
		uint64_t *pdpt, *pde, *pd, *e3;

		pdpt = next_table(&pml4[(a >> 39) & 511], alloc, ctx);	/* PS is reserved there */
		if (!pdpt)
			return -1;
		e3 = &pdpt[(a >> 30) & 511];
		if (*e3 & PTE_PRESENT && *e3 & PTE_LARGE) {
			a = (a | (GIB - 1)) + 1;	/* a 1 GiB page is there already */
			continue;
		}
		if (page_1g && !(*e3 & PTE_PRESENT) && !(a & (GIB - 1)) && end - a >= GIB) {
			*e3 = a | PTE_PRESENT | PTE_WRITE | PTE_LARGE;
			mapped += GIB;
			a += GIB;
			continue;
		}
		pd = next_table(e3, alloc, ctx);
		if (!pd)
			return -1;
		pde = &pd[(a >> 21) & 511];
		if (!(*pde & PTE_PRESENT)) {
			*pde = a | PTE_PRESENT | PTE_WRITE | PTE_LARGE;
			mapped += HIGHMAP_GRAIN;
		}
		a += HIGHMAP_GRAIN;
	}
	return mapped;
}
