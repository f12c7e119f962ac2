// SPDX-License-Identifier: MIT
#include "hv/lib/lib.h"

#ifndef TEMPO_HOST
void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d < s) {
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}
#endif

/* freestanding or not (the host unit tests run them) */
void zero_ram(void *dst, size_t n)
{
#ifdef __x86_64__
	uintptr_t d = (uintptr_t)dst;
	size_t q = n / 8;

	__asm__ volatile("cld; rep stosq" : "+D"(d), "+c"(q) : "a"(0ul) : "memory");
	memset((void *)d, 0, n % 8);
#else
	memset(dst, 0, n);	/* the 32-bit guests' copy: they zero little */
#endif
}

void copy_ram(void *dst, const void *src, size_t n)
{
#ifdef __x86_64__
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
	size_t q = n / 8;

	__asm__ volatile("cld; rep movsq" : "+D"(d), "+S"(s), "+c"(q) : : "memory");
	memcpy((void *)d, (const void *)s, n % 8);
#else
	memcpy(dst, src, n);
#endif
}

void str_copy(char *dst, size_t dst_size, const char *src, size_t src_max)
{
	size_t n;

	if (!dst_size)
		return;
	n = strnlen(src, src_max);
	if (n >= dst_size)
		n = dst_size - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}
