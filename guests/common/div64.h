/* SPDX-License-Identifier: MIT */
/*
 * 64-bit by 32-bit division for 32-bit guests. They link without libgcc, so
 * a plain '/' or '%' on a uint64_t fails at link time (__udivdi3); this does
 * it in two divl steps, like fmt.c. Also builds on the host for unit tests.
 */
#ifndef TEMPO_GUESTS_COMMON_DIV64_H
#define TEMPO_GUESTS_COMMON_DIV64_H

#include <stdint.h>

/* Returns @n / @d and stores @n % @d in *@rem (when @rem is not NULL); @d != 0. */
static inline uint64_t div_u64_rem(uint64_t n, uint32_t d, uint32_t *rem)
{
	uint32_t hi = (uint32_t)(n >> 32), lo = (uint32_t)n;
	uint32_t q_hi = hi / d, r = hi % d, q_lo;

	/* r < d, so edx:eax / d cannot overflow 32 bits. */
	asm("divl %4" : "=a"(q_lo), "=d"(r) : "a"(lo), "d"(r), "rm"(d));
	if (rem)
		*rem = r;
	return ((uint64_t)q_hi << 32) | q_lo;
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
