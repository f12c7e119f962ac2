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

#define PAGE_SIZE 4096ul

/* Take @bytes for the pool from @mp; false when memory is short. */
int pages_init(struct memplan *mp, uint64_t bytes);
/* @bytes rounded up to pages, zeroed; stops the run with a message when empty. */
void *pages_alloc(uint64_t bytes, const char *what);

#endif
