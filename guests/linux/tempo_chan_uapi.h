/* SPDX-License-Identifier: MIT */
/*
 * The user-space ABI of the tempo_chan module (guests/linux/tempo_chan.c):
 * one character device /dev/tempo/NAME per channel PCI function
 * (hv/core/chan_pci_abi.h, or QEMU's ivshmem, named ivshmem-<PCI slot>).
 *
 *   mmap    the channel's memory, MAP_SHARED only, offset and length within
 *           the channel's size; a ro channel refuses PROT_WRITE, and its
 *           mappings cannot be made writable later (mprotect fails)
 *   read    8 bytes (__u64): blocks until the doorbell count differs from the
 *           one this open file last returned (taken at open), then returns
 *           the count; -EAGAIN with O_NONBLOCK. A channel without
 *           TEMPO_CHAN_F_DOORBELL never receives one.
 *   poll    POLLIN when read would not block; POLLOUT when write can ring
 *   write   4 bytes (__u32): ring that peer, or TEMPO_CHAN_RING_ALL for every
 *           other peer; -EINVAL for no such peer, -EAGAIN over the channel's
 *           doorbell_limit, -EOPNOTSUPP without Tempo's registers
 *   ioctl   TEMPO_CHAN_IOC_INFO fills struct tempo_chan_info
 *
 * Every call returns -ENODEV once the PCI function is gone (the driver was
 * unbound); its mappings are torn down then (SIGBUS on access).
 *
 * Plain types from <linux/types.h>: the module and static user programs
 * include it alike.
 */
#ifndef TEMPO_GUESTS_LINUX_TEMPO_CHAN_UAPI_H
#define TEMPO_GUESTS_LINUX_TEMPO_CHAN_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TEMPO_CHAN_DEV_DIR		"/dev/tempo"
#define TEMPO_CHAN_INFO_NAME_LEN	32	/* NUL-terminated within */
#define TEMPO_CHAN_INFO_MAX_PEERS	8

#define TEMPO_CHAN_RING_ALL		0xffffffffu	/* write(): every other peer */

#define TEMPO_CHAN_ACCESS_RO		0u	/* tempo_chan_info.access */
#define TEMPO_CHAN_ACCESS_RW		1u

#define TEMPO_CHAN_F_TEMPO		(1u << 0)	/* Tempo's registers (else QEMU ivshmem) */
#define TEMPO_CHAN_F_DOORBELL		(1u << 1)	/* an MSI vector takes doorbells */

struct tempo_chan_info {
	char name[TEMPO_CHAN_INFO_NAME_LEN];	/* the channel's, or ivshmem-<slot> */
	__u64 size;			/* bytes that mmap may map */
	__u64 doorbells;		/* doorbells received since the module bound */
	__u32 self;			/* this peer's index in peers[] */
	__u32 peer_count;		/* 0 when unknown (ivshmem) */
	__u32 access;			/* TEMPO_CHAN_ACCESS_RW or _RO */
	__u32 doorbell_limit;		/* rings per millisecond this peer may send; 0 none */
	__u32 flags;			/* TEMPO_CHAN_F_* */
	__u32 reserved;
	/* the peers' partition names, in the config's order */
	char peers[TEMPO_CHAN_INFO_MAX_PEERS][TEMPO_CHAN_INFO_NAME_LEN];
};

/* 0xB9: no other user among the installed uapi headers. */
#define TEMPO_CHAN_IOC_MAGIC		0xB9
#define TEMPO_CHAN_IOC_INFO		_IOR(TEMPO_CHAN_IOC_MAGIC, 0x01, struct tempo_chan_info)

#endif
