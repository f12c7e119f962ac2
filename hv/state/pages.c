// SPDX-License-Identifier: MIT
#include "hv/state/pages.h"

#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/upcalls.h"

static uint64_t pool_next, pool_end;
static volatile int pool_lock;

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

	while (__atomic_exchange_n(&pool_lock, 1, __ATOMIC_ACQUIRE))
		;
	if (size > pool_end - pool_next) {
		__atomic_store_n(&pool_lock, 0, __ATOMIC_RELEASE);
		log_err("memory: the hypervisor pool is exhausted allocating %lu bytes for %s\n",
			bytes, what);
		hv_stop(STOP_FAILURE, "hypervisor pool exhausted");
	}
	p = pool_next;
	pool_next += size;
	__atomic_store_n(&pool_lock, 0, __ATOMIC_RELEASE);
	memset((void *)(uintptr_t)p, 0, size);
	return (void *)(uintptr_t)p;
}
