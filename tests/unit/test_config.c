// SPDX-License-Identifier: MIT
/* Unit tests for hv/core/config.c (partition configuration parser and check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/config.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static struct hv_config cfg;
static struct config_error err;
static struct config_errors errs;
static struct hv_config cfg_all;

/*
 * Parse from an exact-size heap copy, so ASan reports any read past @len:
 * the parser must never look for a NUL terminator.
 */
static int parse_n(const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, text, len);
	memset(&err, 0x5a, sizeof(err));
	rc = config_parse(copy, len, &cfg, &err);
	/* Every error kept: the same verdict, the same first error, each message sane. */
	memset(&errs, 0x5a, sizeof(errs));
	assert_int_equal(config_parse_all(copy, len, &cfg_all, &errs), rc);
	assert_int_equal(errs.count > 0, rc != 0);
	for (uint32_t i = 0; i < errs.count && i < CONFIG_MAX_ERRORS; i++) {
		assert_true(strnlen(errs.list[i].msg, sizeof(errs.list[i].msg)) <
			    sizeof(errs.list[i].msg));
		assert_true(errs.list[i].msg[0] != 0);
	}
	if (rc) {
		assert_int_equal(errs.list[0].line, err.line);
		assert_string_equal(errs.list[0].msg, err.msg);
	}
	free(copy);
	/* Whatever the outcome, the message is a terminated string. */
	assert_true(strnlen(err.msg, sizeof(err.msg)) < sizeof(err.msg));
	if (rc)
		assert_true(err.msg[0] != 0);
	return rc;
}

static int parse(const char *text)
{
	return parse_n(text, strlen(text));
}

static void parse_ok(const char *text)
{
	if (parse(text)) {
		print_error("unexpected error at line %u: %s\n", err.line, err.msg);
		fail();
	}
}

static void expect_err_n(const char *text, size_t len, uint32_t line, const char *want)
{
	if (!parse_n(text, len)) {
		print_error("parsed, but wanted line %u: %s\n--- input:\n%.*s\n", line, want,
			    (int)len, text);
		fail();
	}
	if (err.line != line || !strstr(err.msg, want)) {
		print_error("got line %u: %s\nwant line %u: ...%s...\n--- input:\n%.*s\n",
			    err.line, err.msg, line, want, (int)len, text);
		fail();
	}
}

static void expect_err(const char *text, uint32_t line, const char *want)
{
	expect_err_n(text, strlen(text), line, want);
}

#define MIN_PART "[partition rt0]\ncpus = 1\nmemory = 64M\nimage = hello\n"

/* ---- good configurations ---- */

static void test_all_keys(void **state)
{
	const struct partition_config *p = &cfg.partitions[0];

	(void)state;
	parse_ok("[hypervisor]\n"
		 "tick_us = 250\n"
		 "\n"
		 "[partition rt0]\n"
		 "cpus = 1,2-3\n"
		 "memory = 64M\n"
		 "base = 0x10000000\n"
		 "image = hello\n"
		 "cmdline = \"console=ttyS0 quiet\"\n"
		 "modules = initrd extra\n"
		 "timer = inject\n"
		 "console = off\n"
		 "debug_exit = on\n"
		 "fw_cfg = on\n");
	assert_int_equal(cfg.tick_us, 250);
	assert_true(p->debug_exit);
	assert_true(p->fw_cfg);
	assert_int_equal(cfg.partition_count, 1);
	assert_string_equal(p->name, "rt0");
	assert_int_equal(p->cpus.w[0], 0xe);
	assert_int_equal(p->memory_bytes, 64 * MiB);
	assert_int_equal(p->base, 0x10000000);
	assert_string_equal(p->image, "hello");
	assert_string_equal(p->cmdline, "console=ttyS0 quiet");
	assert_int_equal(p->module_count, 2);
	assert_string_equal(p->modules[0], "initrd");
	assert_string_equal(p->modules[1], "extra");
	assert_int_equal(p->timer, TIMER_INJECT);
	assert_false(p->console);
	assert_int_equal(p->line, 4);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.msg, "");
}

static void test_defaults(void **state)
{
	const struct partition_config *p = &cfg.partitions[0];

	(void)state;
	parse_ok(MIN_PART);
	assert_int_equal(cfg.tick_us, CONFIG_DEFAULT_TICK_US);
	assert_int_equal(cfg.partition_count, 1);
	assert_int_equal(p->cpus.w[0], 2);
	assert_int_equal(p->base, 0);
	assert_string_equal(p->cmdline, "");
	assert_int_equal(p->module_count, 0);
	assert_int_equal(p->timer, TIMER_DIRECT);
	assert_true(p->console);
	assert_false(p->debug_exit);	/* the test devices are off unless asked for */
	assert_false(p->fw_cfg);
	assert_int_equal(p->restart, RESTART_NEVER);
	assert_int_equal(p->restart_limit, CONFIG_DEFAULT_RESTART_LIMIT);
	assert_int_equal(p->restart_window_s, CONFIG_DEFAULT_RESTART_WINDOW_S);
	assert_int_equal(p->line, 1);
}

static void test_restart_keys(void **state)
{
	const struct partition_config *p = &cfg.partitions[0];

	(void)state;
	parse_ok(MIN_PART "restart = on-failure\nrestart_limit = 5\nrestart_window_s = 0\n");
	assert_int_equal(p->restart, RESTART_ON_FAILURE);
	assert_int_equal(p->restart_limit, 5);
	assert_int_equal(p->restart_window_s, 0);
	parse_ok(MIN_PART "restart = always # c\nrestart_limit = 1000000\n"
		 "restart_window_s = 86400\n");
	assert_int_equal(p->restart, RESTART_ALWAYS);
	assert_int_equal(p->restart_limit, 1000000);
	assert_int_equal(p->restart_window_s, 86400);
	parse_ok(MIN_PART "restart = never\n");
	assert_int_equal(p->restart, RESTART_NEVER);
	assert_string_equal(restart_policy_name(RESTART_ON_FAILURE), "on-failure");
	expect_err(MIN_PART "restart = sometimes\n", 5,
		   "restart: expected never, on-failure or always, found 'sometimes'");
	expect_err(MIN_PART "restart = \n", 5, "restart: expected never, on-failure or always");
	expect_err(MIN_PART "restart_limit = 0\n", 5, "restart_limit: 0 is out of range (1-1000000)");
	expect_err(MIN_PART "restart_limit = 1000001\n", 5, "out of range (1-1000000)");
	expect_err(MIN_PART "restart_limit = -1\n", 5, "restart_limit: expected a number, found '-1'");
	expect_err(MIN_PART "restart_limit = 99999999999999999999\n", 5, "out of range");
	expect_err(MIN_PART "restart_window_s = 86401\n", 5,
		   "restart_window_s: 86401 is out of range (0-86400)");
	expect_err(MIN_PART "restart_window_s = 1s\n", 5, "expected a number, found '1s'");
	expect_err(MIN_PART "restart = always\nrestart = never\n", 6, "duplicate key 'restart'");
}

static void test_comments_blanks_tabs(void **state)
{
	const struct partition_config *p = &cfg.partitions[0];

	(void)state;
	parse_ok("# Tempo partitions\n"
		 "   \n"
		 "\t# indented comment\n"
		 "[hypervisor]   # the host\n"
		 "tick_us=0#tickless\n"
		 "\n"
		 "  [ partition \t rt0 ]  # spaces inside the brackets\n"
		 "\tcpus\t=\t0 , 2 - 3 \t# trailing comment\n"
		 "memory =64M\n"
		 "image= hello   \n"
		 "cmdline = console=ttyS0 # not part of it\n"
		 "timer = emulated\n"
		 "console = on\n"
		 "# the end, no newline after this");
	assert_int_equal(cfg.tick_us, 0);
	assert_string_equal(p->name, "rt0");
	assert_int_equal(p->cpus.w[0], 0xd);
	assert_string_equal(p->image, "hello");
	assert_string_equal(p->cmdline, "console=ttyS0");
	assert_int_equal(p->timer, TIMER_EMULATED);
	assert_true(p->console);
	assert_int_equal(p->line, 7);
}

static void test_crlf(void **state)
{
	const struct partition_config *p = &cfg.partitions[0];

	(void)state;
	parse_ok("# dos\r\n\r\n[partition rt0]\r\ncpus = 1-2\r\nmemory = 2M\r\n"
		 "image = hello\r\ncmdline = \"a b\"\r\nmodules = x y\r\n");
	assert_int_equal(p->line, 3);
	assert_int_equal(p->cpus.w[0], 6);
	assert_int_equal(p->memory_bytes, 2 * MiB);
	assert_string_equal(p->image, "hello");
	assert_string_equal(p->cmdline, "a b");
	assert_string_equal(p->modules[1], "y");
	/* A final CR without LF ends the file the same way. */
	parse_ok(MIN_PART "timer = inject\r");
	assert_int_equal(cfg.partitions[0].timer, TIMER_INJECT);
	/* Line numbers count CRLF lines. */
	expect_err("[partition rt0]\r\ncpus = 1\r\nmemory = 3M\r\n", 3, "memory: 3M");
}

static void test_cpu_lists(void **state)
{
	static const struct {
		const char *cpus;
		uint64_t mask;
	} cases[] = {
		{ "0", 1 },
		{ "1-3,5", 0x2e },
		{ "5,1-3", 0x2e },
		{ "63", 1ull << 63 },
		{ "0-63", ~0ull },
		{ "64-126,3", 8 },	/* word 0 only: the rest below */
		{ "0x3", 8 },
		{ "0x0-0x3", 0xf },
		{ "7-7", 0x80 },
		{ "00012", 1 << 12 },
		{ " 1 , 4 - 5 , 9 ", 0x232 },
	};
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[partition p]\ncpus = %s\nmemory = 2M\nimage = i\n",
			 cases[i].cpus);
		parse_ok(text);
		assert_int_equal(cfg.partitions[0].cpus.w[0], cases[i].mask);
	}
	/* indexes past 63, up to the last one */
	parse_ok("[partition p]\ncpus = 64-126,3\nmemory = 2M\nimage = i\n");
	assert_int_equal(cfg.partitions[0].cpus.w[1], ~0ull >> 1);
	assert_int_equal(cpuset_count(&cfg.partitions[0].cpus), CONFIG_MAX_VCPUS);
	parse_ok("[partition p]\ncpus = 300, 4095, 1000-1001\nmemory = 2M\nimage = i\n");
	assert_int_equal(cpuset_count(&cfg.partitions[0].cpus), 4);
	assert_true(cpuset_has(&cfg.partitions[0].cpus, 300));
	assert_true(cpuset_has(&cfg.partitions[0].cpus, 4095));
	assert_int_equal(cpuset_first(&cfg.partitions[0].cpus), 300);
	assert_int_equal(cpuset_next(&cfg.partitions[0].cpus, 301), 1000);
	assert_int_equal(cpuset_next(&cfg.partitions[0].cpus, 1002), 4095);
	assert_int_equal(cpuset_next(&cfg.partitions[0].cpus, 4096), -1);
	assert_int_equal(cpuset_rank(&cfg.partitions[0].cpus, 4095), 3);
}

static void test_numbers(void **state)
{
	static const struct {
		const char *memory;
		uint64_t bytes;
	} cases[] = {
		{ "2M", 2 * MiB },
		{ "2m", 2 * MiB },
		{ "2048K", 2 * MiB },
		{ "2048k", 2 * MiB },
		{ "1G", GiB },
		{ "3g", 3 * GiB },
		{ "2097152", 2 * MiB },
		{ "0x4000000", 64 * MiB },
		{ "0X200000", 2 * MiB },
		{ "0x10M", 16 * MiB },
		{ "261120G", 255ull << 40 },
		{ "0x0000ff0000000000", 0xff0000000000ull },
	};
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[partition p]\ncpus = 0\nmemory = %s\nimage = i\n",
			 cases[i].memory);
		parse_ok(text);
		assert_int_equal(cfg.partitions[0].memory_bytes, cases[i].bytes);
	}

	parse_ok("[hypervisor]\ntick_us = 1000000\n" MIN_PART);
	assert_int_equal(cfg.tick_us, 1000000);
	parse_ok("[hypervisor]\ntick_us = 0x10\n" MIN_PART);
	assert_int_equal(cfg.tick_us, 16);

	/* tick_slack_us: tick_us / 4 unless set; 0 turns it off; tickless has none */
	parse_ok(MIN_PART);
	assert_int_equal(cfg.tick_slack_us, CONFIG_DEFAULT_TICK_US / 4);
	parse_ok("[hypervisor]\ntick_us = 2000\n" MIN_PART);
	assert_int_equal(cfg.tick_slack_us, 500);
	parse_ok("[hypervisor]\ntick_slack_us = 0\n" MIN_PART);
	assert_int_equal(cfg.tick_slack_us, 0);
	parse_ok("[hypervisor]\ntick_slack_us = 999\n" MIN_PART);
	assert_int_equal(cfg.tick_slack_us, 999);
	parse_ok("[hypervisor]\ntick_us = 0\ntick_slack_us = 5000\n" MIN_PART);
	assert_int_equal(cfg.tick_slack_us, 0);

	/* irq_storm_per_ms: 50 unless set, 1 to 1,000,000, once */
	parse_ok(MIN_PART);
	assert_int_equal(cfg.irq_storm_per_ms, CONFIG_DEFAULT_IRQ_STORM_PER_MS);
	assert_int_equal(CONFIG_DEFAULT_IRQ_STORM_PER_MS, 50);
	parse_ok("[hypervisor]\nirq_storm_per_ms = 10\n" MIN_PART);
	assert_int_equal(cfg.irq_storm_per_ms, 10);
	parse_ok("[hypervisor]\nirq_storm_per_ms = 1000000\n" MIN_PART);
	assert_int_equal(cfg.irq_storm_per_ms, 1000000);
	expect_err("[hypervisor]\nirq_storm_per_ms = 0\n" MIN_PART, 2, "out of range (1-1000000)");
	expect_err("[hypervisor]\nirq_storm_per_ms = 1000001\n" MIN_PART, 2, "out of range");
	expect_err("[hypervisor]\nirq_storm_per_ms = many\n" MIN_PART, 2,
		   "expected a number of interrupts");
	expect_err("[hypervisor]\nirq_storm_per_ms = 5\nirq_storm_per_ms = 6\n" MIN_PART, 3,
		   "irq_storm_per_ms");

	/* The highest base whose range still ends inside 64 bits. */
	parse_ok("[partition p]\ncpus = 0\nimage = i\nmemory = 2M\nbase = 0xffffffffffc00000\n");
	assert_int_equal(cfg.partitions[0].base, 0xffffffffffc00000ull);
	expect_err(MIN_PART "base = 0xffffffffffe00000\n", 5, "runs past the end");
	parse_ok("[partition p]\ncpus = 0\nimage = i\nbase = 0xfffffffff8000000\nmemory = 64M\n");
	assert_int_equal(cfg.partitions[0].base, 0xfffffffff8000000ull);
	/* Ending exactly at 2^64 is refused too: that end is not a 64-bit address. */
	expect_err("[partition p]\ncpus = 0\nimage = i\nbase = 0xfffffffffc000000\n"
		   "memory = 64M\n", 5, "runs past the end");
}

static void test_cmdline(void **state)
{
	const struct partition_config *p = &cfg.partitions[0];
	char text[1024], want[300];

	(void)state;
	parse_ok(MIN_PART "cmdline = \"say \\\"hi\\\" C:\\\\dir\"\n");
	assert_string_equal(p->cmdline, "say \"hi\" C:\\dir");
	parse_ok(MIN_PART "cmdline = \"  keep # this \" # but not this\n");
	assert_string_equal(p->cmdline, "  keep # this ");
	parse_ok(MIN_PART "cmdline = \"\"\n");
	assert_string_equal(p->cmdline, "");
	parse_ok(MIN_PART "cmdline =\n");
	assert_string_equal(p->cmdline, "");
	parse_ok(MIN_PART "cmdline = a \"b\" c=d\n");
	assert_string_equal(p->cmdline, "a \"b\" c=d");
	parse_ok(MIN_PART "cmdline = console=ttyS0,115200 root=/dev/ram0 \xc3\xa9\n");
	assert_string_equal(p->cmdline, "console=ttyS0,115200 root=/dev/ram0 \xc3\xa9");

	/* 255 characters fit, quoted or not; 256 do not. */
	memset(want, 'x', 255);
	want[255] = 0;
	snprintf(text, sizeof(text), MIN_PART "cmdline = %s\n", want);
	parse_ok(text);
	assert_string_equal(p->cmdline, want);
	snprintf(text, sizeof(text), MIN_PART "cmdline = \"%s\"\n", want);
	parse_ok(text);
	assert_string_equal(p->cmdline, want);
	/* Escapes count once. */
	memset(want, '\\', 254);
	want[254] = 0;
	snprintf(text, sizeof(text), MIN_PART "cmdline = \"%s\"\n", want);
	parse_ok(text);
	assert_int_equal(strlen(p->cmdline), 127);
}

static void test_multiple_partitions(void **state)
{
	char text[4096];
	size_t o = 0;

	(void)state;
	parse_ok("[partition linux]\n"
		 "cpus = 0\n"
		 "memory = 512M\n"
		 "image = bzImage\n"
		 "modules = initrd\n"
		 "\n"
		 "[hypervisor]\n"
		 "tick_us = 100\n"
		 "\n"
		 "[partition rt-0.a_b]\n"
		 "image = hello\n"
		 "memory = 1G\n"
		 "cpus = 1-3\n");
	assert_int_equal(cfg.partition_count, 2);
	assert_int_equal(cfg.tick_us, 100);
	assert_string_equal(cfg.partitions[0].name, "linux");
	assert_int_equal(cfg.partitions[0].line, 1);
	assert_int_equal(cfg.partitions[0].memory_bytes, 512 * MiB);
	assert_int_equal(cfg.partitions[0].module_count, 1);
	assert_string_equal(cfg.partitions[1].name, "rt-0.a_b");
	assert_int_equal(cfg.partitions[1].line, 10);
	assert_int_equal(cfg.partitions[1].cpus.w[0], 0xe);
	assert_int_equal(cfg.partitions[1].memory_bytes, GiB);
	assert_int_equal(cfg.partitions[1].module_count, 0);

	/* The most partitions, names, modules and CPUs allowed. */
	for (int i = 0; i < CONFIG_MAX_PARTITIONS; i++)
		o += snprintf(text + o, sizeof(text) - o,
			      "[partition p%d_456789012345678901234567890]\ncpus = %d\n"
			      "memory = 2M\nimage = i234567890123456789012345678901\n"
			      "modules = a b c d\n", i, i + 56);
	parse_ok(text);
	assert_int_equal(cfg.partition_count, CONFIG_MAX_PARTITIONS);
	assert_string_equal(cfg.partitions[7].name, "p7_456789012345678901234567890");
	assert_int_equal(cfg.partitions[7].cpus.w[0], 1ull << 63);
	assert_int_equal(cfg.partitions[7].line, 36);
	assert_string_equal(cfg.partitions[7].image, "i234567890123456789012345678901");
	assert_int_equal(cfg.partitions[7].module_count, 4);
	assert_string_equal(cfg.partitions[7].modules[3], "d");
}

static void test_timer_mode_name(void **state)
{
	(void)state;
	assert_string_equal(timer_mode_name(TIMER_DIRECT), "direct");
	assert_string_equal(timer_mode_name(TIMER_INJECT), "inject");
	assert_string_equal(timer_mode_name(TIMER_EMULATED), "emulated");
	assert_string_equal(timer_mode_name(TIMER_PV_LAZY), "pv-lazy");
	assert_string_equal(timer_mode_name((enum timer_mode)7), "unknown");
}

/* ---- malformed configurations ---- */

struct bad_case {
	const char *text;
	uint32_t line;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	/* Statements and sections. */
	{ "[partition rt0]\ncpus 1\n", 2, "expected 'key = value', found 'cpus 1'" },
	{ "[partition rt0]\n= 5\n", 2, "expected 'key = value', found '= 5'" },
	{ "[partition rt0]\ncpus: 1 # c\n", 2, "expected 'key = value', found 'cpus: 1'" },
	{ "[partition rt0]\n}\n", 2, "expected 'key = value', found '}'" },
	{ "[partition rt0]\ncpu = 1\n", 2,
	  "unknown key 'cpu' in [partition rt0] (expected cpus, memory, base, image, cmdline, "
	  "modules, timer, console, restart, restart_limit, restart_window_s, debug_exit, "
	  "fw_cfg, timer_advance, pci, ports, mmio, irqs)" },
	{ "[partition rt0]\ndebug_exit = yes\n", 2, "debug_exit: expected on or off, found 'yes'" },
	{ "[partition rt0]\nfw_cfg = 1\n", 2, "fw_cfg: expected on or off, found '1'" },
	{ "[partition rt0]\nfw_cfg = on\nfw_cfg = off\n", 3, "duplicate key 'fw_cfg'" },
	{ "[partition rt0]\nCPUS = 1\n", 2, "unknown key 'CPUS'" },
	{ "[partition rt0]\ntick_us = 1\n", 2, "unknown key 'tick_us' in [partition rt0]" },
	{ "[hypervisor]\ncpus = 1\n", 2, "unknown key 'cpus' in [hypervisor] (expected tick_us, tick_slack_us, watchdog_ms, irq_storm_per_ms, all_ended)" },
	{ "cpus = 1\n[partition rt0]\n", 1,
	  "key outside a section: 'cpus' comes before any [hypervisor], [partition NAME], "
	  "[channel NAME] or [schedule CPU]" },
	{ "\n\n  memory = 2M\n", 3, "key outside a section" },
	{ "[foo]\n", 1,
	  "expected '[hypervisor]', '[partition NAME]', '[channel NAME]' or '[schedule CPU]', "
	  "found '[foo]'" },
	{ "[partition]\n", 1, "found '[partition]'" },
	{ "[partition rt0\ncpus = 1\n", 1, "found '[partition rt0'" },
	{ "[hypervisor x]\n", 1, "found '[hypervisor x]'" },
	{ "[hypervisor] tick_us = 5\n", 1, "found '[hypervisor] tick_us = 5'" },
	{ "[]\n", 1, "found '[]'" },
	{ "[Partition a]\n", 1, "found '[Partition a]'" },
	{ "[partitiona]\n", 1, "found '[partitiona]'" },
	{ "[partition a b]\n", 1, "partition name: expected a name of 1-31 characters" },
	{ "[partition rt/0]\n", 1, "found 'rt/0'" },
	{ "[partition a2345678901234567890123456789012]\n", 1, "is longer than 31 characters" },
	{ MIN_PART "[partition rt0]\n", 5, "duplicate partition name 'rt0' (first on line 1)" },
	{ "[hypervisor]\n[hypervisor]\n", 2, "duplicate [hypervisor] section (first on line 1)" },
	{ "[hypervisor]\ntick_us = 1\ntick_us = 2\n", 3, "duplicate key 'tick_us'" },
	{ "[partition rt0]\ncpus = 1\ncpus = 2\n", 3, "duplicate key 'cpus' (first set on line 2)" },
	{ MIN_PART "timer = direct\ntimer = inject\n", 6, "duplicate key 'timer'" },
	/* Required keys: the error points at the section. */
	{ "[partition rt0]\ncpus = 1\nmemory = 2M\n", 1, "partition 'rt0' is missing 'image'" },
	{ "[partition rt0]\nimage = a\nmemory = 2M\n", 1, "partition 'rt0' is missing 'cpus'" },
	{ "[partition rt0]\nimage = a\ncpus = 2\n", 1, "partition 'rt0' is missing 'memory'" },
	{ MIN_PART "\n[partition b]\ncpus = 2\n[hypervisor]\n", 6, "'b' is missing 'memory'" },
	{ "", 0, "no [partition] section" },
	{ "# nothing\n\n", 0, "no [partition] section" },
	{ "[hypervisor]\ntick_us = 5\n", 0, "no [partition] section" },
	/* Bytes that have no place in a text file. */
	{ "[partition rt0]\ncpus = 1\x01\n", 2, "control byte 0x01 in column 9" },
	{ "[partition rt0]\ncpus = 1\x7f\n", 2, "control byte 0x7f" },
	{ "[partition rt0]\ncpus\r= 1\n", 2, "control byte 0x0d in column 5" },
	{ "[partition rt0]\r\r\n", 1, "control byte 0x0d" },
	{ "# \x1b[31m red\n", 1, "control byte 0x1b" },
	/* cpus */
	{ "[partition rt0]\ncpus =\n", 2, "cpus: expected a list such as 0,2-3, found ''" },
	{ "[partition rt0]\ncpus = # none\n", 2, "cpus: expected a list" },
	{ "[partition rt0]\ncpus = 1,,2\n", 2, "cpus: empty entry in '1,,2'" },
	{ "[partition rt0]\ncpus = 1,\n", 2, "cpus: empty entry" },
	{ "[partition rt0]\ncpus = 3-1\n", 2, "cpus: range '3-1' runs backwards" },
	{ "[partition rt0]\ncpus = 4096\n", 2, "cpus: CPU 4096 is out of range (0-4095)" },
	{ "[partition rt0]\ncpus = 4090-4099\n", 2, "CPU 4099 is out of range" },
	{ "[partition rt0]\ncpus = 0-64\n", 2, "cpus: more than 64 CPUs in one partition" },
	{ "[partition rt0]\ncpus = 1-63,4000,4095\n", 2, "more than 64 CPUs in one partition" },
	{ "[partition rt0]\ncpus = 99999999999999999999\n", 2, "expected a CPU number" },
	{ "[partition rt0]\ncpus = 1,1\n", 2, "cpus: CPU 1 is listed twice" },
	{ "[partition rt0]\ncpus = 0-3,2\n", 2, "cpus: CPU 2 is listed twice" },
	{ "[partition rt0]\ncpus = a\n", 2, "expected a CPU number or range N-M, found 'a'" },
	{ "[partition rt0]\ncpus = 1-\n", 2, "found '1-'" },
	{ "[partition rt0]\ncpus = -1\n", 2, "found '-1'" },
	{ "[partition rt0]\ncpus = 1-2-3\n", 2, "found '1-2-3'" },
	{ "[partition rt0]\ncpus = 1 2\n", 2, "found '1 2'" },
	{ "[partition rt0]\ncpus = 0x\n", 2, "found '0x'" },
	/* memory */
	{ "[partition rt0]\nmemory = 3M\n", 2, "memory: 3M is not a multiple of 2 MiB" },
	{ "[partition rt0]\nmemory = 1024K\n", 2, "1024K is not a multiple of 2 MiB" },
	{ "[partition rt0]\nmemory = 0\n", 2, "memory: must be more than 0" },
	{ "[partition rt0]\nmemory = 0G\n", 2, "memory: must be more than 0" },
	{ "[partition rt0]\nmemory = abc\n", 2, "memory: expected a size such as 512M" },
	{ "[partition rt0]\nmemory =\n", 2, "memory: expected a size" },
	{ "[partition rt0]\nmemory = M\n", 2, "found 'M'" },
	{ "[partition rt0]\nmemory = 64MB\n", 2, "found '64MB'" },
	{ "[partition rt0]\nmemory = 64 M\n", 2, "found '64 M'" },
	{ "[partition rt0]\nmemory = -2M\n", 2, "found '-2M'" },
	{ "[partition rt0]\nmemory = +2M\n", 2, "found '+2M'" },
	{ "[partition rt0]\nmemory = 99999999999999999999\n", 2, "memory: '9999" },
	{ "[partition rt0]\nmemory = 17179869184G\n", 2, "'17179869184G' is too large" },
	{ "[partition rt0]\nmemory = 0x10000000000000000\n", 2, "is too large" },
	/* base */
	{ "[partition rt0]\nbase = 0\n", 2, "base: must not be 0" },
	{ "[partition rt0]\nbase = 0x1000\n", 2, "base: 0x1000 is not 2 MiB aligned" },
	{ "[partition rt0]\nbase = 16M\n", 2, "base: expected an address" },
	{ "[partition rt0]\nbase = 0xg\n", 2, "found '0xg'" },
	{ "[partition rt0]\nbase = 0x1ffffffffffffffff\n", 2, "base: '0x1ffffffffffffffff' is too" },
	{ "[partition rt0]\nmemory = 1G\nbase = 0xffffffffc0000000\n", 3,
	  "base 0xffffffffc0000000 + memory 0x40000000 runs past the end of the address space" },
	/* image and modules */
	{ "[partition rt0]\nimage =\n", 2, "image: expected a name of 1-31 characters" },
	{ "[partition rt0]\nimage = a b\n", 2, "image: expected a name" },
	{ "[partition rt0]\nimage = hello!\n", 2, "found 'hello!'" },
	{ "[partition rt0]\nimage = \"hello\"\n", 2, "found '\"hello\"'" },
	{ "[partition rt0]\nimage = a2345678901234567890123456789012\n", 2,
	  "image: name 'a2345678901234567890123456789012' is longer than 31 characters" },
	{ "[partition rt0]\nmodules = a b c d e\n", 2, "modules: too many modules (at most 4)" },
	{ "[partition rt0]\nmodules = a b/c\n", 2, "modules: expected a name" },
	{ "[partition rt0]\nmodules = a b a\n", 2, "modules: 'a' is listed twice" },
	{ "[partition rt0]\nmodules =\n", 2, "modules: expected module names, found ''" },
	/* cmdline */
	{ "[partition rt0]\ncmdline = \"abc\n", 2, "cmdline: expected a closing '\"'" },
	{ "[partition rt0]\ncmdline = \"abc\\\"\n", 2, "expected a closing '\"'" },
	{ "[partition rt0]\ncmdline = \"abc\\\n", 2, "expected a closing '\"'" },
	{ "[partition rt0]\ncmdline = \"a\\nb\"\n", 2, "cmdline: unknown escape '\\\\n'" },
	{ "[partition rt0]\ncmdline = \"a\" b\n", 2,
	  "expected the end of the line after the closing '\"', found 'b'" },
	{ "[partition rt0]\ncmdline = \"a\" \"b\"\n", 2, "found '\"b\"'" },
	/* timer, console, tick_us */
	{ "[partition rt0]\ntimer = fast\n", 2,
	  "timer: expected direct, inject, emulated or pv-lazy, found 'fast'" },
	{ "[partition rt0]\ntimer = pv_lazy\n", 2, "found 'pv_lazy'" },
	{ "[partition rt0]\ntimer = pv-lazy x\n", 2, "found 'pv-lazy x'" },
	{ "[partition rt0]\ntimer = Direct\n", 2, "found 'Direct'" },
	{ "[partition rt0]\ntimer =\n", 2, "found ''" },
	{ "[partition rt0]\nconsole = yes\n", 2, "console: expected on or off, found 'yes'" },
	{ "[hypervisor]\ntick_us = 1000001\n", 2, "tick_us: '1000001' is out of range (0-1000000)" },
	{ "[hypervisor]\ntick_us = 99999999999999999999999\n", 2, "is out of range" },
	{ "[hypervisor]\ntick_us = 1ms\n", 2, "tick_us: expected a number of microseconds" },
	{ "[hypervisor]\ntick_us =\n", 2, "found ''" },
	{ "[hypervisor]\nwatchdog_ms = 60001\n", 2, "watchdog_ms: '60001' is out of range (0-60000)" },
	{ "[hypervisor]\nwatchdog_ms = 5s\n", 2, "watchdog_ms: expected a number of milliseconds" },
	{ "[hypervisor]\nwatchdog_ms = 5\nwatchdog_ms = 6\n", 3,
	  "duplicate key 'watchdog_ms' (first set on line 2)" },
	{ "[hypervisor]\ntick_slack_us = 1000\n", 2,
	  "tick_slack_us: 1000 is not below tick_us (1000)" },
	{ "[hypervisor]\ntick_slack_us = 600\n\ntick_us = 500\n", 2,
	  "tick_slack_us: 600 is not below tick_us (500)" },
	{ "[hypervisor]\ntick_slack_us = 1ms\n", 2,
	  "tick_slack_us: expected a number of microseconds" },
	{ "[hypervisor]\ntick_slack_us = 1\ntick_slack_us = 2\n", 3,
	  "duplicate key 'tick_slack_us' (first set on line 2)" },
	{ "[hypervisor]\ntick_slack_us = 1000001\n", 2,
	  "tick_slack_us: '1000001' is out of range (0-1000000)" },
	{ "[hypervisor]\ntickus = 5\n", 2, "unknown key 'tickus' in [hypervisor] (expected tick_us, tick_slack_us, watchdog_ms, irq_storm_per_ms, all_ended)" },
	/* Found text is escaped and cut short. */
	{ "[partition rt0]\ntimer = fa\xffst\n", 2, "found 'fa\\xffst'" },
	{ "[partition rt0]\ntimer = a\\b\tc\n", 2, "found 'a\\\\b\\tc'" },
	{ "[partition rt0]\ntimer = 0123456789012345678901234567890123456789xyz\n", 2,
	  "found '0123456789012345678901234567890123456789...'" },
	{ "[partition rt0]\ntimer = 01234567890123456789012345678901234567\xee\n", 2,
	  "found '01234567890123456789012345678901234567...'" },
};

static void test_bad_configs(void **state)
{
	(void)state;
	assert_true(sizeof(bad_cases) / sizeof(bad_cases[0]) >= 30);
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		expect_err(bad_cases[i].text, bad_cases[i].line, bad_cases[i].msg);
}

static void test_nul_bytes(void **state)
{
	static const char a[] = "[partition rt0]\ncpus = 1\0\nmemory = 2M\n";
	static const char b[] = "\0";
	static const char c[] = MIN_PART "#\0 comment";

	(void)state;
	expect_err_n(a, sizeof(a) - 1, 2, "control byte 0x00 in column 9");
	expect_err_n(b, sizeof(b) - 1, 1, "control byte 0x00 in column 1");
	expect_err_n(c, sizeof(c) - 1, 5, "control byte 0x00 in column 2");
}

static void test_size_limits(void **state)
{
	size_t n = CONFIG_MAX_TEXT + 1;
	char *big = malloc(n);

	(void)state;
	assert_non_null(big);
	memset(big, '\n', n);
	memcpy(big, MIN_PART, strlen(MIN_PART));
	expect_err_n(big, n, 0, "config is 65537 bytes, more than the 65536 allowed");
	parse_n(big, n - 1);
	assert_int_equal(config_parse(big, n - 1, &cfg, &err), 0);
	free(big);

	/* Too many partitions: the ninth header is refused. */
	{
		char text[2048];
		size_t o = 0;

		for (int i = 0; i <= CONFIG_MAX_PARTITIONS; i++)
			o += snprintf(text + o, sizeof(text) - o,
				      "[partition p%d]\ncpus = %d\nmemory = 2M\nimage = i\n", i, i);
		expect_err(text, 33, "too many partitions (at most 8)");
	}

	/* Unquoted and quoted command lines one character too long. */
	{
		char text[1024], x[257];

		memset(x, 'x', 256);
		x[256] = 0;
		snprintf(text, sizeof(text), MIN_PART "cmdline = %s\n", x);
		expect_err(text, 5, "cmdline: longer than 255 characters");
		snprintf(text, sizeof(text), MIN_PART "cmdline = \"%s\"\n", x);
		expect_err(text, 5, "cmdline: longer than 255 characters");
	}
}

static void test_null_arguments(void **state)
{
	(void)state;
	assert_int_equal(config_parse(NULL, 0, &cfg, &err), -1);
	assert_string_equal(err.msg, "no [partition] section");
	assert_int_equal(config_parse(NULL, 5, &cfg, &err), -1);
	assert_int_equal(config_parse(MIN_PART, strlen(MIN_PART), NULL, &err), -1);
	assert_int_equal(config_parse(MIN_PART, strlen(MIN_PART), &cfg, NULL), 0);
	assert_int_equal(config_parse("x", 1, &cfg, NULL), -1);
	assert_int_equal(config_validate(NULL, NULL, &err), -1);
	assert_int_equal(config_validate(&cfg, NULL, NULL), -1);
}

/* The longest messages still end inside err->msg. */
static void test_long_messages(void **state)
{
	(void)state;
	expect_err("[partition a234567890123456789012345678901]\n"
		   "cpus_and_a_very_long_key_name_indeed_it_is = 1\n", 2,
		   "unknown key 'cpus_and_a_very_long_key...' in "
		   "[partition a234567890123456789012345678901] (expected cpus, memory, base, "
		   "image, cmdline, modules, timer, console, restart, restart_limit, "
		   "restart_window_s, debug_exit, fw_cfg, timer_advance, pci, ports, mmio, irqs)");
}

/* ---- config_validate ---- */

static const struct config_platform plat4 = {
	.cpu_count = 4,
	.module_count = 3,
	.module_names = { "hello", "partitions", "initrd" },
	.usable_bytes = GiB,
};

static const struct config_platform plat_big_mem = {
	.cpu_count = 4,
	.module_count = 1,
	.module_names = { "hello" },
	.usable_bytes = 8 * GiB,
};

static void validate_ok(const char *text, const struct config_platform *plat)
{
	parse_ok(text);
	if (config_validate(&cfg, plat, &err)) {
		print_error("unexpected error at line %u: %s\n", err.line, err.msg);
		fail();
	}
	assert_int_equal(err.line, 0);
	assert_string_equal(err.msg, "");
}

static void validate_err(const char *text, const struct config_platform *plat, uint32_t line,
			 const char *want)
{
	int rc;

	parse_ok(text);
	memset(&err, 0x5a, sizeof(err));
	rc = config_validate(&cfg, plat, &err);
	assert_true(strnlen(err.msg, sizeof(err.msg)) < sizeof(err.msg));
	if (!rc || err.line != line || !strstr(err.msg, want)) {
		print_error("rc %d, line %u: %s\nwant line %u: ...%s...\n", rc, err.line, err.msg,
			    line, want);
		fail();
	}
}

static void test_validate_good(void **state)
{
	(void)state;
	validate_ok("[partition linux]\ncpus = 0\nmemory = 512M\nimage = hello\n"
		    "modules = initrd partitions\n"
		    "[partition rt]\ncpus = 1-3\nmemory = 512M\nimage = hello\n", &plat4);
	/* Fixed bases that touch but do not overlap. */
	validate_ok("[partition a]\ncpus = 0\nmemory = 64M\nimage = hello\nbase = 0x10000000\n"
		    "[partition b]\ncpus = 1\nmemory = 64M\nimage = hello\nbase = 0x14000000\n"
		    "[partition c]\ncpus = 2\nmemory = 64M\nimage = hello\nbase = 0xc000000\n"
		    "[partition d]\ncpus = 3\nmemory = 64M\nimage = hello\n", &plat4);
}

static void test_validate_cpus(void **state)
{
	static const struct config_platform all64 = {
		.cpu_count = 64, .module_count = 1, .module_names = { "hello" },
		.usable_bytes = GiB,
	};

	(void)state;
	validate_err("[partition a]\ncpus = 0\nmemory = 2M\nimage = hello\n"
		     "[partition rt0]\ncpus = 2,5-6\nmemory = 2M\nimage = hello\n", &plat4, 5,
		     "partition 'rt0': CPU 5 does not exist (the MADT lists 4)");
	validate_err("[partition a]\ncpus = 0-1\nmemory = 2M\nimage = hello\n"
		     "[partition x]\ncpus = 3\nmemory = 2M\nimage = hello\n"
		     "[partition b]\ncpus = 2,1\nmemory = 2M\nimage = hello\n", &plat4, 9,
		     "CPU 1 is given to both 'a' and 'b'; add a [schedule 1] section to share it");
	validate_ok("[partition a]\ncpus = 0-62\nmemory = 2M\nimage = hello\n"
		    "[partition b]\ncpus = 63\nmemory = 2M\nimage = hello\n", &all64);
	validate_err("[partition a]\ncpus = 63\nmemory = 2M\nimage = hello\n", &plat4, 1,
		     "CPU 63 does not exist");
}

/* A big machine: CPU indexes past 63, a CPU in two partitions past 63, schedules there. */
static void test_validate_many_cpus(void **state)
{
	static const struct config_platform big = {
		.cpu_count = 448, .module_count = 1, .module_names = { "hello" },
		.usable_bytes = GiB,
	};

	(void)state;
	validate_ok("[partition a]\ncpus = 0,64-126\nmemory = 2M\nimage = hello\n"
		    "[partition b]\ncpus = 300-363\nmemory = 2M\nimage = hello\n"
		    "[partition c]\ncpus = 447\nmemory = 2M\nimage = hello\n", &big);
	validate_err("[partition a]\ncpus = 446-448\nmemory = 2M\nimage = hello\n", &big, 1,
		     "partition 'a': CPU 448 does not exist (the MADT lists 448)");
	validate_err("[partition a]\ncpus = 250-260\nmemory = 2M\nimage = hello\n"
		     "[partition b]\ncpus = 400,258\nmemory = 2M\nimage = hello\n", &big, 5,
		     "CPU 258 is given to both 'a' and 'b'; add a [schedule 258] section");
	/* shared past 63: both need a window there, and a timer that may share */
	validate_ok("[partition a]\ncpus = 258\nmemory = 2M\nimage = hello\ntimer = inject\n"
		    "[partition b]\ncpus = 258,259\nmemory = 2M\nimage = hello\ntimer = inject\n"
		    "[schedule 258]\nwindow = a 100\nwindow = b 100\n", &big);
	validate_err("[partition a]\ncpus = 258\nmemory = 2M\nimage = hello\ntimer = inject\n"
		     "[partition b]\ncpus = 258,259\nmemory = 2M\nimage = hello\n"
		     "[schedule 258]\nwindow = a 100\nwindow = b 100\n", &big, 6,
		     "timer = direct needs a dedicated core, but CPU 258 is shared");
}

static void test_validate_modules(void **state)
{
	static const struct config_platform none = { .cpu_count = 4, .usable_bytes = GiB };
	static const struct config_platform many = {
		.cpu_count = 4,
		.module_count = 16,
		.module_names = {
			"a_long_module_name_1", "a_long_module_name_2", "a_long_module_name_3",
			"a_long_module_name_4", "a_long_module_name_5", NULL, "hello",
		},
		.usable_bytes = GiB,
	};

	(void)state;
	validate_err("[partition rt0]\ncpus = 0\nmemory = 2M\nimage = foo\n", &plat4, 1,
		     "image 'foo' not found among the boot modules "
		     "(have: hello, partitions, initrd)");
	validate_err("\n[partition rt0]\ncpus = 0\nmemory = 2M\nimage = hello\n"
		     "modules = initrd ramfs\n", &plat4, 2,
		     "module 'ramfs' not found among the boot modules (have: hello, partitions, ");
	validate_err("[partition rt0]\ncpus = 0\nmemory = 2M\nimage = hello\n", &none, 1,
		     "(have: none)");
	/* A NULL name is skipped, and a long list is cut with "...". */
	validate_ok("[partition rt0]\ncpus = 0\nmemory = 2M\nimage = hello\n", &many);
	validate_err("[partition a234567890123456789012345678901]\ncpus = 0\nmemory = 2M\n"
		     "image = b234567890123456789012345678901\n", &many, 1,
		     "(have: a_long_module_name_1, a_long_module_name_2, a_long_module_name_3, ...)");
}

static void test_validate_memory(void **state)
{
	static const struct config_platform huge = {
		.cpu_count = 4, .module_count = 1, .module_names = { "hello" },
		.usable_bytes = UINT64_MAX,
	};

	(void)state;
	validate_err("[partition a]\ncpus = 0\nmemory = 64M\nimage = hello\nbase = 0x10000000\n"
		     "[partition b]\ncpus = 1\nmemory = 64M\nimage = hello\n"
		     "[partition c]\ncpus = 2\nmemory = 4M\nimage = hello\nbase = 0x13e00000\n",
		     &plat4, 10,
		     "'c' at 0x13e00000-0x141fffff overlaps 'a' at 0x10000000-0x13ffffff");
	validate_err("[partition a]\ncpus = 0\nmemory = 64M\nimage = hello\nbase = 0x10000000\n"
		     "[partition c]\ncpus = 2\nmemory = 1G\nimage = hello\nbase = 0x200000\n",
		     &plat4, 6, "'c' at 0x200000-0x401fffff overlaps 'a'");
	/* Exactly the usable memory fits; 2 MiB more does not. */
	validate_ok("[partition a]\ncpus = 0\nmemory = 512M\nimage = hello\n"
		    "[partition b]\ncpus = 1\nmemory = 512M\nimage = hello\n", &plat4);
	validate_err("[partition a]\ncpus = 0\nmemory = 512M\nimage = hello\n"
		     "[partition b]\ncpus = 1\nmemory = 514M\nimage = hello\n", &plat4, 5,
		     "partition 'b': memory does not fit (1026 MiB asked for so far, "
		     "1024 MiB usable)");
	validate_err("[partition a]\ncpus = 0\nmemory = 261120G\nimage = hello\n",
		     &plat4, 1, "memory does not fit");
	/* The most one partition may have; a partition of many TiB fits a huge machine. */
	validate_ok("[partition a]\ncpus = 0\nmemory = 261120G\nimage = hello\n"
		    "[partition b]\ncpus = 1\nmemory = 261120G\nimage = hello\n", &huge);
	expect_err("[partition a]\ncpus = 0\nmemory = 0x0000ff0000200000\nimage = hello\n", 3,
		   "memory: 0x0000ff0000200000 is more than a partition can have (255 TiB: its "
		   "RAM must end below 256 TiB guest-physical, the reach of 4-level EPT)");
	expect_err("[partition a]\ncpus = 0\nmemory = 0xffffffffffe00000\nimage = hello\n", 3,
		   "is more than a partition can have");
}

/* A hand-built config (not from config_parse) is still checked sanely. */
static void test_validate_hand_built(void **state)
{
	struct hv_config c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "no [partition] section");
	c.partition_count = 9;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	c.partition_count = 1;
	strcpy(c.partitions[0].name, "z");
	strcpy(c.partitions[0].image, "hello");
	c.partitions[0].line = 3;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "partition 'z' has no CPUs");
	assert_int_equal(err.line, 3);
	cpuset_add(&c.partitions[0].cpus, 0);
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "partition 'z' has no memory");
	/* what config_parse refuses: not 2 MiB granular, or past 255 TiB (its end would wrap) */
	c.partitions[0].memory_bytes = 3 * MiB;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "partition 'z': memory is not a multiple of 2 MiB up to 255 TiB");
	c.partitions[0].memory_bytes = ~0ull - 2 * MiB + 1;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "partition 'z': memory is not a multiple of 2 MiB up to 255 TiB");
	c.partitions[0].memory_bytes = 2 * MiB;
	c.partitions[0].module_count = 5;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	c.partitions[0].module_count = 0;
	c.partitions[0].base = ~0ull - MiB;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_non_null(strstr(err.msg, "runs past the end"));
	c.partitions[0].base = 0;
	assert_int_equal(config_validate(&c, &plat4, &err), 0);
}

/* ---- time partitioning: [schedule N] and pv-lazy ---- */

#define PART(name, cpus, timer)                                                         \
	"[partition " name "]\ncpus = " cpus "\nmemory = 2M\nimage = hello\ntimer = " timer "\n"

static const struct config_platform plat8 = {
	.cpu_count = 8, .module_count = 1, .module_names = { "hello" }, .usable_bytes = GiB,
};

static void test_pv_lazy(void **state)
{
	(void)state;
	parse_ok(MIN_PART "timer = pv-lazy\n");
	assert_int_equal(cfg.partitions[0].timer, TIMER_PV_LAZY);
	assert_int_equal(TIMER_PV_LAZY, 3);
	parse_ok(MIN_PART "timer = pv-lazy   # comment\n");
	assert_int_equal(cfg.partitions[0].timer, TIMER_PV_LAZY);
	validate_ok(MIN_PART "timer = pv-lazy\n", &plat4);
}

static void test_schedule_good(void **state)
{
	const struct schedule_config *s = &cfg.schedules[0];

	(void)state;
	/* The example from the README: forward references, idle, frame_us given. */
	validate_ok("[schedule 1]            # physical CPU 1 runs several vCPUs\n"
		    "frame_us = 1000\n"
		    "window = rt0 400\n"
		    "window = rt1 350\n"
		    "window = idle 250\n"
		    "\n"
		    PART("rt0", "1", "inject")
		    PART("rt1", "1-2", "pv-lazy"), &plat4);
	assert_int_equal(cfg.schedule_count, 1);
	assert_int_equal(s->cpu, 1);
	assert_int_equal(s->line, 1);
	assert_int_equal(s->frame_us, 1000);
	assert_int_equal(s->window_count, 3);
	assert_int_equal(s->windows[0].partition, 0);
	assert_int_equal(s->windows[0].length_us, 400);
	assert_int_equal(s->windows[1].partition, 1);
	assert_int_equal(s->windows[1].length_us, 350);
	assert_int_equal(s->windows[2].partition, -1);
	assert_int_equal(s->windows[2].length_us, 250);
	assert_int_equal(cfg.partitions[1].timer, TIMER_PV_LAZY);

	/* frame_us omitted is the sum; a partition may have several windows. */
	validate_ok(PART("a", "0", "emulated") PART("b", "0", "inject")
		    "[schedule 0]\n"
		    "window = a 100\n"
		    "window = b 50\n"
		    "window = a 0x64\n"
		    "window = idle 1000000\n"
		    PART("c", "2", "direct")
		    "[schedule 3]\n"
		    "window = idle 60\n"
		    "window = d 950\n"
		    "frame_us = 1010 # after the windows is fine\n"
		    PART("d", "3", "inject"), &plat4);
	assert_int_equal(cfg.schedule_count, 2);
	assert_int_equal(cfg.partition_count, 4);
	assert_int_equal(s->cpu, 0);
	assert_int_equal(s->line, 11);
	assert_int_equal(s->frame_us, 1000250);
	assert_int_equal(s->window_count, 4);
	assert_int_equal(s->windows[0].partition, 0);
	assert_int_equal(s->windows[1].partition, 1);
	assert_int_equal(s->windows[2].partition, 0);
	assert_int_equal(s->windows[2].length_us, 100);
	assert_int_equal(s->windows[3].partition, -1);
	assert_int_equal(cfg.schedules[1].cpu, 3);
	assert_int_equal(cfg.schedules[1].frame_us, 1010);
	assert_int_equal(cfg.schedules[1].windows[1].partition, 3);

	/* A partition may be both on a shared core and on a dedicated one. */
	validate_ok(PART("a", "0-2", "emulated") PART("b", "1", "inject")
		    "[schedule 1]\nwindow = b 500\nwindow = a 500\n", &plat4);
	/* Without a schedule a CPU still goes to one partition, direct allowed. */
	validate_ok(PART("a", "0", "direct") PART("b", "1", "inject"), &plat4);
	/* Tabs, CRLF, hex CPU numbers, spaces in the brackets. */
	validate_ok("[ schedule \t0x2 ]\r\nwindow\t=\tx\t\t75\t# tab\r\nframe_us=75\r\n"
		    PART("x", "2", "emulated"), &plat4);
	assert_int_equal(cfg.schedules[0].cpu, 2);
	assert_int_equal(cfg.schedules[0].frame_us, 75);
	/* A partition named like the keyword's prefix is just a name. */
	validate_ok("[schedule 1]\nwindow = idle2 50\nwindow = idle 50\n"
		    PART("idle2", "1", "inject"), &plat4);
	assert_int_equal(cfg.schedules[0].windows[0].partition, 0);
	assert_int_equal(cfg.schedules[0].windows[1].partition, -1);
}

/* The most schedules and windows, the shortest and longest windows. */
static void test_schedule_limits(void **state)
{
	static const struct config_platform plat64 = {
		.cpu_count = 64, .module_count = 1, .module_names = { "hello" },
		.usable_bytes = GiB,
	};
	char text[8192];
	size_t o = 0;

	(void)state;
	o += snprintf(text + o, sizeof(text) - o, PART("p", "0-7", "emulated"));
	for (int c = 0; c < CONFIG_MAX_SCHEDULES; c++) {
		o += snprintf(text + o, sizeof(text) - o, "[schedule %d]\nframe_us = %d\n", c,
			      c == 7 ? 16000000 : 16 * 50);
		for (int w = 0; w < CONFIG_MAX_WINDOWS; w++)
			o += snprintf(text + o, sizeof(text) - o, "window = %s %d\n",
				      w % 2 ? "idle" : "p", c == 7 ? 1000000 : 50);
	}
	validate_ok(text, &plat64);
	assert_int_equal(cfg.schedule_count, CONFIG_MAX_SCHEDULES);
	assert_int_equal(cfg.schedules[7].window_count, CONFIG_MAX_WINDOWS);
	assert_int_equal(cfg.schedules[7].frame_us, 16000000);
	assert_int_equal(cfg.schedules[7].windows[15].partition, -1);
	assert_int_equal(cfg.schedules[7].windows[14].partition, 0);
	assert_int_equal(cfg.schedules[0].frame_us, 800);

	/* A ninth schedule, and a seventeenth window. */
	o += snprintf(text + o, sizeof(text) - o, "[schedule 8]\n");
	expect_err(text, 5 + 8 * 18 + 1, "too many schedules (at most 8)");
	o = snprintf(text, sizeof(text), PART("p", "63", "inject") "[schedule 63]\n");
	for (int w = 0; w <= CONFIG_MAX_WINDOWS; w++)
		o += snprintf(text + o, sizeof(text) - o, "window = p 100\n");
	expect_err(text, 6 + 17, "too many windows in [schedule 63] (at most 16)");
}

static const struct bad_case bad_sched_cases[] = {
	/* Headers. */
	{ "[schedule]\n", 1, "expected '[hypervisor]', '[partition NAME]', '[channel NAME]' or "
	  "'[schedule CPU]', found '[schedule]'" },
	{ "[schedule x]\n", 1, "schedule: expected a CPU number, found 'x'" },
	{ "[schedule 1 2]\n", 1, "schedule: expected a CPU number, found '1 2'" },
	{ "[schedule -1]\n", 1, "found '-1'" },
	{ "[schedule 1-2]\n", 1, "found '1-2'" },
	{ "[schedule 4096]\n", 1, "schedule: CPU 4096 is out of range (0-4095)" },
	{ "[schedule 99999999999999999999]\n", 1, "is out of range (0-4095)" },
	{ "[schedules 1]\n", 1, "found '[schedules 1]'" },
	{ "[Schedule 1]\n", 1, "found '[Schedule 1]'" },
	{ "[schedule 1]\nwindow = a 100\n\n[schedule 0x1]\n", 4,
	  "duplicate [schedule 1] section (first on line 1)" },
	{ "[partition idle]\n", 1, "partition name: 'idle' is reserved" },
	/* A schedule needs windows; the error points at the section. */
	{ "[schedule 1]\n", 1, "[schedule 1] has no windows" },
	{ "\n[schedule 1]\nframe_us = 100\n" MIN_PART, 2, "[schedule 1] has no windows" },
	/* Keys. */
	{ "[schedule 1]\ncpus = 1\n", 2,
	  "unknown key 'cpus' in [schedule 1] (expected frame_us, window)" },
	{ "[schedule 1]\nwindows = a 100\n", 2, "unknown key 'windows'" },
	{ "[schedule 1]\nframe_us = 100\nframe_us = 100\n", 3,
	  "duplicate key 'frame_us' (first set on line 2)" },
	/* frame_us */
	{ "[schedule 1]\nframe_us = 1ms\n", 2,
	  "frame_us: expected a number of microseconds, found '1ms'" },
	{ "[schedule 1]\nframe_us =\n", 2, "frame_us: expected a number" },
	{ "[schedule 1]\nframe_us = 0\n", 2, "frame_us: '0' is out of range (50-16000000)" },
	{ "[schedule 1]\nframe_us = 16000001\n", 2, "'16000001' is out of range" },
	{ "[schedule 1]\nframe_us = 99999999999999999999999\n", 2, "is out of range" },
	{ "[schedule 1]\nframe_us = 900\nwindow = rt0 400\nwindow = idle 600\n" MIN_PART, 2,
	  "frame_us: 900 is not the sum of the windows (1000 us)" },
	{ "[schedule 1]\nwindow = rt0 400\nframe_us = 1001\n[hypervisor]\n" MIN_PART, 3,
	  "frame_us: 1001 is not the sum of the windows (400 us)" },
	{ MIN_PART "[schedule 1]\nwindow = rt0 400\nframe_us = 50\n", 7,
	  "frame_us: 50 is not the sum" },
	/* window */
	{ "[schedule 1]\nwindow =\n", 2,
	  "window: expected a partition name (or idle) and a length in microseconds, such as "
	  "'rt0 400', found ''" },
	{ "[schedule 1]\nwindow = rt0\n", 2, "found 'rt0'" },
	{ "[schedule 1]\nwindow = 400\n", 2, "found '400'" },
	{ "[schedule 1]\nwindow = rt0 # 400\n", 2, "found 'rt0'" },
	{ "[schedule 1]\nwindow = rt0 400 500\n", 2,
	  "window: expected a length in microseconds, found '400 500'" },
	{ "[schedule 1]\nwindow = rt0 400us\n", 2, "found '400us'" },
	{ "[schedule 1]\nwindow = rt0 -50\n", 2, "found '-50'" },
	{ "[schedule 1]\nwindow = rt0, 400\n", 2, "window: expected a name of 1-31 characters" },
	{ "[schedule 1]\nwindow = rt/0 400\n", 2, "found 'rt/0'" },
	{ "[schedule 1]\nwindow = a2345678901234567890123456789012 400\n", 2,
	  "window: name 'a2345678901234567890123456789012' is longer than 31 characters" },
	{ "[schedule 1]\nwindow = rt0 49\n", 2,
	  "window: 49 us is shorter than the minimum of 50 us" },
	{ "[schedule 1]\nwindow = idle 0\n", 2, "0 us is shorter than the minimum of 50 us" },
	{ "[schedule 1]\nwindow = rt0 1000001\n", 2,
	  "window: length '1000001' is out of range (50-1000000 microseconds)" },
	{ "[schedule 1]\nwindow = rt0 99999999999999999999999\n", 2, "is out of range" },
	/* Names are resolved at the end, errors at the window's own line. */
	{ "[schedule 1]\nwindow = rt0 100\nwindow = ghost 100\n" MIN_PART, 3,
	  "window: no partition named 'ghost' (expected the name of a [partition NAME] "
	  "section, or idle)" },
	{ "[schedule 1]\nwindow = RT0 100\n" MIN_PART, 2, "no partition named 'RT0'" },
	{ "[schedule 1]\nwindow = Idle 100\n" MIN_PART, 2, "no partition named 'Idle'" },
	{ MIN_PART "[schedule 1]\nwindow = rt0 100\n\nwindow = c 100\n"
	  "[partition c]\ncpus = 2\nmemory = 2M\nimage = hello\n", 8,
	  "window 'c' on line 8: partition 'c' does not use CPU 1" },
	{ MIN_PART "[schedule 3]\nwindow = idle 100\nwindow = rt0 100\n", 7,
	  "window 'rt0' on line 7: partition 'rt0' does not use CPU 3" },
	/* Other sections' errors still come first, in line order. */
	{ "[schedule 1]\nwindow = ghost 100\n[partition rt0]\ncpus = 1\n", 3,
	  "partition 'rt0' is missing 'memory'" },
	{ "[schedule 1]\nwindow = ghost 100\n", 0, "no [partition] section" },
};

static void test_schedule_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_sched_cases) / sizeof(bad_sched_cases[0]); i++)
		expect_err(bad_sched_cases[i].text, bad_sched_cases[i].line, bad_sched_cases[i].msg);
}

static void test_validate_schedules(void **state)
{
	(void)state;
	/* Sharing needs a schedule, and the message says so. */
	validate_err(PART("a", "0-1", "inject") PART("b", "1", "inject"), &plat4, 6,
		     "CPU 1 is given to both 'a' and 'b'; add a [schedule 1] section to share it");
	/* A schedule on one CPU does not make another shareable. */
	validate_err("[schedule 1]\nwindow = a 100\nwindow = b 100\n"
		     PART("a", "1-2", "inject") PART("b", "1-2", "inject"), &plat4, 9,
		     "CPU 2 is given to both 'a' and 'b'; add a [schedule 2] section");
	/* Every partition on a scheduled CPU has a window there. */
	validate_err("[schedule 1]\nwindow = a 100\n"
		     PART("a", "1", "inject") PART("b", "1", "inject"), &plat4, 8,
		     "partition 'b' uses CPU 1 but has no window in [schedule 1] (line 1)");
	validate_err(PART("a", "1-2", "inject") PART("b", "2", "inject")
		     "[schedule 1]\nwindow = a 100\n"
		     "[schedule 2]\nwindow = b 100\n", &plat4, 1,
		     "partition 'a' uses CPU 2 but has no window in [schedule 2] (line 13)");
	/* direct needs the core to itself, also when the schedule is its alone. */
	validate_err("\n[schedule 1]\nwindow = a 100\nwindow = b 100\n"
		     PART("a", "1", "direct") PART("b", "1", "inject"), &plat4, 5,
		     "partition 'a': timer = direct needs a dedicated core, but CPU 1 is shared "
		     "by [schedule 1] (line 2); use inject, emulated or pv-lazy");
	validate_err("[schedule 1]\nwindow = a 100\nwindow = idle 100\n"
		     "[partition a]\ncpus = 1\nmemory = 2M\nimage = hello\n", &plat4, 4,
		     "partition 'a': timer = direct needs a dedicated core, but CPU 1 is shared "
		     "by [schedule 1] (line 1)");
	/* One partition with idle gaps is fine in any other mode. */
	validate_ok("[schedule 1]\nwindow = a 100\nwindow = idle 100\n" PART("a", "1", "inject"),
		    &plat4);
	/* A schedule for a CPU nobody uses, or that does not exist. */
	validate_err(PART("a", "0", "direct") "\n[schedule 3]\nwindow = idle 100\n", &plat4, 7,
		     "[schedule 3]: no partition uses CPU 3");
	validate_err(PART("a", "0", "direct") "[schedule 5]\nwindow = idle 100\n", &plat4, 6,
		     "[schedule 5]: CPU 5 does not exist (the MADT lists 4)");
	validate_err(PART("a", "0", "direct") "[schedule 4]\nwindow = idle 100\n", &plat4, 6,
		     "CPU 4 does not exist");
	validate_ok(PART("a", "0", "direct") PART("b", "4", "inject")
		    "[schedule 4]\nwindow = idle 100\nwindow = b 100\n", &plat8);
	/* A partition on a CPU that does not exist is named first. */
	validate_err(PART("a", "5", "inject") "[schedule 5]\nwindow = a 100\n", &plat4, 1,
		     "partition 'a': CPU 5 does not exist (the MADT lists 4)");
}

/* The longest schedule messages, with 31-character names, still fit err->msg. */
static void test_schedule_long_messages(void **state)
{
	static const struct config_platform plat64 = {
		.cpu_count = 64, .module_count = 1, .module_names = { "hello" },
		.usable_bytes = GiB,
	};
	static const char a[] = "a234567890123456789012345678901";
	static const char b[] = "b234567890123456789012345678901";
	char *text = malloc(CONFIG_MAX_TEXT);
	char want[256];
	size_t o;

	(void)state;
	assert_non_null(text);
	/* Push the schedule to a five-digit line. */
	o = snprintf(text, CONFIG_MAX_TEXT, "[partition %s]\ncpus = 63\nmemory = 2M\n"
		     "image = hello\n", a);
	memset(text + o, '\n', 20000);
	o += 20000;
	o += snprintf(text + o, CONFIG_MAX_TEXT - o,
		      "[schedule 63]\nwindow = %s 100\nwindow = %s 100\n"
		      "[partition %s]\ncpus = 63\nmemory = 2M\nimage = hello\ntimer = inject\n",
		      a, b, b);
	text[o] = 0;
	validate_err(text, &plat64, 1, "");
	snprintf(want, sizeof(want), "partition '%s': timer = direct needs a dedicated core, "
		 "but CPU 63 is shared by [schedule 63] (line 20005); use inject, emulated or "
		 "pv-lazy", a);
	assert_string_equal(err.msg, want);

	o = snprintf(text, CONFIG_MAX_TEXT, "[partition %s]\ncpus = 62-63\nmemory = 2M\n"
		     "image = hello\n[partition %s]\ncpus = 63\nmemory = 2M\nimage = hello\n",
		     a, b);
	validate_err(text, &plat64, 5, "");
	snprintf(want, sizeof(want), "CPU 63 is given to both '%s' and '%s'; add a "
		 "[schedule 63] section to share it", a, b);
	assert_string_equal(err.msg, want);
	free(text);
}

/* A hand-built config's schedules are checked before anything indexes with them. */
static void test_validate_hand_built_schedules(void **state)
{
	static struct hv_config c;
	struct schedule_config *s = &c.schedules[0];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.partition_count = 2;
	for (int i = 0; i < 2; i++) {
		snprintf(c.partitions[i].name, CONFIG_NAME_LEN, "p%d", i);
		strcpy(c.partitions[i].image, "hello");
		cpuset_add(&c.partitions[i].cpus, 1);
		c.partitions[i].memory_bytes = 2 * MiB;
		c.partitions[i].timer = TIMER_INJECT;
		c.partitions[i].line = 10 + i;
	}
	c.schedule_count = 1;
	s->cpu = 1;
	s->line = 3;
	s->window_count = 2;
	s->windows[0] = (struct window_config){ 0, 100 };
	s->windows[1] = (struct window_config){ 1, 100 };
	s->frame_us = 200;
	assert_int_equal(config_validate(&c, &plat4, &err), 0);

	c.schedule_count = 9;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "too many schedules (at most 8)");
	c.schedule_count = 2;
	c.schedules[1] = *s;
	c.schedules[1].line = 7;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_int_equal(err.line, 7);
	assert_string_equal(err.msg, "duplicate [schedule 1] section (first on line 3)");
	c.schedules[1].cpu = 4096;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "schedule: CPU 4096 is out of range (0-4095)");
	c.schedule_count = 1;

	s->window_count = 0;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "[schedule 1] has no windows");
	assert_int_equal(err.line, 3);
	s->window_count = 17;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "too many windows in [schedule 1] (at most 16)");
	s->window_count = 2;

	s->windows[1].partition = 2;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "[schedule 1]: window 2 is for partition 2, which does not "
			    "exist");
	s->windows[1].partition = -2;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	s->windows[1].partition = 1;

	s->windows[0].length_us = 49;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "[schedule 1]: window 1 is 49 us long (50-1000000 allowed)");
	s->windows[0].length_us = 0xffffffffu;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	s->windows[0].length_us = 100;

	s->frame_us = 300;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "[schedule 1]: frame_us 300 is not the sum of the windows "
			    "(200 us)");
	s->frame_us = 200;

	/* config_parse refuses this at the window's line; validate at the section's. */
	c.partitions[1].cpus = (struct cpuset){ { 4 } };
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.msg, "window 'p1' in [schedule 1]: partition 'p1' does not use "
			    "CPU 1");
	c.partitions[1].cpus = (struct cpuset){ { 2 } };
	assert_int_equal(config_validate(&c, &plat4, &err), 0);
}

/* ---- shared memory: [channel NAME] ---- */

#define CPART(name, cpus, mem)                                                          \
	"[partition " name "]\ncpus = " cpus "\nmemory = " mem "\nimage = hello\n"
#define CHAN(name, size, a, b) "[channel " name "]\nsize = " size "\npeer = " a "\npeer = " b "\n"
/* rt0 (64M) on lines 1-4, b (2M) on 5-8: a channel after them starts on line 9. */
#define TWO_PARTS MIN_PART CPART("b", "2", "2M")
#define CH_R TWO_PARTS "[channel r]\nsize = 64K\n"

static uint64_t gpa_of(uint32_t ch, uint32_t peer)
{
	return cfg.channels[ch].peers[peer].gpa;
}

/* Forward references, defaults and given addresses, local indexes. */
static const char chan_config[] =
	"[channel ring0]              # before the partitions it names\n"
	"size = 64K\n"
	"peer = rt0 rw\n"
	"peer = linux ro 0x80000000\n"
	"\n"
	"[channel ring1]\n"
	"size = 0x3000\n"
	"peer = linux rw\n"
	"peer = rt0 ro # the real-time side reads\n"
	"doorbell_limit = 50\n"
	"[ channel  ring2 ]\n"
	"size = 1M\n"
	"peer = linux rw 536870912\n"
	"peer = c ro\n"
	"doorbell_limit = 1000000\n"
	CPART("rt0", "1", "16M")
	CPART("linux", "0", "512M")
	CPART("c", "2", "64M");

static void test_channel_good(void **state)
{
	const struct channel_config *c = cfg.channels;

	(void)state;
	validate_ok(chan_config, &plat4);
	assert_int_equal(cfg.channel_count, 3);
	assert_string_equal(c[0].name, "ring0");
	assert_int_equal(c[0].line, 1);
	assert_int_equal(c[0].size, 64 * 1024);
	assert_int_equal(c[0].doorbell_limit, CONFIG_DEFAULT_DOORBELL_LIMIT);
	assert_int_equal(c[0].peer_count, 2);
	assert_int_equal(c[0].peers[0].partition, 0);
	assert_true(c[0].peers[0].writable);
	assert_false(c[0].peers[0].gpa_given);
	assert_int_equal(c[0].peers[0].line, 3);
	assert_int_equal(c[0].peers[1].partition, 1);
	assert_false(c[0].peers[1].writable);
	assert_true(c[0].peers[1].gpa_given);
	assert_int_equal(c[0].peers[1].line, 4);
	assert_string_equal(c[1].name, "ring1");
	assert_int_equal(c[1].size, 0x3000);
	assert_int_equal(c[1].doorbell_limit, 50);
	assert_true(c[1].peers[0].writable);
	assert_false(c[1].peers[1].writable);
	assert_string_equal(c[2].name, "ring2");
	assert_int_equal(c[2].line, 11);
	assert_int_equal(c[2].doorbell_limit, 1000000);
	assert_int_equal(c[2].peers[1].partition, 2);

	/* rt0 (16M): ring0 right above its RAM, ring1 after it. */
	assert_int_equal(gpa_of(0, 0), 16 * MiB);
	assert_int_equal(gpa_of(1, 1), 18 * MiB);
	/* linux (512M): ring2's given address, later in the file, still comes first. */
	assert_int_equal(gpa_of(0, 1), 0x80000000);
	assert_int_equal(gpa_of(2, 0), 512 * MiB);
	assert_int_equal(gpa_of(1, 0), 514 * MiB);
	/* c (64M) */
	assert_int_equal(gpa_of(2, 1), 64 * MiB);
	/* channel_place is pure: asked again, it gives the same. */
	assert_int_equal(channel_place(&cfg, 1, 1), 18 * MiB);
	assert_int_equal(channel_place(&cfg, 1, 0), 514 * MiB);

	assert_int_equal(channel_local_index(&cfg, 0, 0), 0);
	assert_int_equal(channel_local_index(&cfg, 0, 1), 1);
	assert_int_equal(channel_local_index(&cfg, 0, 2), -1);
	assert_int_equal(channel_local_index(&cfg, 1, 2), 2);
	assert_int_equal(channel_local_index(&cfg, 2, 0), -1);
	assert_int_equal(channel_local_index(&cfg, 2, 2), 0);
	assert_int_equal(channel_local_index(&cfg, 0, 3), -1);
	assert_int_equal(channel_local_index(&cfg, 0, 0xffffffffu), -1);
	assert_int_equal(channel_local_index(&cfg, 7, 0), -1);
	assert_int_equal(channel_by_local_index(&cfg, 0, 0), 0);
	assert_int_equal(channel_by_local_index(&cfg, 0, 1), 1);
	assert_int_equal(channel_by_local_index(&cfg, 0, 2), -1);
	assert_int_equal(channel_by_local_index(&cfg, 1, 2), 2);
	assert_int_equal(channel_by_local_index(&cfg, 2, 0), 2);
	assert_int_equal(channel_by_local_index(&cfg, 2, 1), -1);
	assert_int_equal(channel_by_local_index(&cfg, 2, 0xffffffffu), -1);
	assert_int_equal(channel_by_local_index(&cfg, 7, 0), -1);
	for (uint32_t part = 0; part < 3; part++)
		for (uint32_t ch = 0; ch < 3; ch++) {
			int32_t l = channel_local_index(&cfg, part, ch);

			if (l >= 0)
				assert_int_equal(channel_by_local_index(&cfg, part, (uint32_t)l), ch);
		}
}

static void test_channel_align(void **state)
{
	(void)state;
	assert_int_equal(channel_align(0), 2 * MiB);
	assert_int_equal(channel_align(4096), 2 * MiB);
	assert_int_equal(channel_align(2 * MiB), 2 * MiB);
	assert_int_equal(channel_align(2 * MiB + 4096), 4 * MiB);
	assert_int_equal(channel_align(3 * MiB), 4 * MiB);
	assert_int_equal(channel_align(256 * MiB), 256 * MiB);
	assert_int_equal(channel_align(GiB), GiB);
	assert_int_equal(channel_align(~0ull), 1ull << 63);
}

/* Defaults: the exact addresses, past the MMIO window and other channels. */
static void test_channel_placement(void **state)
{
	static const struct {
		const char *text;
		uint32_t ch, peer;
		uint64_t gpa;
	} cases[] = {
		{ CPART("a", "0", "16M") CPART("b", "1", "2M") CHAN("r", "64K", "a rw", "b ro"),
		  0, 0, 16 * MiB },
		{ CPART("a", "0", "16M") CPART("b", "1", "2M") CHAN("r", "64K", "a rw", "b ro"),
		  0, 1, 2 * MiB },
		/* RAM past the MMIO window goes on at 4 GiB: the channel after it. */
		{ CPART("a", "0", "4076M") CPART("b", "1", "2M") CHAN("r", "64K", "a rw", "b rw"),
		  0, 0, 4 * GiB + 2 * MiB },
		/* 3 GiB of RAM: a 1 GiB channel would cover the window; 256 MiB does not. */
		{ CPART("a", "0", "3G") CPART("b", "1", "2M") CHAN("r", "1G", "a rw", "b rw"),
		  0, 0, 4 * GiB },
		{ CPART("a", "0", "3G") CPART("b", "1", "2M") CHAN("r", "256M", "a rw", "b rw"),
		  0, 0, 3 * GiB },
		/* Ending exactly where the window starts is fine; aligned up into it is not. */
		{ CPART("a", "0", "4074M") CPART("b", "1", "2M") CHAN("r", "1M", "a rw", "b rw"),
		  0, 0, 0xfea00000 },
		{ CPART("a", "0", "4074M") CPART("b", "1", "2M") CHAN("r", "4M", "a rw", "b rw"),
		  0, 0, 4 * GiB },
		/* Aligned to its size rounded up to a power of two. */
		{ CPART("a", "0", "16M") CPART("b", "1", "2M") CHAN("r", "256M", "a rw", "b rw"),
		  0, 0, 256 * MiB },
		{ CPART("a", "0", "16M") CPART("b", "1", "2M") CHAN("r", "256M", "a rw", "b rw")
		  CHAN("s", "256M", "b rw", "a rw"), 1, 1, 512 * MiB },
		{ CPART("a", "0", "16M") CPART("b", "1", "2M") CHAN("r", "3M", "a rw", "b rw")
		  CHAN("s", "3M", "b rw", "a rw"), 1, 1, 20 * MiB },
		/* A given address later in the file is kept free. */
		{ CPART("a", "0", "16M") CPART("b", "1", "2M") CHAN("r", "64K", "a rw", "b rw")
		  CHAN("s", "64K", "b rw 0x200000", "a rw"), 0, 1, 4 * MiB },
		/* A gap before a given address is used if the channel fits in it. */
		{ CPART("a", "0", "16M") CPART("b", "1", "2M")
		  CHAN("r", "64K", "a rw", "b rw 0x600000") CHAN("s", "1M", "a rw", "b rw")
		  CHAN("t", "4M", "a rw", "b rw"), 1, 1, 2 * MiB },
		{ CPART("a", "0", "16M") CPART("b", "1", "2M")
		  CHAN("r", "64K", "a rw", "b rw 0x600000") CHAN("s", "1M", "a rw", "b rw")
		  CHAN("t", "4M", "a rw", "b rw"), 2, 1, 8 * MiB },
		/*
		 * Past the RAM's end, which for more than 4074 MiB (0xFEA00000) is
		 * at 4 GiB + the rest: 22 MiB above the size. Up to the last range
		 * whose BAR does not end at a 4 GiB boundary (below).
		 */
		{ CPART("a", "0", "61G") CPART("b", "1", "2M") CHAN("r", "1G", "a rw", "b rw"),
		  0, 0, 62 * GiB },
		/*
		 * A BAR that would end at a 4 GiB boundary reads as being sized, and
		 * the PCI bus never decodes it (hv/core/vpci.h): the next range.
		 */
		{ CPART("a", "0", "6G") CPART("b", "1", "2M") CHAN("r", "1G", "a rw", "b rw"),
		  0, 0, 8 * GiB },
		{ CPART("a", "0", "8168M") CPART("b", "1", "2M") CHAN("r", "2M", "a rw", "b rw"),
		  0, 0, 8 * GiB },
		{ CPART("a", "0", "8168M") CPART("b", "1", "2M") CHAN("r", "64K", "a rw", "b rw"),
		  0, 0, 8190 * MiB },
		/* Given addresses: decimal, right above the RAM, just below the MMIO window. */
		{ CPART("a", "0", "16M") CPART("b", "1", "2M")
		  CHAN("r", "64K", "a rw 16777216", "b ro 0x80000000"), 0, 0, 16 * MiB },
		{ CPART("a", "0", "16M") CPART("b", "1", "2M")
		  CHAN("r", "64K", "a rw 0x80000000 # c", "b ro 0xfeaf0000"), 0, 1, 0xfeaf0000 },
		{ CPART("a", "0", "16M") CPART("b", "1", "2M")
		  CHAN("r", "64K", "a rw 0x80000000", "b ro 0x200000"), 0, 1, 2 * MiB },
		/* Given ranges that touch. */
		{ CPART("a", "0", "16M") CPART("b", "1", "2M") CHAN("r", "64K", "a rw", "b rw 0x80000000")
		  CHAN("s", "1G", "a rw", "b ro 0x40000000"), 1, 1, GiB },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].text);
		if (gpa_of(cases[i].ch, cases[i].peer) != cases[i].gpa) {
			print_error("case %zu: gpa 0x%llx, want 0x%llx\n", i,
				    (unsigned long long)gpa_of(cases[i].ch, cases[i].peer),
				    (unsigned long long)cases[i].gpa);
			fail();
		}
	}
	/* The highest a 64 KiB channel may go; given addresses are marked so. */
	parse_ok(CPART("a", "0", "16M") CPART("b", "1", "2M")
		 CHAN("r", "64K", "a rw 0xffffe0000", "b rw"));
	assert_int_equal(gpa_of(0, 0), 0xffffe0000ull);
	assert_true(cfg.channels[0].peers[0].gpa_given);
	assert_false(cfg.channels[0].peers[1].gpa_given);
}

/* The most channels and peers. */
static void test_channel_limits(void **state)
{
	char text[4096];
	size_t o = 0;

	(void)state;
	o = snprintf(text, sizeof(text), TWO_PARTS);
	for (int i = 0; i < CONFIG_MAX_CHANNELS; i++)
		o += snprintf(text + o, sizeof(text) - o,
			      "[channel c%d]\nsize = 64K\npeer = rt0 rw\npeer = b ro\n", i);
	parse_ok(text);
	assert_int_equal(cfg.channel_count, CONFIG_MAX_CHANNELS);
	assert_int_equal(gpa_of(7, 0), 78 * MiB);
	assert_int_equal(gpa_of(7, 1), 16 * MiB);
	assert_int_equal(channel_local_index(&cfg, 1, 7), 7);
	snprintf(text + o, sizeof(text) - o, "[channel c8]\n");
	expect_err(text, 8 + 8 * 4 + 1, "too many channels (at most 8)");

	o = 0;
	for (int i = 0; i < CONFIG_MAX_PEERS; i++)
		o += snprintf(text + o, sizeof(text) - o, CPART("p%d", "%d", "2M"), i, i);
	o += snprintf(text + o, sizeof(text) - o, "[channel all]\nsize = 1G\n");
	for (int i = 0; i < CONFIG_MAX_PEERS; i++)
		o += snprintf(text + o, sizeof(text) - o, "peer = p%d %s\n", i, i ? "ro" : "rw");
	validate_err(text, &plat8, 33, "channel 'all': memory does not fit (1040 MiB asked for "
		     "so far, partitions and channels together, 1024 MiB usable)");
	assert_int_equal(cfg.channels[0].peer_count, CONFIG_MAX_PEERS);
	for (int i = 0; i < CONFIG_MAX_PEERS; i++)
		assert_int_equal(gpa_of(0, i), GiB);
	snprintf(text + o, sizeof(text) - o, "peer = p0 rw\n");
	expect_err(text, 33 + 2 + 8, "too many peers in [channel all] (at most 8)");
}

static const struct bad_case bad_chan_cases[] = {
	/* Headers and keys. */
	{ "[channel]\n", 1, "expected '[hypervisor]', '[partition NAME]', '[channel NAME]' or "
	  "'[schedule CPU]', found '[channel]'" },
	{ "[Channel a]\n", 1, "found '[Channel a]'" },
	{ "[channels a]\n", 1, "found '[channels a]'" },
	{ "[channel a b]\n", 1, "channel name: expected a name of 1-31 characters" },
	{ "[channel a2345678901234567890123456789012]\n", 1,
	  "channel name: name 'a2345678901234567890123456789012' is longer than 31 characters" },
	{ CH_R "peer = rt0 rw\npeer = b rw\n\n[channel r]\n", 14,
	  "duplicate channel name 'r' (first on line 9)" },
	{ "size = 4K\n", 1, "key outside a section: 'size' comes before any [hypervisor], "
	  "[partition NAME], [channel NAME] or [schedule CPU]" },
	{ CH_R "peer = rt0 rw\npeer = b ro\nmtu = 5\n", 13,
	  "unknown key 'mtu' in [channel r] (expected size, peer, doorbell_limit)" },
	{ CH_R "memory = 2M\n", 11, "unknown key 'memory' in [channel r]" },
	{ CH_R "peers = rt0 rw\n", 11, "unknown key 'peers' in [channel r]" },
	{ MIN_PART "peer = b rw\n", 5, "unknown key 'peer' in [partition rt0]" },
	{ CH_R "size = 8K\n", 11, "duplicate key 'size' (first set on line 10)" },
	{ TWO_PARTS "[channel r]\ndoorbell_limit = 5\nsize = 4K\ndoorbell_limit = 5\n", 12,
	  "duplicate key 'doorbell_limit' (first set on line 10)" },
	/* size */
	{ TWO_PARTS "[channel r]\nsize = 6K\n", 10, "size: 6K is not a multiple of 4 KiB" },
	{ TWO_PARTS "[channel r]\nsize = 5000\n", 10, "size: 5000 is not a multiple of 4 KiB" },
	{ TWO_PARTS "[channel r]\nsize = 2K\n", 10, "size: 2K is out of range (4K-1G)" },
	{ TWO_PARTS "[channel r]\nsize = 0\n", 10, "size: 0 is out of range (4K-1G)" },
	{ TWO_PARTS "[channel r]\nsize = 2G\n", 10, "size: 2G is out of range" },
	{ TWO_PARTS "[channel r]\nsize = 0x40001000\n", 10, "size: 0x40001000 is out of range" },
	{ TWO_PARTS "[channel r]\nsize = 64KB\n", 10,
	  "size: expected a size such as 64K or 0x10000, found '64KB'" },
	{ TWO_PARTS "[channel r]\nsize =\n", 10, "size: expected a size such as 64K" },
	{ TWO_PARTS "[channel r]\nsize = -4K\n", 10, "found '-4K'" },
	{ TWO_PARTS "[channel r]\nsize = 99999999999999999999\n", 10,
	  "size: '99999999999999999999' is too large" },
	{ TWO_PARTS "[channel r]\nsize = 17179869184G\n", 10, "size: '17179869184G' is too large" },
	/* doorbell_limit */
	{ TWO_PARTS "[channel r]\ndoorbell_limit = 0\n", 10,
	  "doorbell_limit: 0 is out of range (1-1000000)" },
	{ TWO_PARTS "[channel r]\ndoorbell_limit = 1000001\n", 10,
	  "doorbell_limit: 1000001 is out of range (1-1000000)" },
	{ TWO_PARTS "[channel r]\ndoorbell_limit = 1k\n", 10,
	  "doorbell_limit: expected a number, found '1k'" },
	/* peer */
	{ CH_R "peer =\n", 11, "peer: expected a partition name, rw or ro, and optionally an "
	  "address, such as 'rt0 rw' or 'linux ro 0x80000000', found ''" },
	{ CH_R "peer = rt0\n", 11, "peer: expected a partition name, rw or ro, and optionally an "
	  "address, such as 'rt0 rw' or 'linux ro 0x80000000', found 'rt0'" },
	{ CH_R "peer = rt0 # rw\n", 11, "found 'rt0'" },
	{ CH_R "peer = rt0 rx\n", 11, "peer: expected rw or ro after the name, found 'rx'" },
	{ CH_R "peer = rt0 RW\n", 11, "peer: expected rw or ro after the name, found 'RW'" },
	{ CH_R "peer = rt0 0x80000000\n", 11, "expected rw or ro after the name, found '0x80000000'" },
	{ CH_R "peer = rt0 rw 0x80000000 ro\n", 11,
	  "peer: expected the end of the line after the address, found 'ro'" },
	{ CH_R "peer = rt0 rw 0x80000000  0x1000 2\n", 11, "found '0x1000 2'" },
	{ CH_R "peer = rt0 rw 0x80000800\n", 11, "peer: 0x80000800 is not 4 KiB aligned" },
	{ CH_R "peer = rt0 rw 2G\n", 11, "peer: expected an address such as 0x10000000, found '2G'" },
	{ CH_R "peer = rt0 rw -4096\n", 11, "peer: expected an address" },
	{ CH_R "peer = rt0 rw 0x1ffffffffffffffff\n", 11, "peer: '0x1ffffffffffffffff' is too large" },
	{ CH_R "peer = rt/0 rw\n", 11,
	  "peer: expected a name of 1-31 characters from A-Z a-z 0-9 _ . -, found 'rt/0'" },
	{ CH_R "peer = a2345678901234567890123456789012 rw\n", 11,
	  "peer: name 'a2345678901234567890123456789012' is longer than 31 characters" },
	{ CH_R "peer = rt0 rw\n\npeer = rt0 ro 0x80000000\n", 13,
	  "peer: 'rt0' is listed twice in [channel r] (first on line 11)" },
	/* Names resolved at the end, errors at the peer's line. */
	{ CH_R "peer = rt0 rw\npeer = ghost ro\n", 12,
	  "peer: no partition named 'ghost' (expected the name of a [partition NAME] section)" },
	{ "[channel r]\nsize = 4K\npeer = rt0 rw\npeer = B rw\n" TWO_PARTS, 4,
	  "peer: no partition named 'B'" },
	{ "[channel r]\nsize = 4K\npeer = idle rw\npeer = b rw\n" TWO_PARTS, 3,
	  "no partition named 'idle'" },
	/* Every name before any address. */
	{ CH_R "peer = rt0 rw 0\npeer = b rw\n" CHAN("s", "4K", "b rw", "nobody rw"), 16,
	  "peer: no partition named 'nobody'" },
	/* A missing size or peer: the section's line. */
	{ TWO_PARTS "[channel r]\npeer = rt0 rw\npeer = b rw\n", 9, "channel 'r' is missing 'size'" },
	{ TWO_PARTS "[channel r]\npeer = rt0 rw\npeer = b rw\n[hypervisor]\n", 9,
	  "channel 'r' is missing 'size'" },
	{ CH_R "peer = rt0 rw\n", 9, "channel 'r' needs at least 2 peers (found 1)" },
	{ CH_R "\n[channel s]\n", 9, "channel 'r' needs at least 2 peers (found 0)" },
	{ "[channel r]\nsize = 4K\n" TWO_PARTS, 1, "channel 'r' needs at least 2 peers (found 0)" },
	/* Given addresses. */
	{ TWO_PARTS "[channel r]\nsize = 2M\npeer = rt0 rw 0x80001000\npeer = b rw\n", 11,
	  "peer 'rt0': channel 'r' at 0x80001000 is not aligned to 2048 KiB, its size rounded up "
	  "to a power of two (it is a PCI BAR)" },
	{ TWO_PARTS "[channel r]\nsize = 12K\npeer = rt0 rw 0x80001000\npeer = b rw\n", 11,
	  "peer 'rt0': channel 'r' at 0x80001000 is not aligned to 16 KiB" },
	{ TWO_PARTS "[channel r]\nsize = 3M\npeer = rt0 rw 0x80200000\npeer = b rw\n", 11,
	  "peer 'rt0': channel 'r' at 0x80200000 is not aligned to 4096 KiB" },
	{ CH_R "peer = rt0 rw 0x3ff0000\npeer = b rw\n", 11,
	  "peer 'rt0': channel 'r' at 0x3ff0000-0x3ffffff overlaps its RAM at 0x0-0x3ffffff" },
	{ CH_R "peer = rt0 rw\npeer = b rw 0\n", 12,
	  "peer 'b': channel 'r' at 0x0-0xffff overlaps its RAM at 0x0-0x1fffff" },
	{ TWO_PARTS CHAN("r", "2M", "rt0 rw", "b rw 0xfea00000"), 12,
	  "peer 'b': channel 'r' at 0xfea00000-0xfebfffff overlaps the MMIO window at "
	  "0xfeb00000-0xffffffff" },
	{ CH_R "peer = rt0 rw\npeer = b rw 0xffff0000\n", 12,
	  "peer 'b': channel 'r' at 0xffff0000-0xffffffff overlaps the MMIO window" },
	{ CH_R "peer = rt0 rw\npeer = b rw 0x1000000000\n", 12,
	  "peer 'b': channel 'r' at 0x1000000000 (0x10000 bytes) runs past the 64 GiB "
	  "guest-physical limit" },
	{ CH_R "peer = rt0 rw\npeer = b rw 0xffffffffffff0000\n", 12,
	  "at 0xffffffffffff0000 (0x10000 bytes) runs past the 64 GiB" },
	/* Where the BAR would end at a 4 GiB boundary (hv/core/vpci.h). */
	{ CH_R "peer = rt0 rw\npeer = b rw 0xfffff0000\n", 12,
	  "peer 'b': channel 'r' at 0xfffff0000: its 64 KiB PCI BAR would end at a 4 GiB "
	  "boundary, where it reads as being sized and never decodes" },
	{ TWO_PARTS CHAN("r", "1G", "rt0 rw 0x1c0000000", "b rw"), 11,
	  "channel 'r' at 0x1c0000000: its 1048576 KiB PCI BAR would end at a 4 GiB boundary" },
	{ TWO_PARTS CHAN("r", "12K", "rt0 rw", "b rw 0x2ffffc000"), 12,
	  "channel 'r' at 0x2ffffc000: its 16 KiB PCI BAR would end at a 4 GiB boundary" },
	{ CH_R "peer = rt0 rw\npeer = b rw 0x80000000\n" CHAN("s", "8K", "b ro 0x8000e000", "rt0 rw"),
	  15, "peer 'b': channel 's' at 0x8000e000-0x8000ffff overlaps channel 'r' at "
	  "0x80000000-0x8000ffff" },
	{ CH_R "peer = rt0 rw\npeer = b rw 0x7fff0000\n"
	  CHAN("s", "1G", "rt0 rw", "b ro 0x40000000"), 16,
	  "peer 'b': channel 's' at 0x40000000-0x7fffffff overlaps channel 'r' at "
	  "0x7fff0000-0x7fffffff" },
	/* RAM past the MMIO window continues at 4 GiB: a channel there overlaps it. */
	{ TWO_PARTS CPART("big", "3", "4076M") CHAN("r", "64K", "b rw", "big rw 0x100100000"), 16,
	  "peer 'big': channel 'r' at 0x100100000-0x10010ffff overlaps its RAM at "
	  "0x100000000-0x1001fffff" },
	{ TWO_PARTS CPART("big", "3", "5G") CHAN("r", "1M", "b rw", "big rw 0xfe900000"), 16,
	  "peer 'big': channel 'r' at 0xfe900000-0xfe9fffff overlaps its RAM at 0x0-0xfe9fffff" },
	/* No room for a default. */
	{ TWO_PARTS CPART("big", "3", "61G") CHAN("r", "1G", "big rw", "b rw")
	  CHAN("s", "1G", "b rw", "big rw"), 20,
	  "peer 'big': no room below 64 GiB for channel 's' (0x40000000 bytes, aligned to "
	  "0x40000000, above its RAM and its other channels)" },
	/* RAM 64 GiB - 24 MiB, ending at 64 GiB - 2 MiB past the window: one 2 MiB slot. */
	{ TWO_PARTS CPART("big", "3", "0xffe800000") CHAN("r", "4K", "big rw", "b rw")
	  CHAN("s", "4K", "b rw", "big rw"), 20,
	  "peer 'big': no room below 64 GiB for channel 's' (0x1000 bytes, aligned to 0x200000, "
	  "above its RAM and its other channels)" },
	/* The last 1 GiB below 64 GiB would be: its BAR would end at a 4 GiB boundary. */
	{ TWO_PARTS CPART("big", "3", "63G") CHAN("r", "1G", "big rw", "b rw"), 15,
	  "peer 'big': no room below 64 GiB for channel 'r'" },
	{ TWO_PARTS CPART("big", "3", "261120G") CHAN("r", "4K", "b rw", "big rw"), 16,
	  "peer 'big': no room below 64 GiB for channel 'r'" },
	{ TWO_PARTS CPART("big", "3", "64G") CHAN("r", "4K", "b rw", "big rw"), 16,
	  "no room below 64 GiB" },
};

static void test_channel_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_chan_cases) / sizeof(bad_chan_cases[0]); i++)
		expect_err(bad_chan_cases[i].text, bad_chan_cases[i].line, bad_chan_cases[i].msg);
}

/* The longest channel messages, with 31-character names, still fit err->msg. */
static void test_channel_long_messages(void **state)
{
#define A31 "a234567890123456789012345678901"
#define B31 "b234567890123456789012345678901"
#define X31 "x234567890123456789012345678901"
#define Y31 "y234567890123456789012345678901"
	(void)state;
	expect_err(CPART(A31, "0", "64M") CPART(B31, "1", "62G")
		   CHAN(X31, "64K", A31 " rw", B31 " rw 0xffffe0000")
		   CHAN(Y31, "64K", A31 " rw", B31 " ro 0xffffe0000"), 16, "");
	assert_string_equal(err.msg, "peer '" B31 "': channel '" Y31 "' at 0xffffe0000-0xffffeffff "
			    "overlaps channel '" X31 "' at 0xffffe0000-0xffffeffff");
	expect_err(CPART(A31, "0", "64M") CPART(B31, "1", "62G")
		   CHAN(X31, "1G", A31 " rw", B31 " rw 0xfc0000000"), 12, "");
	assert_string_equal(err.msg, "peer '" B31 "': channel '" X31 "' at 0xfc0000000: its "
			    "1048576 KiB PCI BAR would end at a 4 GiB boundary, where it reads as "
			    "being sized and never decodes");
	expect_err(CPART(A31, "0", "64M") CPART(B31, "1", "61G") CHAN(X31, "1G", A31 " rw", B31 " rw")
		   CHAN(Y31, "1G", B31 " ro", A31 " rw"), 15, "");
	assert_string_equal(err.msg, "peer '" B31 "': no room below 64 GiB for channel '" Y31 "' "
			    "(0x40000000 bytes, aligned to 0x40000000, above its RAM and its other "
			    "channels)");
	expect_err(CPART(A31, "0", "64M") "[channel " X31 "]\nsize_and_a_very_long_key_name = 1\n",
		   6, "");
	assert_string_equal(err.msg, "unknown key 'size_and_a_very_long_key...' in [channel " X31
			    "] (expected size, peer, doorbell_limit)");
	validate_err(CPART(A31, "0", "1022M") CPART(B31, "1", "2M")
		     CHAN(X31, "0x1000", A31 " rw", B31 " ro"), &plat4, 9, "");
	assert_string_equal(err.msg, "channel '" X31 "': memory does not fit (1026 MiB asked for "
			    "so far, partitions and channels together, 1024 MiB usable)");
#undef A31
#undef B31
#undef X31
#undef Y31
}

static void test_validate_channels(void **state)
{
	(void)state;
	/* Each channel takes its size rounded up to 2 MiB: exactly what is usable fits. */
	validate_ok(CPART("a", "0", "1018M") CPART("b", "1", "2M")
		    CHAN("r", "64K", "a rw", "b ro") CHAN("s", "1M", "b rw", "a ro"), &plat4);
	validate_err(CPART("a", "0", "1018M") CPART("b", "1", "2M")
		     CHAN("r", "64K", "a rw", "b ro") CHAN("s", "2M", "b rw", "a ro")
		     CHAN("t", "4K", "b rw", "a ro"), &plat4, 17,
		     "channel 't': memory does not fit (1026 MiB asked for so far, partitions and "
		     "channels together, 1024 MiB usable)");
	/* The partitions' own message is unchanged, and comes first. */
	validate_err(CPART("a", "0", "1024M") CPART("b", "1", "2M") CHAN("r", "4K", "a rw", "b ro"),
		     &plat4, 5, "partition 'b': memory does not fit (1026 MiB asked for so far, "
		     "1024 MiB usable)");
	/* Channels do not change what the CPUs may do. */
	validate_err(CPART("a", "0", "2M") CPART("b", "0", "2M") CHAN("r", "4K", "a rw", "b ro"),
		     &plat4, 5, "CPU 0 is given to both 'a' and 'b'");
}

/* A hand-built config's channels are checked as config_parse would have. */
static void test_validate_hand_built_channels(void **state)
{
	static struct hv_config c;
	struct channel_config *ch = &c.channels[1];

	(void)state;
	parse_ok(chan_config);
	c = cfg;
	assert_int_equal(config_validate(&c, &plat4, &err), 0);

	c.channel_count = 9;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "too many channels (at most 8)");
	c.channel_count = 3;

	ch->size = 0;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_int_equal(err.line, 6);
	assert_string_equal(err.msg, "channel 'ring1': size 0x0 is not a multiple of 4 KiB from "
			    "4 KiB to 1 GiB");
	ch->size = 0x3001;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	ch->size = 2 * GiB;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_non_null(strstr(err.msg, "size 0x80000000 is not a multiple"));
	ch->size = 0x3000;

	ch->doorbell_limit = 0;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "channel 'ring1': doorbell_limit 0 is out of range (1-1000000)");
	ch->doorbell_limit = 1000001;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	ch->doorbell_limit = 50;

	ch->peer_count = 1;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "channel 'ring1' has 1 peers (2-8 allowed)");
	ch->peer_count = 9;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "channel 'ring1' has 9 peers (2-8 allowed)");
	ch->peer_count = 2;

	ch->peers[1].partition = 3;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "channel 'ring1': peer 2 is for partition 3, which does not "
			    "exist");
	ch->peers[1].partition = 1;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "channel 'ring1': partition 'linux' is a peer twice");
	ch->peers[1].partition = 0;

	/* rt0 (16M) sees ring0 at 16M and ring1 at 18M. */
	ch->peers[1].gpa = 18 * MiB + 0x800;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_int_equal(err.line, 6);
	assert_string_equal(err.msg, "peer 'rt0': channel 'ring1' at 0x1200800 is not 4 KiB aligned");
	ch->peers[1].gpa = 16 * MiB + 0x11000;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "peer 'rt0': channel 'ring1' at 0x1011000 is not aligned to "
			    "16 KiB, its size rounded up to a power of two (it is a PCI BAR)");
	ch->peers[1].gpa = 16 * MiB - 0x4000;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "peer 'rt0': channel 'ring1' at 0xffc000-0xffefff overlaps "
			    "its RAM at 0x0-0xffffff");
	ch->peers[1].gpa = 16 * MiB + 0xc000;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "peer 'rt0': channel 'ring1' at 0x100c000-0x100efff overlaps "
			    "channel 'ring0' at 0x1000000-0x100ffff");
	ch->peers[1].gpa = 0xfeb00000;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "peer 'rt0': channel 'ring1' at 0xfeb00000-0xfeb02fff "
			    "overlaps the MMIO window at 0xfeb00000-0xffffffff");
	ch->peers[1].gpa = ~0ull << 14;
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_non_null(strstr(err.msg, "runs past the 64 GiB guest-physical limit"));
	ch->peers[1].gpa = 0x1ffffc000ull;	/* 16 KiB below 8 GiB: its BAR reads as a probe */
	assert_int_equal(config_validate(&c, &plat4, &err), -1);
	assert_string_equal(err.msg, "peer 'rt0': channel 'ring1' at 0x1ffffc000: its 16 KiB PCI "
			    "BAR would end at a 4 GiB boundary, where it reads as being sized and "
			    "never decodes");
	ch->peers[1].gpa = 16 * MiB + 0x10000;	/* right after ring0 is fine */
	assert_int_equal(config_validate(&c, &plat4, &err), 0);
}

/* ---- robustness ---- */

static const char full_config[] =
	"# Tempo demo\r\n"
	"[hypervisor]\n"
	"tick_us = 0x3e8 # 1 ms\n"
	"\n"
	"[ partition linux ]\n"
	"cpus = 0\n"
	"memory = 512M\n"
	"image = hello\n"
	"cmdline = \"console=ttyS0 say=\\\"hi\\\" path=C:\\\\x\" # quoted\n"
	"modules = initrd partitions\n"
	"timer = inject\n"
	"console = on\n"
	"\n"
	"[partition rt0]\n"
	"cpus = 1-2, 3\n"
	"memory = 0x4000000\n"
	"base = 0x10000000\n"
	"image = hello\n"
	"cmdline = quiet\n"
	"timer = emulated\n"
	"console = off\n";

static void check_sane(int rc)
{
	assert_true(strnlen(err.msg, sizeof(err.msg)) < sizeof(err.msg));
	if (rc) {
		assert_true(err.msg[0] != 0);
		return;
	}
	assert_true(cfg.partition_count >= 1 && cfg.partition_count <= CONFIG_MAX_PARTITIONS);
	assert_true(cfg.tick_us <= 1000000);
	for (uint32_t i = 0; i < cfg.partition_count; i++) {
		const struct partition_config *p = &cfg.partitions[i];

		assert_true(p->name[0] && strnlen(p->name, CONFIG_NAME_LEN) < CONFIG_NAME_LEN);
		assert_true(p->image[0] && strnlen(p->image, CONFIG_NAME_LEN) < CONFIG_NAME_LEN);
		assert_true(strnlen(p->cmdline, CONFIG_CMDLINE_LEN) < CONFIG_CMDLINE_LEN);
		assert_false(cpuset_empty(&p->cpus));
		assert_true(p->memory_bytes && p->memory_bytes % CONFIG_MEM_ALIGN == 0);
		assert_true(p->base % CONFIG_MEM_ALIGN == 0);
		assert_true(p->base <= UINT64_MAX - p->memory_bytes);
		assert_true(p->module_count <= CONFIG_MAX_MODULES);
		assert_true(p->timer <= TIMER_PV_LAZY);
	}
	assert_true(cfg.schedule_count <= CONFIG_MAX_SCHEDULES);
	for (uint32_t i = 0; i < cfg.schedule_count; i++) {
		const struct schedule_config *s = &cfg.schedules[i];
		uint64_t sum = 0;

		assert_true(s->cpu < CONFIG_MAX_CPUS);
		assert_true(s->line > 0);
		assert_true(s->window_count >= 1 && s->window_count <= CONFIG_MAX_WINDOWS);
		for (uint32_t j = 0; j < i; j++)
			assert_true(cfg.schedules[j].cpu != s->cpu);
		for (uint32_t w = 0; w < s->window_count; w++) {
			const struct window_config *wc = &s->windows[w];

			assert_true(wc->partition >= -1 &&
				    wc->partition < (int32_t)cfg.partition_count);
			if (wc->partition >= 0)
				assert_true(cpuset_has(&cfg.partitions[wc->partition].cpus,
						       s->cpu));
			assert_true(wc->length_us >= CONFIG_MIN_WINDOW_US &&
				    wc->length_us <= CONFIG_MAX_WINDOW_US);
			sum += wc->length_us;
		}
		assert_int_equal(sum, s->frame_us);
	}
	assert_true(cfg.channel_count <= CONFIG_MAX_CHANNELS);
	for (uint32_t i = 0; i < cfg.channel_count; i++) {
		const struct channel_config *c = &cfg.channels[i];

		assert_true(c->size >= CONFIG_CHANNEL_MIN && c->size <= CONFIG_CHANNEL_MAX &&
			    c->size % CONFIG_CHANNEL_MIN == 0);
		assert_true(c->doorbell_limit >= 1 && c->doorbell_limit <= CONFIG_MAX_DOORBELL_LIMIT);
		assert_true(c->peer_count >= 2 && c->peer_count <= CONFIG_MAX_PEERS);
		for (uint32_t j = 0; j < c->peer_count; j++) {
			const struct channel_peer *pe = &c->peers[j];

			assert_true(pe->partition < cfg.partition_count);
			assert_true(pe->gpa % CONFIG_CHANNEL_MIN == 0);
			assert_true(pe->gpa >= cfg.partitions[pe->partition].memory_bytes);
			assert_true(pe->gpa <= CONFIG_GUEST_PHYS_LIMIT - c->size);
			assert_true(pe->gpa + c->size <= CONFIG_GUEST_MMIO_START ||
				    pe->gpa >= CONFIG_GUEST_MMIO_END);
			assert_true(channel_local_index(&cfg, pe->partition, i) >= 0);
			for (uint32_t k = 0; k < j; k++)
				assert_true(c->peers[k].partition != pe->partition);
			/* No other channel of the partition shares a byte with it. */
			for (uint32_t o = 0; o < i; o++)
				for (uint32_t k = 0; k < cfg.channels[o].peer_count; k++) {
					const struct channel_peer *q = &cfg.channels[o].peers[k];

					if (q->partition == pe->partition)
						assert_true(q->gpa + cfg.channels[o].size <= pe->gpa ||
							    pe->gpa + c->size <= q->gpa);
				}
		}
	}
	memset(&err, 0x5a, sizeof(err));
	config_validate(&cfg, &plat4, &err);
	assert_true(strnlen(err.msg, sizeof(err.msg)) < sizeof(err.msg));
}

static void test_full_config_validates(void **state)
{
	(void)state;
	validate_ok(full_config, &plat4);
	assert_int_equal(cfg.tick_us, 1000);
	assert_string_equal(cfg.partitions[0].cmdline, "console=ttyS0 say=\"hi\" path=C:\\x");
	assert_int_equal(cfg.partitions[1].cpus.w[0], 0xe);
	assert_int_equal(cfg.partitions[1].line, 14);
}

/* Two partitions share CPU 1; rt0 also has CPU 3 to itself, with idle gaps. */
static const char sched_config[] =
	"# time partitioning\n"
	"[schedule 1]\n"
	"frame_us = 1100\n"
	"window = rt0 400\n"
	"window = linux 350 # the rest\n"
	"window = idle 250\n"
	"window = rt0 0x64\n"
	"\n"
	"[partition linux]\n"
	"cpus = 0-1\n"
	"memory = 512M\n"
	"image = hello\n"
	"timer = inject\n"
	"\n"
	"[partition rt0]\n"
	"cpus = 1,3\n"
	"memory = 64M\n"
	"image = hello\n"
	"timer = pv-lazy\n"
	"\n"
	"[schedule 3]\n"
	"window = rt0 1000\n"
	"window = idle 50\n";

static void test_sched_config_validates(void **state)
{
	(void)state;
	validate_ok(sched_config, &plat4);
	assert_int_equal(cfg.schedule_count, 2);
	assert_int_equal(cfg.schedules[0].frame_us, 1100);
	assert_int_equal(cfg.schedules[1].frame_us, 1050);
}

/* Every truncation of a valid file, from an exact-size buffer. */
static void every_prefix(const char *text, size_t n)
{
	int ok = 0;

	for (size_t len = 0; len <= n; len++) {
		int rc = parse_n(text, len);

		check_sane(rc);
		ok += !rc;
	}
	/* Cuts after the second partition's required keys parse. */
	assert_true(ok > 0);
	assert_int_equal(parse_n(text, n), 0);
}

static void test_every_prefix(void **state)
{
	(void)state;
	every_prefix(full_config, sizeof(full_config) - 1);
	every_prefix(sched_config, sizeof(sched_config) - 1);
	every_prefix(chan_config, sizeof(chan_config) - 1);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
	/* xorshift64*: fixed seed, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* Bytes the grammar cares about, so mutations reach past the first check. */
static char interesting_byte(void)
{
	static const char pick[] = "[]=#,-\"\\ \t\n\r0129xXKMGabz_.\0\x7f\x80\xff";

	return pick[rng() % (sizeof(pick) - 1)];
}

static void random_mutations(const char *base, size_t n)
{
	/* parse_n() copies each mutant into an exact-size buffer of its own. */
	static char buf[4096];
	int ok = 0;

	assert_true(2 * n + 32 <= sizeof(buf));
	for (int iter = 0; iter < 10000; iter++) {
		size_t len = n;
		int edits = 1 + rng() % 8;

		memcpy(buf, base, n);
		for (int e = 0; e < edits; e++) {
			size_t at = len ? rng() % len : 0;

			switch (rng() % 5) {
			case 0:		/* overwrite */
				if (len)
					buf[at] = interesting_byte();
				break;
			case 1:		/* random byte */
				if (len)
					buf[at] = (char)rng();
				break;
			case 2:		/* insert */
				if (len < 2 * n + 32) {
					memmove(buf + at + 1, buf + at, len - at);
					buf[at] = interesting_byte();
					len++;
				}
				break;
			case 3:		/* delete a run */
				if (len) {
					size_t k = 1 + rng() % 16;

					k = k > len - at ? len - at : k;
					memmove(buf + at, buf + at + k, len - at - k);
					len -= k;
				}
				break;
			case 4: {	/* duplicate a run */
				size_t k = 1 + rng() % 32;

				k = k > len - at ? len - at : k;
				if (len + k <= 2 * n + 32) {
					memmove(buf + at + k, buf + at, len - at);
					len += k;
				}
				break;
			}
			}
		}
		{
			int rc = parse_n(buf, len);

			check_sane(rc);
			ok += !rc;
		}
	}
	/* Enough mutants stay valid that the success path is exercised too. */
	assert_true(ok > 100);
}

static void test_random_mutations(void **state)
{
	(void)state;
	random_mutations(full_config, sizeof(full_config) - 1);
	random_mutations(sched_config, sizeof(sched_config) - 1);
	random_mutations(chan_config, sizeof(chan_config) - 1);
}

/* ---- every error in one run ---- */

/* errs.list[i] is at @line and says @want. */
static void assert_error(uint32_t i, uint32_t line, const char *want)
{
	if (i >= errs.count || errs.list[i].line != line || !strstr(errs.list[i].msg, want)) {
		print_error("error %u of %u: line %u: %s\nwant line %u: ...%s...\n", i, errs.count,
			    i < errs.count ? errs.list[i].line : 0,
			    i < errs.count ? errs.list[i].msg : "(none)", line, want);
		fail();
	}
}

static void test_all_errors(void **state)
{
	static const char text[] =
		"[hypervisor]\n"			/* 1 */
		"tick_us = fast\n"			/* 2 */
		"[partition a]\n"			/* 3 */
		"cpus = 1\n"				/* 4 */
		"memory = 3M\n"				/* 5 */
		"image = hello\n"			/* 6 */
		"timer = quick\n"			/* 7 */
		"colour = blue\n"			/* 8 */
		"[partition b!]\n"			/* 9 */
		"cpus = banana\n"			/* 10: skipped, its section was refused */
		"[partition c]\n"			/* 11 */
		"cpus = 2\n"				/* 12 */
		"[schedule 1]\n"			/* 13 */
		"window = nobody 100\n";		/* 14 */

	(void)state;
	assert_int_equal(config_parse_all(text, sizeof(text) - 1, &cfg, &errs), -1);
	assert_int_equal(errs.count, 8);
	assert_error(0, 2, "tick_us: expected a number of microseconds, found 'fast'");
	assert_error(1, 5, "memory: 3M is not a multiple of 2 MiB");
	assert_error(2, 7, "timer: expected direct, inject, emulated or pv-lazy, found 'quick'");
	assert_error(3, 8, "unknown key 'colour' in [partition a]");
	assert_error(4, 9, "partition name: expected a name");
	/* the end of [partition c]: both required keys it lacks */
	assert_error(5, 11, "partition 'c' is missing 'memory'");
	assert_error(6, 11, "partition 'c' is missing 'image'");
	/* names are resolved once the whole file is read */
	assert_error(7, 14, "window: no partition named 'nobody'");
	assert_int_equal(config_parse_all(text, sizeof(text) - 1, &cfg, NULL), -1);
}

static void test_all_errors_window(void **state)
{
	static const char text[] =
		"[partition a]\ncpus = 1\nmemory = 32M\nimage = hello\n"	/* 1-4 */
		"timer = inject\nconsole = maybe\n"			/* 5-6 */
		"[schedule 1]\n"						/* 7 */
		"window = a 100\n"						/* 8 */
		"window = ghost 100\n"						/* 9 */
		"window = a 10\n";						/* 10 */

	(void)state;
	assert_int_equal(config_parse_all(text, sizeof(text) - 1, &cfg, &errs), -1);
	assert_int_equal(errs.count, 3);
	assert_error(0, 6, "console: expected on or off, found 'maybe'");
	assert_error(1, 10, "window: 10 us is shorter than the minimum of 50 us");
	assert_error(2, 9, "window: no partition named 'ghost'");
}

/* A mistake is said once: what only follows from it is not an error of its own. */
static void test_all_errors_no_cascade(void **state)
{
	static const char bad_cpus[] =
		"[partition a]\ncpus = 1-x\nmemory = 32M\nimage = hello\ntimer = inject\n"
		"[schedule 1]\nwindow = a 100\n";
	static const char bad_window[] =
		"[partition a]\ncpus = 1\nmemory = 32M\nimage = hello\ntimer = inject\n"
		"[schedule 1]\nframe_us = 200\nwindow = a 100\nwindow = a 100x\n";
	static const char bad_peer[] =
		"[partition a]\ncpus = 1\nmemory = 32M\nimage = hello\n"
		"[partition b]\ncpus = 2\nmemory = 32M\nimage = hello\n"
		"[channel c]\nsize = 4K\npeer = a rw\npeer = b rx\n";
	static const char bad_header[] =
		"[partition a]\ncpus = 1\nmemory = 32M\nimage = hello\n"
		"[partiton b]\ncpus = 2\nmemory = 32M\nimage = hello\n";

	(void)state;
	assert_int_equal(config_parse_all(bad_cpus, sizeof(bad_cpus) - 1, &cfg, &errs), -1);
	assert_int_equal(errs.count, 1);
	assert_error(0, 2, "cpus: expected a CPU number or range N-M, found '1-x'");
	assert_int_equal(config_parse_all(bad_window, sizeof(bad_window) - 1, &cfg, &errs), -1);
	assert_int_equal(errs.count, 1);
	assert_error(0, 9, "window: expected a length in microseconds, found '100x'");
	assert_int_equal(config_parse_all(bad_peer, sizeof(bad_peer) - 1, &cfg, &errs), -1);
	assert_int_equal(errs.count, 1);
	assert_error(0, 12, "peer: expected rw or ro after the name, found 'rx'");
	assert_int_equal(config_parse_all(bad_header, sizeof(bad_header) - 1, &cfg, &errs), -1);
	assert_int_equal(errs.count, 1);
	assert_error(0, 5, "expected '[hypervisor]', '[partition NAME]'");
}

/* More errors than are kept: all counted, the first CONFIG_MAX_ERRORS kept in order. */
static void test_all_errors_many(void **state)
{
	static char text[4096];
	size_t n = 0;

	(void)state;
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "[partition a]\ncpus = 1\nmemory = 32M\nimage = hello\n");
	for (int i = 0; i < CONFIG_MAX_ERRORS + 10; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "nonsense %d\n", i);
	assert_int_equal(config_parse_all(text, n, &cfg, &errs), -1);
	assert_int_equal(errs.count, CONFIG_MAX_ERRORS + 10);
	for (uint32_t i = 0; i < CONFIG_MAX_ERRORS; i++)
		assert_error(i, 5 + i, "expected 'key = value'");
	/* config_parse: the first alone */
	assert_int_equal(parse_n(text, n), -1);
	assert_int_equal(err.line, 5);
}

static void test_all_errors_validate(void **state)
{
	static const char text[] =
		"[partition a]\ncpus = 7\nmemory = 32M\nimage = nothere\n"		/* 1 */
		"[partition b]\ncpus = 2\nmemory = 32M\nimage = hello\nmodules = gone\n"	/* 5 */
		"[partition c]\ncpus = 2\nmemory = 2G\nimage = hello\n";		/* 10 */

	(void)state;
	parse_ok(text);
	assert_int_equal(config_validate_all(&cfg, &plat4, &errs), -1);
	assert_int_equal(errs.count, 5);
	assert_error(0, 1, "partition 'a': CPU 7 does not exist (the MADT lists 4)");
	assert_error(1, 1, "image 'nothere' not found among the boot modules");
	assert_error(2, 5, "module 'gone' not found among the boot modules");
	assert_error(3, 10, "CPU 2 is given to both 'b' and 'c'");
	assert_error(4, 10, "partition 'c': memory does not fit");
	/* the single-error form gives the first */
	assert_int_equal(config_validate(&cfg, &plat4, &err), -1);
	assert_int_equal(err.line, 1);
	assert_true(strstr(err.msg, "CPU 7 does not exist") != NULL);
	assert_int_equal(config_validate_all(&cfg, &plat4, NULL), -1);
	assert_int_equal(config_validate_all(NULL, &plat4, &errs), -1);
	assert_int_equal(errs.count, 1);
}


/* ---- device keys (hv/core/devassign.h; its own tests have every refusal) ---- */

static void test_device_keys(void **state)
{
	const struct dev_assignment *d = &cfg.partitions[0].dev;

	(void)state;
	parse_ok(MIN_PART "pci = 00:19.0\nports = 0x2f8-0x2ff, 0x80\nmmio = 0xfed00000+4K\n"
		 "irqs = 3, 16-17\n");
	assert_int_equal(d->pci_count, 1);
	assert_int_equal(d->pci[0], 0x00c8);
	assert_int_equal(d->port_count, 2);
	assert_int_equal(d->ports[0].first, 0x2f8);
	assert_int_equal(d->ports[0].last, 0x2ff);
	assert_int_equal(d->mmio_count, 1);
	assert_int_equal(d->mmio[0].base, 0xfed00000);
	assert_int_equal(d->mmio[0].size, 0x1000);
	assert_int_equal(d->irq_count, 3);
	assert_int_equal(d->line[DEV_KEY_PCI], 5);
	assert_int_equal(d->line[DEV_KEY_IRQS], 8);
	/* none given: an empty assignment */
	parse_ok(MIN_PART);
	assert_int_equal(d->given, 0);

	expect_err(MIN_PART "pci = 00:19\n", 5,
		   "pci: expected BB:DD.F in hex (00:19.0), found '00:19'");
	expect_err(MIN_PART "irqs = 3\nirqs = 4\n", 6, "duplicate key 'irqs' (first set on line 5)");
	expect_err(MIN_PART "mmio = 0xfed00800+0x1000\n", 5,
		   "mmio: 0xfed00800+0x1000: base and size must be multiples of 4 KiB");
	/* every error of the file, each at its own line */
	assert_int_equal(parse(MIN_PART "ports = 0x10000\nirqs = 4, 4\ncpus = 2\n"), -1);
	assert_int_equal(errs.count, 3);
	assert_int_equal(errs.list[0].line, 5);
	assert_true(strstr(errs.list[0].msg, "ports:") == errs.list[0].msg);
	assert_int_equal(errs.list[1].line, 6);
	assert_true(strstr(errs.list[1].msg, "irqs: GSI 4 listed twice") != NULL);
}

static const struct dev_fn_info dev_fns[] = {
	{ .bdf = 0x0008, .header_type = 1, .class_code = 0x060400 },	/* 00:01.0 a bridge */
	{ .bdf = 0x0010, .class_code = 0x020000,			/* 00:02.0 a NIC */
	  .bar = { { .io = true, .base = 0xc040, .size = 0x20 } } },
};
static const struct dev_gsi_range dev_gsis[] = { { 0, 24 } };
static struct dev_reserved dev_kept[32];
static struct dev_machine dev_pc = { dev_fns, 2, dev_gsis, 1, dev_kept, 0, false };
static struct config_platform plat_dev = {
	.cpu_count = 4,
	.module_count = 1,
	.module_names = { "hello" },
	.usable_bytes = GiB,
	.machine = &dev_pc,
};

static void test_validate_devices(void **state)
{
	const struct dev_platform pc = { .console_port = 0x3f8, .lapic_phys = 0xfee00000,
					 .ioapic_count = 1, .ioapic_phys = { 0xfec00000 } };

	(void)state;
	dev_pc.reserved_count = devassign_reserved(&pc, dev_kept, 32);
	validate_ok(MIN_PART "ports = 0x2f8-0x2ff\nirqs = 3\npci = 00:02.0\n"
		    "mmio = 0xfed00000+0x1000\n", &plat_dev);
	/* the machine's: each refusal at its key's line */
	validate_err(MIN_PART "pci = 00:01.0\n", &plat_dev, 5, "pci: 00:01.0 is a bridge");
	validate_err(MIN_PART "pci = 00:05.0\n", &plat_dev, 5,
		     "pci: 00:05.0: no such function on this machine");
	validate_err(MIN_PART "\nirqs = 24\n", &plat_dev, 6,
		     "irqs: GSI 24: no IOAPIC input has it (this machine has GSIs 0-23)");
	validate_err(MIN_PART "ports = 0xc040\n", &plat_dev, 5,
		     "ports: 0xc040-0xc040 overlaps BAR0 of 00:02.0: give the function with pci = "
		     "instead");
	validate_err(MIN_PART "ports = 0x3f8-0x3ff\n", &plat_dev, 5,
		     "ports: 0x3f8-0x3ff overlaps Tempo's console UART (0x3f8-0x3ff): Tempo keeps it");
	validate_err(MIN_PART "mmio = 0xfec00000+4K\n", &plat_dev, 5,
		     "mmio: 0xfec00000+0x1000 overlaps an IOAPIC's registers");
	/* between partitions: reported at the later one */
	validate_err(MIN_PART "irqs = 3\n" CPART("b", "2", "2M") "irqs = 3\n", &plat_dev, 10,
		     "irqs: GSI 3 is also given to partition 'rt0'");
	/* without a machine: only what every PC has is known */
	validate_ok(MIN_PART "pci = 00:05.0\nirqs = 200\nports = 0xc040\n", &plat4);
	validate_err(MIN_PART "ports = 0x3fc\n", &plat4, 5,
		     "ports: 0x3fc-0x3fc overlaps Tempo's console UART (0x3f8-0x3ff)");
	validate_err(MIN_PART "ports = 0x70\n", &plat4, 5, "the RTC index and the NMI mask");
	validate_err(MIN_PART "ports = 0x2f8-0x2ff\n" CPART("b", "2", "2M") "ports = 0x2ff-0x300\n",
		     &plat4, 10, "ports: 0x2ff-0x300 overlaps a range given to partition 'rt0'");
}

/* An mmio = range is mapped at its own address: not over what the guest has there. */
static void test_validate_mmio_map(void **state)
{
	(void)state;
	validate_err(MIN_PART "mmio = 0x3000000+4K\n", &plat4, 5,
		     "mmio: 0x3000000+0x1000 overlaps the RAM of partition 'rt0' (0x0-0x3ffffff)");
	validate_err(MIN_PART "mmio = 0xfee00000+4K\n", &plat4, 5,
		     "mmio: 0xfee00000+0x1000 overlaps its xAPIC page (0xfee00000-0xfee00fff), "
		     "which Tempo emulates there");
	/* the virtual IOAPIC's page only where irqs = gives one */
	validate_ok(MIN_PART "mmio = 0xfec00000+4K\n", &plat4);
	validate_err(MIN_PART "mmio = 0xfec00000+4K\nirqs = 3\n", &plat4, 5,
		     "overlaps its virtual IOAPIC (0xfec00000-0xfec00fff)");
	/* the channels' registers, and a channel, only in a partition that has them */
	validate_ok(MIN_PART "mmio = 0xfeb00000+4K\n", &plat4);
	validate_err(MIN_PART "mmio = 0xfeb00000+4K\n" CPART("b", "2", "2M")
		     CHAN("r", "64K", "rt0 rw", "b ro"), &plat4, 5,
		     "overlaps its channels' PCI registers (0xfeb00000-0xfebfffff)");
	validate_err(MIN_PART "mmio = 0x4000000+4K\n" CPART("b", "2", "2M")
		     CHAN("r", "64K", "rt0 rw", "b ro"), &plat4, 5,
		     "mmio: 0x4000000+0x1000 overlaps channel 'r' (0x4000000-0x400ffff)");
	/* RAM above 4 GiB too */
	validate_err("[partition big]\ncpus = 1\nmemory = 4096M\nimage = hello\n"
		     "mmio = 0x100000000+4K\n", &plat_big_mem, 5,
		     "overlaps the RAM of partition 'big' (0x0-0xfe9fffff and from 4 GiB)");
}

static void test_all_ended(void **state)
{
	(void)state;
	parse_ok(MIN_PART);
	assert_int_equal(cfg.all_ended, ALL_ENDED_REBOOT);
	parse_ok("[hypervisor]\nall_ended = halt\n" MIN_PART);
	assert_int_equal(cfg.all_ended, ALL_ENDED_HALT);
	parse_ok("[hypervisor]\nall_ended = monitor   # stay up\n" MIN_PART);
	assert_int_equal(cfg.all_ended, ALL_ENDED_MONITOR);
	parse_ok("[hypervisor]\nall_ended = reboot\n" MIN_PART);
	assert_int_equal(cfg.all_ended, ALL_ENDED_REBOOT);
	expect_err("[hypervisor]\nall_ended = poweroff\n" MIN_PART, 2,
		   "all_ended: expected reboot, halt or monitor, found 'poweroff'");
	expect_err("[hypervisor]\nall_ended =\n" MIN_PART, 2,
		   "all_ended: expected reboot, halt or monitor, found ''");
	expect_err("[hypervisor]\nall_ended = Reboot\n" MIN_PART, 2, "found 'Reboot'");
	expect_err("[hypervisor]\nall_ended = halt\nall_ended = reboot\n" MIN_PART, 3,
		   "duplicate key 'all_ended' (first set on line 2)");
	expect_err("[partition a]\nall_ended = halt\n", 2, "unknown key 'all_ended' in [partition a]");
	assert_string_equal(all_ended_name(ALL_ENDED_REBOOT), "reboot");
	assert_string_equal(all_ended_name(ALL_ENDED_HALT), "halt");
	assert_string_equal(all_ended_name(ALL_ENDED_MONITOR), "monitor");
	assert_string_equal(all_ended_name((enum all_ended_action)7), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_restart_keys),
		cmocka_unit_test(test_comments_blanks_tabs),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_cpu_lists),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_multiple_partitions),
		cmocka_unit_test(test_timer_mode_name),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_size_limits),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_long_messages),
		cmocka_unit_test(test_validate_good),
		cmocka_unit_test(test_validate_cpus),
		cmocka_unit_test(test_validate_many_cpus),
		cmocka_unit_test(test_validate_modules),
		cmocka_unit_test(test_validate_memory),
		cmocka_unit_test(test_validate_hand_built),
		cmocka_unit_test(test_pv_lazy),
		cmocka_unit_test(test_schedule_good),
		cmocka_unit_test(test_schedule_limits),
		cmocka_unit_test(test_schedule_errors),
		cmocka_unit_test(test_validate_schedules),
		cmocka_unit_test(test_schedule_long_messages),
		cmocka_unit_test(test_validate_hand_built_schedules),
		cmocka_unit_test(test_channel_good),
		cmocka_unit_test(test_channel_align),
		cmocka_unit_test(test_channel_placement),
		cmocka_unit_test(test_channel_limits),
		cmocka_unit_test(test_channel_errors),
		cmocka_unit_test(test_channel_long_messages),
		cmocka_unit_test(test_validate_channels),
		cmocka_unit_test(test_validate_hand_built_channels),
		cmocka_unit_test(test_full_config_validates),
		cmocka_unit_test(test_sched_config_validates),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_random_mutations),
		cmocka_unit_test(test_all_errors),
		cmocka_unit_test(test_all_errors_window),
		cmocka_unit_test(test_all_errors_no_cascade),
		cmocka_unit_test(test_all_errors_many),
		cmocka_unit_test(test_all_errors_validate),
		cmocka_unit_test(test_all_ended),
		cmocka_unit_test(test_device_keys),
		cmocka_unit_test(test_validate_devices),
		cmocka_unit_test(test_validate_mmio_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
