// SPDX-License-Identifier: MIT
/*
 * The virtual local APIC's interrupt state: IRR, ISR and TPR, with the
 * priority rules of SDM Vol. 3A 11.8.3 (task and processor priorities) and
 * 11.8.4 (interrupt acceptance). Only what the timer modes need: no LVT, no
 * ICR, no delivery modes; the caller injects what vlapic_pending() names.
 */
#include "hv/core/vlapic.h"

#include "hv/lib/lib.h"





static uint8_t summary(const uint32_t *v)
{
	uint8_t words = 0;

	for (int i = 0; i < 8; i++)
		if (v[i])
			words |= (uint8_t)(1u << i);
	return words;
}

void vlapic_summarize(struct vlapic *l)
{
	l->irr_words = summary(l->irr);
	l->isr_words = summary(l->isr);
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







/* SDM 11.8.5: an EOI retires the highest-priority vector in service. */
int vlapic_eoi(struct vlapic *l)
{
	int isrv = vlapic_highest_isr(l);

	if (isrv >= 0) {
		vlapic_bit_clear(l->isr, &l->isr_words, (uint8_t)isrv);
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
