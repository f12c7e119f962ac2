/* SPDX-License-Identifier: MIT */
/*
 * Physical memory planning: which RAM is free once the hypervisor image, the
 * loader's info block, the boot modules and the low 1 MiB are set aside, and
 * carving it for partitions and hypervisor pages. Pure and host-testable.
 */
#ifndef TEMPO_HV_MEMPLAN_H
#define TEMPO_HV_MEMPLAN_H

#include <stdbool.h>
#include <stdint.h>

#define MEMPLAN_MAX_RANGES 64

struct mem_range {
	uint64_t base;
	uint64_t end;	/* exclusive */
};

struct memplan {
	uint32_t count;
	struct mem_range free[MEMPLAN_MAX_RANGES];	/* sorted, disjoint, non-empty */
	uint64_t limit;	/* nothing at or above this is used (the identity map's end) */
};

/* Start with no free memory; @limit as above. */
void memplan_init(struct memplan *mp, uint64_t limit);

/*
 * Widen the limit to @limit (the identity map grew): ranges added from then
 * on may reach it; free ranges already there are kept. A lower @limit is
 * ignored, so nothing handed out is ever outside the map.
 */
void memplan_raise_limit(struct memplan *mp, uint64_t limit);

/*
 * Add a usable range (clipped to the limit; merged with neighbours). Returns
 * false if the table is full (the range is then dropped).
 */
bool memplan_add(struct memplan *mp, uint64_t base, uint64_t length);

/*
 * Remove [base, base+length) from the free ranges (splitting as needed).
 * Returns false if a split found the table full: the smaller leftover piece
 * is then dropped too, so reserved memory never stays free.
 */
bool memplan_reserve(struct memplan *mp, uint64_t base, uint64_t length);

/*
 * Take @size bytes aligned to @align (a power of two) from the free ranges,
 * highest address first (so low memory stays for what needs it). Returns
 * the base, or 0 when nothing fits.
 */
uint64_t memplan_alloc(struct memplan *mp, uint64_t size, uint64_t align);

/* Take exactly [base, base+size) if it is entirely free; false otherwise. */
bool memplan_take(struct memplan *mp, uint64_t base, uint64_t size);

uint64_t memplan_free_bytes(const struct memplan *mp);

/* The most memplan_alloc() could give at @align (a power of two) in one piece. */
uint64_t memplan_largest(const struct memplan *mp, uint64_t align);

/*
 * The hypervisor's own pool, the first thing the boot carves (below 4 GiB,
 * top down): 8 MiB, plus for each CPU the MADT lists a stack, its traps and
 * IST stacks, a VMXON region and its per-CPU block (about 40 KiB), plus for
 * each vCPU the config asks for its struct, VMCS, virtual-APIC page and an
 * XSAVE area (up to about 24 KiB), plus for each GiB of partition RAM the
 * EPT page directory that maps it in 2 MiB pages (4 KiB; the base covers
 * each partition's PML4, PDPTs and its part of a GiB). hv/start/main.c carves it;
 * tempo-config plans with the same figure.
 */
#define HV_POOL_BASE_BYTES	((uint64_t)8 << 20)
#define HV_POOL_PER_CPU		((uint64_t)64 << 10)
#define HV_POOL_PER_VCPU	((uint64_t)32 << 10)
#define HV_POOL_PER_RAM_GIB	((uint64_t)4 << 10)

static inline uint64_t hv_pool_bytes(uint64_t cpus, uint64_t vcpus, uint64_t ram_bytes)
{
	return HV_POOL_BASE_BYTES + cpus * HV_POOL_PER_CPU + vcpus * HV_POOL_PER_VCPU +
	       (ram_bytes >> 30) * HV_POOL_PER_RAM_GIB;
}

#endif
