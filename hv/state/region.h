/* SPDX-License-Identifier: MIT */
/*
 * Who answers a partition's access outside its RAM (hv/state/region.c):
 * one registry of guest-physical regions and one of port ranges per
 * partition, each entry naming its owner and its handler. The exit path asks
 * the registry and never names a device; a device registers its regions
 * from its partition hook (hv/state/hooks.h) and moves them when the guest
 * moves it (a BAR, the xAPIC page).
 */
#ifndef TEMPO_HV_STATE_REGION_H
#define TEMPO_HV_STATE_REGION_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/config.h"
#include "hv/state/exit_ctx.h"

struct partition;
struct vcpu;

/*
 * An access the EPT trapped at @gpa, inside the region (@opaque is its
 * owner's): emulated (*@a says what happens next), or false if the owner
 * finds it is not its own after all (the region moved meanwhile): then it
 * is an access to nothing, as if no region were there.
 */
typedef bool (*mmio_region_fn)(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, void *opaque,
			       enum exit_action *a);

/*
 * IN (@in: *@value is filled, the low @size bytes count) or OUT (*@value
 * holds the bytes) of @size bytes (1, 2, 4) at @port of the range.
 */
typedef enum exit_action (*port_region_fn)(struct vcpu *v, struct exit_ctx *x, uint16_t port,
					   uint8_t size, bool in, uint32_t *value, void *opaque);

struct mmio_region {
	/* page-aligned; moved (or turned off: size 0) by its owner, mmio_region_set */
	volatile uint64_t gpa;
	volatile uint64_t size;
	const struct vcpu *vcpu;	/* only this vCPU's accesses (its xAPIC page); NULL: all */
	mmio_region_fn fn;
	void *opaque;
	const char *what;	/* the owner, for the report */
};

struct port_region {
	uint16_t first, last;	/* inclusive */
	port_region_fn fn;
	void *opaque;
	const char *what;
	/*
	 * Its handler stops the partition (another partition's ports): an
	 * access with one byte here is wholly this range's (hv/exit/io.c).
	 */
	bool refuses;
	/*
	 * An access of this many bytes at its first port is its alone,
	 * whatever ports it covers (CONFIG_ADDRESS: a dword at 0xCF8); 0: none.
	 */
	uint8_t whole_size;
};

/*
 * Enough for every vCPU's xAPIC page, every channel function's BAR0 and
 * the devices a partition may be given.
 */
#define PART_MMIO_REGIONS	(CONFIG_MAX_VCPUS + CONFIG_MAX_CHANNELS + 32)
#define PART_PORT_REGIONS	32

struct region_table {
	uint32_t mmio_count, port_count;
	struct mmio_region mmio[PART_MMIO_REGIONS];
	struct port_region ports[PART_PORT_REGIONS];
};

/*
 * Add a region of @size bytes at @gpa (size 0: off for now), only @vcpu's
 * if not NULL, at build time: no exit reads the table yet. Returns its id,
 * or -1 when the table is full.
 */
int mmio_region_add(struct partition *p, const struct vcpu *vcpu, uint64_t gpa, uint64_t size,
		    mmio_region_fn fn, void *opaque, const char *what);
/*
 * Region @id is now [@gpa, @gpa + @size) (0: off). An exit on another vCPU
 * may look meanwhile and pair the new address with the old size: the
 * handler checks that the access is its own.
 */
void mmio_region_set(struct partition *p, int id, uint64_t gpa, uint64_t size);
/* The region @v's access at @gpa falls in, or NULL. */
const struct mmio_region *mmio_region_find(const struct partition *p, const struct vcpu *v,
					   uint64_t gpa);

/* Add ports [@first, @last] (at build time). -1 when full or overlapping another range. */
int port_region_add(struct partition *p, uint16_t first, uint16_t last, port_region_fn fn,
		    void *opaque, const char *what);
/* Range @id (from port_region_add) stops the partition: see struct port_region. */
void port_region_refuses(struct partition *p, int id);
/* Range @id (from port_region_add) takes an access of @size bytes at its first port whole. */
void port_region_whole(struct partition *p, int id, uint8_t size);
/* The range @port falls in, or NULL (no device: reads float high, writes are dropped). */
const struct port_region *port_region_find(const struct partition *p, uint16_t port);

#endif
