// SPDX-License-Identifier: MIT
/* log_printf: levels, and a line too long for LOG_LINE_MAX cut with its line end kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/lib/log.h"

/* What the console got: every write, one after the other. */
static char wire[4 * LOG_LINE_MAX];
static size_t wire_len;

void console_write(const char *s, unsigned long n)
{
	assert_true(wire_len + n <= sizeof(wire));
	memcpy(wire + wire_len, s, n);
	wire_len += n;
}

/* A value longer than a log line holds. */
static char long_value[LOG_LINE_MAX + 100];

static int reset(void **state)
{
	(void)state;
	wire_len = 0;
	log_set_level(LOG_INFO);
	memset(long_value, 'k', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = 0;
	return 0;
}

static void test_levels(void **state)
{
	(void)state;
	log_info("a=%d\n", 1);
	log_debug("hidden\n");
	log_warn("w\n");
	assert_int_equal(wire_len, strlen("a=1\nWARNING: w\n"));
	assert_memory_equal(wire, "a=1\nWARNING: w\n", wire_len);
}

/*
 * A VCPU_STATS line after a day of counters outgrew the buffer: it lost
 * its newline, and the next line printed ran on after it, where a script
 * reading lines saw neither.
 */
static void test_long_line_keeps_its_end(void **state)
{
	(void)state;
	log_emerg("LONG %s\n", long_value);
	log_emerg("NEXT x=1\n");
	assert_int_equal(wire_len, LOG_LINE_MAX - 1 + strlen("NEXT x=1\n"));
	assert_memory_equal(wire, "LONG kkk", 8);
	assert_int_equal(wire[LOG_LINE_MAX - 2], '\n');
	assert_memory_equal(wire + LOG_LINE_MAX - 1, "NEXT x=1\n", strlen("NEXT x=1\n"));
}

/* Cut output that did not end a line (a prompt, a part of one) gets no newline. */
static void test_long_part_stays_a_part(void **state)
{
	(void)state;
	log_emerg("%s", long_value);
	assert_int_equal(wire_len, LOG_LINE_MAX - 1);
	assert_int_equal(wire[LOG_LINE_MAX - 2], 'k');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_levels, reset),
		cmocka_unit_test_setup(test_long_line_keeps_its_end, reset),
		cmocka_unit_test_setup(test_long_part_stays_a_part, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
