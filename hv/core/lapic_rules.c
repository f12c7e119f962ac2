// SPDX-License-Identifier: MIT
#include "hv/core/lapic_rules.h"

bool lapic_is_lvt(uint32_t msr)
{
	return msr == LAPIC_MSR_LVT_CMCI ||
	       (msr >= LAPIC_MSR_LVT_TIMER && msr <= LAPIC_MSR_LVT_ERROR);
}

bool lapic_lvt_present(uint32_t msr, uint32_t lvr)
{
	if (msr == LAPIC_MSR_LVT_CMCI)
		return ((lvr >> 16) & 0xffu) >= 6;
	return lapic_is_lvt(msr);
}

/* SDM Vol. 3A figure 11-8, register by register. */
uint32_t lapic_lvt_writable(uint32_t msr)
{
	switch (msr) {
	case LAPIC_MSR_LVT_TIMER:
		return LAPIC_LVT_VECTOR | LAPIC_LVT_STATUS | LAPIC_LVT_MASKED |
		       LAPIC_LVT_TIMER_MODE;
	case LAPIC_MSR_LVT_CMCI:
	case LAPIC_MSR_LVT_THERMAL:
	case LAPIC_MSR_LVT_PMC:
		return LAPIC_LVT_VECTOR | LAPIC_LVT_DELIVERY | LAPIC_LVT_STATUS |
		       LAPIC_LVT_MASKED;
	case LAPIC_MSR_LVT_LINT0:
	case LAPIC_MSR_LVT_LINT1:
		return LAPIC_LVT_VECTOR | LAPIC_LVT_DELIVERY | LAPIC_LVT_STATUS |
		       LAPIC_LVT_POLARITY | LAPIC_LVT_REMOTE_IRR | LAPIC_LVT_TRIGGER |
		       LAPIC_LVT_MASKED;
	case LAPIC_MSR_LVT_ERROR:
		return LAPIC_LVT_VECTOR | LAPIC_LVT_STATUS | LAPIC_LVT_MASKED;
	}
	return 0;
}

bool lapic_lvt_write_ok(uint32_t msr, uint64_t value)
{
	if (!lapic_is_lvt(msr) || (value & ~(uint64_t)lapic_lvt_writable(msr)))
		return false;
	if (msr == LAPIC_MSR_LVT_TIMER &&
	    (value & LAPIC_LVT_TIMER_MODE) == LAPIC_LVT_TIMER_MODE)
		return false;
	return true;
}

uint32_t lapic_lvt_filter(uint32_t msr, uint32_t value)
{
	value &= lapic_lvt_writable(msr) & ~(LAPIC_LVT_STATUS | LAPIC_LVT_REMOTE_IRR);
	if (value & LAPIC_LVT_DELIVERY)
		value = (value & ~LAPIC_LVT_DELIVERY) | LAPIC_LVT_MASKED;
	if (!(value & LAPIC_LVT_MASKED) && (value & LAPIC_LVT_VECTOR) < 16)
		value |= LAPIC_LVT_MASKED;
	return value;
}
