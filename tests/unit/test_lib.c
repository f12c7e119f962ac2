// SPDX-License-Identifier: MIT
/* zero_ram and copy_ram (hv/lib/lib.c): every length and alignment, no byte outside. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/lib/lib.h"

#define SPAN 96

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/* copy_ram of n bytes at each offset: the n bytes copied, the bytes around untouched */
static void test_copy_ram_every_length_and_offset(void **state)
{
	uint8_t src[SPAN + 16], dst[SPAN + 32], want[SPAN + 32];

	(void)state;
	for (size_t so = 0; so < 8; so++)
		for (size_t doff = 0; doff < 8; doff++)
			for (size_t n = 0; n <= SPAN; n++) {
				fill(src, sizeof(src), 0x11);
				fill(dst, sizeof(dst), 0xa5);
				memcpy(want, dst, sizeof(dst));
				memcpy(want + 8 + doff, src + so, n);
				copy_ram(dst + 8 + doff, src + so, n);
				assert_memory_equal(dst, want, sizeof(dst));
			}
}

static void test_zero_ram_every_length_and_offset(void **state)
{
	uint8_t dst[SPAN + 32], want[SPAN + 32];

	(void)state;
	for (size_t doff = 0; doff < 8; doff++)
		for (size_t n = 0; n <= SPAN; n++) {
			fill(dst, sizeof(dst), 0x3c);
			memcpy(want, dst, sizeof(dst));
			memset(want + 8 + doff, 0, n);
			zero_ram(dst + 8 + doff, n);
			assert_memory_equal(dst, want, sizeof(dst));
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_ram_every_length_and_offset),
		cmocka_unit_test(test_zero_ram_every_length_and_offset),
	};

	return cmocka_run_group_tests_name("lib", tests, NULL, NULL);
}
