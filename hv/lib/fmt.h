/* SPDX-License-Identifier: MIT */
/*
 * The formatter behind printk and snprintf. Freestanding and host-testable.
 * Conversions: %d %i %u %x %X %o %c %s %p %%, with flags '-' '0', a width
 * (number or '*'), a precision for %s, and the length modifiers l, ll, z.
 * An unknown conversion is printed as-is so a bad format is visible, never
 * undefined behaviour. 64-bit numbers go through hv/lib/div64.h, so a
 * 32-bit build (the guests) needs no libgcc.
 */
#ifndef TEMPO_HV_FMT_H
#define TEMPO_HV_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Like vsnprintf: returns the length the full output would have had. */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Like the above but returns the length actually written (at most @size - 1,
 * 0 when @size is 0), so `n += fmt_scnprintf(buf + n, size - n, ...)` never
 * runs past the buffer.
 */
size_t fmt_vscnprintf(char *buf, size_t size, const char *fmt, va_list ap);
size_t fmt_scnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Where a parser's error message goes (@len 0: nowhere). */
struct fmt_err {
	char *msg;
	size_t len;
};

/*
 * A parser's failure: the message into @e, the @size bytes at @out (if not
 * NULL) cleared, so no half-made result is ever handed back; returns -1.
 */
int fmt_fail(const struct fmt_err *e, void *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
