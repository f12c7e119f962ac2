// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a partition's virtual IOAPIC (hv/core/vioapic.c) as a
 * hostile guest drives it, with the hypervisor's calls (a level interrupt
 * taken, an EOI, the CPUs' logical IDs changing, a reset) in between.
 * After every step it checks what hv/core/vioapic.h promises and traps
 * when a promise fails:
 * - an input the partition was not given is never unmasked physically;
 * - an unmasked physical entry is fixed, physical destination mode, to an
 *   APIC id of one of the partition's CPUs (the one the guest named, in
 *   physical mode), with a vector of 16 or more that is not in the
 *   forbidden set, and the guest's own entry is unmasked, fixed or lowest
 *   priority, has that vector and has no remote IRR;
 * - every physical entry that changed is named in the call's event, and
 *   nothing unassigned is named (a reset names exactly the assigned pins);
 * - the guest never reads delivery status or a reserved bit set.
 *
 * Input: [0] pin count - 1 (mod VIOAPIC_MAX_PINS), [1..15] the assigned
 * pins' bitmap, [16] CPU count (1-4) and flags, 4 APIC ids (2 bytes each),
 * 4 logical IDs, 32 bytes of forbidden vectors; then operations, one byte
 * each and its arguments, until the input ends (missing bytes read 0).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/vioapic.h"

#define CHECK(cond)	do { if (!(cond)) abort(); } while (0)
#define FUZZ_CPUS	4

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct input *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && in->left; i++, in->left--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

static struct vioapic io;
static uint64_t before[VIOAPIC_MAX_PINS];

static bool cpu_apic_id(const struct irq_cpus *c, uint32_t id)
{
	for (uint32_t i = 0; i < c->count; i++)
		if ((c->any_apic_id || c->apic_id[i] <= 0xff) && (c->apic_id[i] & 0xff) == id)
			return true;
	return false;
}

static void check_pin(uint32_t pin)
{
	uint64_t phys = vioapic_phys_rte(&io, pin), rte = io.rte[pin];
	uint8_t vector = (uint8_t)phys;

	if (!vioapic_pin_in(&io.assigned, pin)) {
		CHECK(phys == IOAPIC_RTE_MASKED);
		return;
	}
	if (phys & IOAPIC_RTE_MASKED)
		return;
	CHECK(!(phys & (IOAPIC_RTE_DELIVERY_MASK | IOAPIC_RTE_DEST_LOGICAL |
			IOAPIC_RTE_DELIVERY_STATUS | IOAPIC_RTE_REMOTE_IRR)));
	CHECK(!(phys & 0x00fffffffffe0000ull));		/* reserved bits */
	CHECK(vector >= IRQ_VECTOR_FIRST && !irq_vector_in(&io.forbidden, vector));
	CHECK(cpu_apic_id(&io.cpus, (uint32_t)(phys >> IOAPIC_RTE_DEST_SHIFT)));
	CHECK(!(rte & IOAPIC_RTE_MASKED) && (uint8_t)rte == vector);
	/* fixed or lowest priority, and a lowest-priority or single-CPU destination */
	CHECK((rte & IOAPIC_RTE_DELIVERY_MASK) >> IOAPIC_RTE_DELIVERY_SHIFT <= IRQ_DELIVERY_LOWEST);
	if (!(rte & IOAPIC_RTE_DEST_LOGICAL) && (uint8_t)(rte >> IOAPIC_RTE_DEST_SHIFT) != 0xff)
		CHECK((uint8_t)(rte >> IOAPIC_RTE_DEST_SHIFT) ==
		      (uint8_t)(phys >> IOAPIC_RTE_DEST_SHIFT));
	CHECK(!vioapic_pin_in(&io.remote_irr, pin));
	CHECK((phys & IOAPIC_RTE_LEVEL) == (rte & IOAPIC_RTE_LEVEL));
}

/* After a call: the promises, and the event against what changed. */
static void check(const struct vioapic_event *ev, bool reset)
{
	for (uint32_t pin = 0; pin < VIOAPIC_MAX_PINS; pin++) {
		uint64_t now = vioapic_phys_rte(&io, pin);

		check_pin(pin);
		if (vioapic_pin_in(&ev->pins, pin))
			CHECK(vioapic_pin_in(&io.assigned, pin));
		else
			CHECK(now == before[pin]);
		if (reset)
			CHECK(vioapic_pin_in(&ev->pins, pin) == vioapic_pin_in(&io.assigned, pin));
		before[pin] = now;
	}
}

static void take_cpus(struct input *in, struct irq_cpus *c)
{
	uint8_t head = (uint8_t)take(in, 1);

	memset(c, 0, sizeof(*c));
	c->count = head % FUZZ_CPUS + 1;
	c->logical_model = head & 0x10 ? IRQ_LOGICAL_CLUSTER : IRQ_LOGICAL_FLAT;
	c->any_apic_id = head & 0x20;
	for (uint32_t i = 0; i < FUZZ_CPUS; i++)
		c->apic_id[i] = (uint32_t)take(in, 2) % 512;
	for (uint32_t i = 0; i < FUZZ_CPUS; i++)
		c->logical_id[i] = (uint8_t)take(in, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct vioapic_pins assigned = { { 0 } };
	struct irq_vector_set forbidden;
	struct vioapic_event ev;
	struct irq_cpus cpus;
	uint32_t pins = (uint32_t)take(&in, 1) % VIOAPIC_MAX_PINS + 1;

	for (uint32_t i = 0; i < 15; i++) {
		uint8_t b = (uint8_t)take(&in, 1);

		for (uint32_t j = 0; j < 8; j++)
			if (b >> j & 1 && i * 8 + j < pins)
				vioapic_pin_add(&assigned, i * 8 + j);
	}
	take_cpus(&in, &cpus);
	for (uint32_t i = 0; i < 4; i++)
		forbidden.bits[i] = take(&in, 8);
	CHECK(vioapic_init(&io, (uint8_t)pins, pins, &assigned, &cpus, &forbidden));
	for (uint32_t pin = 0; pin < VIOAPIC_MAX_PINS; pin++)
		before[pin] = vioapic_phys_rte(&io, pin);

	while (in.left) {
		uint8_t op = (uint8_t)take(&in, 1);
		uint32_t offset, value;
		uint8_t width;

		switch (op % 6) {
		case 0:	/* a guest write: mostly IOREGSEL, IOWIN and EOI */
		case 1:
			offset = (uint32_t)take(&in, 1);
			offset = op & 0x80 ? (uint32_t)take(&in, 2) % VIOAPIC_MMIO_SIZE :
					     (offset % 3 == 0 ? VIOAPIC_REGSEL :
					      offset % 3 == 1 ? VIOAPIC_WINDOW : VIOAPIC_EOI);
			width = op & 0x40 ? (uint8_t)(take(&in, 1) % 9) : 4;
			value = (uint32_t)take(&in, 4);
			vioapic_mmio_write(&io, offset, width, value, &ev);
			check(&ev, false);
			break;
		case 2:	/* a guest read */
			offset = (uint32_t)take(&in, 2) % VIOAPIC_MMIO_SIZE;
			width = (uint8_t)(take(&in, 1) % 9);
			value = vioapic_mmio_read(&io, offset, width);
			if (offset == VIOAPIC_WINDOW && width == 4 &&
			    io.regsel >= VIOAPIC_REG_RTE && !(io.regsel & 1))
				CHECK(!(value & (IOAPIC_RTE_DELIVERY_STATUS | 0xfffe0000u)));
			if (offset == VIOAPIC_WINDOW && width == 4 &&
			    io.regsel >= VIOAPIC_REG_RTE && (io.regsel & 1))
				CHECK(!(value & 0x00ffffffu));
			break;
		case 3:	/* the inject path took a level interrupt */
			value = (uint32_t)take(&in, 1);
			vioapic_level_taken(&io, (uint8_t)value, (uint32_t)take(&in, 1) % FUZZ_CPUS,
					    &ev);
			check(&ev, false);
			break;
		case 4:	/* the guest's EOI at its virtual LAPIC */
			vioapic_eoi(&io, (uint8_t)take(&in, 1), &ev);
			check(&ev, false);
			break;
		case 5:
			if (op & 0x80) {
				vioapic_reset(&io, &ev);
				check(&ev, true);
			} else {
				take_cpus(&in, &cpus);
				vioapic_set_cpus(&io, &cpus, &ev);
				check(&ev, false);
			}
			break;
		}
	}
	return 0;
}
