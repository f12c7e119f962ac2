// SPDX-License-Identifier: MIT
#include "hv/core/cons_escape.h"

#include <stdbool.h>

static uint32_t hex_byte(uint8_t c, char *out)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 0xf];
	return 4;
}

static uint32_t held_escaped(struct cons_escape *e, char *out)
{
	uint32_t n = 0;

	for (uint8_t i = 0; i < e->held_len; i++)
		n += hex_byte(e->held[i], out + n);
	e->held_len = 0;
	e->need = 0;
	return n;
}

/* The length of a UTF-8 sequence led by @c (RFC 3629), or 0 if @c leads none. */
static uint8_t utf8_length(uint8_t c)
{
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

/*
 * Whether @c may follow @held (its first bytes, @n of them) in a
 * well-formed sequence: RFC 3629's table, which leaves out the overlong
 * forms, the surrogates and what lies past U+10FFFF by the second byte's
 * range.
 */
static bool utf8_continues(const uint8_t *held, uint8_t n, uint8_t c)
{
	uint8_t lo = 0x80, hi = 0xbf;

	if (n == 1) {
		if (held[0] == 0xe0)
			lo = 0xa0;	/* below: overlong */
		else if (held[0] == 0xed)
			hi = 0x9f;	/* above: the surrogates */
		else if (held[0] == 0xf0)
			lo = 0x90;	/* below: overlong */
		else if (held[0] == 0xf4)
			hi = 0x8f;	/* above: past U+10FFFF */
	}
	return c >= lo && c <= hi;
}

static uint32_t single(uint8_t c, char *out)
{
	if (c == '\t' || (c >= 0x20 && c < 0x7f)) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x20 || c == 0x7f) {
		out[0] = '^';
		out[1] = (char)(c ^ 0x40);	/* ESC 0x1b: '[', DEL 0x7f: '?' */
		return 2;
	}
	return hex_byte(c, out);
}

uint32_t cons_escape_byte(struct cons_escape *e, uint8_t c, char *out)
{
	uint32_t n = 0;

	if (e->need) {
		if (utf8_continues(e->held, e->held_len, c)) {
			e->held[e->held_len++] = c;
			if (e->held_len < e->need)
				return 0;
			/* whole: the C1 controls escaped, every other character as is */
			if (e->need == 2 && e->held[0] == 0xc2 && c <= 0x9f) {
				n = hex_byte(0xc2, out);
				n += hex_byte(c, out + n);
			} else {
				for (uint8_t i = 0; i < e->need; i++)
					out[n++] = (char)e->held[i];
			}
			e->held_len = 0;
			e->need = 0;
			return n;
		}
		/* cut short: what was held is no character; @c starts afresh */
		n = held_escaped(e, out);
	}
	e->need = utf8_length(c);
	if (e->need) {
		e->held[0] = c;
		e->held_len = 1;
		return n;
	}
	return n + single(c, out + n);
}

uint32_t cons_escape_end(struct cons_escape *e, char *out)
{
	return held_escaped(e, out);
}
