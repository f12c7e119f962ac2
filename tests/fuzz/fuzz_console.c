// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a partition's console output (hv/core/vuart.c and its
 * escaping, hv/core/cons_escape.h) as a hostile guest writes it, drained
 * at points the input chooses. Every line handed to the serial line must
 * hold nothing a terminal acts on: no C0 control but TAB, no DEL, no C1
 * control (U+0080-U+009F), only well-formed UTF-8, and at most
 * VUART_LINE_MAX bytes. Traps when a promise fails.
 *
 * Input: [0] how many bytes go in between drains (1-256), [1] bit i: the
 * i-th drain (mod 8) flushes a partial line; then the bytes the guest
 * writes to THR.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/vuart.h"

#define CHECK(cond)	do { if (!(cond)) abort(); } while (0)

/* The length of the well-formed UTF-8 character at @p (RFC 3629), 0 if none. */
static size_t utf8_char(const uint8_t *p)
{
	uint8_t c = p[0];
	size_t n;
	uint8_t lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

static void check_line(void *ctx, const char *line)
{
	const uint8_t *p = (const uint8_t *)line;
	size_t len = strlen(line);

	(void)ctx;
	CHECK(len <= VUART_LINE_MAX);
	while (*p) {
		size_t n;

		if (*p < 0x80) {
			CHECK(*p == '\t' || (*p >= 0x20 && *p != 0x7f));
			p++;
			continue;
		}
		n = utf8_char(p);
		CHECK(n);
		CHECK(!(p[0] == 0xc2 && p[1] <= 0x9f));
		p += n;
	}
}

static struct vuart uart;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t every, drains = 0;
	uint8_t flushes;

	if (size < 2)
		return 0;
	every = (uint32_t)data[0] + 1;
	flushes = data[1];
	vuart_init(&uart);
	for (size_t i = 2; i < size; i++) {
		vuart_write(&uart, VUART_BASE, data[i]);
		if ((i - 1) % every == 0 || i + 1 == size) {
			vuart_drain(&uart, (flushes >> (drains % 8)) & 1, check_line, NULL);
			drains++;
		}
	}
	vuart_drain(&uart, true, check_line, NULL);
	return 0;
}
