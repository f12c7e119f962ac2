// SPDX-License-Identifier: MIT
/*
 * The virtual local APIC's interrupt state: IRR, ISR and TPR, with the
 * priority rules of SDM Vol. 3A 11.8.3 (task and processor priorities) and
 * 11.8.4 (interrupt acceptance). Only what the timer modes need: no LVT, no
 * ICR, no delivery modes; the caller injects what vlapic_pending() names.
 */
#include "hv/core/vlapic.h"

#include "hv/lib/lib.h"

/* Vectors 0-15 are reserved; the LAPIC refuses them (SDM 11.5.3, illegal vector). */
#define VLAPIC_FIRST_VECTOR	16

static void bit_set(uint32_t *v, uint8_t n)
{
	v[n >> 5] |= 1u << (n & 31);
}

static void bit_clear(uint32_t *v, uint8_t n)
{
	v[n >> 5] &= ~(1u << (n & 31));
}

/* Highest set bit of a 256-bit register, or -1. */
static int highest(const uint32_t *v)
{
	for (int i = 7; i >= 0; i--) {
		if (v[i])
			return i * 32 + 31 - __builtin_clz(v[i]);
	}
	return -1;
}

void vlapic_init(struct vlapic *l)
{
	memset(l, 0, sizeof(*l));
	l->dirty = VLAPIC_DIRTY_ALL;
	/* SDM 11.4.7.1 reset values, but software-enabled: Tempo keeps it on */
	l->svr = 0x1ff;
	for (int i = 0; i < VLAPIC_LVT_SHADOWS; i++)
		l->lvt[i] = 1u << 16;
}

bool vlapic_raise(struct vlapic *l, uint8_t vector)
{
	if (vector < VLAPIC_FIRST_VECTOR)
		return false;
	/* Already pending: it coalesces, as in the IRR of a real LAPIC. */
	bit_set(l->irr, vector);
	l->dirty |= VLAPIC_DIRTY_IRR(vector);
	return true;
}

int vlapic_highest_irr(const struct vlapic *l)
{
	return highest(l->irr);
}

int vlapic_highest_isr(const struct vlapic *l)
{
	return highest(l->isr);
}

/*
 * SDM 11.8.3.1: PPR = TPR if TPR[7:4] >= ISRV[7:4], else ISRV[7:4] << 4
 * (PPR[3:0] = 0), where ISRV is the highest vector in service (0 if none).
 */
uint8_t vlapic_ppr(const struct vlapic *l)
{
	int isrv = vlapic_highest_isr(l);
	uint8_t isr_class = isrv < 0 ? 0 : (uint8_t)((unsigned int)isrv & 0xf0);

	if ((l->tpr & 0xf0) >= isr_class)
		return l->tpr;
	return isr_class;
}

/*
 * SDM 11.8.4: the highest-priority pending vector is dispatched only if its
 * class (vector[7:4]) is above PPR[7:4]. A lower IRR vector has a class no
 * higher, so if the highest one is blocked, all are.
 */
int vlapic_pending(const struct vlapic *l)
{
	int irrv = vlapic_highest_irr(l);

	if (irrv < 0)
		return -1;
	if (((unsigned int)irrv >> 4) > (unsigned int)(vlapic_ppr(l) >> 4))
		return irrv;
	return -1;
}

void vlapic_accept(struct vlapic *l, uint8_t vector)
{
	if (vector < VLAPIC_FIRST_VECTOR)
		return;
	bit_clear(l->irr, vector);
	bit_set(l->isr, vector);
	l->dirty |= VLAPIC_DIRTY_IRR(vector) | VLAPIC_DIRTY_ISR(vector);
}

/* SDM 11.8.5: an EOI retires the highest-priority vector in service. */
int vlapic_eoi(struct vlapic *l)
{
	int isrv = vlapic_highest_isr(l);

	if (isrv >= 0) {
		bit_clear(l->isr, (uint8_t)isrv);
		l->dirty |= VLAPIC_DIRTY_ISR(isrv);
	}
	return isrv;
}

void vlapic_set_tpr(struct vlapic *l, uint8_t tpr)
{
	l->tpr = tpr;
	l->dirty |= VLAPIC_DIRTY_TPR;
}

bool vlapic_in_service(const struct vlapic *l)
{
	return vlapic_highest_isr(l) >= 0;
}
