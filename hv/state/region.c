// SPDX-License-Identifier: MIT
/*
 * The partitions' region registries (hv/state/region.h). Entries are added
 * while the partition is built, on the boot CPU, before any of its vCPUs
 * runs; afterwards only an MMIO region's place changes (mmio_region_set),
 * which a concurrent lookup on another vCPU may see half done: its owner
 * checks the access.
 */
#include "hv/state/region.h"

#include "hv/state/partition.h"

int mmio_region_add(struct partition *p, const struct vcpu *vcpu, uint64_t gpa, uint64_t size,
		    mmio_region_fn fn, void *opaque, const char *what)
{
	struct region_table *t = &p->regions;

	if (t->mmio_count >= PART_MMIO_REGIONS)
		return -1;
	t->mmio[t->mmio_count] = (struct mmio_region){ gpa, size, vcpu, fn, opaque, what };
	return (int)t->mmio_count++;
}

void mmio_region_set(struct partition *p, int id, uint64_t gpa, uint64_t size)
{
	struct mmio_region *r;

	if (id < 0 || (uint32_t)id >= p->regions.mmio_count)
		return;
	r = &p->regions.mmio[id];
	__atomic_store_n(&r->size, 0, __ATOMIC_RELEASE);	/* off while it moves */
	__atomic_store_n(&r->gpa, gpa, __ATOMIC_RELEASE);
	__atomic_store_n(&r->size, size, __ATOMIC_RELEASE);
}

const struct mmio_region *mmio_region_find(const struct partition *p, const struct vcpu *v,
					   uint64_t gpa)
{
	const struct region_table *t = &p->regions;

	for (uint32_t i = 0; i < t->mmio_count; i++) {
		const struct mmio_region *r = &t->mmio[i];
		uint64_t size = __atomic_load_n(&r->size, __ATOMIC_ACQUIRE);
		uint64_t base = __atomic_load_n(&r->gpa, __ATOMIC_ACQUIRE);

		if (gpa - base < size && (!r->vcpu || r->vcpu == v))
			return r;
	}
	return (void *)0;
}

int port_region_add(struct partition *p, uint16_t first, uint16_t last, port_region_fn fn,
		    void *opaque, const char *what)
{
	struct region_table *t = &p->regions;

	if (t->port_count >= PART_PORT_REGIONS || last < first)
		return -1;
	for (uint32_t i = 0; i < t->port_count; i++)
		if (first <= t->ports[i].last && t->ports[i].first <= last)
			return -1;
	t->ports[t->port_count] = (struct port_region){ first, last, fn, opaque, what, false, 0 };
	return (int)t->port_count++;
}

void port_region_refuses(struct partition *p, int id)
{
	if (id >= 0 && (uint32_t)id < p->regions.port_count)
		p->regions.ports[id].refuses = true;
}

void port_region_whole(struct partition *p, int id, uint8_t size)
{
	if (id >= 0 && (uint32_t)id < p->regions.port_count)
		p->regions.ports[id].whole_size = size;
}

const struct port_region *port_region_find(const struct partition *p, uint16_t port)
{
	const struct region_table *t = &p->regions;

	for (uint32_t i = 0; i < t->port_count; i++)
		if (port >= t->ports[i].first && port <= t->ports[i].last)
			return &t->ports[i];
	return (void *)0;
}
