// SPDX-License-Identifier: MIT
#include "hv/core/guest_msrs.h"

/* SDM Vol. 3A 12.11.2.2, 12.11.2.3: the reserved bits below MAXPHYADDR */
#define DEF_TYPE_RESERVED	(~0xcffull)	/* type 7:0, FE 10, E 11 */
#define PHYSBASE_LOW_RESERVED	0xf00ull	/* 11:8 */
#define PHYSMASK_LOW_RESERVED	0x7ffull	/* 10:0; bit 11 is V */

bool mtrr_type_valid(uint64_t type)
{
	return type == 0 || type == 1 || type == 4 || type == 5 || type == 6;
}

void guest_msrs_reset(struct guest_msrs *m, uint64_t misc_enable)
{
	*m = (struct guest_msrs){ .mtrr_def_type = GUEST_MTRR_DEF_TYPE, .misc_enable = misc_enable };
}

/* The index of a fixed-range MTRR in mtrr_fixed[], or -1. */
static int fixed_index(uint32_t msr)
{
	if (msr == MSR_MTRR_FIX64K_00000)
		return 0;
	if (msr == MSR_MTRR_FIX16K_80000 || msr == MSR_MTRR_FIX16K_A0000)
		return 1 + (int)(msr - MSR_MTRR_FIX16K_80000);
	if (msr >= MSR_MTRR_FIX4K_C0000 && msr <= MSR_MTRR_FIX4K_F8000)
		return 3 + (int)(msr - MSR_MTRR_FIX4K_C0000);
	return -1;
}

static bool variable_msr(uint32_t msr)
{
	return msr >= MSR_MTRR_PHYSBASE0 && msr < MSR_MTRR_PHYSBASE0 + 2 * GUEST_MTRR_VARIABLE;
}

bool guest_mtrr_msr(uint32_t msr)
{
	return msr == MSR_MTRRCAP || msr == MSR_MTRR_DEF_TYPE || variable_msr(msr) ||
	       fixed_index(msr) >= 0;
}

bool guest_mtrr_read(const struct guest_msrs *m, uint32_t msr, uint64_t *value)
{
	int fixed = fixed_index(msr);

	if (msr == MSR_MTRRCAP)
		*value = GUEST_MTRRCAP;
	else if (msr == MSR_MTRR_DEF_TYPE)
		*value = m->mtrr_def_type;
	else if (variable_msr(msr))
		*value = m->mtrr_var[msr - MSR_MTRR_PHYSBASE0];
	else if (fixed >= 0)
		*value = m->mtrr_fixed[fixed];
	else
		return false;
	return true;
}

/* Bits MAXPHYADDR and up (SDM 12.11.2.3): 36 where CPUID does not say */
static uint64_t above_maxphyaddr(uint8_t maxphyaddr)
{
	if (!maxphyaddr)
		maxphyaddr = 36;
	if (maxphyaddr >= 64)
		return 0;
	return ~0ull << maxphyaddr;
}

bool guest_mtrr_write(struct guest_msrs *m, uint32_t msr, uint64_t value, uint8_t maxphyaddr)
{
	int fixed = fixed_index(msr);

	if (msr == MSR_MTRR_DEF_TYPE) {
		if ((value & DEF_TYPE_RESERVED) || !mtrr_type_valid(value & 0xff))
			return false;
		m->mtrr_def_type = value;
		return true;
	}
	if (variable_msr(msr)) {
		uint32_t i = msr - MSR_MTRR_PHYSBASE0;
		bool mask = i & 1;

		if (value & above_maxphyaddr(maxphyaddr))
			return false;
		if (mask ? (value & PHYSMASK_LOW_RESERVED) :
			   ((value & PHYSBASE_LOW_RESERVED) || !mtrr_type_valid(value & 0xff)))
			return false;
		m->mtrr_var[i] = value;
		return true;
	}
	if (fixed >= 0) {
		/* eight ranges, a type in each byte */
		for (uint32_t b = 0; b < 8; b++)
			if (!mtrr_type_valid((value >> (8 * b)) & 0xff))
				return false;
		m->mtrr_fixed[fixed] = value;
		return true;
	}
	return false;	/* MTRRCAP is read-only; the rest is no MTRR */
}

bool guest_misc_enable_write(struct guest_msrs *m, uint64_t value)
{
	uint64_t changed = value ^ m->misc_enable;

	if (changed & ~(MISC_GUEST_WRITABLE | MISC_GUEST_KEPT))
		return false;
	m->misc_enable = (m->misc_enable & ~MISC_GUEST_WRITABLE) | (value & MISC_GUEST_WRITABLE);
	return true;
}
