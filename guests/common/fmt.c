// SPDX-License-Identifier: MIT
#include "guests/common/fmt.h"

#include <stdbool.h>
#include <stdint.h>

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len++] = c;
}

/* v / base with the remainder; two divl steps so no 64-bit libgcc helper. */
static uint64_t divmod(uint64_t v, uint32_t base, uint32_t *rem)
{
	uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)v;
	uint32_t q_hi = hi / base, r = hi % base, q_lo;

	/* r < base, so edx:eax / base cannot overflow 32 bits. */
	asm("divl %4" : "=a"(q_lo), "=d"(r) : "a"(lo), "d"(r), "rm"(base));
	*rem = r;
	return ((uint64_t)q_hi << 32) | q_lo;
}

static void put_num(struct out *o, uint64_t v, uint32_t base, bool neg, int width, char pad)
{
	char tmp[24];
	int n = 0;

	do {
		uint32_t d;

		v = divmod(v, base, &d);
		tmp[n++] = "0123456789abcdef"[d];
	} while (v && n < (int)sizeof(tmp));
	if (neg)
		tmp[n < (int)sizeof(tmp) ? n++ : n - 1] = '-';
	for (int i = n; i < width; i++)
		put(o, pad);
	while (n)
		put(o, tmp[--n]);
}

size_t fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { .buf = buf, .size = size, .len = 0 };

	for (; *fmt; fmt++) {
		int width = 0, longs = 0;
		char pad = ' ';

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		if (*fmt == '0') {
			pad = '0';
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l') {
			longs++;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			if (!s)
				s = "(null)";
			while (*s)
				put(&o, *s++);
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 'd': {
			int64_t v = longs >= 2 ? va_arg(ap, long long) : va_arg(ap, int);
			bool neg = v < 0;

			put_num(&o, neg ? -(uint64_t)v : (uint64_t)v, 10, neg, width, pad);
			break;
		}
		case 'u':
		case 'x': {
			uint64_t v;

			if (longs >= 2)
				v = va_arg(ap, unsigned long long);
			else if (longs == 1)
				v = va_arg(ap, unsigned long);
			else
				v = va_arg(ap, unsigned int);
			put_num(&o, v, *fmt == 'x' ? 16 : 10, false, width, pad);
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;	/* a lone '%' at the end: stop at the NUL */
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (o.size)
		o.buf[o.len] = '\0';
	return o.len;
}

size_t fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
