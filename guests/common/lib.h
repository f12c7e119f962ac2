/* SPDX-License-Identifier: MIT */
/* The string functions GCC may call even in freestanding code, plus helpers. */
#ifndef TEMPO_GUESTS_COMMON_LIB_H
#define TEMPO_GUESTS_COMMON_LIB_H

#include <stddef.h>
#include <stdint.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

/* Unaligned little-endian reads of outside data (tables are byte-packed). */
static inline uint16_t rd16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t rd32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t rd64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif
