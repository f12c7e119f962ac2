// SPDX-License-Identifier: MIT
/* hv/core/debug_trap.h: RF on injected faults, data and I/O breakpoints of emulated accesses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hv/core/debug_trap.h"

static void test_rf_faults(void **state)
{
	static const uint32_t faults[] = { 0, 5, 6, 7, 10, 11, 12, 13, 14, 16, 17, 19, 20, 21 };
	uint32_t n = 0;

	(void)state;
	for (uint32_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		assert_true(exception_sets_rf(faults[i]));
	for (uint32_t v = 0; v < 256; v++)
		n += exception_sets_rf(v);
	assert_int_equal(n, sizeof(faults) / sizeof(faults[0]));
	/* #DB (a trap here, and code breakpoints keep RF), NMI, #BP, #OF, #DF, #MC: no */
	assert_false(exception_sets_rf(1));
	assert_false(exception_sets_rf(2));
	assert_false(exception_sets_rf(3));
	assert_false(exception_sets_rf(4));
	assert_false(exception_sets_rf(8));
	assert_false(exception_sets_rf(18));
	assert_false(exception_sets_rf(0x40));	/* an interrupt vector */
}

/* DR7 for breakpoint @n: L@n, R/W @rw, LEN field @len_field */
static uint64_t dr7_bp(uint32_t n, uint32_t rw, uint32_t len_field)
{
	return (1ull << (2 * n)) | ((uint64_t)rw << (16 + 4 * n)) |
	       ((uint64_t)len_field << (18 + 4 * n));
}

/* data_breakpoints_hit with the test's own DR0-DR3, dr */
#define HIT(dr7, cr4, kind, addr, n)	data_breakpoints_hit((dr7), dr, (cr4), (kind), (addr), (n))

#define LEN1	0u
#define LEN2	1u
#define LEN8	2u
#define LEN4	3u

static void test_data_bp_kinds(void **state)
{
	uint64_t dr[4] = { 0x1000, 0, 0, 0 };

	(void)state;
	/* R/W 11: reads and writes; 01: writes only; 00 (execute): neither */
	assert_int_equal(HIT(dr7_bp(0, 3, LEN4), 0, DT_ACCESS_READ, 0x1000, 4), 1);
	assert_int_equal(HIT(dr7_bp(0, 3, LEN4), 0, DT_ACCESS_WRITE, 0x1000, 4), 1);
	assert_int_equal(HIT(dr7_bp(0, 1, LEN4), 0, DT_ACCESS_WRITE, 0x1000, 4), 1);
	assert_int_equal(HIT(dr7_bp(0, 1, LEN4), 0, DT_ACCESS_READ, 0x1000, 4), 0);
	assert_int_equal(HIT(dr7_bp(0, 0, LEN1), 0, DT_ACCESS_READ, 0x1000, 4), 0);
	assert_int_equal(HIT(dr7_bp(0, 0, LEN1), 0, DT_ACCESS_WRITE, 0x1000, 4), 0);
	/* R/W 10 watches ports, only with CR4.DE; never memory */
	assert_int_equal(HIT(dr7_bp(0, 2, LEN1), DT_CR4_DE, DT_ACCESS_READ, 0x1000, 4), 0);
	assert_int_equal(HIT(dr7_bp(0, 2, LEN1), 0, DT_ACCESS_IO, 0x1000, 1), 0);
	assert_int_equal(HIT(dr7_bp(0, 2, LEN1), DT_CR4_DE, DT_ACCESS_IO, 0x1000, 1), 1);
	assert_int_equal(HIT(dr7_bp(0, 3, LEN1), DT_CR4_DE, DT_ACCESS_IO, 0x1000, 1), 0);
	/* disabled (no L0/G0, only R/W and LEN): nothing; G0 alone enables */
	assert_int_equal(HIT(dr7_bp(0, 3, LEN4) & ~1ull, 0, DT_ACCESS_READ, 0x1000, 4), 0);
	assert_int_equal(HIT((dr7_bp(0, 3, LEN4) & ~1ull) | 2, 0, DT_ACCESS_READ, 0x1000, 4),
			 1);
	/* an access of no bytes hits nothing */
	assert_int_equal(HIT(dr7_bp(0, 3, LEN4), 0, DT_ACCESS_READ, 0x1000, 0), 0);
}

static void test_data_bp_ranges(void **state)
{
	uint64_t dr[4] = { 0x2004, 0x2006, 0x2013, 0x2020 };
	uint64_t dr7 = dr7_bp(0, 3, LEN4) | dr7_bp(1, 3, LEN2) | dr7_bp(2, 3, LEN8) |
		       dr7_bp(3, 3, LEN1);

	(void)state;
	/* an 8-byte load at 0x2000 covers DR0's 0x2004-7 and DR1's 0x2006-7 */
	assert_int_equal(HIT(dr7, 0, DT_ACCESS_READ, 0x2000, 8), 3);
	/* ends just before DR0's range */
	assert_int_equal(HIT(dr7, 0, DT_ACCESS_READ, 0x2000, 4), 0);
	/* one byte, the last of DR0's range */
	assert_int_equal(HIT(dr7, 0, DT_ACCESS_WRITE, 0x2007, 1), 3);
	/* DR2 0x2013 with LEN 8 watches 0x2010-0x2017 (aligned down) */
	assert_int_equal(HIT(dr7, 0, DT_ACCESS_READ, 0x2010, 1), 4);
	assert_int_equal(HIT(dr7, 0, DT_ACCESS_READ, 0x2017, 1), 4);
	assert_int_equal(HIT(dr7, 0, DT_ACCESS_READ, 0x2018, 1), 0);
	/* a 2-byte store at 0x201f reaches DR3's single byte */
	assert_int_equal(HIT(dr7, 0, DT_ACCESS_WRITE, 0x201f, 2), 8);
	assert_int_equal(HIT(dr7, 0, DT_ACCESS_WRITE, 0x2021, 4), 0);
	/* at the top of the address space: no wrap makes a false hit */
	dr[0] = 0xfffffffffffffffcull;
	assert_int_equal(HIT(dr7_bp(0, 3, LEN4), 0, DT_ACCESS_READ,
					      0xfffffffffffffffeull, 2), 1);
	assert_int_equal(HIT(dr7_bp(0, 3, LEN4), 0, DT_ACCESS_READ, 0, 4), 0);
	/* an I/O breakpoint on port 0x3f8 LEN 2 and a 4-byte IN at 0x3f6 */
	dr[0] = 0x3f8;
	assert_int_equal(HIT(dr7_bp(0, 2, LEN2), DT_CR4_DE, DT_ACCESS_IO, 0x3f6, 4), 1);
	assert_int_equal(HIT(dr7_bp(0, 2, LEN2), DT_CR4_DE, DT_ACCESS_IO, 0x3f4, 4), 0);
}

static void test_debug_trap_dr6(void **state)
{
	(void)state;
	/* B0-B3 replaced by the hit set; BS added; the fixed ones bits kept */
	assert_int_equal(debug_trap_dr6(0xffff0ff5ull, 2, false), 0xffff0ff2ull);
	assert_int_equal(debug_trap_dr6(0xffff0ff0ull, 1, true), 0xffff4ff1ull);
	assert_int_equal(debug_trap_dr6(0xffff0ff3ull, 0, true), 0xffff4ff3ull);
	assert_int_equal(debug_trap_dr6(0xffff0ff0ull, 0, false), 0xffff0ff0ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rf_faults),
		cmocka_unit_test(test_data_bp_kinds),
		cmocka_unit_test(test_data_bp_ranges),
		cmocka_unit_test(test_debug_trap_dr6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
