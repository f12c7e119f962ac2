// SPDX-License-Identifier: MIT
/* The monitor: its line editor and its command parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/monitor.h"

static const char *const names[] = { "rt0", "linux", "hello-world" };
#define NAMES ARRAY_LEN(names)
#define ARRAY_LEN(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static int mode_of(const char *name)
{
	static const char *const modes[] = { "direct", "inject", "emulated", "pv-lazy" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, modes[i]))
			return i;
	return -1;
}

/* Feed @s; returns how many lines completed, the echo appended to @echo. */
static int feed(struct monitor_line *l, const char *s, size_t n, char *echo, size_t *echo_n)
{
	int lines = 0;

	for (size_t i = 0; i < n; i++) {
		char e[MONITOR_ECHO_MAX];
		uint32_t en = 0xdead;

		lines += monitor_line_byte(l, (uint8_t)s[i], e, &en);
		assert_true(en <= MONITOR_ECHO_MAX);
		if (echo) {
			memcpy(echo + *echo_n, e, en);
			*echo_n += en;
			echo[*echo_n] = 0;
		}
	}
	return lines;
}

#define FEED(l, s, echo, en) feed((l), (s), sizeof(s) - 1, (echo), (en))

static void test_line_basic_and_crlf(void **state)
{
	struct monitor_line l;
	char echo[256];
	size_t en = 0;

	(void)state;
	monitor_line_reset(&l);
	assert_int_equal(FEED(&l, "list", echo, &en), 0);
	assert_string_equal(echo, "list");
	assert_int_equal(FEED(&l, "\r", echo, &en), 1);
	assert_string_equal(l.buf, "list");
	assert_int_equal(l.len, 4);
	assert_false(l.overflow);
	assert_string_equal(echo, "list\r\n");
	monitor_line_reset(&l);
	/* the LF of CR LF is an empty line: ignored, nothing echoed */
	en = 0;
	echo[0] = 0;
	assert_int_equal(FEED(&l, "\n", echo, &en), 0);
	assert_int_equal(en, 0);
	assert_int_equal(l.len, 0);
	/* LF alone ends a line too; CR LF CR LF lone blank lines are ignored */
	assert_int_equal(FEED(&l, "\r\n\r\nticks\n", echo, &en), 1);
	assert_string_equal(l.buf, "ticks");
	monitor_line_reset(&l);
	/* without the reset: still one line per CR LF, the next starts afresh */
	assert_int_equal(FEED(&l, "help\r\n", NULL, NULL), 1);
	assert_int_equal(l.len, 0);
	assert_int_equal(FEED(&l, "help\r", NULL, NULL), 1);
	assert_string_equal(l.buf, "help");
	assert_int_equal(FEED(&l, "\nl", NULL, NULL), 0);
	assert_string_equal(l.buf, "l");
}

static void test_line_backspace(void **state)
{
	struct monitor_line l;
	char echo[256];
	size_t en = 0;

	(void)state;
	monitor_line_reset(&l);
	assert_int_equal(FEED(&l, "lsx\b\x7fist\r", echo, &en), 1);
	assert_string_equal(l.buf, "list");
	assert_string_equal(echo, "lsx\b \b\b \bist\r\n");
	/* erasing past the start does nothing and echoes nothing */
	monitor_line_reset(&l);
	en = 0;
	echo[0] = 0;
	assert_int_equal(FEED(&l, "a\b\b\b", echo, &en), 0);
	assert_string_equal(echo, "a\b \b");
	assert_int_equal(l.len, 0);
	assert_string_equal(l.buf, "");
	/* all erased, then Enter: an empty line, ignored */
	assert_int_equal(FEED(&l, "\r", NULL, NULL), 0);
}

static void test_line_controls_dropped(void **state)
{
	struct monitor_line l;
	char echo[256];
	size_t en = 0;

	(void)state;
	monitor_line_reset(&l);
	/* NUL, Ctrl-A, Ctrl-T, BEL, 0x80, 0xff: dropped; tab is a space */
	assert_int_equal(FEED(&l, "s\x00t\x01\x14\x07\x80\xff" "a\tb", echo, &en), 0);
	assert_int_equal(l.len, 5);
	assert_string_equal(l.buf, "sta b");
	assert_string_equal(echo, "sta b");
	/* arrow keys (ESC [ A, ESC O B), a parameterised key (ESC [ 3 ~), Alt-x */
	monitor_line_reset(&l);
	en = 0;
	assert_int_equal(FEED(&l, "x\x1b[Ay\x1bOBz\x1b[3~w\x1bxv", echo, &en), 0);
	assert_string_equal(l.buf, "xyzwv");
	assert_string_equal(echo, "xyzwv");
	/* a stray ESC does not eat the end of the line */
	assert_int_equal(FEED(&l, "\x1b\r", NULL, NULL), 1);
	assert_string_equal(l.buf, "xyzwv");
	monitor_line_reset(&l);
	assert_int_equal(FEED(&l, "q\x1b[1\r", NULL, NULL), 1);
	assert_string_equal(l.buf, "q");
	assert_int_equal(l.esc, 0);
}

static void test_line_overflow(void **state)
{
	struct monitor_line l;
	struct monitor_cmd cmd;
	char err[128], echo[512];
	size_t en = 0;

	(void)state;
	monitor_line_reset(&l);
	/* exactly the most a line holds: fine */
	for (int i = 0; i < MONITOR_LINE_MAX; i++)
		assert_int_equal(FEED(&l, "a", NULL, NULL), 0);
	assert_false(l.overflow);
	assert_int_equal(FEED(&l, "\r", NULL, NULL), 1);
	assert_int_equal(strlen(l.buf), MONITOR_LINE_MAX);
	assert_false(l.overflow);
	monitor_line_reset(&l);
	/* one more: BEL once, then nothing taken (not even an erase) until the end */
	for (int i = 0; i < MONITOR_LINE_MAX; i++)
		FEED(&l, "b", NULL, NULL);
	assert_int_equal(FEED(&l, "cdef\b\b\x7f", echo, &en), 0);
	assert_string_equal(echo, "\a");
	assert_true(l.overflow);
	assert_int_equal(l.len, MONITOR_LINE_MAX + 1);
	assert_int_equal(l.len, sizeof(l.buf) - 1);
	assert_int_equal(l.buf[l.len], 0);
	assert_int_equal(FEED(&l, "\n", NULL, NULL), 1);
	/* the parser says what happened */
	assert_int_equal(monitor_parse(l.buf, names, NAMES, mode_of, &cmd, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line too long"));
	/* after the reset the next line is whole again */
	monitor_line_reset(&l);
	assert_int_equal(FEED(&l, "list\r", NULL, NULL), 1);
	assert_false(l.overflow);
	assert_string_equal(l.buf, "list");
}

/* A flood of noise: buf is never overrun and always a string of len bytes. */
static void test_line_flood(void **state)
{
	struct monitor_line l;
	uint32_t x = 12345, lines = 0;

	(void)state;
	monitor_line_reset(&l);
	for (int i = 0; i < 20000; i++) {
		char echo[MONITOR_ECHO_MAX];
		uint32_t en;
		uint8_t b;

		x = x * 1103515245u + 12345u;
		b = (uint8_t)(x >> 16);
		/* mostly printable so that lines do fill up, some CR/LF and erases */
		if ((x >> 28) < 10)
			b = (uint8_t)(0x20 + b % 0x5f);
		if (monitor_line_byte(&l, b, echo, &en)) {
			assert_true(l.len > 0);
			lines++;
			monitor_line_reset(&l);
		}
		assert_true(en <= MONITOR_ECHO_MAX);
		assert_true(l.len <= sizeof(l.buf) - 1);
		assert_int_equal(l.buf[l.len], 0);
		assert_int_equal(strlen(l.buf), l.len);
		assert_true(l.overflow == (l.len > MONITOR_LINE_MAX));
	}
	assert_true(lines > 10);
}

static int parse(const char *line, struct monitor_cmd *cmd, char *err)
{
	memset(cmd, 0xa5, sizeof(*cmd));
	strcpy(err, "untouched");
	return monitor_parse(line, names, NAMES, mode_of, cmd, err, 160);
}

static void expect_op(const char *line, enum monitor_op op, uint32_t part)
{
	struct monitor_cmd cmd;
	char err[160];

	assert_int_equal(parse(line, &cmd, err), 0);
	assert_int_equal(cmd.op, op);
	assert_int_equal(cmd.part, part);
}

static void test_parse_commands(void **state)
{
	struct monitor_cmd cmd;
	char err[160];

	(void)state;
	expect_op("help", MON_HELP, 0);
	expect_op("list", MON_LIST, 0);
	expect_op("ticks", MON_TICKS, 0);
	expect_op("stats rt0", MON_STATS, 0);
	expect_op("trace linux", MON_TRACE, 1);
	expect_op("stop hello-world", MON_STOP, 2);
	expect_op("restart rt0", MON_RESTART, 0);
	expect_op("console linux", MON_CONSOLE, 1);
	/* blanks around and between words, tabs included */
	expect_op("  \tstats \t  linux  \t", MON_STATS, 1);
	assert_int_equal(parse("mode linux 3 pv-lazy", &cmd, err), 0);
	assert_int_equal(cmd.op, MON_MODE);
	assert_int_equal(cmd.part, 1);
	assert_int_equal(cmd.vcpu, 3);
	assert_int_equal(cmd.mode, 3);
	assert_int_equal(parse("mode rt0 0 direct", &cmd, err), 0);
	assert_int_equal(cmd.vcpu, 0);
	assert_int_equal(cmd.mode, 0);
	assert_int_equal(parse("mode rt0 255 emulated", &cmd, err), 0);
	assert_int_equal(cmd.vcpu, 255);
	assert_int_equal(cmd.mode, 2);
	assert_int_equal(parse("mode rt0 007 inject", &cmd, err), 0);
	assert_int_equal(cmd.vcpu, 7);
	/* untouched on success */
	assert_string_equal(err, "untouched");
}

/* A failure: -1, @out zeroed, one line holding each of @want. */
static void expect_err(const char *line, const char *want1, const char *want2)
{
	struct monitor_cmd cmd, zero = { 0 };
	char err[160];

	assert_int_equal(parse(line, &cmd, err), -1);
	assert_memory_equal(&cmd, &zero, sizeof(cmd));
	assert_null(strchr(err, '\n'));
	if (!strstr(err, want1) || (want2 && !strstr(err, want2)))
		fail_msg("\"%s\": got \"%s\"", line, err);
}

static void test_parse_errors(void **state)
{
	char long_line[MONITOR_LINE_SIZE + 10];

	(void)state;
	expect_err("", "no command", "help");
	expect_err(" \t ", "no command", NULL);
	expect_err("frobnicate", "unknown command \"frobnicate\"", "\"help\"");
	expect_err("List", "unknown command \"List\"", NULL);	/* case-sensitive */
	expect_err("monitor", "unknown command", NULL);
	/* missing arguments: which one, and the usage */
	expect_err("stats", "stats: missing NAME", "usage: stats NAME");
	expect_err("trace", "missing NAME", "usage: trace NAME");
	expect_err("stop", "missing NAME", "usage: stop NAME");
	expect_err("restart", "missing NAME", "usage: restart NAME");
	expect_err("console", "missing NAME", "usage: console NAME");
	expect_err("mode", "mode: missing NAME", "usage: mode NAME VCPU MODE");
	expect_err("mode rt0", "mode: missing VCPU", "usage: mode NAME VCPU MODE");
	expect_err("mode rt0 1", "mode: missing MODE", "usage: mode NAME VCPU MODE");
	/* too many */
	expect_err("help me", "help: too many arguments", "usage: help");
	expect_err("list all", "list: too many arguments", NULL);
	expect_err("ticks 1", "ticks: too many arguments", NULL);
	expect_err("stats rt0 linux", "stats: too many arguments", "usage: stats NAME");
	expect_err("mode rt0 1 direct now", "mode: too many arguments", NULL);
	expect_err("mode a b c d e f g h", "mode: too many arguments", NULL);
	/* unknown partitions, quoted; names are case-sensitive and whole */
	expect_err("stats nope", "unknown partition \"nope\"", NULL);
	expect_err("console RT0", "unknown partition \"RT0\"", NULL);
	expect_err("stop rt", "unknown partition \"rt\"", NULL);
	expect_err("restart rt00", "unknown partition \"rt00\"", NULL);
	expect_err("console monitor", "unknown partition \"monitor\"", NULL);
	expect_err("mode nope 1 direct", "unknown partition \"nope\"", NULL);
	/* VCPU: decimal, 0..255 */
	expect_err("mode rt0 x direct", "VCPU \"x\" is not a number", "255");
	expect_err("mode rt0 -1 direct", "VCPU \"-1\"", NULL);
	expect_err("mode rt0 +1 direct", "VCPU \"+1\"", NULL);
	expect_err("mode rt0 0x1 direct", "VCPU \"0x1\"", NULL);
	expect_err("mode rt0 1a direct", "VCPU \"1a\"", NULL);
	expect_err("mode rt0 256 direct", "VCPU \"256\"", NULL);
	expect_err("mode rt0 99999999999999999999 direct", "VCPU", NULL);
	/* timer mode */
	expect_err("mode rt0 1 turbo", "unknown timer mode \"turbo\"", NULL);
	expect_err("mode rt0 1 Direct", "unknown timer mode \"Direct\"", NULL);
	/* longer than a line may be */
	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = 0;
	expect_err(long_line, "line too long", NULL);
	long_line[MONITOR_LINE_MAX + 1] = 0;
	expect_err(long_line, "line too long", NULL);
	long_line[MONITOR_LINE_MAX] = 0;
	expect_err(long_line, "unknown command", NULL);
}

static void test_parse_edges(void **state)
{
	struct monitor_cmd cmd;
	char err[16];

	(void)state;
	/* no partitions at all, no mode resolver, no room for the message */
	assert_int_equal(monitor_parse("stats rt0", NULL, 0, NULL, &cmd, err, sizeof(err)), -1);
	assert_int_equal(strlen(err), sizeof(err) - 1);	/* cut, still a string */
	assert_int_equal(monitor_parse("mode rt0 1 direct", names, NAMES, NULL, &cmd, NULL, 0),
			 -1);
	assert_int_equal(monitor_parse("list", NULL, 0, NULL, &cmd, NULL, 0), 0);
	assert_int_equal(cmd.op, MON_LIST);
	/* a word as long as a line still comes out quoted on one short line */
	{
		char line[MONITOR_LINE_MAX + 1], msg[200];

		memset(line, 'q', MONITOR_LINE_MAX);
		line[MONITOR_LINE_MAX] = 0;
		assert_int_equal(monitor_parse(line, names, NAMES, mode_of, &cmd, msg,
					       sizeof(msg)), -1);
		assert_true(strlen(msg) < 80);
	}
}

/* Every command is in the help, one a line, with its arguments. */
static void test_help(void **state)
{
	static const char *const usages[] = {
		"help ", "list ", "stats NAME ", "trace NAME ", "stop NAME ", "restart NAME ",
		"mode NAME VCPU MODE ", "ticks ", "console NAME ", "start NAME|N ", "reboot ",
	};
	const char *h = monitor_help();

	(void)state;
	for (uint32_t i = 0; i < ARRAY_LEN(usages); i++) {
		const char *p = strstr(h, usages[i]);

		if (!p || (p != h && p[-1] != '\n'))
			fail_msg("help lacks a line for \"%s\"", usages[i]);
	}
	assert_int_equal(h[strlen(h) - 1], '\n');
	/* each line fits an 80-column terminal */
	for (const char *p = h; *p;) {
		const char *nl = strchr(p, '\n');

		assert_non_null(nl);
		assert_true(nl - p < 80);
		p = nl + 1;
	}
}

static void test_parse_start_reboot(void **state)
{
	static const char *const numbered[] = { "rt0", "7", "b" };
	struct monitor_cmd cmd;
	char err[160];

	(void)state;
	expect_op("start rt0", MON_START, 0);
	expect_op("  start\thello-world ", MON_START, 2);
	/* N as Ctrl-T N numbers them, from 1 */
	expect_op("start 1", MON_START, 0);
	expect_op("start 3", MON_START, 2);
	expect_op("start 02", MON_START, 1);
	/* the other partition commands take N too */
	expect_op("stats 2", MON_STATS, 1);
	expect_op("reboot", MON_REBOOT, 0);
	expect_op(" reboot ", MON_REBOOT, 0);
	expect_err("start", "start: missing NAME|N", "usage: start NAME|N");
	expect_err("start 0", "start: unknown partition \"0\"", "list");
	expect_err("start 4", "start: unknown partition \"4\"", NULL);
	expect_err("start 9", "start: unknown partition \"9\"", NULL);
	expect_err("start 99999999999", "unknown partition", NULL);
	expect_err("start -1", "unknown partition \"-1\"", NULL);
	expect_err("start 1x", "unknown partition \"1x\"", NULL);
	expect_err("start RT0", "unknown partition \"RT0\"", NULL);
	expect_err("start rt0 rt1", "start: too many arguments", NULL);
	expect_err("reboot now", "reboot: too many arguments", "usage: reboot");
	expect_err("rebooot", "unknown command \"rebooot\"", "help");
	expect_err("starts rt0", "unknown command \"starts\"", NULL);
	/* a name wins over a number: "7" is the partition called 7, not the 7th */
	assert_int_equal(monitor_parse("start 7", numbered, 3, NULL, &cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.part, 1);
	assert_int_equal(monitor_parse("start 3", numbered, 3, NULL, &cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.part, 2);
	/* no partitions at all */
	assert_int_equal(monitor_parse("start 1", NULL, 0, NULL, &cmd, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown partition \"1\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_basic_and_crlf),
		cmocka_unit_test(test_line_backspace),
		cmocka_unit_test(test_line_controls_dropped),
		cmocka_unit_test(test_line_overflow),
		cmocka_unit_test(test_line_flood),
		cmocka_unit_test(test_parse_commands),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_edges),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_parse_start_reboot),
	};

	return cmocka_run_group_tests_name("monitor", tests, NULL, NULL);
}
