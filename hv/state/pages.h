/* SPDX-License-Identifier: MIT */
/*
 * The hypervisor's own memory (VMCS, VMXON regions, EPT tables, MSR bitmaps,
 * stacks): one pool carved at boot, handed out in zeroed 4 KiB pages and
 * never freed. Identity-mapped, so a pointer is its physical address.
 */
#ifndef TEMPO_HV_PAGES_H
#define TEMPO_HV_PAGES_H

#include <stdint.h>

#include "hv/core/memplan.h"
#include "hv/upcalls.h"	/* hv_pages_alloc: arch takes its pages from the pool too */

#define PAGE_SIZE 4096ul

/* Take @bytes for the pool from @mp; false when memory is short. */
int pages_init(struct memplan *mp, uint64_t bytes);

#endif
