/* SPDX-License-Identifier: MIT */
/*
 * A set of physical CPU indexes (0 .. TEMPO_MAX_CPUS - 1): a partition's
 * CPUs, the CPUs that have a schedule. 512 bytes, a bit a CPU. Pure.
 */
#ifndef TEMPO_HV_CORE_CPUSET_H
#define TEMPO_HV_CORE_CPUSET_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/lib/cpus.h"

#define CPUSET_WORDS	(TEMPO_MAX_CPUS / 64)

struct cpuset {
	uint64_t w[CPUSET_WORDS];
};

/* The freestanding build has no libgcc for __builtin_popcountll. */
static inline uint32_t cpuset_popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

static inline bool cpuset_has(const struct cpuset *s, uint32_t cpu)
{
	return cpu < TEMPO_MAX_CPUS && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

/* Ignores a CPU out of range (the parsers refuse those first). */
static inline void cpuset_add(struct cpuset *s, uint32_t cpu)
{
	if (cpu < TEMPO_MAX_CPUS)
		s->w[cpu / 64] |= 1ull << (cpu % 64);
}

/* The lowest CPU in @s at or above @from, or -1. */
static inline int cpuset_next(const struct cpuset *s, uint32_t from)
{
	for (uint32_t i = from / 64; i < CPUSET_WORDS && from < TEMPO_MAX_CPUS; i++) {
		uint64_t w = s->w[i];

		if (i == from / 64)
			w &= ~0ull << (from % 64);
		if (w)
			return (int)(i * 64 + (uint32_t)__builtin_ctzll(w));
	}
	return -1;
}

static inline int cpuset_first(const struct cpuset *s)
{
	return cpuset_next(s, 0);
}

static inline bool cpuset_empty(const struct cpuset *s)
{
	return cpuset_first(s) < 0;
}

static inline uint32_t cpuset_count(const struct cpuset *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < CPUSET_WORDS; i++)
		n += cpuset_popcount64(s->w[i]);
	return n;
}

/* How many CPUs of @s lie below @cpu (a vCPU's index in its partition). */
static inline uint32_t cpuset_rank(const struct cpuset *s, uint32_t cpu)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < CPUSET_WORDS && i * 64 < cpu; i++)
		n += cpuset_popcount64(cpu >= i * 64 + 64 ? s->w[i] :
					       s->w[i] & ((1ull << (cpu % 64)) - 1));
	return n;
}

/* The lowest CPU in @a and @b but not in @not (may be NULL), or -1. */
static inline int cpuset_first_common(const struct cpuset *a, const struct cpuset *b,
				      const struct cpuset *not)
{
	for (uint32_t i = 0; i < CPUSET_WORDS; i++) {
		uint64_t w = a->w[i] & b->w[i] & (not ? ~not->w[i] : ~0ull);

		if (w)
			return (int)(i * 64 + (uint32_t)__builtin_ctzll(w));
	}
	return -1;
}

static inline void cpuset_or(struct cpuset *dst, const struct cpuset *src)
{
	for (uint32_t i = 0; i < CPUSET_WORDS; i++)
		dst->w[i] |= src->w[i];
}

#endif
