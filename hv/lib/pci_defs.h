/* SPDX-License-Identifier: MIT */
/*
 * PCI configuration space: the registers, bits and capabilities that
 * Tempo's PCI code names, definitions only. The virtual bus
 * (hv/core/vpci.c), the filter of an assigned function
 * (hv/core/pci_assign.c) and the boot's enumeration (drivers/pci.c) share
 * them.
 *
 * References: PCI Local Bus Specification 3.0: 3.2.2.3.2 (configuration
 * mechanism #1), 6.1 and 6.2 (the type 0 header), 6.2.5 (BARs), 6.7
 * (capabilities list), 6.8.1 (MSI), 6.8.2 (MSI-X); PCI-to-PCI Bridge
 * Architecture 1.2, 3.2 (the type 1 header); PCI Express Base 4.0, 7.2.2
 * (ECAM) and 7.5.3 (the PCI Express capability).
 */
#ifndef TEMPO_HV_LIB_PCI_DEFS_H
#define TEMPO_HV_LIB_PCI_DEFS_H

#include <stdint.h>

/* Bus, device and function as one 16-bit number: bus 15:8, device 7:3, function 2:0. */
#define PCI_BDF(bus, dev, fn)	((uint32_t)(bus) << 8 | (uint32_t)(dev) << 3 | (uint32_t)(fn))
#define PCI_BDF_BUS(bdf)	(((bdf) >> 8) & 0xff)
#define PCI_BDF_DEV(bdf)	(((bdf) >> 3) & 0x1f)
#define PCI_BDF_FN(bdf)		((bdf) & 7)
#define PCI_MAX_BUS		255
#define PCI_DEVS_PER_BUS	32
#define PCI_FNS_PER_DEV		8

/* Configuration mechanism #1 (3.2.2.3.2) */
#define PCI_CONFIG_ADDRESS_PORT	0xcf8
#define PCI_CONFIG_DATA_PORT	0xcfc	/* 0xcfc-0xcff */
#define PCI_CF8_ENABLE		0x80000000u
#define PCI_CF8(bdf, reg)	(PCI_CF8_ENABLE | (uint32_t)(bdf) << 8 | ((uint32_t)(reg) & 0xfc))

/* ECAM: 4 KiB of configuration space per function, 1 MiB per bus (PCIe 7.2.2). */
#define PCI_ECAM_BUS_SHIFT	20
#define PCI_ECAM_FN_SHIFT	12
#define PCI_ECAM_OFFSET(bdf)	((uint64_t)(bdf) << PCI_ECAM_FN_SHIFT)

#define PCI_CONFIG_SIZE		0x100	/* conventional: what mechanism #1 reaches */
#define PCI_EXT_CONFIG_SIZE	0x1000	/* PCI Express, through ECAM */

/* The header, common part (6.1) */
#define PCI_VENDOR_ID		0x00
#define PCI_DEVICE_ID		0x02
#define PCI_COMMAND		0x04
#define PCI_STATUS		0x06
#define PCI_REVISION_ID		0x08
#define PCI_CLASS_PROG		0x09
#define PCI_CLASS_DEVICE	0x0a
#define PCI_CACHE_LINE_SIZE	0x0c
#define PCI_LATENCY_TIMER	0x0d
#define PCI_HEADER_TYPE		0x0e
#define PCI_BIST		0x0f
#define PCI_BAR0		0x10
#define PCI_BAR1		0x14
#define PCI_BAR2		0x18
#define PCI_BAR3		0x1c
#define PCI_BAR4		0x20
#define PCI_BAR5		0x24
#define PCI_CARDBUS_CIS		0x28
#define PCI_SUBSYSTEM_VENDOR_ID	0x2c
#define PCI_SUBSYSTEM_ID	0x2e
#define PCI_ROM_ADDRESS		0x30	/* type 0 */
#define PCI_CAPABILITY_LIST	0x34
#define PCI_INTERRUPT_LINE	0x3c
#define PCI_INTERRUPT_PIN	0x3d
#define PCI_MIN_GNT		0x3e
#define PCI_MAX_LAT		0x3f
#define PCI_STD_HEADER_END	0x40	/* capabilities live at or above */
#define PCI_TYPE0_BARS		6

/* The type 1 (PCI-to-PCI bridge) header (Bridge 1.2, 3.2) */
#define PCI_PRIMARY_BUS		0x18
#define PCI_SECONDARY_BUS	0x19
#define PCI_SUBORDINATE_BUS	0x1a
#define PCI_IO_BASE		0x1c
#define PCI_MEMORY_BASE		0x20
#define PCI_PREF_MEMORY_BASE	0x24
#define PCI_PREF_BASE_UPPER32	0x28
#define PCI_IO_BASE_UPPER16	0x30
#define PCI_ROM_ADDRESS1	0x38	/* type 1 */
#define PCI_BRIDGE_CONTROL	0x3e
#define PCI_TYPE1_BARS		2

#define PCI_HEADER_TYPE_MASK	0x7f
#define PCI_HEADER_TYPE_MFD	0x80	/* the device has functions 1-7 */
#define PCI_HEADER_TYPE_NORMAL	0
#define PCI_HEADER_TYPE_BRIDGE	1
#define PCI_HEADER_TYPE_CARDBUS	2

#define PCI_COMMAND_IO		0x0001
#define PCI_COMMAND_MEMORY	0x0002
#define PCI_COMMAND_MASTER	0x0004
#define PCI_COMMAND_SPECIAL	0x0008
#define PCI_COMMAND_INVALIDATE	0x0010
#define PCI_COMMAND_VGA_PALETTE	0x0020
#define PCI_COMMAND_PARITY	0x0040
#define PCI_COMMAND_SERR	0x0100
#define PCI_COMMAND_FAST_BACK	0x0200
#define PCI_COMMAND_INTX_DISABLE 0x0400

#define PCI_STATUS_CAP_LIST	0x0010

/* Class codes: base class 23:16, subclass 15:8, programming interface 7:0 */
#define PCI_BASE_CLASS_BRIDGE	0x06
#define PCI_CLASS_BRIDGE_HOST	0x060000
#define PCI_CLASS_BRIDGE_PCI	0x060400

/* BARs (6.2.5.1) */
#define PCI_BAR_SPACE_IO	0x01	/* bit 0: I/O space */
#define PCI_BAR_IO_MASK		(~0x3u)
#define PCI_BAR_MEM_TYPE_MASK	0x06
#define PCI_BAR_MEM_TYPE_32	0x00
#define PCI_BAR_MEM_TYPE_1M	0x02	/* PCI 2.x "below 1 MiB": treated as 32-bit */
#define PCI_BAR_MEM_TYPE_64	0x04
#define PCI_BAR_MEM_PREFETCH	0x08
#define PCI_BAR_MEM_MASK	(~0xfu)
#define PCI_ROM_ENABLE		0x1u
#define PCI_ROM_ADDRESS_MASK	(~0x7ffu)

/* Capability IDs (PCI Code and ID Assignment 1.11, 2) and the list's links */
#define PCI_CAP_LIST_ID		0
#define PCI_CAP_LIST_NEXT	1
#define PCI_CAP_ID_PM		0x01
#define PCI_CAP_ID_MSI		0x05
#define PCI_CAP_ID_VNDR		0x09
#define PCI_CAP_ID_EXP		0x10
#define PCI_CAP_ID_MSIX		0x11
/*
 * A list longer than this is a loop or garbage: 48 capabilities of the
 * smallest size (4 bytes) fill the 192 bytes above the header.
 */
#define PCI_CAP_MAX_COUNT	48

/* MSI (6.8.1), offsets from the capability's start */
#define PCI_MSI_FLAGS		0x02	/* message control */
#define PCI_MSI_ADDRESS_LO	0x04
#define PCI_MSI_ADDRESS_HI	0x08	/* 64-bit capable only */
#define PCI_MSI_DATA_32		0x08
#define PCI_MSI_DATA_64		0x0c
#define PCI_MSI_MASK_32		0x0c	/* per-vector masking only */
#define PCI_MSI_MASK_64		0x10
#define PCI_MSI_PENDING_32	0x10
#define PCI_MSI_PENDING_64	0x14
#define PCI_MSI_FLAGS_ENABLE	0x0001
#define PCI_MSI_FLAGS_QMASK	0x000e	/* multiple message capable: log2 of the vectors */
#define PCI_MSI_FLAGS_QSIZE	0x0070	/* multiple message enable */
#define PCI_MSI_FLAGS_QMASK_SHIFT 1
#define PCI_MSI_FLAGS_QSIZE_SHIFT 4
#define PCI_MSI_FLAGS_64BIT	0x0080
#define PCI_MSI_FLAGS_MASKBIT	0x0100

/* MSI-X (6.8.2), offsets from the capability's start */
#define PCI_MSIX_FLAGS		0x02	/* message control */
#define PCI_MSIX_TABLE		0x04	/* table offset 31:3, BIR 2:0 */
#define PCI_MSIX_PBA		0x08	/* pending bits: offset 31:3, BIR 2:0 */
#define PCI_MSIX_FLAGS_QSIZE	0x07ff	/* table size - 1 */
#define PCI_MSIX_FLAGS_MASKALL	0x4000
#define PCI_MSIX_FLAGS_ENABLE	0x8000
#define PCI_MSIX_BIR_MASK	0x7u
#define PCI_MSIX_OFFSET_MASK	(~0x7u)
#define PCI_MSIX_ENTRY_SIZE	16
#define PCI_MSIX_ENTRY_ADDR_LO	0x0
#define PCI_MSIX_ENTRY_ADDR_HI	0x4
#define PCI_MSIX_ENTRY_DATA	0x8
#define PCI_MSIX_ENTRY_CTRL	0xc
#define PCI_MSIX_ENTRY_CTRL_MASKBIT 0x1u

/* Power management (PCI PM 1.2, 3.2), from the capability's start */
#define PCI_PM_CTRL		0x04	/* PMCSR */

/* The PCI Express capability (PCIe 4.0, 7.5.3), from the capability's start */
#define PCI_EXP_FLAGS		0x02
#define PCI_EXP_DEVCTL		0x08
#define PCI_EXP_DEVCTL_BCR_FLR	0x8000	/* initiate function-level reset */
#define PCI_EXP_LNKCTL		0x10
#define PCI_EXP_DEVCTL2		0x28

/*
 * Configuration space accessors, for code that must not know which
 * mechanism (ports, ECAM, a test's fake space) is behind them. @bdf from
 * PCI_BDF(), @offset below PCI_EXT_CONFIG_SIZE, @size 1, 2 or 4 with the
 * access inside one dword. read() of an absent function or an offset the
 * mechanism cannot reach returns all ones (cut to @size); write() then
 * writes nothing.
 */
struct pci_cfg_ops {
	uint32_t (*read)(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size);
	void (*write)(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size, uint32_t value);
	void *ctx;
};

#endif
