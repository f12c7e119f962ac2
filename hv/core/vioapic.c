// SPDX-License-Identifier: MIT
/*
 * A partition's virtual IOAPIC (hv/core/vioapic.h). References: Intel
 * 82093AA I/O APIC datasheet (3.0: registers, 3.2.4: the redirection
 * table); Intel ICH9 datasheet 13.5 (the IOxAPIC's EOI register and
 * version 0x20); SDM Vol. 3A 11.8.5 (EOI and level-triggered interrupts).
 */
#include "hv/core/vioapic.h"

#include "hv/lib/lib.h"

#define ALL_ONES		0xffffffffu
/* The guest-writable bits of an entry (82093AA 3.2.4). */
#define RTE_LOW_WRITABLE	(IOAPIC_RTE_VECTOR_MASK | IOAPIC_RTE_DELIVERY_MASK | \
				 IOAPIC_RTE_DEST_LOGICAL | IOAPIC_RTE_ACTIVE_LOW | \
				 IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED)
#define RTE_HIGH_WRITABLE	0xff000000ull	/* the destination, bits 63:56 */
#define REGSEL_MASK		0xffu

static void pin_del(struct vioapic_pins *p, uint32_t pin)
{
	p->bits[pin / 64] &= ~(1ull << (pin % 64));
}

static bool cpus_valid(const struct irq_cpus *cpus)
{
	return cpus && cpus->count && cpus->count <= IRQ_MAX_CPUS;
}

/*
 * Work out pin @pin's physical entry again; @ev learns of a change of it or
 * of its verdict (a refused entry after a masked one leaves the physical
 * entry masked, but is a refusal the caller counts).
 */
static void route_pin(struct vioapic *v, uint32_t pin, struct vioapic_event *ev)
{
	uint64_t rte = v->rte[pin], phys;
	enum irq_verdict verdict = IRQ_OK, was = (enum irq_verdict)v->verdict[pin];
	struct irq_request rq;
	struct irq_target t;

	if (!vioapic_pin_in(&v->assigned, pin))
		return;
	/*
	 * Masked (or refused): the mask bit over the route the pin last had,
	 * in the trigger mode and polarity the guest's entry gives, never a
	 * blank edge entry. An IOAPIC whose level entry turns edge while its
	 * line is asserted loses the line's state (changing the trigger mode is
	 * how software clears Remote IRR on an IOAPIC without an EOI register),
	 * and Bochs keeps such a line's request pending after the line falls,
	 * delivering it at the next unmask with nothing asserted: a guest that
	 * masks a level input while it handles it (Linux's threaded handlers
	 * do) saw an interrupt for every one it had.
	 */
	phys = (v->phys[pin] & ~(IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW)) |
	       (rte & (IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW)) | IOAPIC_RTE_MASKED;
	if (!(rte & IOAPIC_RTE_MASKED)) {
		irq_request_from_rte(rte, &rq);
		verdict = irq_route(&v->cpus, &v->forbidden, &rq, &t);
		if (verdict == IRQ_OK) {
			phys = irq_target_rte(&t, vioapic_pin_in(&v->remote_irr, pin));
			v->target[pin] = t;
		}
	}
	v->verdict[pin] = (uint8_t)verdict;
	if (phys != v->phys[pin] || verdict != was) {
		v->phys[pin] = phys;
		vioapic_pin_add(&ev->pins, pin);
	}
}

static void event_clear(struct vioapic_event *ev)
{
	memset(ev, 0, sizeof(*ev));
}

static void reset_entries(struct vioapic *v)
{
	v->id = v->reset_id;
	v->regsel = 0;
	memset(&v->remote_irr, 0, sizeof(v->remote_irr));
	memset(v->verdict, 0, sizeof(v->verdict));
	for (uint32_t i = 0; i < VIOAPIC_MAX_PINS; i++) {
		v->rte[i] = IOAPIC_RTE_MASKED;
		v->phys[i] = IOAPIC_RTE_MASKED;
	}
}

bool vioapic_init(struct vioapic *v, uint8_t id, uint32_t pin_count,
		  const struct vioapic_pins *assigned, const struct irq_cpus *cpus,
		  const struct irq_vector_set *forbidden)
{
	memset(v, 0, sizeof(*v));
	if (!pin_count || pin_count > VIOAPIC_MAX_PINS || !cpus_valid(cpus) || !forbidden)
		return false;
	if (assigned)
		for (uint32_t i = pin_count; i < VIOAPIC_MAX_PINS; i++)
			if (vioapic_pin_in(assigned, i))
				return false;
	v->pin_count = pin_count;
	if (assigned)
		v->assigned = *assigned;
	v->cpus = *cpus;
	v->forbidden = *forbidden;
	v->reset_id = id & 0xf;
	reset_entries(v);
	return true;
}

void vioapic_reset(struct vioapic *v, struct vioapic_event *ev)
{
	event_clear(ev);
	reset_entries(v);
	ev->pins = v->assigned;
}

/* ---- the indirect registers ---- */

static uint32_t reg_read(const struct vioapic *v, uint8_t reg)
{
	uint32_t pin;

	switch (reg) {
	case VIOAPIC_REG_ID:
	case VIOAPIC_REG_ARB:
		/* the arbitration ID is loaded from the ID (82093AA 3.2.3) */
		return (uint32_t)v->id << VIOAPIC_ID_SHIFT;
	case VIOAPIC_REG_VERSION:
		return (v->pin_count - 1) << 16 | VIOAPIC_VERSION;
	}
	if (reg < VIOAPIC_REG_RTE)
		return 0;
	pin = (uint32_t)(reg - VIOAPIC_REG_RTE) / 2;
	if (pin >= v->pin_count)
		return 0;
	if (reg & 1)
		return (uint32_t)(v->rte[pin] >> 32);
	return (uint32_t)v->rte[pin] |
	       (vioapic_pin_in(&v->remote_irr, pin) ? (uint32_t)IOAPIC_RTE_REMOTE_IRR : 0);
}

static void reg_write(struct vioapic *v, uint8_t reg, uint32_t value, struct vioapic_event *ev)
{
	uint64_t rte;
	uint32_t pin;

	if (reg == VIOAPIC_REG_ID) {
		v->id = (uint8_t)((value & VIOAPIC_ID_MASK) >> VIOAPIC_ID_SHIFT);
		return;
	}
	if (reg < VIOAPIC_REG_RTE)
		return;		/* version and arbitration: read-only */
	pin = (uint32_t)(reg - VIOAPIC_REG_RTE) / 2;
	if (pin >= v->pin_count)
		return;
	rte = v->rte[pin];
	if (reg & 1) {
		rte = (rte & 0xffffffffull) | ((uint64_t)value & RTE_HIGH_WRITABLE) << 32;
	} else {
		rte = (rte & ~RTE_LOW_WRITABLE) | (value & RTE_LOW_WRITABLE);
		/* an edge-triggered entry has no remote IRR */
		if (!(rte & IOAPIC_RTE_LEVEL))
			pin_del(&v->remote_irr, pin);
	}
	v->rte[pin] = rte;
	route_pin(v, pin, ev);
}

/* ---- the register page ---- */

static uint32_t width_mask(uint8_t size)
{
	return size >= 4 ? ALL_ONES : (1u << (size * 8)) - 1;
}

uint32_t vioapic_mmio_read(const struct vioapic *v, uint32_t offset, uint8_t size)
{
	if (size != 1 && size != 2 && size != 4)
		return ALL_ONES;
	/* IOREGSEL is an 8-bit register: a byte or a dword read both see it */
	if (offset == VIOAPIC_REGSEL && (size == 1 || size == 4))
		return v->regsel;
	if (offset == VIOAPIC_WINDOW && size == 4)
		return reg_read(v, v->regsel);
	return width_mask(size);
}

void vioapic_mmio_write(struct vioapic *v, uint32_t offset, uint8_t size, uint32_t value,
			struct vioapic_event *ev)
{
	event_clear(ev);
	if (offset == VIOAPIC_REGSEL && (size == 1 || size == 4)) {
		v->regsel = (uint8_t)(value & REGSEL_MASK);
	} else if (offset == VIOAPIC_WINDOW && size == 4) {
		reg_write(v, v->regsel, value, ev);
	} else if (offset == VIOAPIC_EOI && size == 4) {
		vioapic_eoi(v, (uint8_t)value, ev);
		ev->eoi_vector_valid = true;
		ev->eoi_vector = (uint8_t)value;
	}
}

/* ---- level-triggered inputs ---- */

void vioapic_level_taken(struct vioapic *v, uint8_t vector, uint32_t cpu,
			 struct vioapic_event *ev)
{
	struct irq_request rq;
	struct irq_target t;

	event_clear(ev);
	for (uint32_t pin = 0; pin < v->pin_count; pin++) {
		uint64_t rte = v->rte[pin];

		if (!vioapic_pin_in(&v->assigned, pin) || (rte & IOAPIC_RTE_MASKED) ||
		    !(rte & IOAPIC_RTE_LEVEL) || (uint8_t)rte != vector)
			continue;
		irq_request_from_rte(rte, &rq);
		if (irq_route(&v->cpus, &v->forbidden, &rq, &t) != IRQ_OK || t.cpu != cpu)
			continue;
		vioapic_pin_add(&v->remote_irr, pin);
		route_pin(v, pin, ev);
	}
}

void vioapic_eoi(struct vioapic *v, uint8_t vector, struct vioapic_event *ev)
{
	event_clear(ev);
	for (uint32_t pin = 0; pin < v->pin_count; pin++) {
		if ((uint8_t)v->rte[pin] != vector || !vioapic_pin_in(&v->remote_irr, pin))
			continue;
		pin_del(&v->remote_irr, pin);
		route_pin(v, pin, ev);
	}
}

void vioapic_set_cpus(struct vioapic *v, const struct irq_cpus *cpus, struct vioapic_event *ev)
{
	event_clear(ev);
	if (!cpus_valid(cpus))
		return;
	v->cpus = *cpus;
	for (uint32_t pin = 0; pin < v->pin_count; pin++)
		route_pin(v, pin, ev);
}

uint64_t vioapic_phys_rte(const struct vioapic *v, uint32_t pin)
{
	if (pin >= v->pin_count || !vioapic_pin_in(&v->assigned, pin))
		return IOAPIC_RTE_MASKED;
	return v->phys[pin];
}

bool vioapic_pin_target(const struct vioapic *v, uint32_t pin, struct irq_target *t)
{
	if (pin >= v->pin_count || !vioapic_pin_in(&v->assigned, pin) ||
	    (v->rte[pin] & IOAPIC_RTE_MASKED) || v->verdict[pin] != IRQ_OK)
		return false;
	*t = v->target[pin];
	return true;
}

enum irq_verdict vioapic_pin_verdict(const struct vioapic *v, uint32_t pin)
{
	if (pin >= v->pin_count)
		return IRQ_OK;
	return (enum irq_verdict)v->verdict[pin];
}
