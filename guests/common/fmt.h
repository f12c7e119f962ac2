/* SPDX-License-Identifier: MIT */
/*
 * A small vsnprintf for guests: %s %c %d %u %x %llu %llx %%, with an optional
 * '0' flag and width. 64-bit numbers are converted with divl, so 32-bit
 * guests need no libgcc.
 */
#ifndef TEMPO_GUESTS_COMMON_FMT_H
#define TEMPO_GUESTS_COMMON_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Always NUL-terminates when @size > 0; returns the length written. */
size_t fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
size_t fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
