// SPDX-License-Identifier: MIT
/* The xAPIC register page as operations on the x2APIC paths (xapic.h). */
#include "hv/core/xapic.h"

#include <stddef.h>

#include "hv/core/lapic_rules.h"
#include "hv/lib/apic_defs.h"

/* How a slot is read or written. */
enum xapic_how {
	XH_NONE,	/* reserved, or not this direction: reads 0, writes dropped */
	XH_MSR,		/* the x2APIC register 0x800 + slot */
	XH_ZERO,	/* reads 0 (APR, RRD: nothing arbitrates, nothing is read remotely) */
	XH_MSR_ZERO,	/* a write of any value is the MSR's write of 0 (EOI, ESR) */
	XH_LVT,		/* the MSR, reserved bits dropped by lapic_lvt_writable() */
	XH_ID,
	XH_LDR,
	XH_DFR,
	XH_ICR_LOW,
	XH_ICR_HIGH,
};

struct xapic_slot {
	const char *name;
	uint8_t read, write;	/* enum xapic_how */
	uint32_t wmask;		/* XH_MSR writes: the bits that are not reserved */
};

/* 0x000-0x3f0; the rest of the page is reserved */
#define SLOTS		(0x400u / XAPIC_SLOT_SIZE)
#define SLOT(off)	((off) / XAPIC_SLOT_SIZE)
#define LVT(off, nm)	[SLOT(off)] = { nm, XH_MSR, XH_LVT, 0 }

/* SDM Vol. 3A table 11-1, slot by slot; an empty slot is reserved. */
static const struct xapic_slot slots[SLOTS] = {
	[SLOT(XAPIC_ID)] = { "ID", XH_ID, XH_ID, 0 },	/* writable in xAPIC mode (11.4.6) */
	[SLOT(XAPIC_VERSION)] = { "version", XH_MSR, XH_NONE, 0 },
	[SLOT(XAPIC_TPR)] = { "TPR", XH_MSR, XH_MSR, 0xff },
	[SLOT(XAPIC_APR)] = { "APR", XH_ZERO, XH_NONE, 0 },
	[SLOT(XAPIC_PPR)] = { "PPR", XH_MSR, XH_NONE, 0 },
	[SLOT(XAPIC_EOI)] = { "EOI", XH_NONE, XH_MSR_ZERO, 0 },
	[SLOT(XAPIC_RRD)] = { "RRD", XH_ZERO, XH_NONE, 0 },
	[SLOT(XAPIC_LDR)] = { "LDR", XH_LDR, XH_LDR, 0 },
	[SLOT(XAPIC_DFR)] = { "DFR", XH_DFR, XH_DFR, 0 },
	/* vector, APIC enable, focus check, EOI-broadcast suppression (figure 11-23) */
	[SLOT(XAPIC_SVR)] = { "SVR", XH_MSR, XH_MSR, 0x13ff },
	[SLOT(XAPIC_ISR0) ... SLOT(XAPIC_ISR0) + 7] = { "ISR", XH_MSR, XH_NONE, 0 },
	[SLOT(XAPIC_TMR0) ... SLOT(XAPIC_TMR0) + 7] = { "TMR", XH_MSR, XH_NONE, 0 },
	[SLOT(XAPIC_IRR0) ... SLOT(XAPIC_IRR0) + 7] = { "IRR", XH_MSR, XH_NONE, 0 },
	/* ESR: write before read (11.5.3) */
	[SLOT(XAPIC_ESR)] = { "ESR", XH_MSR, XH_MSR_ZERO, 0 },
	LVT(XAPIC_LVT_CMCI, "LVT CMCI"),
	[SLOT(XAPIC_ICR_LOW)] = { "ICR low", XH_ICR_LOW, XH_ICR_LOW, 0 },
	[SLOT(XAPIC_ICR_HIGH)] = { "ICR high", XH_ICR_HIGH, XH_ICR_HIGH, 0 },
	LVT(XAPIC_LVT_TIMER, "LVT timer"),
	LVT(XAPIC_LVT_THERMAL, "LVT thermal"),
	LVT(XAPIC_LVT_PMC, "LVT PMC"),
	LVT(XAPIC_LVT_LINT0, "LVT LINT0"),
	LVT(XAPIC_LVT_LINT1, "LVT LINT1"),
	LVT(XAPIC_LVT_ERROR, "LVT error"),
	[SLOT(XAPIC_TIMER_ICR)] = { "timer initial count", XH_MSR, XH_MSR, 0xffffffff },
	[SLOT(XAPIC_TIMER_CCR)] = { "timer current count", XH_MSR, XH_NONE, 0 },
	[SLOT(XAPIC_TIMER_DCR)] = { "timer divide configuration", XH_MSR, XH_MSR,
				    APIC_TDCR_MASK },
	/* 0x3f0, SELF IPI, exists in x2APIC mode only: reserved here */
};

/* The ICR_LOW bits a write keeps (figure 11-12): 31:20, 17:16, 13 and 12 are not. */
#define XAPIC_ICR_LOW_WRITABLE	(ICR_VECTOR_MASK | ICR_DELIVERY_MASK | ICR_DEST_LOGICAL | \
				 ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL | ICR_SHORTHAND_MASK)
#define XAPIC_HIGH_BYTE		0xff000000u	/* ID, LDR, ICR_HIGH: bits 31:24 */

void xapic_regs_init(struct xapic_regs *r, uint8_t id, uint32_t lvr)
{
	r->lvr = lvr;
	r->id = id;
	r->ldr = 0;
	r->dfr = XAPIC_DFR_FLAT;
	r->icr_low = 0;
	r->icr_high = 0;
}

static const struct xapic_slot *slot_of(uint32_t offset)
{
	if (offset >= SLOTS * XAPIC_SLOT_SIZE)
		return NULL;
	return slots[SLOT(offset)].name ? &slots[SLOT(offset)] : NULL;
}

/*
 * The slot as this APIC has it: LVT CMCI exists only where the LVR counts
 * it (lapic_lvt_present, SDM Vol. 3A 11.5.1); elsewhere 0x2F0 is reserved,
 * as the x2APIC form's MSR is #GP.
 */
static const struct xapic_slot *slot_here(const struct xapic_regs *r, uint32_t offset)
{
	if (offset / XAPIC_SLOT_SIZE == SLOT(XAPIC_LVT_CMCI) &&
	    !lapic_lvt_present(LAPIC_MSR_LVT_CMCI, r->lvr))
		return NULL;
	return slot_of(offset);
}

struct xapic_reg_info xapic_reg(uint32_t offset)
{
	const struct xapic_slot *s = slot_of(offset);
	struct xapic_reg_info info = { 0 };

	if (!s)
		return info;
	info.name = s->name;
	info.readable = s->read != XH_NONE;
	info.writable = s->write != XH_NONE;
	/* the function the x2APIC form has at the same slot (ID and LDR: another shape) */
	if (s->read == XH_MSR || s->write == XH_MSR_ZERO || s->read == XH_ID ||
	    s->read == XH_LDR || s->read == XH_ICR_LOW)
		info.msr = X2APIC_MSR_FIRST + SLOT(offset);
	return info;
}

/* The model's own registers, as read. */
static uint32_t model_read(const struct xapic_regs *r, uint8_t how)
{
	switch (how) {
	case XH_ID:
		return (uint32_t)r->id << XAPIC_ID_SHIFT;
	case XH_LDR:
		return r->ldr;
	case XH_DFR:
		return r->dfr;
	case XH_ICR_LOW:
		return r->icr_low;	/* delivery status 0: every IPI is sent at once */
	case XH_ICR_HIGH:
		return r->icr_high;
	}
	return 0;	/* XH_ZERO */
}

/* The @size bytes from byte @byte of @reg. */
static uint64_t bytes_of(uint64_t reg, uint8_t byte, uint8_t size)
{
	reg >>= byte * 8;
	return size >= 8 ? reg : reg & ((1ull << (size * 8)) - 1);
}

static struct xapic_op xapic_read(const struct xapic_regs *r, uint32_t offset, uint32_t size)
{
	const struct xapic_slot *s = slot_here(r, offset);
	uint8_t byte = offset % XAPIC_SLOT_SIZE;
	struct xapic_op op = { .kind = XAPIC_OP_DONE, .value = 0 };

	/* 1, 2 or 4 bytes inside bytes 0-3 of a readable register; else 0 */
	if (!s || s->read == XH_NONE || (size != 1 && size != 2 && size != 4) || byte + size > 4)
		return op;
	if (s->read == XH_MSR) {
		op.kind = XAPIC_OP_MSR_READ;
		op.msr = X2APIC_MSR_FIRST + SLOT(offset);
		op.byte = byte;
		op.size_bytes = (uint8_t)size;
		return op;
	}
	op.value = bytes_of(model_read(r, s->read), byte, (uint8_t)size);
	return op;
}

static struct xapic_op msr_write(uint32_t offset, uint64_t value)
{
	return (struct xapic_op){ .kind = XAPIC_OP_MSR_WRITE,
				  .msr = X2APIC_MSR_FIRST + SLOT(offset), .value = value };
}

static struct xapic_op xapic_write(struct xapic_regs *r, uint32_t offset, uint32_t size,
				   uint32_t value)
{
	const struct xapic_slot *s = slot_here(r, offset);
	struct xapic_op none = { .kind = XAPIC_OP_NONE };
	struct xapic_op done = { .kind = XAPIC_OP_DONE };
	uint32_t msr = X2APIC_MSR_FIRST + SLOT(offset);

	if (!s || s->write == XH_NONE || size != 4 || offset % XAPIC_SLOT_SIZE)
		return none;
	switch (s->write) {
	case XH_MSR_ZERO:
		return msr_write(offset, 0);
	case XH_ID:
		r->id = (uint8_t)(value >> XAPIC_ID_SHIFT);
		return done;
	case XH_LDR:
		r->ldr = value & XAPIC_HIGH_BYTE;
		return done;
	case XH_DFR:
		r->dfr = (value & XAPIC_DFR_MODEL_MASK) | ~XAPIC_DFR_MODEL_MASK;
		return done;
	case XH_ICR_HIGH:
		r->icr_high = value & XAPIC_HIGH_BYTE;
		return done;
	case XH_ICR_LOW:
		r->icr_low = value & XAPIC_ICR_LOW_WRITABLE;
		return (struct xapic_op){ .kind = XAPIC_OP_SEND_IPI, .value = r->icr_low };
	case XH_LVT:
		value &= lapic_lvt_writable(msr);
		/* the LVT timer's mode 11b is reserved: no mode to drop it into */
		if (!lapic_lvt_write_ok(msr, value))
			return none;
		return msr_write(offset, value);
	}
	return msr_write(offset, value & s->wmask);	/* XH_MSR */
}

struct xapic_op xapic_access(struct xapic_regs *r, uint32_t offset, uint32_t size_bytes,
			     bool write, uint64_t value)
{
	if (offset >= XAPIC_PAGE_SIZE || size_bytes > XAPIC_PAGE_SIZE - offset)
		return (struct xapic_op){ .kind = write ? XAPIC_OP_NONE : XAPIC_OP_DONE };
	if (write)
		return xapic_write(r, offset, size_bytes, (uint32_t)value);
	return xapic_read(r, offset, size_bytes);
}

uint64_t xapic_read_finish(const struct xapic_op *op, uint64_t msr_value)
{
	if (op->kind != XAPIC_OP_MSR_READ)
		return op->value;
	/* a 32-bit register: the x2APIC form's bits 63:32 are not on the page */
	return bytes_of((uint32_t)msr_value, op->byte, op->size_bytes);
}

struct icr_xapic_dest icr_xapic_dest_of(const struct xapic_regs *r, enum apic_mode mode,
					uint32_t x2apic_id)
{
	struct icr_xapic_dest d = {
		.enabled = mode != APIC_MODE_DISABLED,
		.x2apic = mode == APIC_MODE_X2APIC,
		.id = mode == APIC_MODE_X2APIC ? x2apic_id : r->id,
	};

	if (mode == APIC_MODE_XAPIC) {
		d.logical_id = (uint8_t)(r->ldr >> XAPIC_ID_SHIFT);
		d.cluster = !(r->dfr & XAPIC_DFR_MODEL_MASK);
	}
	return d;
}
