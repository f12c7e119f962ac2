/* SPDX-License-Identifier: MIT */
/*
 * A partition's virtual IOAPIC: the registers its guest programs, and what
 * each of its assigned inputs' physical redirection entries must be. Pure:
 * the hypervisor traps the guest's accesses to the register window,
 * calls vioapic_mmio_read() / vioapic_mmio_write(), and for every pin the
 * returned event names writes vioapic_phys_rte() into the physical entry
 * that input is wired to (its GSI's IOAPIC and pin: the hypervisor's map).
 *
 * Registers (82093AA datasheet 3.0; the ICH IOxAPIC adds the EOI
 * register): IOREGSEL at +0x00 (8 bits, read back as written), IOWIN at
 * +0x10 (the selected register, dword accesses only), EOI at +0x40 (write
 * only: a vector). Indirect registers: 0x00 ID (bits 27:24 writable), 0x01
 * version (0x20, the ICH's: it has the EOI register; bits 23:16 the last
 * entry's index), 0x02 arbitration ID (bits 27:24, the ID; read-only),
 * 0x10 + 2n / 0x11 + 2n redirection entry n, low and high dword. Any other
 * index reads 0 and ignores writes; any other offset or width reads all
 * ones (cut to the width) and ignores writes.
 *
 * A redirection entry keeps what the guest writes in its writable bits:
 * vector, delivery mode, destination mode, polarity, trigger mode, mask
 * (low dword) and the destination (high dword bits 31:24); delivery status
 * reads 0 (the message is never held), remote IRR is the model's (below),
 * reserved bits read 0. All entries are masked at reset.
 *
 * Physical entries. Only pins the partition was given (assigned at init,
 * from its `irqs =` and its functions' INTx) have one. Such a pin's
 * physical entry is masked while the guest's entry is masked, while
 * irq_route() (hv/core/irq_route.h: destination only among its CPUs,
 * vector not Tempo's, fixed or lowest priority) refuses the entry, and
 * while a level-triggered interrupt taken on the inject path waits for the
 * guest's EOI (below); otherwise it is the irq_route() target: fixed,
 * physical destination mode, the guest's vector, polarity and trigger.
 * A refused entry is filtered, not fatal: the guest reads back what it
 * wrote, the physical input stays masked, and vioapic_pin_verdict() says
 * why (for the hypervisor to report once and count).
 *
 * Level-triggered inputs. Direct delivery (a `direct` partition's own
 * LAPIC, no exit): the guest's EOI reaches the physical IOAPIC as the
 * hardware does it, and this model's remote IRR stays 0. Injected delivery
 * (the interrupt exits, Tempo acknowledges it and injects the vector):
 * Tempo's own LAPIC EOI would clear the physical remote IRR while the
 * device still asserts the line, so the hypervisor calls
 * vioapic_level_taken() before that EOI; the pins it names are masked
 * physically and their remote IRR set, until vioapic_eoi() (the guest's
 * EOI of that vector at its virtual LAPIC, or its write to the EOI
 * register) clears remote IRR and names them again, unmasked. Writing an
 * entry to edge-triggered clears its remote IRR too (the 82093AA's
 * behaviour that Linux's EOI for IOAPICs without the EOI register uses).
 *
 * Concurrency: the model is the partition's; the hypervisor serialises
 * its calls (one lock per partition around each call and the physical
 * writes it asks for).
 */
#ifndef TEMPO_HV_CORE_VIOAPIC_H
#define TEMPO_HV_CORE_VIOAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/irq_route.h"

#define VIOAPIC_REGSEL		0x00
#define VIOAPIC_WINDOW		0x10
#define VIOAPIC_EOI		0x40
#define VIOAPIC_MMIO_SIZE	0x1000	/* the page the guest's MADT names */

#define VIOAPIC_REG_ID		0x00
#define VIOAPIC_REG_VERSION	0x01
#define VIOAPIC_REG_ARB		0x02
#define VIOAPIC_REG_RTE		0x10	/* entry n: 0x10 + 2n (low), 0x11 + 2n (high) */
#define VIOAPIC_VERSION		0x20	/* an ICH IOxAPIC: the EOI register exists */
#define VIOAPIC_ID_SHIFT	24
#define VIOAPIC_ID_MASK		0x0f000000u

/*
 * Pins: 24 on a PC's first IOAPIC; up to 120 so that a partition can be
 * given a GSI of a second or third one: the 8-bit IOREGSEL reaches entry
 * 119's high dword at 0xFF and no further.
 */
#define VIOAPIC_MAX_PINS	120
#define VIOAPIC_PIN_WORDS	((VIOAPIC_MAX_PINS + 63) / 64)

struct vioapic_pins {
	uint64_t bits[VIOAPIC_PIN_WORDS];
};

static inline bool vioapic_pin_in(const struct vioapic_pins *p, uint32_t pin)
{
	return pin < VIOAPIC_MAX_PINS && (p->bits[pin / 64] >> (pin % 64) & 1);
}

static inline void vioapic_pin_add(struct vioapic_pins *p, uint32_t pin)
{
	if (pin < VIOAPIC_MAX_PINS)
		p->bits[pin / 64] |= 1ull << (pin % 64);
}

struct vioapic {
	uint8_t id;			/* 4 bits */
	uint8_t regsel;
	uint32_t pin_count;		/* 1..VIOAPIC_MAX_PINS */
	struct vioapic_pins assigned;	/* pins with a physical input behind them */
	struct vioapic_pins remote_irr;	/* level, taken on the inject path, no EOI yet */
	uint64_t rte[VIOAPIC_MAX_PINS];	/* the guest's entries, writable bits only */
	uint64_t phys[VIOAPIC_MAX_PINS];	/* the physical entries, assigned pins only */
	uint8_t verdict[VIOAPIC_MAX_PINS];	/* enum irq_verdict of each unmasked entry */
	struct irq_target target[VIOAPIC_MAX_PINS];	/* where a routed entry goes */
	struct irq_cpus cpus;
	struct irq_vector_set forbidden;
	uint8_t reset_id;
};

/*
 * Which physical entries the call changed, or whose verdict it changed
 * (a refusal after a masked entry leaves the physical one masked, but is
 * counted): write vioapic_phys_rte() of each to the hardware.
 * @eoi_vector_valid: the guest wrote the EOI register and the physical
 * IOAPIC (ICH-style, version 0x20 or later) should get @eoi_vector too
 * (a direct partition whose LAPIC suppresses the EOI
 * broadcast relies on it; harmless otherwise).
 */
struct vioapic_event {
	struct vioapic_pins pins;
	bool eoi_vector_valid;
	uint8_t eoi_vector;
};

/*
 * The IOAPIC at reset: @pin_count entries (1..VIOAPIC_MAX_PINS), every one
 * masked; @assigned (may be NULL: none) are the pins with physical inputs,
 * a pin at or past @pin_count among them refused; @cpus and @forbidden as
 * irq_route() takes them (copied). False, with *@v zeroed, for a bad
 * count, a bad assigned pin, or @cpus with no CPU or more than
 * IRQ_MAX_CPUS.
 */
bool vioapic_init(struct vioapic *v, uint8_t id, uint32_t pin_count,
		  const struct vioapic_pins *assigned, const struct irq_cpus *cpus,
		  const struct irq_vector_set *forbidden);

/*
 * Back to reset (a partition that stops or restarts): every entry masked,
 * remote IRR clear. @ev names every assigned pin, so the hypervisor masks
 * them all before the partition's RAM is reused.
 */
void vioapic_reset(struct vioapic *v, struct vioapic_event *ev);

/* A read of @size bytes (1, 2 or 4) at @offset into the register page. */
uint32_t vioapic_mmio_read(const struct vioapic *v, uint32_t offset, uint8_t size);

/* A write; fills *@ev (always). */
void vioapic_mmio_write(struct vioapic *v, uint32_t offset, uint8_t size, uint32_t value,
			struct vioapic_event *ev);

/*
 * A level-triggered interrupt with @vector was taken on the inject path
 * (on CPU index @cpu of struct irq_cpus): every assigned, unmasked,
 * level-triggered pin whose physical entry carries @vector to that CPU
 * gets remote IRR and its physical entry masked; @ev names them. Call it
 * before Tempo's EOI to the physical LAPIC. A vector no such pin carries
 * changes nothing.
 */
void vioapic_level_taken(struct vioapic *v, uint8_t vector, uint32_t cpu,
			 struct vioapic_event *ev);

/*
 * The guest's EOI of @vector (its virtual LAPIC's EOI of a level vector,
 * or a write to the EOI register): remote IRR cleared on every pin whose
 * entry has @vector, and the physical entries of those that were held
 * masked are named again in @ev, now as irq_route() gives them.
 */
void vioapic_eoi(struct vioapic *v, uint8_t vector, struct vioapic_event *ev);

/*
 * The guest's CPUs' logical IDs or destination model changed (an xAPIC
 * LDR or DFR write, a switch to x2APIC): the logical-mode entries are
 * routed again; @ev names the physical entries that changed.
 */
void vioapic_set_cpus(struct vioapic *v, const struct irq_cpus *cpus, struct vioapic_event *ev);

/*
 * Pin @pin's physical redirection entry (assigned pins; an unassigned or
 * out-of-range pin reads as masked, 1 << 16).
 */
uint64_t vioapic_phys_rte(const struct vioapic *v, uint32_t pin);

/*
 * Where pin @pin's interrupt goes: true with *@t when the guest's entry is
 * unmasked and irq_route() accepts it (whether or not it is held masked
 * for an EOI: vioapic_phys_rte() says). For the interrupt-remapping path,
 * which composes its own physical entry from @t instead of
 * vioapic_phys_rte()'s compatibility format.
 */
bool vioapic_pin_target(const struct vioapic *v, uint32_t pin, struct irq_target *t);

/*
 * Why pin @pin's physical entry is masked although the guest unmasked it
 * (IRQ_OK when it is not, or the guest masked it too).
 */
enum irq_verdict vioapic_pin_verdict(const struct vioapic *v, uint32_t pin);

#endif
