// SPDX-License-Identifier: MIT
/* The virtual 16550 and its console ring. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/vuart.h"

struct lines {
	int n;
	char text[64][VUART_LINE_MAX + 1];
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;

	if (l->n < 64)
		strcpy(l->text[l->n++], line);
}

static void out_str(struct vuart *u, const char *s)
{
	for (; *s; s++)
		vuart_write(u, VUART_BASE, (uint8_t)*s);
}

static void test_lines_and_cr(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	out_str(&u, "hello\r\nwor");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[0], "hello");
	out_str(&u, "ld\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[1], "world");
	out_str(&u, "partial");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 0);
	assert_int_equal(vuart_drain(&u, true, collect, &l), 1);
	assert_string_equal(l.text[2], "partial");
}

/*
 * A result line a script parses comes out as one line: this RTBENCH line
 * (a bench row's label) was cut after "lat_max_" at 200 characters, and
 * the bench table lost its worst case.
 */
static void test_result_line_whole(void **state)
{
	static const char line[] =
		"RTBENCH label=shared2-emulated-rewrite-later env=tempo workload=rewrite-later "
		"wait=hlt events=1000 lost=0 early=0 dup=981 stray=0 lat_min_ticks=735 "
		"lat_avg_ticks=5307 lat_p99_ticks=16300 lat_max_ticks=16630 tsc_khz=50000 "
		"interval_ticks=10000 seed=1 spurious=0 cpu_model=corei7_ivy_bridge_3770k";
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	out_str(&u, line);
	out_str(&u, "\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[0], line);
}

static void test_long_line_split(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };
	char big[VUART_LINE_MAX + 11];

	(void)state;
	vuart_init(&u);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	out_str(&u, big);
	out_str(&u, "\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 2);
	assert_int_equal(strlen(l.text[0]), VUART_LINE_MAX);
	assert_int_equal(strlen(l.text[1]), 10);
}

static void test_ring_full_drops_and_counts(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	for (int i = 0; i < VUART_RING_SIZE + 100; i++)
		vuart_write(&u, VUART_BASE, 'a');
	assert_int_equal(u.dropped, 100);
	vuart_drain(&u, true, collect, &l);
	/* all that fitted came out, in pieces of VUART_LINE_MAX */
	assert_int_equal(l.n, (VUART_RING_SIZE + VUART_LINE_MAX - 1) / VUART_LINE_MAX);
}

static void test_registers(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	/* always ready to transmit, never anything received, no interrupt */
	assert_int_equal(vuart_read(&u, VUART_BASE + 5) & 0x60, 0x60);
	assert_int_equal(vuart_read(&u, VUART_BASE + 0), 0);
	assert_int_equal(vuart_read(&u, VUART_BASE + 2) & 1, 1);
	/* scratch register holds its value (Linux's probe) */
	vuart_write(&u, VUART_BASE + 7, 0x5a);
	assert_int_equal(vuart_read(&u, VUART_BASE + 7), 0x5a);
	/* DLAB switches offsets 0/1 to the divisor latch; no byte is sent */
	vuart_write(&u, VUART_BASE + 3, 0x83);
	vuart_write(&u, VUART_BASE + 0, 0x01);
	vuart_write(&u, VUART_BASE + 1, 0x00);
	assert_int_equal(vuart_read(&u, VUART_BASE + 0), 0x01);
	assert_int_equal(u.head, 0);
	vuart_write(&u, VUART_BASE + 3, 0x03);
	vuart_write(&u, VUART_BASE + 1, 0xff);
	assert_int_equal(vuart_read(&u, VUART_BASE + 1), 0x0f);	/* IER keeps 4 bits */
	/* loopback mode mirrors MCR into MSR */
	vuart_write(&u, VUART_BASE + 4, 0x10 | 0x0a);
	assert_int_equal(vuart_read(&u, VUART_BASE + 6), 0x90);
	assert_true(vuart_owns_port(0x3f8) && vuart_owns_port(0x3ff));
	assert_false(vuart_owns_port(0x3f7) || vuart_owns_port(0x400));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_and_cr),
		cmocka_unit_test(test_result_line_whole),
		cmocka_unit_test(test_long_line_split),
		cmocka_unit_test(test_ring_full_drops_and_counts),
		cmocka_unit_test(test_registers),
	};

	return cmocka_run_group_tests_name("vuart", tests, NULL, NULL);
}
