/* SPDX-License-Identifier: MIT */
/*
 * A PCI function's capability list (PCI Local Bus 3.0, 6.7), walked
 * through struct pci_cfg_ops: the one walk the boot's enumeration
 * (drivers/pci.c) and the filter of an assigned function
 * (hv/core/pci_assign.c) both use. Configuration space is outside input
 * (a broken or hostile function, or a mechanism reading all ones): the
 * walk is bounded and ends at a loop.
 */
#ifndef TEMPO_HV_LIB_PCI_CAP_H
#define TEMPO_HV_LIB_PCI_CAP_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/lib/pci_defs.h"

struct pci_cap {
	uint8_t id;
	uint8_t offset;		/* dword-aligned, 0x40..0xFC */
};

struct pci_cap_list {
	uint32_t count;
	struct pci_cap cap[PCI_CAP_MAX_COUNT];
	/*
	 * The walk ended early: a pointer below 0x40 (into the header), one
	 * already visited (a loop), or more than PCI_CAP_MAX_COUNT entries.
	 * What was found before stays in the list.
	 */
	bool malformed;
};

/*
 * The list of function @bdf whose header type is @header_type (its
 * pointer is at 0x34 for types 0 and 1, 0x14 for CardBus): empty when the
 * status register's capability-list bit is clear. Pointers are masked to
 * a dword boundary (bits 1:0 are reserved, 6.7).
 */
void pci_cap_walk(const struct pci_cfg_ops *ops, uint32_t bdf, uint8_t header_type,
		  struct pci_cap_list *out);

/* The first capability with @id, its offset; 0 if none. */
uint8_t pci_cap_find(const struct pci_cap_list *l, uint8_t id);

#endif
