/* SPDX-License-Identifier: MIT */
/*
 * The few C library functions the hypervisor uses. Freestanding builds get
 * them from hv/lib/lib.c; host builds (unit tests, fuzzers) from the C library,
 * so the same parser source compiles in both.
 */
#ifndef TEMPO_HV_LIB_H
#define TEMPO_HV_LIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef TEMPO_HOST
#include <string.h>
#else
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
#endif

/*
 * Zero RAM by the gigabyte (a partition's, a channel's): REP STOSQ, which
 * hardware runs at memory speed (fast strings, SDM Vol. 1 7.3.9.3) and
 * Bochs in blocks, where memset's byte loop takes four instructions a byte.
 */
void zero_ram(void *dst, size_t n);

/*
 * Copy RAM by the megabyte (a guest image into its partition): REP MOVSQ,
 * as zero_ram, where memcpy's byte loop takes five instructions a byte
 * (a Linux vmlinux is 35 MB). The ranges must not overlap.
 */
void copy_ram(void *dst, const void *src, size_t n);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))

/*
 * Little-endian loads from outside input at any alignment (memcpy, so no
 * misaligned pointer is ever dereferenced: UBSan checks that in the tests).
 */
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

/* The matching little-endian stores, for tables built in guest memory. */
static inline void st16(void *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void st32(void *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void st64(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Copy a string into a fixed buffer, always NUL-terminating it. */
void str_copy(char *dst, size_t dst_size, const char *src, size_t src_max);

#endif
