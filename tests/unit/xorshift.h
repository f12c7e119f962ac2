/* SPDX-License-Identifier: MIT */
#ifndef TESTS_UNIT_XORSHIFT_H
#define TESTS_UNIT_XORSHIFT_H

#include <stdint.h>

/*
 * Marsaglia's xorshift64 (13, 7, 17): the unit tests' random damage, the
 * same sequence for the same seed on every host. *@s must not be 0.
 */
static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
