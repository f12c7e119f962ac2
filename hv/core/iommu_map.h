/* SPDX-License-Identifier: MIT */
/*
 * A partition's DMA view: its devices reach the same guest-physical
 * addresses as its CPUs do through EPT (hv/build/build.c), so a driver in
 * the guest programs them with guest-physical addresses. The RAM is one
 * host range seen in two pieces (hv/core/guest_ram.h); channels are mapped
 * by their own gpa with vtd_slpt_map (read-only for a read-only peer).
 */
#ifndef TEMPO_HV_CORE_IOMMU_MAP_H
#define TEMPO_HV_CORE_IOMMU_MAP_H

#include <stdint.h>

#include "hv/lib/vtd.h"

/*
 * Map the partition's RAM (@mem_size bytes at host @ram_hpa) into @pt,
 * readable and writable: [0, low) and, past the MMIO window, [4 GiB, 4 GiB
 * + the rest). Returns vtd_slpt_map's answer (VTD_OK, or the first error).
 */
int iommu_map_partition_ram(struct vtd_slpt *pt, uint64_t mem_size, uint64_t ram_hpa);

#endif
