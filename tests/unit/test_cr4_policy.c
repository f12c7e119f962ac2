// SPDX-License-Identifier: MIT
/* Which CR4 bits a guest owns, and which MOV to CR4 is #GP (hv/core/cr4_policy.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hv/core/cr4_policy.h"

#define B(n) (1ull << (n))

static void test_mask(void **state)
{
	uint64_t m = cr4_guest_host_mask(true);

	(void)state;
	/* the guest's: VME..LA57, FSGSBASE, PCIDE, OSXSAVE, SMEP, SMAP, PKE, LASS, LAM_SUP */
	for (int b = 0; b <= 12; b++)
		assert_false(m & B(b));
	assert_false(m & (B(16) | B(17) | B(18) | B(20) | B(21) | B(22) | B(27) | B(28)));
	/*
	 * Tempo's: VMXE, SMXE; Key Locker (a per-core key), CET and PKS (host
	 * MSRs), UINTR (a per-core UIF), FRED (bit 32) and everything above
	 */
	assert_true(m & B(13));
	assert_true(m & B(14));
	assert_true(m & B(19));
	assert_true(m & B(23));
	assert_true(m & B(24));
	assert_true(m & B(25));
	assert_true(m & B(32));
	assert_true(m & B(63));
	/* PKE only where the XSAVE area switches PKRU */
	assert_true(cr4_guest_host_mask(false) & B(22));
}

static void test_write(void **state)
{
	(void)state;
	/* what Linux sets on an x86-64 CPU with everything */
	assert_true(cr4_write_ok(B(5) | B(7) | B(9) | B(10) | B(11) | B(16) | B(17) | B(18) |
				 B(20) | B(21) | B(22), true));
	assert_false(cr4_write_ok(B(5) | B(22), false));
	assert_false(cr4_write_ok(B(5) | B(13), true));	/* VMXE */
	assert_false(cr4_write_ok(B(5) | B(19), true));	/* KL */
	assert_false(cr4_write_ok(B(5) | B(23), true));	/* CET */
	assert_false(cr4_write_ok(B(5) | B(24), true));	/* PKS */
	assert_false(cr4_write_ok(B(5) | B(25), true));	/* UINTR */
	assert_false(cr4_write_ok(B(5) | B(32), true));	/* FRED */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
