// SPDX-License-Identifier: MIT
#include "hv/lib/fmt.h"

#include <stdbool.h>
#include <stdint.h>

#include "hv/lib/div64.h"

struct fmt_out {
	char *buf;
	size_t size;
	size_t len;	/* characters the full output has so far */
};

static void put(struct fmt_out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct fmt_out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

struct spec {
	bool left;
	bool zero;
	int width;
	int precision;	/* -1: none */
};

static void put_str(struct fmt_out *o, const struct spec *sp, const char *s)
{
	int n = 0;

	if (!s)
		s = "(null)";
	while ((sp->precision < 0 || n < sp->precision) && s[n])
		n++;
	if (!sp->left)
		pad(o, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		put(o, s[i]);
	if (sp->left)
		pad(o, ' ', sp->width - n);
}

static void put_num(struct fmt_out *o, const struct spec *sp, uint64_t v, unsigned int base,
		    bool negative, bool upper, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, plen = 0, total;

	do {
		uint32_t d;

		v = div_u64_rem(v, base, &d);	/* no libgcc call in a 32-bit guest */
		tmp[n++] = digits[d];
	} while (v);
	if (negative)
		plen = 1;
	else if (prefix)
		while (prefix[plen])
			plen++;
	total = n + plen;

	if (!sp->left && !sp->zero)
		pad(o, ' ', sp->width - total);
	if (negative)
		put(o, '-');
	else
		for (int i = 0; i < plen; i++)
			put(o, prefix[i]);
	if (!sp->left && sp->zero)
		pad(o, '0', sp->width - total);
	while (n)
		put(o, tmp[--n]);
	if (sp->left)
		pad(o, ' ', sp->width - total);
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct fmt_out o = { .buf = buf, .size = size, .len = 0 };

	for (const char *p = fmt; *p; p++) {
		struct spec sp = { .precision = -1 };
		const char *start = p;
		int lng = 0;	/* 0: int, 1: long, 2: long long, 3: size_t */

		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		for (;; p++) {
			if (*p == '-')
				sp.left = true;
			else if (*p == '0')
				sp.zero = true;
			else
				break;
		}
		if (*p == '*') {
			int w = va_arg(ap, int);

			if (w < 0) {
				sp.left = true;
				w = w < -100000 ? 100000 : -w;	/* no overflow at INT_MIN */
			}
			sp.width = w > 100000 ? 100000 : w;	/* same cap as a typed width */
			p++;
		} else {
			while (*p >= '0' && *p <= '9' && sp.width < 100000)
				sp.width = sp.width * 10 + (*p++ - '0');
			while (*p >= '0' && *p <= '9')
				p++;
		}
		if (*p == '.') {
			p++;
			sp.precision = 0;
			if (*p == '*') {
				sp.precision = va_arg(ap, int);
				p++;
			} else {
				while (*p >= '0' && *p <= '9' && sp.precision < 100000)
					sp.precision = sp.precision * 10 + (*p++ - '0');
				while (*p >= '0' && *p <= '9')
					p++;
			}
		}
		if (*p == 'l') {
			lng = 1;
			if (*++p == 'l') {
				lng = 2;
				p++;
			}
		} else if (*p == 'z') {
			lng = 3;
			p++;
		}

		switch (*p) {
		case 'd':
		case 'i': {
			int64_t v;

			if (lng == 1)
				v = va_arg(ap, long);
			else if (lng == 2)
				v = va_arg(ap, long long);
			else if (lng == 3)
				v = (int64_t)va_arg(ap, size_t);
			else
				v = va_arg(ap, int);
			put_num(&o, &sp, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, v < 0, false, NULL);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			uint64_t v;
			unsigned int base = *p == 'u' ? 10 : *p == 'o' ? 8 : 16;

			if (lng == 1)
				v = va_arg(ap, unsigned long);
			else if (lng == 2)
				v = va_arg(ap, unsigned long long);
			else if (lng == 3)
				v = va_arg(ap, size_t);
			else
				v = va_arg(ap, unsigned int);
			put_num(&o, &sp, v, base, false, *p == 'X', NULL);
			break;
		}
		case 'p':
			put_num(&o, &sp, (uintptr_t)va_arg(ap, void *), 16, false, false, "0x");
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);
			char s[2] = { c, 0 };

			if (c == 0) {	/* a NUL character still counts as one */
				if (!sp.left)
					pad(&o, ' ', sp.width - 1);
				put(&o, 0);
				if (sp.left)
					pad(&o, ' ', sp.width - 1);
			} else {
				sp.precision = -1;
				put_str(&o, &sp, s);
			}
			break;
		}
		case 's':
			put_str(&o, &sp, va_arg(ap, const char *));
			break;
		case '%':
			put(&o, '%');
			break;
		default:
			/* Unknown or truncated conversion: echo it verbatim. */
			for (const char *q = start; q <= p && *q; q++)
				put(&o, *q);
			if (!*p)
				p--;
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return o.len > 0x7fffffff ? 0x7fffffff : (int)o.len;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

size_t fmt_vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = fmt_vsnprintf(buf, size, fmt, ap);

	if (!size)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

size_t fmt_scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = fmt_vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int fmt_fail(const struct fmt_err *e, void *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(e->msg, e->len, fmt, ap);
	va_end(ap);
	/* volatile: kept a loop, not turned into a memset call fmt.c cannot count on */
	for (size_t i = 0; out && i < size; i++)
		((volatile unsigned char *)out)[i] = 0;
	return -1;
}
