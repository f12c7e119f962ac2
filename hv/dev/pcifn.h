/* SPDX-License-Identifier: MIT */
/*
 * A partition's assigned PCI functions on its virtual bus (hv/dev/pcifn.c,
 * docs/devices.md): function k of pci = is device channel_count + 1 + k.
 */
#ifndef TEMPO_HV_DEV_PCIFN_H
#define TEMPO_HV_DEV_PCIFN_H

#include <stdbool.h>
#include <stdint.h>

struct partition;

/*
 * A configuration access of @size bytes at @offset to virtual @bdf (bus 0):
 * true when @bdf is one of @p's assigned functions and the access went to
 * its filter (*@value read, or written), false to leave it to the channels'
 * bus.
 */
bool pcifn_cfg(struct partition *p, uint32_t bdf, uint32_t offset, uint8_t size, bool in,
	       uint32_t *value);

/* The virtual device number of function @k of @p's pci = (the rule above). */
uint32_t pcifn_device(const struct partition *p, uint32_t k);

#endif
