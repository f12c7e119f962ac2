// SPDX-License-Identifier: MIT
/* The command-line parser and the TSC source policy. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/tsc.h"
#include "hv/core/cmdline.h"

static void test_cmdline_values(void **state)
{
	char v[16];
	unsigned long n;

	(void)state;
	assert_true(cmdline_get("exit=emu loglevel=4", "exit", v, sizeof(v)));
	assert_string_equal(v, "emu");
	assert_true(cmdline_get_uint("exit=emu loglevel=4", "loglevel", &n));
	assert_int_equal(n, 4);
	/* a bare key has an empty value; a prefix is not a match */
	assert_true(cmdline_get("  quiet\tfoo=1", "quiet", v, sizeof(v)));
	assert_string_equal(v, "");
	assert_false(cmdline_get("loglevelx=3", "loglevel", v, sizeof(v)));
	assert_false(cmdline_get("xloglevel=3", "loglevel", v, sizeof(v)));
	/* the last occurrence wins */
	assert_true(cmdline_get("a=1 a=2", "a", v, sizeof(v)));
	assert_string_equal(v, "2");
	/* cut to the buffer, still terminated, and marked cut */
	assert_true(cmdline_get("k=0123456789abcdefXYZ", "k", v, sizeof(v)));
	assert_string_equal(v, "0123456789abcd~");
	/* so that a longer word does not read as a shorter one it starts with */
	assert_true(cmdline_get("test=vmcs_break_regsX", "test", v, sizeof(v)));
	assert_string_equal(v, "vmcs_break_reg~");
	assert_true(cmdline_get("test=vmcs_break_regs", "test", v, sizeof(v)));
	assert_string_equal(v, "vmcs_break_regs");
	/* a number too long for the buffer is malformed, not cut (to 0 here) */
	assert_false(cmdline_get_uint("n=0000000000000000000000042", "n", &n));
	assert_true(cmdline_get("k=abc", "k", v, 2));
	assert_string_equal(v, "~");
	assert_false(cmdline_get("", "k", v, sizeof(v)));
	assert_false(cmdline_get(NULL, "k", v, sizeof(v)));
}

static void test_cmdline_reboot(void **state)
{
	unsigned long d = 99;

	(void)state;
	/* absent: the default, which reboots */
	assert_int_equal(cmdline_reboot_delay("loglevel=3", &d), CMDLINE_REBOOT_DEFAULT);
	assert_int_equal(d, CMDLINE_REBOOT_DEFAULT_S);
	assert_true(CMDLINE_REBOOT_DEFAULT_S > 0);
	assert_int_equal(cmdline_reboot_delay(NULL, &d), CMDLINE_REBOOT_DEFAULT);
	assert_int_equal(cmdline_reboot_delay("", &d), CMDLINE_REBOOT_DEFAULT);
	assert_int_equal(cmdline_reboot_delay("reboots=4 noreboot=3", &d), CMDLINE_REBOOT_DEFAULT);
	assert_int_equal(d, CMDLINE_REBOOT_DEFAULT_S);
	/* given */
	assert_int_equal(cmdline_reboot_delay("loglevel=3 reboot=0", &d), CMDLINE_REBOOT_GIVEN);
	assert_int_equal(d, 0);
	assert_int_equal(cmdline_reboot_delay("reboot=1 exit=emu", &d), CMDLINE_REBOOT_GIVEN);
	assert_int_equal(d, 1);
	assert_int_equal(cmdline_reboot_delay("reboot=3600", &d), CMDLINE_REBOOT_GIVEN);
	assert_int_equal(d, 3600);
	assert_int_equal(cmdline_reboot_delay("reboot=5 reboot=7", &d), CMDLINE_REBOOT_GIVEN);
	assert_int_equal(d, 7);	/* the last wins, as on Linux */
	/* malformed: the default, and said so */
	static const char *const bad[] = {
		"reboot", "reboot=", "reboot=-1", "reboot=1s", "reboot=0x10", "reboot=3601",
		"reboot=99999999999999999999999", "reboot=off", "reboot=1\x01",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		d = 99;
		assert_int_equal(cmdline_reboot_delay(bad[i], &d), CMDLINE_REBOOT_MALFORMED);
		assert_int_equal(d, CMDLINE_REBOOT_DEFAULT_S);
	}
}

static void test_cmdline_uint_malformed(void **state)
{
	unsigned long n = 77;

	(void)state;
	assert_false(cmdline_get_uint("loglevel=", "loglevel", &n));
	assert_false(cmdline_get_uint("loglevel=3x", "loglevel", &n));
	assert_false(cmdline_get_uint("loglevel=-1", "loglevel", &n));
	assert_false(cmdline_get_uint("loglevel=99999999999999999999999", "loglevel", &n));
	assert_false(cmdline_get_uint("loglevel", "loglevel", &n));
	assert_int_equal(n, 77);	/* untouched on failure */
	assert_true(cmdline_get_uint("loglevel=18446744073709551615", "loglevel", &n));
	assert_true(n == 18446744073709551615ul);
}

static struct tsc_report report(uint64_t cpuid, uint64_t measured, enum tsc_source by)
{
	struct tsc_report r = { .cpuid_hz = cpuid, .measured_hz = measured, .measured_by = by };

	tsc_pick(&r);
	return r;
}

static void test_tsc_pick(void **state)
{
	struct tsc_report r;

	(void)state;
	/* agreement within 1%: CPUID's exact figure is kept */
	r = report(2400000000ull, 2399000000ull, TSC_SRC_HPET);
	assert_int_equal(r.source, TSC_SRC_CPUID_15);
	assert_true(r.hz == 2400000000ull);
	assert_false(r.mismatch);
	/* Bochs' Tiger Lake model: CPUID claims 2.4 GHz, the clock is 50 MHz */
	r = report(2419200000ull, 50000139ull, TSC_SRC_HPET);
	assert_true(r.mismatch);
	assert_int_equal(r.source, TSC_SRC_HPET);
	assert_true(r.hz == 50000139ull);
	assert_true(r.mismatch_ppm > 10000);
	/* just over 1% */
	r = report(1011000000ull, 1000000000ull, TSC_SRC_PIT);
	assert_true(r.mismatch);
	assert_int_equal(r.source, TSC_SRC_PIT);
	/* exactly 1% is still agreement */
	r = report(1010000000ull, 1000000000ull, TSC_SRC_PIT);
	assert_false(r.mismatch);
	/* only one figure */
	r = report(0, 50000000ull, TSC_SRC_PIT);
	assert_int_equal(r.source, TSC_SRC_PIT);
	r = report(3000000000ull, 0, TSC_SRC_NONE);
	assert_int_equal(r.source, TSC_SRC_CPUID_15);
	r = report(0, 0, TSC_SRC_NONE);
	assert_true(r.hz == 0);
	assert_int_equal(r.source, TSC_SRC_NONE);
	/* a tiny measured figure does not divide by zero */
	r = report(5, 3, TSC_SRC_PIT);
	assert_true(r.mismatch);
	assert_string_equal(tsc_source_name(TSC_SRC_HPET), "hpet");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_values),
		cmocka_unit_test(test_cmdline_uint_malformed),
		cmocka_unit_test(test_cmdline_reboot),
		cmocka_unit_test(test_tsc_pick),
	};

	return cmocka_run_group_tests_name("cmdline_tsc", tests, NULL, NULL);
}
