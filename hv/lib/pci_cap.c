// SPDX-License-Identifier: MIT
/* The capability-list walk (hv/lib/pci_cap.h; PCI Local Bus 3.0, 6.7). */
#include "hv/lib/pci_cap.h"

#define CARDBUS_CAP_PTR		0x14
#define CAP_PTR_MASK		0xfcu

void pci_cap_walk(const struct pci_cfg_ops *ops, uint32_t bdf, uint8_t header_type,
		  struct pci_cap_list *out)
{
	uint64_t seen[PCI_CONFIG_SIZE / 4 / 64] = { 0 };	/* one bit per dword */
	uint8_t ptr;

	out->count = 0;
	out->malformed = false;
	if (!(ops->read(ops->ctx, bdf, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST))
		return;
	if ((header_type & PCI_HEADER_TYPE_MASK) == PCI_HEADER_TYPE_CARDBUS)
		ptr = (uint8_t)ops->read(ops->ctx, bdf, CARDBUS_CAP_PTR, 1);
	else
		ptr = (uint8_t)ops->read(ops->ctx, bdf, PCI_CAPABILITY_LIST, 1);
	for (ptr &= CAP_PTR_MASK; ptr; ) {
		uint32_t dw = ptr / 4u, head;

		if (ptr < PCI_STD_HEADER_END || (seen[dw / 64] >> (dw % 64) & 1) ||
		    out->count >= PCI_CAP_MAX_COUNT) {
			out->malformed = true;
			return;
		}
		seen[dw / 64] |= 1ull << (dw % 64);
		head = ops->read(ops->ctx, bdf, ptr, 2);
		out->cap[out->count].id = (uint8_t)head;
		out->cap[out->count].offset = ptr;
		out->count++;
		ptr = (uint8_t)(head >> 8) & CAP_PTR_MASK;
	}
}

uint8_t pci_cap_find(const struct pci_cap_list *l, uint8_t id)
{
	for (uint32_t i = 0; i < l->count && i < PCI_CAP_MAX_COUNT; i++)
		if (l->cap[i].id == id)
			return l->cap[i].offset;
	return 0;
}
