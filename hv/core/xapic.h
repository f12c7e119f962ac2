/* SPDX-License-Identifier: MIT */
/*
 * The xAPIC register page (SDM Vol. 3A 11.4.1, table 11-1) of a guest in
 * xAPIC mode, as the hypervisor traps it: each access becomes either an
 * operation on the x2APIC register of the same function (the MSR paths of
 * hv/apic/regs.c: the hardware in direct mode, the virtual LAPIC otherwise) or
 * one that this model answers itself, for what only the xAPIC form has: the
 * 8-bit writable ID, the writable LDR, the DFR, and the ICR as two halves.
 * Pure and host-testable (tests/unit/test_xapic.c).
 *
 * The rules where the SDM leaves room (11.4.1: "all 32-bit registers should
 * be accessed using 128-bit aligned 32-bit loads or stores"):
 *  - A register is the 32 bits at the start of its 16-byte slot; bytes 4-15
 *    of every slot, and every slot table 11-1 does not name (or names as
 *    x2APIC-only: SELF IPI), are reserved.
 *  - Reads of 1, 2 or 4 bytes inside bytes 0-3 of a readable register return
 *    those bytes (compilers emit MOVZX byte loads); every other read (8
 *    bytes, one that reaches past byte 3, a write-only or reserved
 *    register) returns 0. As KVM does.
 *  - Writes are 4 bytes at offset 0 of a writable register's slot; every
 *    other write is dropped. As KVM does.
 *  - A write that sets reserved bits of a register is not refused (an MMIO
 *    store cannot #GP): the reserved bits are dropped, then the write goes
 *    where the WRMSR would, which then accepts it. One exception: the LVT
 *    timer's reserved mode 11b drops the whole write (its mode bits cannot
 *    be "dropped" into a meaningful mode).
 *  - EOI and ESR take any value (the x2APIC forms take only 0): the MSR
 *    operation carries 0.
 *  - Illegal-register-address errors (ESR bit 7) are not raised.
 *  - LVT CMCI (0x2F0) is a register only where the LVR's Max LVT Entry
 *    counts it (SDM Vol. 3A 11.5.1, lapic_lvt_present); elsewhere it is
 *    reserved (reads 0, writes dropped) in every timer mode, as its x2APIC
 *    MSR is #GP. Direct mode included: the CPU's own answer there (Bochs
 *    keeps a CMCI entry its LVR does not count) is not asked.
 */
#ifndef TEMPO_HV_XAPIC_H
#define TEMPO_HV_XAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/apic_base.h"
#include "hv/core/icr.h"

/* The registers only the xAPIC form has, or has in another shape; one per vCPU. */
struct xapic_regs {
	uint8_t id;		/* the ID register's bits 31:24; writable in xAPIC mode */
	uint32_t ldr;		/* bits 31:24 the logical id; the rest reads 0 */
	uint32_t dfr;		/* bits 31:28 the model; 27:0 read as ones */
	uint32_t icr_low;	/* the last ICR_LOW written; delivery status reads 0 */
	uint32_t icr_high;	/* bits 31:24 the destination */
	uint32_t lvr;		/* the version register the guest reads: which LVTs exist */
};

/*
 * Power-up and after the APIC was disabled (apic_base_write's reset), with
 * @id = the x2APIC id's bits 7:0 (SDM 11.12.5.1); an INIT keeps the current
 * id (SDM 11.12.5.1, "the state of the local APIC ID register is
 * preserved"): pass r->id. LDR 0, DFR all ones (flat), ICR 0. @lvr is
 * the version register as the guest reads it (the CPU's, read once when
 * the vCPU is set up): it decides whether LVT CMCI is there.
 */
void xapic_regs_init(struct xapic_regs *r, uint8_t id, uint32_t lvr);

enum xapic_op_kind {
	XAPIC_OP_NONE,		/* nothing to do: a dropped write */
	XAPIC_OP_DONE,		/* answered in the model: a read's result is in .value */
	XAPIC_OP_MSR_READ,	/* RDMSR .msr on the x2APIC path, then xapic_read_finish */
	XAPIC_OP_MSR_WRITE,	/* WRMSR .msr, .value on the x2APIC path */
	/*
	 * ICR_LOW was written (and recorded in the model): send the IPI,
	 * icr_route_xapic(dests, n, self, .value, regs->icr_high), then act on
	 * the route as for an x2APIC ICR write.
	 */
	XAPIC_OP_SEND_IPI,
};

struct xapic_op {
	enum xapic_op_kind kind;
	uint32_t msr;		/* MSR_READ, MSR_WRITE: the x2APIC register */
	uint64_t value;		/* DONE: the read's result; MSR_WRITE, SEND_IPI: to write */
	uint8_t byte;		/* MSR_READ: the access's first byte in the register (0-3) */
	uint8_t size_bytes;	/* MSR_READ: the access's width */
};

/* One slot of the page, for the caller's logs and the tests. */
struct xapic_reg_info {
	const char *name;	/* NULL: reserved */
	/* the x2APIC MSR with the same function; 0 if none (APR, RRD, DFR, ICR_HIGH) */
	uint32_t msr;
	bool readable, writable;	/* in xAPIC mode */
};

struct xapic_reg_info xapic_reg(uint32_t offset);

/*
 * An access of @size_bytes (1, 2, 4 or 8) at page offset @offset (0-0xfff)
 * by a vCPU in xAPIC mode (apic_base_page_decoded); @value for a write.
 * Writes to the model's registers (ID, LDR, DFR, ICR_HIGH, ICR_LOW) change
 * @r; nothing else does.
 */
struct xapic_op xapic_access(struct xapic_regs *r, uint32_t offset, uint32_t size_bytes,
			     bool write, uint64_t value);

/* What an XAPIC_OP_MSR_READ returns to the guest, given the register's @msr_value. */
uint64_t xapic_read_finish(const struct xapic_op *op, uint64_t msr_value);

/*
 * The vCPU as an xAPIC sender's IPI sees it (for icr_route_xapic): its
 * xAPIC registers @r, its APIC @mode and its @x2apic_id (the physical
 * destination it answers to in x2APIC mode).
 */
struct icr_xapic_dest icr_xapic_dest_of(const struct xapic_regs *r, enum apic_mode mode,
					uint32_t x2apic_id);

#endif
