/* SPDX-License-Identifier: MIT */
/*
 * 64-bit by 32-bit division that links without libgcc on a 32-bit target:
 * there a plain '/' or '%' on a uint64_t becomes a call to __udivdi3, which
 * the freestanding 32-bit guests do not have. On i386 it is two divl steps;
 * elsewhere (the 64-bit hypervisor, the host tests) the plain operators,
 * which are one instruction there. hv/lib/fmt.c and the guests use it.
 */
#ifndef TEMPO_HV_LIB_DIV64_H
#define TEMPO_HV_LIB_DIV64_H

#include <stdint.h>

#if defined(__i386__) || defined(__x86_64__)
/* The two-divl form, on x86 of either width (so the host tests reach it too). */
static inline uint64_t div_u64_rem_divl(uint64_t n, uint32_t d, uint32_t *rem)
{
	uint32_t hi = (uint32_t)(n >> 32), lo = (uint32_t)n;
	uint32_t q_hi = hi / d, r = hi % d, q_lo;

	/* r < d, so edx:eax / d cannot overflow 32 bits. */
	asm("divl %4" : "=a"(q_lo), "=d"(r) : "a"(lo), "d"(r), "rm"(d));
	if (rem)
		*rem = r;
	return ((uint64_t)q_hi << 32) | q_lo;
}
#endif

/* Returns @n / @d and stores @n % @d in *@rem (when @rem is not NULL); @d != 0. */
static inline uint64_t div_u64_rem(uint64_t n, uint32_t d, uint32_t *rem)
{
#ifdef __i386__
	return div_u64_rem_divl(n, d, rem);
#else
	if (rem)
		*rem = (uint32_t)(n % d);
	return n / d;
#endif
}

static inline uint64_t div_u64(uint64_t n, uint32_t d)
{
	return div_u64_rem(n, d, (uint32_t *)0);
}

/* @n / @d rounded toward zero, for a signed @n. */
static inline int64_t div_s64(int64_t n, uint32_t d)
{
	if (n < 0)
		return (int64_t)-div_u64(-(uint64_t)n, d);	/* no overflow at INT64_MIN */
	return (int64_t)div_u64((uint64_t)n, d);
}

#endif
