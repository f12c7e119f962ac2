/* SPDX-License-Identifier: MIT */
/*
 * A channel function's BAR0 (hv/core/chan_pci_abi.h): the register block one
 * peer sees for one channel. Pure: the hypervisor finds the function whose
 * BAR0 an access hit (vpci_find_bar0()), calls chan_regs_read() or
 * chan_regs_write() with the offset, and executes the ring a DOORBELL write
 * asks for.
 *
 * Accesses. A register is 32 bits at a 4-byte-aligned offset; any other
 * width or alignment reads 0 and a write of it is ignored (as the ABI
 * says), with one exception: the names. A read of 1, 2, 4 or 8 bytes, at
 * any alignment, that lies wholly inside NAME (0x040-0x05F) or PEER_NAMES
 * (0x100-0x1FF) returns those bytes, little-endian, so user space may copy
 * a name with the plain loads its compiler emits. Reads with side effects
 * stay 32-bit only. (A memcpy() from the mapping may use 16- or 32-byte
 * vector loads, which are not among these: read names with volatile 32-bit
 * loads.) Offsets past the registers read 0.
 *
 * DOORBELL. A 32-bit write returns a ring request for the hypervisor to
 * carry out exactly as the TEMPO_HC_CHANNEL_RING hypercall does (same
 * checks: a peer index past the count, or this peer itself, is refused with
 * -22; the same doorbell_limit). Bits 31:16 are the peer, 0xFFFF meaning
 * every other peer (TEMPO_CHANNEL_ALL_PEERS in the request); bits 15:0,
 * ivshmem's vector number, are ignored (one vector per function). The
 * hypervisor then stores the result with chan_regs_ring_done() for
 * RING_RESULT.
 *
 * INTR_STATUS and RECEIVED are written from other cores. A core that
 * delivers a doorbell to this peer calls chan_regs_doorbell() first (an
 * atomic OR of 1 into intr_status and an atomic increment of received,
 * both release) and then raises the MSI, so the handler that reads
 * INTR_STATUS sees the 1. The INTR_STATUS read is an atomic exchange with
 * 0 (acq_rel): a doorbell that lands after it is the next read's. Every
 * other field belongs to the peer's vCPUs: the hypervisor serialises their
 * accesses with the partition's lock, as for the config space.
 */
#ifndef TEMPO_HV_CORE_CHAN_REGS_H
#define TEMPO_HV_CORE_CHAN_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/chan_pci_abi.h"
#include "hv/core/hypercall_abi.h"

#define CHAN_REGS_PEER_NAMES_END	\
	(TEMPO_CHAN_PEER_NAMES + TEMPO_CHANNEL_MAX_PEERS * TEMPO_CHAN_NAME_LEN)

/* What the hypervisor knows of the channel, as this peer sees it. */
struct chan_regs_desc {
	uint32_t self;			/* this peer's index: IV_POSITION */
	uint32_t peer_count;		/* 2..TEMPO_CHANNEL_MAX_PEERS */
	uint32_t access;		/* TEMPO_CHANNEL_RW or TEMPO_CHANNEL_RO */
	uint32_t doorbell_limit;	/* rings per millisecond */
	uint64_t size;			/* the channel's bytes */
	const char *name;		/* the channel's; at most 31 characters are kept */
	const char *peer_names[TEMPO_CHANNEL_MAX_PEERS];	/* [0, peer_count): partitions */
};

struct chan_regs {
	/* fixed at init */
	uint32_t self, peer_count, access, doorbell_limit;
	uint64_t size;
	char name[TEMPO_CHAN_NAME_LEN];		/* NUL-padded */
	char peer_names[TEMPO_CHANNEL_MAX_PEERS][TEMPO_CHAN_NAME_LEN];
	/* the peer's vCPUs (under the partition's lock) */
	uint32_t intr_mask;		/* kept, no effect */
	int32_t ring_result;		/* the last ring's: sent, -22 or -11 */
	/* any core, atomics only */
	volatile uint32_t intr_status;	/* 1: a doorbell since the last INTR_STATUS read */
	volatile uint32_t received;	/* doorbells delivered (wraps) */
};

/* What a write asks the hypervisor to do. */
struct chan_ring {
	bool ring;		/* a DOORBELL write: ring, then chan_regs_ring_done() */
	uint32_t peer;		/* a peer index (unchecked) or TEMPO_CHANNEL_ALL_PEERS */
};

/*
 * The block at reset. False, with the block zeroed, for a peer count
 * outside 1..TEMPO_CHANNEL_MAX_PEERS or self not below it. NULL names read
 * as empty; names of peers past peer_count read 0.
 */
bool chan_regs_init(struct chan_regs *r, const struct chan_regs_desc *d);

/* A restart of the peer: mask, last result, status and count back to 0. */
void chan_regs_reset(struct chan_regs *r);

/* A read of @size (1, 2, 4 or 8) bytes at BAR0 offset @offset. */
uint64_t chan_regs_read(struct chan_regs *r, uint32_t offset, uint8_t size);

/* A write: what to ring, if anything. */
struct chan_ring chan_regs_write(struct chan_regs *r, uint32_t offset, uint8_t size,
				 uint64_t value);

/* The ring the last DOORBELL write asked for returned @result (RING_RESULT). */
void chan_regs_ring_done(struct chan_regs *r, int32_t result);

/* A doorbell is being delivered to this peer (any core; before the MSI is raised). */
void chan_regs_doorbell(struct chan_regs *r);

#endif
