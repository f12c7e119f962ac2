// SPDX-License-Identifier: MIT
/* QEMU's fw_cfg, the items a test kernel reads (hv/core/fw_cfg.h). */
#include "hv/core/fw_cfg.h"

#include "hv/lib/lib.h"

void fw_cfg_init(struct fw_cfg *f, uint64_t ram_bytes, uint16_t cpus)
{
	memset(f, 0, sizeof(*f));
	f->ram_bytes = ram_bytes;
	f->cpus = cpus;
}

void fw_cfg_select(struct fw_cfg *f, uint16_t key)
{
	f->key = key;
	f->offset = 0;
}

/* Byte @i of the little-endian @v, @n bytes long; 0 past its end. */
static uint8_t le_byte(uint64_t v, uint32_t n, uint32_t i)
{
	return i < n ? (uint8_t)(v >> (8 * i)) : 0;
}

uint8_t fw_cfg_read(struct fw_cfg *f)
{
	uint32_t i = f->offset;

	if (f->offset < UINT32_MAX)
		f->offset++;
	switch (f->key) {
	case FW_CFG_SIGNATURE:
		return le_byte(0x554d4551u, 4, i);	/* "QEMU" */
	case FW_CFG_ID:
		return le_byte(1, 4, i);
	case FW_CFG_RAM_SIZE:
		return le_byte(f->ram_bytes, 8, i);
	case FW_CFG_NB_CPUS:
	case FW_CFG_MAX_CPUS:
		return le_byte(f->cpus, 2, i);
	default:
		return 0;
	}
}
