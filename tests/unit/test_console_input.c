// SPDX-License-Identifier: MIT
/* The console input router: where each typed byte goes, and Ctrl-T's keys. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/console_input.h"

#define ESC CONSOLE_ESCAPE

/* Ctrl-T then @key: the result of the key (Ctrl-T itself is swallowed). */
static struct cin_result escape(struct console_input *ci, uint8_t key)
{
	struct cin_result r = console_input_byte(ci, ESC);

	assert_int_equal(r.kind, CIN_NONE);
	assert_true(ci->escaped);
	r = console_input_byte(ci, key);
	assert_false(ci->escaped);
	return r;
}

static void expect_focus(struct console_input *ci, uint8_t key, uint32_t target)
{
	struct cin_result r = escape(ci, key);

	assert_int_equal(r.kind, CIN_FOCUS);
	assert_int_equal(r.target, target);
	assert_int_equal(ci->focus, target);
}

static void expect_byte(struct console_input *ci, uint8_t b, uint32_t target)
{
	struct cin_result r = console_input_byte(ci, b);

	assert_int_equal(r.kind, CIN_BYTE);
	assert_int_equal(r.byte, b);
	assert_int_equal(r.target, target);
}

static void test_bytes_go_to_focus(void **state)
{
	struct console_input ci;

	(void)state;
	console_input_init(&ci, 3);
	assert_int_equal(ci.targets, 3);
	assert_int_equal(ci.focus, 0);
	assert_false(ci.escaped);
	/* every byte but Ctrl-T passes through untouched, NUL and 0xff too */
	for (int b = 0; b < 256; b++)
		if (b != ESC)
			expect_byte(&ci, (uint8_t)b, 0);
}

static void test_next_prev_cycle(void **state)
{
	struct console_input ci;

	(void)state;
	console_input_init(&ci, 3);
	expect_focus(&ci, 'n', 1);
	expect_byte(&ci, 'x', 1);
	expect_focus(&ci, 'n', 2);
	expect_focus(&ci, 'n', 3);	/* the monitor */
	expect_byte(&ci, 'x', 3);
	expect_focus(&ci, 'n', 0);	/* round again */
	expect_focus(&ci, 'p', 3);
	expect_focus(&ci, 'p', 2);
	expect_focus(&ci, 'p', 1);
	expect_focus(&ci, 'p', 0);
}

static void test_monitor_and_digits(void **state)
{
	struct console_input ci;
	struct cin_result r;

	(void)state;
	console_input_init(&ci, 3);
	expect_focus(&ci, 'm', 3);
	expect_focus(&ci, 'm', 3);	/* already there: still said */
	expect_focus(&ci, '1', 0);
	expect_focus(&ci, '3', 2);
	expect_focus(&ci, '2', 1);
	/* a position with no partition: said (with the index named), the focus stays */
	r = escape(&ci, '4');
	assert_int_equal(r.kind, CIN_NO_PARTITION);
	assert_int_equal(r.target, 3);
	assert_int_equal(ci.focus, 1);
	r = escape(&ci, '9');
	assert_int_equal(r.kind, CIN_NO_PARTITION);
	assert_int_equal(r.target, 8);
	assert_int_equal(ci.focus, 1);
	expect_byte(&ci, 'x', 1);	/* the escape is over */
	/* '0' is no position (1-based) */
	r = escape(&ci, '0');
	assert_int_equal(r.kind, CIN_NONE);
	assert_int_equal(ci.focus, 1);
	expect_byte(&ci, '0', 1);

	/* nine partitions: '9' is index 8; ten: the tenth only by n/p */
	console_input_init(&ci, 10);
	expect_focus(&ci, '9', 8);
	expect_focus(&ci, 'n', 9);
	expect_focus(&ci, 'n', 10);
}

static void test_help_and_literal_escape(void **state)
{
	struct console_input ci;
	struct cin_result r;

	(void)state;
	console_input_init(&ci, 2);
	expect_focus(&ci, 'n', 1);
	r = escape(&ci, '?');
	assert_int_equal(r.kind, CIN_HELP);
	r = escape(&ci, 'h');
	assert_int_equal(r.kind, CIN_HELP);
	assert_int_equal(ci.focus, 1);
	/* Ctrl-T Ctrl-T: one literal Ctrl-T for the focus, and the escape is over */
	r = escape(&ci, ESC);
	assert_int_equal(r.kind, CIN_BYTE);
	assert_int_equal(r.byte, ESC);
	assert_int_equal(r.target, 1);
	expect_byte(&ci, 'n', 1);
	/* the help names every key */
	assert_non_null(strstr(console_input_help(), "Ctrl-T"));
	assert_non_null(strstr(console_input_help(), "  n "));
	assert_non_null(strstr(console_input_help(), "  p "));
	assert_non_null(strstr(console_input_help(), "  m "));
	assert_non_null(strstr(console_input_help(), "1..9"));
	assert_non_null(strstr(console_input_help(), "? or h"));
	assert_int_equal(console_input_help()[strlen(console_input_help()) - 1], '\n');
}

static void test_other_keys_swallowed(void **state)
{
	struct console_input ci;
	struct cin_result r;

	(void)state;
	console_input_init(&ci, 2);
	/* case matters: N is no command; neither is a newline */
	r = escape(&ci, 'N');
	assert_int_equal(r.kind, CIN_NONE);
	r = escape(&ci, '\r');
	assert_int_equal(r.kind, CIN_NONE);
	assert_int_equal(ci.focus, 0);
	/* after a swallowed key, input flows again */
	expect_byte(&ci, 'n', 0);
}

static void test_no_partitions(void **state)
{
	struct console_input ci;
	struct cin_result r;

	(void)state;
	console_input_init(&ci, 0);
	assert_int_equal(ci.focus, 0);	/* the monitor */
	expect_byte(&ci, 'a', 0);
	expect_focus(&ci, 'n', 0);
	expect_focus(&ci, 'p', 0);
	/* no partition at all: a digit is refused and said, the monitor keeps the input */
	r = escape(&ci, '1');
	assert_int_equal(r.kind, CIN_NO_PARTITION);
	assert_int_equal(r.target, 0);
	assert_int_equal(ci.focus, 0);
}

static void test_focus_by_name(void **state)
{
	struct console_input ci;

	(void)state;
	console_input_init(&ci, 3);
	console_input_focus(&ci, 2);
	assert_int_equal(ci.focus, 2);
	expect_byte(&ci, 'z', 2);
	console_input_focus(&ci, 3);	/* the monitor is in range */
	assert_int_equal(ci.focus, 3);
	console_input_focus(&ci, 4);
	assert_int_equal(ci.focus, 3);
	console_input_focus(&ci, UINT32_MAX);
	assert_int_equal(ci.focus, 3);
	console_input_focus(&ci, 0);
	assert_int_equal(ci.focus, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_go_to_focus),
		cmocka_unit_test(test_next_prev_cycle),
		cmocka_unit_test(test_monitor_and_digits),
		cmocka_unit_test(test_help_and_literal_escape),
		cmocka_unit_test(test_other_keys_swallowed),
		cmocka_unit_test(test_no_partitions),
		cmocka_unit_test(test_focus_by_name),
	};

	return cmocka_run_group_tests_name("console_input", tests, NULL, NULL);
}
