/* SPDX-License-Identifier: MIT */
/*
 * A virtual local APIC for the inject and emulated timer modes: the
 * interrupt state (IRR, ISR, TPR) lives here, not in the physical APIC, so a
 * core can be shared. Priority rules of SDM Vol. 3A 11.8 (PPR from TPR and
 * the highest in-service class; an interrupt is deliverable when its class is
 * above PPR's). Pure and host-testable.
 */
#ifndef TEMPO_HV_VLAPIC_H
#define TEMPO_HV_VLAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* The non-interrupt-state registers a guest may write off direct mode. */
#define VLAPIC_LVT_SHADOWS	6	/* CMCI, thermal, PMC, LINT0, LINT1, error */

#define VLAPIC_DIRTY_IRR(vec)	(1u << ((unsigned int)(vec) >> 5))
#define VLAPIC_DIRTY_ISR(vec)	(1u << (8 + ((unsigned int)(vec) >> 5)))
#define VLAPIC_DIRTY_TPR	(1u << 16)
#define VLAPIC_DIRTY_ALL	0x1ffffu

struct vlapic {
	uint32_t irr[8];	/* 256 bits */
	uint32_t isr[8];
	uint8_t tpr;
	/*
	 * What changed since the virtual-APIC page last took it (hv/apic/deliver.c,
	 * apicv_sync_out): bit i the IRR word i, 8 + i the ISR word i, 16 the
	 * TPR. Every function here that changes them sets their bits.
	 */
	uint32_t dirty;
	/*
	 * Shadows only: nothing raises these interrupts for a partition, and
	 * the count-down timer does not count here (TMCCT reads 0). Kept so
	 * reads give back what was written, as on hardware. The counting
	 * one is struct vtimer's countdown (hv/core/lapic_timer.h), which
	 * hv/ does not use yet (docs/xapic.md).
	 */
	uint32_t svr;
	uint32_t lvt[VLAPIC_LVT_SHADOWS];
	uint32_t esr;
	uint32_t timer_initial_count;
	uint32_t timer_divide;
};

void vlapic_init(struct vlapic *l);
/* Raise @vector (16..255; lower vectors are ignored and return false). */
bool vlapic_raise(struct vlapic *l, uint8_t vector);
/* Highest vector in IRR, or -1. */
int vlapic_highest_irr(const struct vlapic *l);
/* Highest vector in ISR, or -1. */
int vlapic_highest_isr(const struct vlapic *l);
uint8_t vlapic_ppr(const struct vlapic *l);
/* The vector to deliver now (IRR above PPR), or -1. */
int vlapic_pending(const struct vlapic *l);
/* The CPU accepted @vector: move it from IRR to ISR. */
void vlapic_accept(struct vlapic *l, uint8_t vector);
/* EOI: clear the highest ISR bit; returns the vector cleared or -1. */
int vlapic_eoi(struct vlapic *l);
void vlapic_set_tpr(struct vlapic *l, uint8_t tpr);
bool vlapic_in_service(const struct vlapic *l);

#endif
