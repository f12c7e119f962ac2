// SPDX-License-Identifier: MIT
/* A partition's RAM in its DMA page table, where its EPT puts it. */
#include "hv/core/iommu_map.h"

#include "hv/core/guest_ram.h"

int iommu_map_partition_ram(struct vtd_slpt *pt, uint64_t mem_size, uint64_t ram_hpa)
{
	uint64_t low = guest_ram_low(mem_size), high = guest_ram_high(mem_size);
	int ret;

	if (!mem_size)
		return VTD_EINVAL;
	ret = vtd_slpt_map(pt, 0, ram_hpa, low, VTD_PERM_RW);
	if (ret || !high)
		return ret;
	return vtd_slpt_map(pt, GUEST_RAM_HIGH_BASE, ram_hpa + low, high, VTD_PERM_RW);
}
