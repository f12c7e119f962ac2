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
	/*
	 * Bit i: irr[i] (isr[i]) is not 0. The highest vector is then two bit
	 * scans, not a walk of eight words: this is on every virtual delivery.
	 * Whoever writes irr[] or isr[] other than through these functions
	 * calls vlapic_summarize.
	 */
	uint8_t irr_words, isr_words;
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
/* irr_words and isr_words again, after irr[] or isr[] were written directly. */
void vlapic_summarize(struct vlapic *l);
/* Highest set bit of a 256-bit register whose non-zero words are @words, or -1. */
static inline int vlapic_highest(const uint32_t *v, uint8_t words)
{
	int i;

	if (!words)
		return -1;
	i = 31 - __builtin_clz(words);
	return i * 32 + 31 - __builtin_clz(v[i]);
}

/* Highest vector in IRR, or -1. */
static inline int vlapic_highest_irr(const struct vlapic *l)
{
	return vlapic_highest(l->irr, l->irr_words);
}

/* Highest vector in ISR, or -1. */
static inline int vlapic_highest_isr(const struct vlapic *l)
{
	return vlapic_highest(l->isr, l->isr_words);
}

/*
 * SDM 11.8.3.1: PPR = TPR if TPR[7:4] >= ISRV[7:4], else ISRV[7:4] << 4
 * (PPR[3:0] = 0), where ISRV is the highest vector in service (0 if none).
 */
static inline uint8_t vlapic_ppr(const struct vlapic *l)
{
	int isrv = vlapic_highest_isr(l);
	uint8_t isr_class = isrv < 0 ? 0 : (uint8_t)((unsigned int)isrv & 0xf0);

	if ((l->tpr & 0xf0) >= isr_class)
		return l->tpr;
	return isr_class;
}

/*
 * The vector to deliver now (IRR above PPR), or -1.
 * SDM 11.8.4: the highest-priority pending vector is dispatched only if its
 * class (vector[7:4]) is above PPR[7:4]. A lower IRR vector has a class no
 * higher, so if the highest one is blocked, all are.
 */
static inline int vlapic_pending(const struct vlapic *l)
{
	int irrv = vlapic_highest_irr(l);

	if (irrv < 0)
		return -1;
	if (((unsigned int)irrv >> 4) > (unsigned int)(vlapic_ppr(l) >> 4))
		return irrv;
	return -1;
}

/* Vectors 0-15 are reserved; the LAPIC refuses them (SDM 11.5.3, illegal vector). */
#define VLAPIC_FIRST_VECTOR	16

static inline void vlapic_bit_set(uint32_t *v, uint8_t *words, uint8_t n)
{
	v[n >> 5] |= 1u << (n & 31);
	*words |= (uint8_t)(1u << (n >> 5));
}

static inline void vlapic_bit_clear(uint32_t *v, uint8_t *words, uint8_t n)
{
	v[n >> 5] &= ~(1u << (n & 31));
	if (!v[n >> 5])
		*words &= (uint8_t)~(1u << (n >> 5));
}

/* Raise @vector (16..255; lower vectors are ignored and return false). */
static inline bool vlapic_raise(struct vlapic *l, uint8_t vector)
{
	if (vector < VLAPIC_FIRST_VECTOR)
		return false;
	/* Already pending: it coalesces, as in the IRR of a real LAPIC. */
	vlapic_bit_set(l->irr, &l->irr_words, vector);
	l->dirty |= VLAPIC_DIRTY_IRR(vector);
	return true;
}

/* The CPU accepted @vector: move it from IRR to ISR. */
static inline void vlapic_accept(struct vlapic *l, uint8_t vector)
{
	if (vector < VLAPIC_FIRST_VECTOR)
		return;
	vlapic_bit_clear(l->irr, &l->irr_words, vector);
	vlapic_bit_set(l->isr, &l->isr_words, vector);
	l->dirty |= VLAPIC_DIRTY_IRR(vector) | VLAPIC_DIRTY_ISR(vector);
}

/* EOI: clear the highest ISR bit; returns the vector cleared or -1. */
int vlapic_eoi(struct vlapic *l);
void vlapic_set_tpr(struct vlapic *l, uint8_t tpr);
bool vlapic_in_service(const struct vlapic *l);

#endif
