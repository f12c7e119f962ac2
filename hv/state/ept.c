// SPDX-License-Identifier: MIT
/*
 * A partition's EPT: its RAM where its guest sees it and its channels,
 * built at boot from the hypervisor's pool and never changed after its
 * vCPUs run (nothing is ever remapped).
 */
#include "hv/state/ept.h"

#include "arch/x86/vmx_defs.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"

#define EPT_TABLE_MASK	0x000ffffffffff000ull
#define MIB2		(2ull << 20)

/* The table an EPT entry points to, made if the entry is empty; NULL if it maps a page. */
static uint64_t *ept_table(uint64_t *entry)
{
	if (!*entry)
		*entry = (uint64_t)hv_pages_alloc(PAGE_SIZE, "EPT table") | EPT_RWX;
	if (*entry & EPT_LARGE_PAGE)
		return NULL;
	return (uint64_t *)(uintptr_t)(*entry & EPT_TABLE_MASK);
}

void ept_create(struct partition *p)
{
	p->eptp = (uint64_t)hv_pages_alloc(PAGE_SIZE, "EPT PML4") | EPTP_MEMTYPE_WB | EPTP_WALK_4;
}

/*
 * @type (the leaf's memory type bits): 2 MiB pages where both addresses are
 * aligned, 4 KiB pages elsewhere.
 */
static int map(struct partition *p, uint64_t gpa, uint64_t hpa, uint64_t size, uint64_t perm,
	       uint64_t type)
{
	uint64_t *pml4 = (uint64_t *)(uintptr_t)(p->eptp & EPT_TABLE_MASK);

	while (size) {
		uint64_t *pdpt = ept_table(&pml4[(gpa >> 39) & 511]);
		uint64_t *pd = pdpt ? ept_table(&pdpt[(gpa >> 30) & 511]) : NULL;
		uint64_t *pde = pd ? &pd[(gpa >> 21) & 511] : NULL, *pt, step = PAGE_SIZE;

		if (!pde)
			return -1;
		if (!((gpa | hpa) & (MIB2 - 1)) && size >= MIB2 && !*pde) {
			*pde = hpa | perm | type | EPT_LARGE_PAGE;
			step = MIB2;
		} else {
			pt = ept_table(pde);
			if (!pt || pt[(gpa >> 12) & 511])
				return -1;
			pt[(gpa >> 12) & 511] = hpa | perm | type;
		}
		gpa += step;
		hpa += step;
		size -= step;
	}
	return 0;
}

int ept_map(struct partition *p, uint64_t gpa, uint64_t hpa, uint64_t size, uint64_t perm)
{
	return map(p, gpa, hpa, size, perm, EPT_MEMTYPE_WB);
}

/* Memory type 0 (UC) with ignore-PAT: the guest's PAT cannot make a device's page cached. */
int ept_map_uc(struct partition *p, uint64_t gpa, uint64_t hpa, uint64_t size, uint64_t perm)
{
	return map(p, gpa, hpa, size, perm, EPT_MEMTYPE_UC | EPT_IGNORE_PAT);
}
