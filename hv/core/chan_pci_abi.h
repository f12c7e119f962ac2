/* SPDX-License-Identifier: MIT */
/*
 * A channel as a PCI function (docs/channels.md): the guest ABI. Tempo
 * emulates a PCI bus 0 through configuration mechanism #1 (ports 0xCF8 and
 * 0xCFC-0xCFF) in every partition that is a peer of at least one channel: a
 * host bridge at 00:00.0 and one function per channel at 00:N.0, N = the
 * channel's local index + 1 (its rank among the channels that list the
 * partition, as the hypercalls number them).
 *
 * Each channel function has QEMU ivshmem's IDs (1af4:1110, class 0x0500), so
 * Linux user space finds it in sysfs, and:
 *   BAR0  32-bit memory, 4 KiB: the registers below (every access exits)
 *   BAR2  64-bit prefetchable memory: the channel's RAM, where this peer
 *         sees it (its size rounded up to a power of two; only the
 *         channel's own bytes are backed)
 *   an MSI capability (one vector, 64-bit address): a doorbell to this
 *   peer is a fixed interrupt on the MSI's vector, to the vCPU its address
 *   names. With MSI off, doorbells are dropped and counted.
 *
 * Plain C types and defines only: the hypervisor, the bare guests and the
 * Linux module (guests/linux) all include it.
 */
#ifndef TEMPO_HV_CORE_CHAN_PCI_ABI_H
#define TEMPO_HV_CORE_CHAN_PCI_ABI_H

#define TEMPO_PCI_CF8			0xcf8	/* CONFIG_ADDRESS (32-bit) */
#define TEMPO_PCI_CFC			0xcfc	/* CONFIG_DATA, 0xcfc-0xcff */

#define TEMPO_PCI_HOST_VENDOR		0x1b36	/* a generic host bridge, class 0x0600 */
#define TEMPO_PCI_HOST_DEVICE		0x0008
#define TEMPO_PCI_CHAN_VENDOR		0x1af4	/* ivshmem */
#define TEMPO_PCI_CHAN_DEVICE		0x1110
#define TEMPO_PCI_CHAN_SUBVENDOR	0x1af4
#define TEMPO_PCI_CHAN_SUBDEVICE	0x1100
#define TEMPO_PCI_CHAN_CLASS		0x050000	/* memory controller, RAM */
#define TEMPO_PCI_CHAN_REVISION		1
#define TEMPO_PCI_CHAN_MSI_CAP		0x40	/* config offset of the MSI capability */

#define TEMPO_PCI_BAR0_SIZE		0x1000
/* Where Tempo puts each function's BAR0 at boot: function N at BASE + (N-1) * 4 KiB. */
#define TEMPO_PCI_BAR0_BASE		0xfeb00000u
#define TEMPO_PCI_MMIO_WINDOW_END	0xfec00000u	/* BAR0s stay below the IOAPIC's range */

/*
 * BAR0's registers, 32-bit, 4-byte aligned (other widths and offsets read
 * 0, and writes to them are ignored). The first four are ivshmem's.
 */
#define TEMPO_CHAN_INTR_MASK		0x000	/* rw: kept, no effect (MSI only) */
#define TEMPO_CHAN_INTR_STATUS		0x004	/* r: 1 if a doorbell came since the last read; the read clears it */
#define TEMPO_CHAN_IV_POSITION		0x008	/* r: this peer's index in the channel */
#define TEMPO_CHAN_DOORBELL		0x00c	/* w: bits 31:16 the peer to ring (0xffff: every other peer) */
#define TEMPO_CHAN_MAGIC		0x010	/* r: TEMPO_CHAN_MAGIC_VALUE (QEMU's ivshmem reads 0) */
#define TEMPO_CHAN_VERSION		0x014	/* r: TEMPO_CHAN_VERSION_VALUE */
#define TEMPO_CHAN_PEER_COUNT		0x018	/* r */
#define TEMPO_CHAN_ACCESS		0x01c	/* r: 1 rw, 0 ro (TEMPO_CHANNEL_RW/RO) */
#define TEMPO_CHAN_SIZE_LO		0x020	/* r: the channel's size in bytes (BAR2 may be larger) */
#define TEMPO_CHAN_SIZE_HI		0x024
#define TEMPO_CHAN_DOORBELL_LIMIT	0x028	/* r: rings per millisecond this peer may send */
#define TEMPO_CHAN_RING_RESULT		0x02c	/* r: the last DOORBELL write's result (int32): */
						/*    doorbells sent, -22 bad peer, -11 over the limit */
#define TEMPO_CHAN_RECEIVED		0x030	/* r: doorbells delivered to this peer (wraps) */
#define TEMPO_CHAN_NAME			0x040	/* r: the channel's name, 32 bytes, NUL-padded */
#define TEMPO_CHAN_PEER_NAMES		0x100	/* r: peer k's partition name at 0x100 + 32 * k */
#define TEMPO_CHAN_NAME_LEN		32

#define TEMPO_CHAN_MAGIC_VALUE		0x4f504d54u	/* "TMPO" */
#define TEMPO_CHAN_VERSION_VALUE	1u
#define TEMPO_CHAN_DOORBELL_ALL		0xffffu
#define TEMPO_CHAN_DOORBELL_PEER(k)	((unsigned int)(k) << 16)

#endif
