/* SPDX-License-Identifier: MIT */
/*
 * Where a partition's RAM lies in its guest-physical space. The host gives a
 * partition one range of mem_size bytes; the guest sees it as a PC sees its
 * RAM around the MMIO hole below 4 GiB:
 *
 *   low:  [0, GUEST_RAM_LOW_MAX)           host offset = gpa
 *   high: [4 GiB, 4 GiB + the rest)         host offset = low + (gpa - 4 GiB)
 *
 * A partition of at most GUEST_RAM_LOW_MAX bytes has no high piece, and its
 * RAM is [0, mem_size) as before. The low piece ends at the guest MMIO
 * window (CONFIG_GUEST_MMIO_START, 0xFEB00000: channel registers, IOAPIC,
 * LAPIC, firmware) rounded down to 2 MiB, so EPT maps both pieces in 2 MiB
 * pages. Pure: the hypervisor, the host tests and tempo-config use it alike.
 */
#ifndef TEMPO_HV_GUEST_RAM_H
#define TEMPO_HV_GUEST_RAM_H

#include <stdbool.h>
#include <stdint.h>

#define GUEST_RAM_LOW_MAX	0xfea00000ull	/* 4,074 MiB: 0xFEB00000 down to 2 MiB */
#define GUEST_RAM_HIGH_BASE	0x100000000ull	/* the high piece starts at 4 GiB */

/* Bytes of RAM the guest sees below its MMIO window. */
static inline uint64_t guest_ram_low(uint64_t mem_size)
{
	return mem_size < GUEST_RAM_LOW_MAX ? mem_size : GUEST_RAM_LOW_MAX;
}

/* Bytes of RAM the guest sees from 4 GiB up (0: none). */
static inline uint64_t guest_ram_high(uint64_t mem_size)
{
	return mem_size - guest_ram_low(mem_size);
}

/* The guest-physical end (exclusive) of the partition's RAM. */
static inline uint64_t guest_ram_end(uint64_t mem_size)
{
	return guest_ram_high(mem_size) ? GUEST_RAM_HIGH_BASE + guest_ram_high(mem_size) :
					  mem_size;
}

/*
 * True when [gpa, gpa + len) lies wholly in one piece of the RAM, without
 * wrapping; *off (may be NULL) is then its offset in the partition's host
 * range. A range that runs from one piece into the gap or past the end is
 * refused, as is one of length 0 at the end.
 */
static inline bool guest_ram_offset(uint64_t mem_size, uint64_t gpa, uint64_t len,
				    uint64_t *off)
{
	uint64_t low = guest_ram_low(mem_size), high = mem_size - low, o;

	if (gpa < low) {
		if (len > low - gpa)
			return false;
		o = gpa;
	} else if (gpa >= GUEST_RAM_HIGH_BASE && gpa - GUEST_RAM_HIGH_BASE < high) {
		if (len > high - (gpa - GUEST_RAM_HIGH_BASE))
			return false;
		o = low + (gpa - GUEST_RAM_HIGH_BASE);
	} else {
		return false;
	}
	if (off)
		*off = o;
	return true;
}

/* True when [gpa, gpa + size) (size > 0, no wrap) meets any of the RAM. */
static inline bool guest_ram_overlaps(uint64_t mem_size, uint64_t gpa, uint64_t size)
{
	uint64_t low = guest_ram_low(mem_size), high = mem_size - low;

	if (gpa < low)
		return true;
	return high && gpa < GUEST_RAM_HIGH_BASE + high && GUEST_RAM_HIGH_BASE < gpa + size;
}

#endif
