// SPDX-License-Identifier: MIT
#include "hv/state/pages.h"

#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/spin.h"
#include "hv/upcalls.h"

static uint64_t pool_next, pool_end;
static volatile uint32_t pool_lock;

int pages_init(struct memplan *mp, uint64_t bytes)
{
	uint64_t base = memplan_alloc(mp, bytes, PAGE_SIZE);

	if (!base)
		return -1;
	pool_next = base;
	pool_end = base + bytes;
	return 0;
}

void *hv_pages_alloc(uint64_t bytes, const char *what)
{
	uint64_t size = ALIGN_UP(bytes, PAGE_SIZE), p;

	spin_lock(&pool_lock);
	if (size > pool_end - pool_next) {
		spin_unlock(&pool_lock);
		log_err("memory: the hypervisor pool is exhausted allocating %lu bytes for %s\n",
			bytes, what);
		hv_stop(STOP_FAILURE, "hypervisor pool exhausted");
	}
	p = pool_next;
	pool_next += size;
	spin_unlock(&pool_lock);
	memset((void *)(uintptr_t)p, 0, size);
	return (void *)(uintptr_t)p;
}
