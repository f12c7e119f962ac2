/* SPDX-License-Identifier: MIT */
/*
 * The machine's IOAPICs, which Tempo owns (82093AA datasheet; the ICH
 * IOxAPIC adds the EOI register). No Tempo interrupt comes through them:
 * at boot every redirection entry is masked, and afterwards only the
 * inputs a partition was given (irqs =) are programmed, with what its
 * virtual IOAPIC answers (hv/core/vioapic.h, hv/dev/devices.c).
 *
 * Each IOAPIC is found in the MADT; its registers are read through the
 * boot's identity map (uncached in the top GiB, where the MADT puts them),
 * an indirect pair: IOREGSEL at +0x00, IOWIN at +0x10. A GSI names one
 * input: the IOAPIC whose range (gsi_base .. gsi_base + entries - 1, the
 * entries from its version register) holds it, and the pin in it. Every
 * access to one IOAPIC is taken under its lock, so any CPU may call these.
 */
#ifndef TEMPO_DRIVERS_IOAPIC_H
#define TEMPO_DRIVERS_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/acpi.h"

#define IOAPIC_MAX		ACPI_MAX_IOAPICS
#define IOAPIC_REG_VERSION	0x01
#define IOAPIC_REG_RTE		0x10	/* entry n: 0x10 + 2n low dword, 0x11 + 2n high */
#define IOAPIC_RTE_MASK_BIT	(1ull << 16)
#define IOAPIC_RTE_LEVEL_BIT	(1ull << 15)
/* version 0x20 and later (the ICH's) have the directed-EOI register at +0x40 */
#define IOAPIC_VERSION_EOI	0x20

struct ioapic_chip {
	uint8_t id;
	uint8_t version;		/* the version register's bits 7:0 */
	uint32_t phys;
	uint32_t gsi_base;
	uint32_t entries;		/* 1..240 (bits 23:16 of the version register, plus 1) */
	volatile uint32_t *regs;	/* NULL: not reachable (left out, said at boot) */
	volatile uint32_t lock;
};

/*
 * Every IOAPIC of @ai: its entries counted, each entry masked (firmware may
 * have left some on), one line each: "IOAPIC: id 8 at 0xfec00000 version
 * 0x11, GSIs 0-23, masked". Boot CPU, after ACPI.
 */
void ioapic_boot(const struct acpi_info *ai);

/* How many IOAPICs ioapic_boot() kept, and each. */
uint32_t ioapic_count(void);
const struct ioapic_chip *ioapic_get(uint32_t i);

/* True when an IOAPIC input has @gsi. */
bool ioapic_has_gsi(uint32_t gsi);

/*
 * Write input @gsi's redirection entry: masked first, then the
 * destination, then the low dword, so the input never fires with half an
 * entry. False (nothing written) for a GSI no IOAPIC has.
 */
bool ioapic_rte_write(uint32_t gsi, uint64_t rte);
/* Its entry as the IOAPIC holds it (all ones for a GSI none has). */
uint64_t ioapic_rte_read(uint32_t gsi);

/*
 * End a level-triggered interrupt @vector of input @gsi whose remote IRR
 * the local APIC's broadcast did not clear (a guest that suppresses the
 * broadcast writes its virtual IOAPIC's EOI register): the EOI register
 * where the IOAPIC has one, else the entry turned to edge and back, which
 * clears remote IRR on the 82093AA (Linux does the same).
 */
void ioapic_eoi(uint32_t gsi, uint8_t vector);

#endif
