// SPDX-License-Identifier: MIT
/* hv/core/guest_msrs.c: the guest's MTRRs and IA32_MISC_ENABLE, as a CPU checks them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hv/core/guest_msrs.h"

#define MAXPHY 39

static struct guest_msrs fresh(void)
{
	struct guest_msrs m;

	guest_msrs_reset(&m, MISC_ENABLE_DEFAULT);
	return m;
}

static uint64_t rd(const struct guest_msrs *m, uint32_t msr)
{
	uint64_t v = 0xdead;

	assert_true(guest_mtrr_read(m, msr, &v));
	return v;
}

static void test_reset(void **state)
{
	struct guest_msrs m = fresh();

	(void)state;
	assert_int_equal(rd(&m, MSR_MTRRCAP), 0x508);	/* 8 variable, fixed, WC */
	assert_int_equal(rd(&m, MSR_MTRR_DEF_TYPE), 0x806);	/* enabled, WB */
	for (uint32_t i = 0; i < 16; i++)
		assert_int_equal(rd(&m, 0x200 + i), 0);	/* no range valid */
	assert_int_equal(rd(&m, MSR_MTRR_FIX64K_00000), 0);
	assert_int_equal(rd(&m, MSR_MTRR_FIX4K_F8000), 0);
	assert_int_equal(m.misc_enable, MISC_ENABLE_DEFAULT);
}

static void test_which(void **state)
{
	uint64_t v;
	struct guest_msrs m = fresh();

	(void)state;
	assert_true(guest_mtrr_msr(0xfe));
	assert_true(guest_mtrr_msr(0x20f));
	assert_false(guest_mtrr_msr(0x210));	/* beyond the 8 pairs */
	assert_true(guest_mtrr_msr(0x259));
	assert_false(guest_mtrr_msr(0x25a));
	assert_false(guest_mtrr_msr(0x267));
	assert_true(guest_mtrr_msr(0x268));
	assert_false(guest_mtrr_msr(0x270));
	assert_false(guest_mtrr_msr(0x277));	/* PAT is not one */
	assert_false(guest_mtrr_read(&m, 0x210, &v));
	assert_false(guest_mtrr_write(&m, 0x251, 0, MAXPHY));
}

static void test_types(void **state)
{
	(void)state;
	for (uint64_t t = 0; t < 256; t++)
		assert_int_equal(mtrr_type_valid(t), t == 0 || t == 1 || t == 4 || t == 5 || t == 6);
	assert_false(mtrr_type_valid(0x106));
}

static void test_def_type(void **state)
{
	struct guest_msrs m = fresh();

	(void)state;
	assert_true(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0xc00, MAXPHY));	/* E, FE, UC */
	assert_int_equal(rd(&m, MSR_MTRR_DEF_TYPE), 0xc00);
	assert_true(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0x806, MAXPHY));
	/* reserved types: 2, 3, 7 and up; nothing changes */
	assert_false(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0x802, MAXPHY));
	assert_false(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0x803, MAXPHY));
	assert_false(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0x807, MAXPHY));
	assert_false(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0x8ff, MAXPHY));
	/* reserved bits 9:8 and 63:12 */
	assert_false(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0x906, MAXPHY));
	assert_false(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, 0x1806, MAXPHY));
	assert_false(guest_mtrr_write(&m, MSR_MTRR_DEF_TYPE, (1ull << 63) | 0x806, MAXPHY));
	assert_int_equal(rd(&m, MSR_MTRR_DEF_TYPE), 0x806);
	/* MTRRCAP is read-only */
	assert_false(guest_mtrr_write(&m, MSR_MTRRCAP, 0x508, MAXPHY));
}

static void test_variable(void **state)
{
	struct guest_msrs m = fresh();
	uint64_t top = 1ull << MAXPHY;

	(void)state;
	assert_true(guest_mtrr_write(&m, 0x200, 0x80000000ull | 6, MAXPHY));	/* WB at 2 GiB */
	assert_true(guest_mtrr_write(&m, 0x201, ((top - 1) & ~0x3fffffffull) | 0x800, MAXPHY));
	assert_int_equal(rd(&m, 0x200), 0x80000006ull);
	assert_int_equal(rd(&m, 0x201), ((top - 1) & ~0x3fffffffull) | 0x800);
	assert_true(guest_mtrr_write(&m, 0x20e, 0x1000 | 1, MAXPHY));		/* pair 7, WC */
	assert_int_equal(rd(&m, 0x20e), 0x1001);
	/* PHYSBASE: a reserved type, bits 11:8, bits at and above MAXPHYADDR */
	assert_false(guest_mtrr_write(&m, 0x200, 0x80000002ull, MAXPHY));
	assert_false(guest_mtrr_write(&m, 0x200, 0x80000007ull, MAXPHY));
	assert_false(guest_mtrr_write(&m, 0x200, 0x80000106ull, MAXPHY));
	assert_false(guest_mtrr_write(&m, 0x200, top | 6, MAXPHY));
	assert_false(guest_mtrr_write(&m, 0x200, (1ull << 63) | 6, MAXPHY));
	assert_int_equal(rd(&m, 0x200), 0x80000006ull);
	/* PHYSMASK: bits 10:0, bits at and above MAXPHYADDR; the type byte is reserved there */
	assert_false(guest_mtrr_write(&m, 0x201, 0x800 | 6, MAXPHY));
	assert_false(guest_mtrr_write(&m, 0x201, 0x801, MAXPHY));
	assert_false(guest_mtrr_write(&m, 0x201, top | 0x800, MAXPHY));
	assert_true(guest_mtrr_write(&m, 0x201, 0, MAXPHY));	/* invalid again */
	/* MAXPHYADDR unknown (0): 36 bits */
	assert_true(guest_mtrr_write(&m, 0x202, (1ull << 35) | 6, 0));
	assert_false(guest_mtrr_write(&m, 0x202, (1ull << 36) | 6, 0));
	/* a 52-bit MAXPHYADDR: bit 51 is an address bit */
	assert_true(guest_mtrr_write(&m, 0x202, (1ull << 51) | 6, 52));
	assert_false(guest_mtrr_write(&m, 0x202, (1ull << 52) | 6, 52));
}

static void test_fixed(void **state)
{
	struct guest_msrs m = fresh();
	static const uint32_t fixed[] = { 0x250, 0x258, 0x259, 0x268, 0x269, 0x26a, 0x26b,
					  0x26c, 0x26d, 0x26e, 0x26f };

	(void)state;
	for (uint32_t i = 0; i < 11; i++) {
		static const uint8_t valid[5] = { 0, 1, 4, 5, 6 };
		uint64_t v = 0x0605040100060500ull | valid[i % 5];	/* every valid type */
		assert_true(guest_mtrr_write(&m, fixed[i], v, MAXPHY));
		assert_int_equal(rd(&m, fixed[i]), v);
	}
	/* each byte is a type: a reserved one in any byte is #GP */
	for (uint32_t b = 0; b < 8; b++) {
		assert_false(guest_mtrr_write(&m, 0x250, 0x0606060606060606ull ^ (4ull << (8 * b)), MAXPHY));
		assert_false(guest_mtrr_write(&m, 0x268, 0x0606060606060606ull | (0x80ull << (8 * b)),
					      MAXPHY));
	}
	assert_int_equal(rd(&m, 0x250), 0x0605040100060500ull);
}

static void test_misc_enable(void **state)
{
	struct guest_msrs m = fresh();
	uint64_t host = MISC_FAST_STRINGS | MISC_PERF_MON | MISC_MONITOR | (1ull << 40);

	(void)state;
	/* the OS's bits read back, both ways */
	assert_true(guest_misc_enable_write(&m, MISC_ENABLE_DEFAULT & ~MISC_FAST_STRINGS));
	assert_int_equal(m.misc_enable, MISC_ENABLE_DEFAULT & ~MISC_FAST_STRINGS);
	assert_true(guest_misc_enable_write(&m, MISC_ENABLE_DEFAULT | MISC_EIST | MISC_TURBO_DISABLE |
					       MISC_XTPR_DISABLE | MISC_AUTO_THERMAL));
	assert_int_equal(m.misc_enable, MISC_ENABLE_DEFAULT | MISC_EIST | MISC_TURBO_DISABLE |
			 MISC_XTPR_DISABLE | MISC_AUTO_THERMAL);
	/* the read-only status bits: the write is taken, they stay */
	assert_true(guest_misc_enable_write(&m, m.misc_enable & ~(MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL)));
	assert_true(m.misc_enable & MISC_BTS_UNAVAIL);
	assert_true(guest_misc_enable_write(&m, m.misc_enable ^ MISC_PERF_MON));
	assert_false(m.misc_enable & MISC_PERF_MON);
	/* any other bit that changes: #GP, nothing changes */
	uint64_t before = m.misc_enable;

	assert_false(guest_misc_enable_write(&m, before | (1ull << 1)));
	assert_false(guest_misc_enable_write(&m, before | (1ull << 63)));
	assert_false(guest_misc_enable_write(&m, before ^ MISC_EIST ^ (1ull << 20)));
	assert_int_equal(m.misc_enable, before);
	/* a host's model-specific bit read back and written back is no change */
	guest_msrs_reset(&m, host);
	assert_true(guest_misc_enable_write(&m, host));
	assert_true(guest_misc_enable_write(&m, host & ~MISC_FAST_STRINGS));
	assert_int_equal(m.misc_enable, host & ~MISC_FAST_STRINGS);
	assert_false(guest_misc_enable_write(&m, host & ~(1ull << 40)));
}

/*
 * MONITOR FSM, limit CPUID maxval and XD disable are R/W in Table 2-2: what
 * the OS writes it reads back, both ways, on this vCPU only. The first
 * value is the one kvm-unit-tests' msr test writes (every bit it may
 * write set, the read-only ones as they were).
 */
static void test_misc_enable_read_back(void **state)
{
	const uint64_t os_bits = MISC_FAST_STRINGS | MISC_AUTO_THERMAL | MISC_EIST | MISC_MONITOR |
				 MISC_LIMIT_CPUID | MISC_XTPR_DISABLE | MISC_XD_DISABLE;
	struct guest_msrs m = fresh(), other = fresh();
	uint64_t want = os_bits | (MISC_ENABLE_DEFAULT & (MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL));

	(void)state;
	assert_int_equal(want, 0x400c51809ull);
	assert_true(guest_misc_enable_write(&m, want));
	assert_int_equal(m.misc_enable, want);
	assert_int_equal(other.misc_enable, MISC_ENABLE_DEFAULT);
	for (unsigned int bit = 0; bit < 64; bit++) {
		uint64_t b = 1ull << bit;

		if (!(os_bits & b))
			continue;
		assert_true(guest_misc_enable_write(&m, want & ~b));
		assert_int_equal(m.misc_enable, want & ~b);
		assert_true(guest_misc_enable_write(&m, want));
		assert_int_equal(m.misc_enable, want);
	}
	/* back to the reset value, as the test restores it */
	assert_true(guest_misc_enable_write(&m, MISC_ENABLE_DEFAULT));
	assert_int_equal(m.misc_enable, MISC_ENABLE_DEFAULT);
	/* a reserved bit beside them still refuses the whole write */
	assert_false(guest_misc_enable_write(&m, want | (1ull << 17)));
	assert_false(guest_misc_enable_write(&m, want | (1ull << 35)));
	assert_int_equal(m.misc_enable, MISC_ENABLE_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_which),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_def_type),
		cmocka_unit_test(test_variable),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_misc_enable),
		cmocka_unit_test(test_misc_enable_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
