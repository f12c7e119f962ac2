/* SPDX-License-Identifier: MIT */
/*
 * The part of QEMU's fw_cfg device a test kernel reads (kvm-unit-tests: its
 * CPU count and RAM size), for a partition with fw_cfg = on: the legacy
 * interface only, a 16-bit selector write to FW_CFG_PORT_SEL and byte reads
 * from FW_CFG_PORT_DATA, each read the item's next byte (0 past its end, and
 * for every item not listed). No DMA interface (FW_CFG_ID bit 1 clear), no
 * writes. Layout from QEMU's docs/specs/fw_cfg.rst. Pure.
 */
#ifndef TEMPO_HV_CORE_FW_CFG_H
#define TEMPO_HV_CORE_FW_CFG_H

#include <stdint.h>

#define FW_CFG_PORT_SEL		0x510
#define FW_CFG_PORT_DATA	0x511

#define FW_CFG_SIGNATURE	0x0000	/* "QEMU" */
#define FW_CFG_ID		0x0001	/* u32 feature bits: 1 = the traditional interface */
#define FW_CFG_RAM_SIZE		0x0003	/* u64, little-endian */
#define FW_CFG_NB_CPUS		0x0005	/* u16 */
#define FW_CFG_MAX_CPUS		0x000f	/* u16 */

struct fw_cfg {
	uint16_t key;		/* the selected item */
	uint32_t offset;	/* the next byte of it */
	uint64_t ram_bytes;
	uint16_t cpus;
};

void fw_cfg_init(struct fw_cfg *f, uint64_t ram_bytes, uint16_t cpus);
/* A write to the selector port: a new item, read from its first byte. */
void fw_cfg_select(struct fw_cfg *f, uint16_t key);
/* A read of the data port: the item's next byte. */
uint8_t fw_cfg_read(struct fw_cfg *f);

#endif
