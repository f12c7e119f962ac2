// SPDX-License-Identifier: MIT
/* Posted interrupts: the descriptor's protocol and the entry checks (posted.h). */
#include "hv/core/posted.h"

/* the SDM's bit positions of the controls these checks read */
#define PIN_EXTINT_EXITING_BIT		(1u << 0)
#define PIN_POSTED_INTR_BIT		(1u << 7)
#define EXIT_ACK_INTR_BIT		(1u << 15)
#define PROC2_VIRT_INTR_DELIVERY_BIT	(1u << 9)

void pi_init(struct pi_desc *d, uint8_t nv, uint32_t ndst)
{
	for (uint32_t i = 0; i < 8; i++)
		__atomic_store_n(&d->pir[i], 0, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < 6; i++)
		d->reserved[i] = 0;
	d->ndst = ndst;
	__atomic_store_n(&d->control, (uint32_t)nv << PI_NV_SHIFT, __ATOMIC_RELEASE);
}

bool pi_post(struct pi_desc *d, uint8_t vector)
{
	uint32_t old;

	/* the bit before ON: whoever sees ON set finds the bit (SDM 29.6 step order) */
	__atomic_fetch_or(&d->pir[vector / 32], 1u << (vector % 32), __ATOMIC_SEQ_CST);
	old = __atomic_load_n(&d->control, __ATOMIC_SEQ_CST);
	for (;;) {
		if (old & (PI_ON | PI_SN))
			return false;
		if (__atomic_compare_exchange_n(&d->control, &old, old | PI_ON, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return true;
	}
}

bool pi_pending(const struct pi_desc *d)
{
	if (__atomic_load_n(&d->control, __ATOMIC_ACQUIRE) & PI_ON)
		return true;
	for (uint32_t i = 0; i < 8; i++)
		if (__atomic_load_n(&d->pir[i], __ATOMIC_ACQUIRE))
			return true;
	return false;
}

int pi_take(struct pi_desc *d, uint32_t irr[8])
{
	int high = -1;

	__atomic_fetch_and(&d->control, ~PI_ON, __ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t bits;

		/* SEQ_CST: not read ahead of ON's clearing (a post between them notifies) */
		if (!__atomic_load_n(&d->pir[i], __ATOMIC_SEQ_CST))
			continue;
		bits = __atomic_exchange_n(&d->pir[i], 0, __ATOMIC_SEQ_CST);
		irr[i] |= bits;
		if (bits)
			high = (int)(i * 32 + 31 - (uint32_t)__builtin_clz(bits));
	}
	return high;
}

bool pi_controls_ok(uint32_t pin, uint32_t exit, uint32_t proc2, uint32_t nv, uint64_t desc_pa,
		    uint32_t maxphyaddr)
{
	if (!(pin & PIN_POSTED_INTR_BIT))
		return true;
	if (!(pin & PIN_EXTINT_EXITING_BIT) || !(exit & EXIT_ACK_INTR_BIT) ||
	    !(proc2 & PROC2_VIRT_INTR_DELIVERY_BIT))
		return false;
	if (nv > 0xff)
		return false;
	if (desc_pa & 63)
		return false;
	if (maxphyaddr < 64 && (desc_pa >> maxphyaddr))
		return false;
	return true;
}

bool pi_usable(bool enabled, bool apicv, bool shared, bool config_owns_lapic)
{
	return enabled && apicv && !shared && !config_owns_lapic;
}
