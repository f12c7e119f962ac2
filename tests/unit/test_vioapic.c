// SPDX-License-Identifier: MIT
/*
 * A partition's virtual IOAPIC (hv/core/vioapic.c), driven through its
 * register page as Linux's arch/x86/kernel/apic/io_apic.c drives one
 * (IOREGSEL then IOWIN, the high dword of an entry before the low one),
 * and by a hostile guest. Checked: what the guest reads back, and what
 * the physical entry of each assigned input must be.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/vioapic.h"

#define MASKED		IOAPIC_RTE_MASKED
#define LEVEL		IOAPIC_RTE_LEVEL
#define LOW		IOAPIC_RTE_ACTIVE_LOW

static struct vioapic io;
static struct irq_cpus cpus;
static struct irq_vector_set tempo;
static struct vioapic_event ev;

/* 24 pins; the partition has CPUs with APIC ids 2 and 3 and was given GSIs 3, 4, 10 and 23. */
static int setup(void **state)
{
	struct vioapic_pins assigned = { { 0 } };

	(void)state;
	memset(&cpus, 0, sizeof(cpus));
	cpus.count = 2;
	cpus.apic_id[0] = 2;
	cpus.apic_id[1] = 3;
	memset(&tempo, 0, sizeof(tempo));
	for (unsigned int v = 0xec; v <= 0xef; v++)
		irq_vector_add(&tempo, (uint8_t)v);
	vioapic_pin_add(&assigned, 3);
	vioapic_pin_add(&assigned, 4);
	vioapic_pin_add(&assigned, 10);
	vioapic_pin_add(&assigned, 23);
	assert_true(vioapic_init(&io, 1, 24, &assigned, &cpus, &tempo));
	return 0;
}

static uint32_t reg_read(uint8_t reg)
{
	vioapic_mmio_write(&io, VIOAPIC_REGSEL, 4, reg, &ev);
	assert_int_equal(ev.pins.bits[0] | ev.pins.bits[1], 0);
	return vioapic_mmio_read(&io, VIOAPIC_WINDOW, 4);
}

/* A register write; returns the pins whose physical entries changed (pins 0-63). */
static uint64_t reg_write(uint8_t reg, uint32_t value)
{
	vioapic_mmio_write(&io, VIOAPIC_REGSEL, 4, reg, &ev);
	vioapic_mmio_write(&io, VIOAPIC_WINDOW, 4, value, &ev);
	return ev.pins.bits[0];
}

/* Linux's ioapic_write_entry(): high dword first, then low. */
static uint64_t write_entry(uint32_t pin, uint64_t rte)
{
	uint64_t changed = reg_write((uint8_t)(VIOAPIC_REG_RTE + 2 * pin + 1),
				     (uint32_t)(rte >> 32));

	return changed | reg_write((uint8_t)(VIOAPIC_REG_RTE + 2 * pin), (uint32_t)rte);
}

static uint64_t read_entry(uint32_t pin)
{
	return (uint64_t)reg_read((uint8_t)(VIOAPIC_REG_RTE + 2 * pin + 1)) << 32 |
	       reg_read((uint8_t)(VIOAPIC_REG_RTE + 2 * pin));
}

static void test_init_refused(void **state)
{
	struct vioapic_pins past = { { 0 } };

	(void)state;
	assert_false(vioapic_init(&io, 0, 0, NULL, &cpus, &tempo));
	assert_false(vioapic_init(&io, 0, VIOAPIC_MAX_PINS + 1, NULL, &cpus, &tempo));
	vioapic_pin_add(&past, 24);
	assert_false(vioapic_init(&io, 0, 24, &past, &cpus, &tempo));
	assert_true(vioapic_init(&io, 0, 25, &past, &cpus, &tempo));
	cpus.count = 0;
	assert_false(vioapic_init(&io, 0, 24, NULL, &cpus, &tempo));
	cpus.count = IRQ_MAX_CPUS + 1;
	assert_false(vioapic_init(&io, 0, 24, NULL, &cpus, &tempo));
	assert_false(vioapic_init(&io, 0, 24, NULL, NULL, &tempo));
	cpus.count = 1;
	assert_false(vioapic_init(&io, 0, 24, NULL, &cpus, NULL));
	assert_int_equal(io.pin_count, 0);
}

static void test_id_version_arb(void **state)
{
	(void)state;
	assert_int_equal(reg_read(VIOAPIC_REG_ID), 1u << 24);
	assert_int_equal(reg_read(VIOAPIC_REG_VERSION), 0x00170020);
	assert_int_equal(reg_read(VIOAPIC_REG_ARB), 1u << 24);
	/* the ID takes bits 27:24 only; version and arbitration do not change */
	reg_write(VIOAPIC_REG_ID, 0xffffffff);
	assert_int_equal(reg_read(VIOAPIC_REG_ID), 0x0f000000);
	assert_int_equal(reg_read(VIOAPIC_REG_ARB), 0x0f000000);
	reg_write(VIOAPIC_REG_VERSION, 0);
	reg_write(VIOAPIC_REG_ARB, 0);
	assert_int_equal(reg_read(VIOAPIC_REG_VERSION), 0x00170020);
	assert_int_equal(reg_read(VIOAPIC_REG_ARB), 0x0f000000);
	/* reserved indexes, and entries past the last pin */
	for (unsigned int r = 3; r < VIOAPIC_REG_RTE; r++) {
		reg_write((uint8_t)r, 0xffffffff);
		assert_int_equal(reg_read((uint8_t)r), 0);
	}
	for (unsigned int r = VIOAPIC_REG_RTE + 2 * 24; r < 256; r++) {
		assert_int_equal(reg_write((uint8_t)r, 0x30), 0);
		assert_int_equal(reg_read((uint8_t)r), 0);
	}
}

static void test_register_page(void **state)
{
	(void)state;
	/* IOREGSEL is 8 bits, read as a byte or a dword */
	vioapic_mmio_write(&io, VIOAPIC_REGSEL, 4, 0xabcd0112, &ev);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_REGSEL, 4), 0x12);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_REGSEL, 1), 0x12);
	vioapic_mmio_write(&io, VIOAPIC_REGSEL, 1, 0x01, &ev);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_REGSEL, 4), 0x01);
	/* IOWIN is dword only; other offsets and widths are nothing */
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_WINDOW, 4), 0x00170020);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_WINDOW, 2), 0xffff);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_WINDOW, 1), 0xff);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_REGSEL, 2), 0xffff);
	assert_int_equal(vioapic_mmio_read(&io, 0x04, 4), 0xffffffff);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_EOI, 4), 0xffffffff);
	assert_int_equal(vioapic_mmio_read(&io, 0xffc, 4), 0xffffffff);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_WINDOW, 8), 0xffffffff);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_WINDOW, 3), 0xffffffff);
	vioapic_mmio_write(&io, VIOAPIC_REGSEL, 2, 0x10, &ev);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_REGSEL, 1), 0x01);
	vioapic_mmio_write(&io, VIOAPIC_WINDOW, 2, 0x0, &ev);
	assert_int_equal(vioapic_mmio_read(&io, VIOAPIC_WINDOW, 4), 0x00170020);
}

static void test_reset_state(void **state)
{
	(void)state;
	for (uint32_t pin = 0; pin < 24; pin++) {
		assert_int_equal(read_entry(pin), MASKED);
		assert_int_equal(vioapic_phys_rte(&io, pin), MASKED);
	}
	assert_int_equal(vioapic_phys_rte(&io, 24), MASKED);
	assert_int_equal(vioapic_phys_rte(&io, 5000), MASKED);
}

/* An entry as Linux programs a PCI INTx: level, active low, physical, fixed. */
static void test_program_level_entry(void **state)
{
	struct irq_target t;

	(void)state;
	/* still masked: the physical entry takes its trigger mode and polarity, masked */
	assert_int_equal(write_entry(10, 0x0300000000000000ull | LEVEL | LOW | MASKED | 0x41),
			 1ull << 10);
	assert_int_equal(vioapic_phys_rte(&io, 10), LEVEL | LOW | MASKED);
	assert_false(vioapic_pin_target(&io, 10, &t));
	assert_int_equal(reg_write(VIOAPIC_REG_RTE + 20, LEVEL | LOW | 0x41), 1ull << 10);
	assert_int_equal(vioapic_phys_rte(&io, 10), 0x0300000000000000ull | LEVEL | LOW | 0x41);
	assert_int_equal(vioapic_pin_verdict(&io, 10), IRQ_OK);
	assert_true(vioapic_pin_target(&io, 10, &t));
	assert_int_equal(t.apic_id, 3);
	assert_int_equal(t.cpu, 1);
	assert_true(t.level);
	assert_int_equal(read_entry(10), 0x0300000000000000ull | LEVEL | LOW | 0x41);
	/* the same value again changes nothing physical */
	assert_int_equal(write_entry(10, 0x0300000000000000ull | LEVEL | LOW | 0x41), 0);
	/* masking masks the physical entry, and only masks it */
	assert_int_equal(write_entry(10, 0x0300000000000000ull | LEVEL | LOW | MASKED | 0x41),
			 1ull << 10);
	assert_int_equal(vioapic_phys_rte(&io, 10),
			 0x0300000000000000ull | LEVEL | LOW | MASKED | 0x41);
}

/*
 * Linux's threaded handler masks a level input, has its thread quiet the
 * device, and unmasks it: the physical entry must stay level (and active
 * low) through the mask. An entry that went edge while the line was up
 * lost the line's state (Bochs then delivered once more at the unmask, for
 * every interrupt, with the device quiet: the guest disabled the line).
 */
static void test_mask_keeps_trigger(void **state)
{
	const uint64_t live = 0x0300000000000000ull | LEVEL | LOW | 0x41;

	(void)state;
	write_entry(10, live);
	assert_int_equal(vioapic_phys_rte(&io, 10), live);
	assert_int_equal(reg_write(VIOAPIC_REG_RTE + 20, (uint32_t)(live | MASKED)), 1ull << 10);
	assert_int_equal(vioapic_phys_rte(&io, 10), live | MASKED);
	assert_true(vioapic_phys_rte(&io, 10) & LEVEL);
	assert_int_equal(reg_write(VIOAPIC_REG_RTE + 20, (uint32_t)live), 1ull << 10);
	assert_int_equal(vioapic_phys_rte(&io, 10), live);
	/* the guest turning it edge while masked is its own choice, and kept */
	reg_write(VIOAPIC_REG_RTE + 20, (uint32_t)(live | MASKED) & ~(uint32_t)LEVEL);
	assert_int_equal(vioapic_phys_rte(&io, 10), (live | MASKED) & ~LEVEL);
}

/* The read-only and reserved bits read as the hardware has them, whatever is written. */
static void test_read_only_bits(void **state)
{
	(void)state;
	write_entry(3, 0xffffffffffffffffull);
	assert_int_equal(read_entry(3), 0xff00000000000000ull | 0x1afffull);
	assert_false(read_entry(3) & IOAPIC_RTE_DELIVERY_STATUS);
	assert_false(read_entry(3) & IOAPIC_RTE_REMOTE_IRR);
	/* ExtINT, logical to 0xFF: refused, masked physically (level, active low) */
	assert_int_equal(vioapic_phys_rte(&io, 3), LEVEL | LOW | MASKED);
	assert_int_equal(vioapic_pin_verdict(&io, 3), IRQ_OK);	/* the guest masked it */
	write_entry(3, 0xffffffffffffffffull & ~MASKED);
	assert_int_equal(vioapic_pin_verdict(&io, 3), IRQ_DELIVERY_REFUSED);
	assert_int_equal(vioapic_phys_rte(&io, 3), LEVEL | LOW | MASKED);
}

/* An input the partition was not given: the guest may program it, nothing physical follows. */
static void test_unassigned_pin(void **state)
{
	struct irq_target t;

	(void)state;
	assert_int_equal(write_entry(5, 0x0200000000000031ull), 0);
	assert_int_equal(read_entry(5), 0x0200000000000031ull);
	assert_int_equal(vioapic_phys_rte(&io, 5), MASKED);
	assert_false(vioapic_pin_target(&io, 5, &t));
}

/* A hostile guest's entries: each is kept for it to read, none reaches the hardware. */
static void test_hostile_entries(void **state)
{
	static const struct {
		uint64_t rte;
		enum irq_verdict why;
	} bad[] = {
		{ 0x0200000000000005ull, IRQ_VECTOR_RESERVED },	/* an exception vector */
		{ 0x02000000000000eeull, IRQ_VECTOR_TEMPO },	/* Tempo's tick */
		{ 0x02000000000000ecull, IRQ_VECTOR_TEMPO },
		{ 0x0200000000000230ull, IRQ_DELIVERY_REFUSED },	/* SMI */
		{ 0x0200000000000430ull, IRQ_DELIVERY_REFUSED },	/* NMI */
		{ 0x0200000000000530ull, IRQ_DELIVERY_REFUSED },	/* INIT */
		{ 0x0200000000000730ull, IRQ_DELIVERY_REFUSED },	/* ExtINT */
		{ 0x0200000000000330ull, IRQ_DELIVERY_REFUSED },	/* reserved */
		{ 0x0000000000000030ull, IRQ_DEST_NOT_OURS },	/* Tempo's CPU 0 */
		{ 0x0100000000000030ull, IRQ_DEST_NOT_OURS },	/* another partition's */
		{ 0xff00000000000030ull, IRQ_DEST_SEVERAL },	/* every CPU, fixed */
		{ 0x0300000000000830ull, IRQ_DEST_NOT_OURS },	/* logical: x2APIC CPUs */
	};

	uint64_t phys;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* from a good entry, so the refusal shows as a change to masked */
		write_entry(4, 0x0200000000000030ull);
		assert_int_equal(vioapic_phys_rte(&io, 4), 0x0200000000000030ull);
		assert_int_equal(write_entry(4, bad[i].rte), 1ull << 4);
		/*
		 * masked over the last good route (written high dword first, the
		 * half-written entry may have been one: to CPU 3), nothing of the
		 * refused entry's but its trigger mode and polarity
		 */
		phys = vioapic_phys_rte(&io, 4);
		assert_int_equal(phys & ~(0x0100000000000000ull | LEVEL | LOW),
				 0x0200000000000030ull | MASKED);
		assert_int_equal(phys & (LEVEL | LOW), bad[i].rte & (LEVEL | LOW));
		assert_int_equal(vioapic_pin_verdict(&io, 4), bad[i].why);
		assert_int_equal(read_entry(4), bad[i].rte);
	}
	/* lowest priority to every CPU goes to the first, as fixed */
	write_entry(4, 0xff00000000000130ull);
	assert_int_equal(vioapic_phys_rte(&io, 4), 0x0200000000000030ull);
}

/*
 * With interrupt remapping, the guest's refused entries reach no remapping
 * entry: what the model answers for each is masked, so the remappable form
 * asks for no IRTE; a good one asks for exactly its route.
 */
static void test_hostile_entries_remapped(void **state)
{
	static const uint64_t bad[] = {
		0x0200000000000005ull,	/* an exception vector */
		0x020000000000001full,	/* below 32 */
		0x02000000000000eeull,	/* Tempo's tick */
		0x0200000000000430ull,	/* NMI */
		0x0200000000000730ull,	/* ExtINT */
		0x0000000000000030ull,	/* Tempo's CPU 0 */
		0x0100000000000030ull,	/* another partition's CPU */
		0xff00000000000030ull,	/* every CPU, fixed */
		0x0300000000000830ull,	/* logical */
	};
	const struct vtd_irte_req sentinel = { .dest_apic_id = 0xdead, .vector = 0x99 };
	struct vtd_irte_req irte;
	uint64_t out;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_entry(4, MASKED);
		write_entry(4, bad[i] | LEVEL);
		irte = sentinel;
		assert_false(irq_rte_remap(vioapic_phys_rte(&io, 4), 4, 0xf8, false, &out, &irte));
		assert_true(out & MASKED);
		assert_memory_equal(&irte, &sentinel, sizeof(irte));
	}
	write_entry(4, 0x0300000000000041ull | LEVEL);
	assert_true(irq_rte_remap(vioapic_phys_rte(&io, 4), 4, 0xf8, false, &out, &irte));
	assert_int_equal(irte.dest_apic_id, 3);
	assert_int_equal(irte.vector, 0x41);
	assert_true(irte.level);
	assert_int_equal(out, IOAPIC_RTE_REMAPPABLE | 4ull << 49 | LEVEL | 0x41);
}

/*
 * A hostile guest writes each refused entry over a masked one: the physical
 * entry stays masked, but every refusal is named (the hypervisor counts
 * them, irq_filtered), and so is the way back to masked.
 */
static void test_refusal_from_masked(void **state)
{
	static const uint64_t bad[] = {
		0x02000000000000eeull,	/* Tempo's tick */
		0x0200000000000430ull,	/* NMI */
		0x0100000000000030ull,	/* another partition's CPU */
		0x0200000000000010ull,	/* 16 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(write_entry(4, MASKED), i ? 1ull << 4 : 0);
		assert_int_equal(vioapic_pin_verdict(&io, 4), IRQ_OK);
		assert_int_equal(write_entry(4, bad[i]), 1ull << 4);
		assert_int_equal(vioapic_phys_rte(&io, 4), MASKED);
		assert_int_not_equal(vioapic_pin_verdict(&io, 4), IRQ_OK);
	}
	/* the same refusal again names nothing: nothing changed */
	assert_int_equal(write_entry(4, bad[3]), 0);
}

/*
 * Written low dword first (the order Linux does not use): the entry is
 * routed after each half, and only ever to the partition's CPUs.
 */
static void test_half_written_entry(void **state)
{
	(void)state;
	write_entry(23, 0x0200000000000030ull);
	assert_int_equal(reg_write(VIOAPIC_REG_RTE + 46, 0x31), 1ull << 23);
	assert_int_equal(vioapic_phys_rte(&io, 23), 0x0200000000000031ull);
	reg_write(VIOAPIC_REG_RTE + 47, 0x07000000);
	assert_int_equal(vioapic_phys_rte(&io, 23), 0x0200000000000031ull | MASKED);
	assert_int_equal(vioapic_pin_verdict(&io, 23), IRQ_DEST_NOT_OURS);
	reg_write(VIOAPIC_REG_RTE + 47, 0x03000000);
	assert_int_equal(vioapic_phys_rte(&io, 23), 0x0300000000000031ull);
}

/* The inject path: held masked from the exit to the guest's EOI. */
static void test_level_inject_eoi(void **state)
{
	uint64_t live = 0x0300000000000000ull | LEVEL | LOW | 0x41;

	(void)state;
	write_entry(10, live);
	write_entry(4, 0x0300000000000041ull);	/* an edge on the same vector */
	vioapic_level_taken(&io, 0x41, 1, &ev);
	assert_int_equal(ev.pins.bits[0], 1ull << 10);
	assert_int_equal(vioapic_phys_rte(&io, 10), live | MASKED);
	assert_int_equal(vioapic_phys_rte(&io, 4), 0x0300000000000041ull);
	assert_int_equal(read_entry(10), live | IOAPIC_RTE_REMOTE_IRR);
	/* taken again before the EOI: nothing new */
	vioapic_level_taken(&io, 0x41, 1, &ev);
	assert_int_equal(ev.pins.bits[0], 0);
	/* an EOI of another vector leaves it held */
	vioapic_eoi(&io, 0x42, &ev);
	assert_int_equal(ev.pins.bits[0], 0);
	assert_int_equal(vioapic_phys_rte(&io, 10), live | MASKED);
	vioapic_eoi(&io, 0x41, &ev);
	assert_int_equal(ev.pins.bits[0], 1ull << 10);
	assert_false(ev.eoi_vector_valid);
	assert_int_equal(vioapic_phys_rte(&io, 10), live);
	assert_int_equal(read_entry(10), live);
	/* an EOI with nothing outstanding changes nothing */
	vioapic_eoi(&io, 0x41, &ev);
	assert_int_equal(ev.pins.bits[0], 0);
}

static void test_level_taken_filters(void **state)
{
	(void)state;
	write_entry(10, 0x0300000000000000ull | LEVEL | 0x41);
	vioapic_level_taken(&io, 0x41, 0, &ev);	/* not the CPU it goes to */
	assert_int_equal(ev.pins.bits[0], 0);
	vioapic_level_taken(&io, 0x40, 1, &ev);	/* not its vector */
	assert_int_equal(ev.pins.bits[0], 0);
	write_entry(5, 0x0300000000000000ull | LEVEL | 0x43);	/* not assigned */
	vioapic_level_taken(&io, 0x43, 1, &ev);
	assert_int_equal(ev.pins.bits[0], 0);
	assert_int_equal(read_entry(5) & IOAPIC_RTE_REMOTE_IRR, 0);
	write_entry(10, 0x0300000000000000ull | LEVEL | MASKED | 0x41);	/* masked */
	vioapic_level_taken(&io, 0x41, 1, &ev);
	assert_int_equal(ev.pins.bits[0], 0);
	assert_int_equal(read_entry(10) & IOAPIC_RTE_REMOTE_IRR, 0);
}

/* The EOI register (offset 0x40), and the old way: level to edge and back. */
static void test_eoi_register_and_edge_toggle(void **state)
{
	uint64_t live = 0x0200000000000000ull | LEVEL | 0x51;

	(void)state;
	write_entry(3, live);
	vioapic_level_taken(&io, 0x51, 0, &ev);
	assert_int_equal(vioapic_phys_rte(&io, 3), live | MASKED);
	vioapic_mmio_write(&io, VIOAPIC_EOI, 4, 0x51, &ev);
	assert_true(ev.eoi_vector_valid);
	assert_int_equal(ev.eoi_vector, 0x51);
	assert_int_equal(ev.pins.bits[0], 1ull << 3);
	assert_int_equal(vioapic_phys_rte(&io, 3), live);
	/* a byte-wide write there is not the EOI register */
	vioapic_level_taken(&io, 0x51, 0, &ev);
	vioapic_mmio_write(&io, VIOAPIC_EOI, 1, 0x51, &ev);
	assert_false(ev.eoi_vector_valid);
	assert_int_equal(vioapic_phys_rte(&io, 3), live | MASKED);
	/* Linux's EOI without the register: mask, edge, then level again */
	write_entry(3, (live & ~LEVEL) | MASKED);
	assert_int_equal(read_entry(3) & IOAPIC_RTE_REMOTE_IRR, 0);
	write_entry(3, live);
	assert_int_equal(vioapic_phys_rte(&io, 3), live);
}

static void test_reset(void **state)
{
	(void)state;
	write_entry(3, 0x0200000000000030ull);
	write_entry(10, 0x0300000000000000ull | LEVEL | 0x41);
	vioapic_level_taken(&io, 0x41, 1, &ev);
	reg_write(VIOAPIC_REG_ID, 0x05000000);
	vioapic_reset(&io, &ev);
	assert_int_equal(ev.pins.bits[0], (1ull << 3) | (1ull << 4) | (1ull << 10) | (1ull << 23));
	assert_int_equal(ev.pins.bits[1], 0);
	for (uint32_t pin = 0; pin < 24; pin++) {
		assert_int_equal(vioapic_phys_rte(&io, pin), MASKED);
		assert_int_equal(read_entry(pin), MASKED);
	}
	assert_int_equal(reg_read(VIOAPIC_REG_ID), 1u << 24);
}

/* Logical destinations follow the guest's LDRs (xAPIC flat model). */
static void test_logical_follows_ldr(void **state)
{
	struct irq_cpus c = cpus;

	(void)state;
	write_entry(4, 0x0200000000000800ull | 0x61);	/* logical 0x02 */
	assert_int_equal(vioapic_pin_verdict(&io, 4), IRQ_DEST_NOT_OURS);
	assert_int_equal(vioapic_phys_rte(&io, 4), MASKED);
	c.logical_id[0] = 0x01;
	c.logical_id[1] = 0x02;
	vioapic_set_cpus(&io, &c, &ev);
	assert_int_equal(ev.pins.bits[0], 1ull << 4);
	assert_int_equal(vioapic_phys_rte(&io, 4), 0x0300000000000061ull); /* physical, to 3 */
	c.logical_id[1] = 0x04;
	vioapic_set_cpus(&io, &c, &ev);
	assert_int_equal(ev.pins.bits[0], 1ull << 4);
	assert_int_equal(vioapic_phys_rte(&io, 4), 0x0300000000000061ull | MASKED);
	/* no CPUs is not a set: ignored */
	c.count = 0;
	vioapic_set_cpus(&io, &c, &ev);
	assert_int_equal(ev.pins.bits[0], 0);
	assert_int_equal(io.cpus.count, 2);
}

/* The largest IOAPIC: entry 119's high dword is index 0xFF. */
static void test_last_pin(void **state)
{
	struct vioapic_pins assigned = { { 0 } };

	(void)state;
	vioapic_pin_add(&assigned, 119);
	assert_true(vioapic_init(&io, 0, VIOAPIC_MAX_PINS, &assigned, &cpus, &tempo));
	assert_int_equal(reg_read(VIOAPIC_REG_VERSION), (119u << 16) | 0x20);
	vioapic_mmio_write(&io, VIOAPIC_REGSEL, 4, 0xff, &ev);
	vioapic_mmio_write(&io, VIOAPIC_WINDOW, 4, 0x02000000, &ev);
	vioapic_mmio_write(&io, VIOAPIC_REGSEL, 4, 0xfe, &ev);
	vioapic_mmio_write(&io, VIOAPIC_WINDOW, 4, 0x77, &ev);
	assert_true(vioapic_pin_in(&ev.pins, 119));
	assert_int_equal(vioapic_phys_rte(&io, 119), 0x0200000000000077ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_init_refused, setup),
		cmocka_unit_test_setup(test_id_version_arb, setup),
		cmocka_unit_test_setup(test_register_page, setup),
		cmocka_unit_test_setup(test_reset_state, setup),
		cmocka_unit_test_setup(test_program_level_entry, setup),
		cmocka_unit_test_setup(test_mask_keeps_trigger, setup),
		cmocka_unit_test_setup(test_read_only_bits, setup),
		cmocka_unit_test_setup(test_unassigned_pin, setup),
		cmocka_unit_test_setup(test_hostile_entries, setup),
		cmocka_unit_test_setup(test_hostile_entries_remapped, setup),
		cmocka_unit_test_setup(test_refusal_from_masked, setup),
		cmocka_unit_test_setup(test_half_written_entry, setup),
		cmocka_unit_test_setup(test_level_inject_eoi, setup),
		cmocka_unit_test_setup(test_level_taken_filters, setup),
		cmocka_unit_test_setup(test_eoi_register_and_edge_toggle, setup),
		cmocka_unit_test_setup(test_reset, setup),
		cmocka_unit_test_setup(test_logical_follows_ldr, setup),
		cmocka_unit_test_setup(test_last_pin, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
