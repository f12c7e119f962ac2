// SPDX-License-Identifier: MIT
#include "hv/core/xcr0.h"

/* Leaf 7 feature flags whose state lives in XSAVE components (SDM Vol. 2A CPUID) */
#define CPUID_7_EBX_MPX		(1u << 14)
#define CPUID_7_EBX_AVX512	((1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | \
				 (1u << 27) | (1u << 28) | (1u << 30) | (1u << 31))
#define CPUID_7_ECX_AVX512	((1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14))
#define CPUID_7_EDX_AVX512	((1u << 2) | (1u << 3) | (1u << 8) | (1u << 23))
#define CPUID_7_ECX_PKU		((1u << 3) | (1u << 4))	/* PKU, OSPKE */
#define CPUID_7_EDX_AMX		((1u << 22) | (1u << 24) | (1u << 25))
#define CPUID_7_1_EAX_AVX512_BF16 (1u << 5)
#define CPUID_7_1_EAX_AMX_FP16	(1u << 21)
#define CPUID_7_1_EDX_AMX_COMPLEX (1u << 8)
#define CPUID_LEAF_XSAVE	0xd
#define CPUID_D_1_EAX_XFD	(1u << 4)	/* IA32_XFD, IA32_XFD_ERR (0x1C4, 0x1C5) */
#define CPUID_LEAF_AMX_TILE	0x1d
#define CPUID_LEAF_AMX_TMUL	0x1e

/* A group of components is all in @value or none of it. */
static bool whole(uint64_t value, uint64_t group)
{
	return (value & group) == 0 || (value & group) == group;
}

bool xsetbv_legal(uint32_t ecx, uint32_t cpl, uint64_t value, uint64_t allowed)
{
	if (ecx != 0 || cpl != 0)
		return false;	/* only XCR0 exists; XSETBV is privileged (Vol. 2B) */
	if (!(value & XCR0_X87) || (value & ~allowed) || (value & XCR0_SUPERVISOR))
		return false;
	if ((value & XCR0_AVX) && !(value & XCR0_SSE))
		return false;
	if ((value & XCR0_AVX512) && !(value & XCR0_AVX))
		return false;
	return whole(value, XCR0_AVX512) && whole(value, XCR0_MPX) && whole(value, XCR0_AMX);
}

uint32_t xsave_size(const struct xsave_cpuid *c, uint64_t mask)
{
	uint32_t size = XSAVE_MIN_BYTES;

	mask &= ~XCR0_SUPERVISOR;	/* those are only in the compacted format */
	for (uint32_t i = 2; i < XSAVE_COMPONENTS; i++) {
		uint64_t end = (uint64_t)c->offset[i] + c->size[i];

		if ((mask & (1ull << i)) && end > size)
			size = end > 0xffffffffu ? 0xffffffffu : (uint32_t)end;
	}
	return size;
}

struct xsave_plan xsave_plan_make(const struct xsave_cpuid *c, uint32_t area_max)
{
	struct xsave_plan p = { 0, 0 };
	uint64_t allowed = c->supported & ~XCR0_SUPERVISOR;

	/* x87 and SSE are in the legacy region: every XSAVE CPU has both */
	if ((allowed & (XCR0_X87 | XCR0_SSE)) != (XCR0_X87 | XCR0_SSE) ||
	    area_max < XSAVE_MIN_BYTES)
		return p;
	for (uint32_t i = 2; i < XSAVE_COMPONENTS; i++) {
		uint64_t bit = 1ull << i, end = (uint64_t)c->offset[i] + c->size[i];

		if ((allowed & bit) && (!c->size[i] || c->offset[i] < XSAVE_MIN_BYTES ||
					end > area_max))
			allowed &= ~bit;
	}
	if (!(allowed & XCR0_AVX) || !whole(allowed, XCR0_AVX512))
		allowed &= ~XCR0_AVX512;
	/*
	 * MPX is not offered: IA32_BNDCFGS, which the SDM gives every MPX CPU,
	 * has no row, and MPX is gone from compilers and kernels. Its two
	 * components stay out of XCR0, and so its CPUID 7 flag is hidden below.
	 */
	allowed &= ~XCR0_MPX;
	if (!whole(allowed, XCR0_AMX))
		allowed &= ~XCR0_AMX;
	p.xcr0_allowed = allowed;
	p.area_bytes = xsave_size(c, allowed);
	/* the CPU's own figure when it describes exactly this set (and fits) */
	if (allowed == (c->supported & ~XCR0_SUPERVISOR) && c->size_all > p.area_bytes &&
	    c->size_all <= area_max)
		p.area_bytes = c->size_all;
	return p;
}

void xcr0_filter_cpuid(uint64_t allowed, uint32_t size_allowed, uint32_t leaf, uint32_t sub,
		       uint32_t *eax, uint32_t *ebx, uint32_t *ecx, uint32_t *edx)
{
	switch (leaf) {
	case 7:
		if (sub == 0) {
			if (!(allowed & XCR0_AVX512)) {
				*ebx &= ~CPUID_7_EBX_AVX512;
				*ecx &= ~CPUID_7_ECX_AVX512;
				*edx &= ~CPUID_7_EDX_AVX512;
			}
			if (!(allowed & XCR0_MPX))
				*ebx &= ~CPUID_7_EBX_MPX;
			if (!(allowed & XCR0_AMX))
				*edx &= ~CPUID_7_EDX_AMX;
			/* PKRU would not be switched with the rest (Bochs 2.7 gives
			 * sub-leaf 9 as zeros, so its PKRU has no place in the area) */
			if (!(allowed & XCR0_PKRU))
				*ecx &= ~CPUID_7_ECX_PKU;
		} else if (sub == 1) {
			if (!(allowed & XCR0_AVX512))
				*eax &= ~CPUID_7_1_EAX_AVX512_BF16;
			if (!(allowed & XCR0_AMX)) {
				*eax &= ~CPUID_7_1_EAX_AMX_FP16;
				*edx &= ~CPUID_7_1_EDX_AMX_COMPLEX;
			}
		}
		break;
	case CPUID_LEAF_XSAVE:
		if (sub == 0) {
			/* EBX (size for the current XCR0) is the hardware's: it is the guest's */
			*eax &= (uint32_t)allowed;
			*edx &= (uint32_t)(allowed >> 32);
			*ecx = size_allowed;
		} else if (sub >= 2 && sub < XSAVE_COMPONENTS && !(allowed & (1ull << sub))) {
			/*
			 * as for a component the CPU lacks; supervisor ones too:
			 * IA32_XSS offers none (0xD.1 ECX:EDX is 0)
			 */
			*eax = *ebx = *ecx = *edx = 0;
		} else if (sub == 1) {
			/* the XFD MSRs have no row (hv/core/msr_policy.c): a guest would #GP */
			*eax &= ~CPUID_D_1_EAX_XFD;
		}
		break;
	case CPUID_LEAF_AMX_TILE:
	case CPUID_LEAF_AMX_TMUL:
		if (!(allowed & XCR0_AMX))
			*eax = *ebx = *ecx = *edx = 0;
		break;
	}
}
