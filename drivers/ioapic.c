// SPDX-License-Identifier: MIT
/*
 * The machine's IOAPICs (drivers/ioapic.h). References: 82093AA I/O APIC
 * datasheet, 3.0 (registers) and 3.2.4 (redirection entries); Intel ICH
 * datasheets, the IOxAPIC EOI register (version 0x20).
 */
#include "drivers/ioapic.h"

#include "arch/x86/boot_layout.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/spin.h"
#include "hv/lib/x86.h"

#define IOREGSEL	(0x00 / 4)
#define IOWIN		(0x10 / 4)
#define IOEOI		(0x40 / 4)

static struct ioapic_chip chips[IOAPIC_MAX];
static uint32_t chip_count;

static void take(struct ioapic_chip *c)
{
	spin_lock(&c->lock);
}

static void give(struct ioapic_chip *c)
{
	spin_unlock(&c->lock);
}

/* Under the chip's lock. */
static uint32_t reg_read(struct ioapic_chip *c, uint32_t reg)
{
	c->regs[IOREGSEL] = reg;
	return c->regs[IOWIN];
}

static void reg_write(struct ioapic_chip *c, uint32_t reg, uint32_t value)
{
	c->regs[IOREGSEL] = reg;
	c->regs[IOWIN] = value;
}

/* The chip with @gsi, and its pin in *@pin; NULL if none. */
static struct ioapic_chip *chip_of(uint32_t gsi, uint32_t *pin)
{
	for (uint32_t i = 0; i < chip_count; i++) {
		struct ioapic_chip *c = &chips[i];

		if (gsi >= c->gsi_base && gsi - c->gsi_base < c->entries) {
			*pin = gsi - c->gsi_base;
			return c;
		}
	}
	return NULL;
}

void ioapic_boot(const struct acpi_info *ai)
{
	for (uint32_t i = 0; i < ai->ioapic_count && i < IOAPIC_MAX; i++) {
		const struct acpi_ioapic *a = &ai->ioapics[i];
		struct ioapic_chip *c = &chips[chip_count];
		uint32_t version;

		/* the registers' 1 KiB must lie in the boot's identity map */
		if (!a->phys || a->phys > IDENTITY_MAP_LIMIT - 0x1000 || (a->phys & 0x3f)) {
			log_warn("IOAPIC: id %u at 0x%x is not reachable: its inputs cannot be "
				 "given to partitions\n", a->id, a->phys);
			continue;
		}
		c->id = a->id;
		c->phys = a->phys;
		c->gsi_base = a->gsi_base;
		c->regs = (volatile uint32_t *)(uintptr_t)a->phys;
		version = reg_read(c, IOAPIC_REG_VERSION);
		c->version = (uint8_t)version;
		c->entries = ((version >> 16) & 0xff) + 1;
		/* an all-ones read is no IOAPIC: nothing answers at that address */
		if (version == 0xffffffffu) {
			log_warn("IOAPIC: id %u at 0x%x does not answer\n", a->id, a->phys);
			c->regs = NULL;
			continue;
		}
		for (uint32_t pin = 0; pin < c->entries; pin++)
			reg_write(c, IOAPIC_REG_RTE + 2 * pin,
				  reg_read(c, IOAPIC_REG_RTE + 2 * pin) | (uint32_t)IOAPIC_RTE_MASK_BIT);
		log_info("IOAPIC: id %u at 0x%x version 0x%x, GSIs %u-%u, masked\n", c->id,
			 c->phys, c->version, c->gsi_base, c->gsi_base + c->entries - 1);
		chip_count++;
	}
}

uint32_t ioapic_count(void)
{
	return chip_count;
}

const struct ioapic_chip *ioapic_get(uint32_t i)
{
	return i < chip_count ? &chips[i] : NULL;
}

bool ioapic_has_gsi(uint32_t gsi)
{
	uint32_t pin;

	return chip_of(gsi, &pin) != NULL;
}

bool ioapic_rte_write(uint32_t gsi, uint64_t rte)
{
	uint32_t pin, low = (uint32_t)rte;
	struct ioapic_chip *c = chip_of(gsi, &pin);

	if (!c)
		return false;
	take(c);
	reg_write(c, IOAPIC_REG_RTE + 2 * pin,
		  reg_read(c, IOAPIC_REG_RTE + 2 * pin) | (uint32_t)IOAPIC_RTE_MASK_BIT);
	reg_write(c, IOAPIC_REG_RTE + 2 * pin + 1, (uint32_t)(rte >> 32));
	reg_write(c, IOAPIC_REG_RTE + 2 * pin, low);
	give(c);
	return true;
}

uint64_t ioapic_rte_read(uint32_t gsi)
{
	uint32_t pin;
	struct ioapic_chip *c = chip_of(gsi, &pin);
	uint64_t rte;

	if (!c)
		return ~0ull;
	take(c);
	rte = reg_read(c, IOAPIC_REG_RTE + 2 * pin) |
	      (uint64_t)reg_read(c, IOAPIC_REG_RTE + 2 * pin + 1) << 32;
	give(c);
	return rte;
}

void ioapic_eoi(uint32_t gsi, uint8_t vector)
{
	uint32_t pin, low;
	struct ioapic_chip *c = chip_of(gsi, &pin);

	if (!c)
		return;
	take(c);
	if (c->version >= IOAPIC_VERSION_EOI) {
		c->regs[IOEOI] = vector;
	} else {
		low = reg_read(c, IOAPIC_REG_RTE + 2 * pin);
		if (low & IOAPIC_RTE_LEVEL_BIT) {
			reg_write(c, IOAPIC_REG_RTE + 2 * pin,
				  (low | (uint32_t)IOAPIC_RTE_MASK_BIT) &
					  ~(uint32_t)IOAPIC_RTE_LEVEL_BIT);
			reg_write(c, IOAPIC_REG_RTE + 2 * pin, low);
		}
	}
	give(c);
}
