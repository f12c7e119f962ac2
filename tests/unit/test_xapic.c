// SPDX-License-Identifier: MIT
/*
 * xAPIC mode: IA32_APIC_BASE's state machine (hv/core/apic_base.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/apic_base.h"
#include "hv/lib/apic_defs.h"

static const struct apic_base_caps caps = { .maxphyaddr = 39, .x2apic = true };

/* ---- IA32_APIC_BASE ---- */

static struct apic_base_state state(enum apic_mode m)
{
	struct apic_base_state s;

	apic_base_init(&s, m, true);
	return s;
}

static void test_base_init_and_value(void **unused)
{
	struct apic_base_state s;

	(void)unused;
	apic_base_init(&s, APIC_MODE_XAPIC, true);
	assert_int_equal(apic_base_value(&s), 0xfee00900ull);	/* EN | BSP */
	apic_base_init(&s, APIC_MODE_X2APIC, false);
	assert_int_equal(apic_base_value(&s), 0xfee00c00ull);	/* EN | EXTD */
	apic_base_init(&s, APIC_MODE_DISABLED, false);
	assert_int_equal(apic_base_value(&s), 0xfee00000ull);
	assert_false(apic_base_page_decoded(&s));
	apic_base_init(&s, APIC_MODE_X2APIC, false);
	assert_false(apic_base_page_decoded(&s));
	apic_base_init(&s, APIC_MODE_XAPIC, false);
	assert_true(apic_base_page_decoded(&s));
}

/* SDM Vol. 3A 11.12.5, figure 11-27: every valid state against every EN/EXTD written. */
static void test_base_transitions(void **unused)
{
	static const struct {
		enum apic_mode from;
		uint64_t bits;
		enum apic_base_fault fault;
		enum apic_mode to;
		bool reset;
	} rows[] = {
		{ APIC_MODE_DISABLED, 0, APIC_BASE_OK, APIC_MODE_DISABLED, false },
		{ APIC_MODE_DISABLED, APIC_BASE_EXTD, APIC_BASE_GP_INVALID, APIC_MODE_DISABLED, false },
		{ APIC_MODE_DISABLED, APIC_BASE_EN, APIC_BASE_OK, APIC_MODE_XAPIC, false },
		{ APIC_MODE_DISABLED, APIC_BASE_EN | APIC_BASE_EXTD, APIC_BASE_GP_DISABLED_TO_X2APIC,
		  APIC_MODE_DISABLED, false },
		{ APIC_MODE_XAPIC, 0, APIC_BASE_OK, APIC_MODE_DISABLED, true },
		{ APIC_MODE_XAPIC, APIC_BASE_EXTD, APIC_BASE_GP_INVALID, APIC_MODE_XAPIC, false },
		{ APIC_MODE_XAPIC, APIC_BASE_EN, APIC_BASE_OK, APIC_MODE_XAPIC, false },
		{ APIC_MODE_XAPIC, APIC_BASE_EN | APIC_BASE_EXTD, APIC_BASE_OK, APIC_MODE_X2APIC,
		  false },
		{ APIC_MODE_X2APIC, 0, APIC_BASE_OK, APIC_MODE_DISABLED, true },
		{ APIC_MODE_X2APIC, APIC_BASE_EXTD, APIC_BASE_GP_INVALID, APIC_MODE_X2APIC, false },
		{ APIC_MODE_X2APIC, APIC_BASE_EN, APIC_BASE_GP_X2APIC_TO_XAPIC, APIC_MODE_X2APIC,
		  false },
		{ APIC_MODE_X2APIC, APIC_BASE_EN | APIC_BASE_EXTD, APIC_BASE_OK, APIC_MODE_X2APIC,
		  false },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct apic_base_state s = state(rows[i].from);
		uint64_t before = apic_base_value(&s);
		struct apic_base_write w =
			apic_base_write(&s, APIC_BASE_DEFAULT | APIC_BASE_BSP | rows[i].bits, &caps);

		assert_int_equal(w.fault, rows[i].fault);
		assert_int_equal(w.state.mode, rows[i].to);
		assert_int_equal(w.reset, rows[i].reset);
		assert_int_equal(w.mode_changed, rows[i].to != rows[i].from);
		assert_false(w.base_moved);
		if (w.fault != APIC_BASE_OK) {
			assert_non_null(w.why);
			/* a #GP changes nothing */
			assert_int_equal(apic_base_value(&w.state), before);
		} else {
			assert_int_equal(apic_base_value(&w.state),
					 APIC_BASE_DEFAULT | APIC_BASE_BSP | rows[i].bits);
		}
		/* the input state is not touched */
		assert_int_equal(apic_base_value(&s), before);
	}
}

static void test_base_reserved_bits(void **unused)
{
	static const enum apic_mode modes[] = { APIC_MODE_DISABLED, APIC_MODE_XAPIC,
						APIC_MODE_X2APIC };

	(void)unused;
	for (size_t m = 0; m < 3; m++) {
		struct apic_base_state s = state(modes[m]);
		uint64_t v = apic_base_value(&s);

		for (int bit = 0; bit < 64; bit++) {
			struct apic_base_write w = apic_base_write(&s, v ^ (1ull << bit), &caps);
			bool reserved = bit <= 7 || bit == 9 || bit >= 39;

			if (reserved) {
				assert_int_equal(w.fault, APIC_BASE_GP_RESERVED);
				continue;
			}
			/* 8: BSP, ignored; 10, 11: EXTD, EN; 12..38: the base */
			if (bit == 8) {
				assert_int_equal(w.fault, APIC_BASE_OK);
				assert_true(w.state.bsp);
				assert_int_equal(apic_base_value(&w.state), v);
				assert_false(w.base_moved || w.mode_changed || w.reset);
			} else if (bit >= 12) {
				assert_int_equal(w.fault, APIC_BASE_OK);
				assert_true(w.base_moved);
				assert_int_equal(w.state.base, (v ^ (1ull << bit)) & ~0xfffull);
				assert_false(w.mode_changed);
			}
		}
	}
}

static void test_base_maxphyaddr_and_no_x2apic(void **unused)
{
	struct apic_base_state s = state(APIC_MODE_XAPIC);
	struct apic_base_caps narrow = { .maxphyaddr = 36, .x2apic = false };
	struct apic_base_caps wide = { .maxphyaddr = 52, .x2apic = true };

	(void)unused;
	assert_int_equal(apic_base_write(&s, (1ull << 35) | APIC_BASE_EN, &narrow).fault,
			 APIC_BASE_OK);
	assert_int_equal(apic_base_write(&s, (1ull << 36) | APIC_BASE_EN, &narrow).fault,
			 APIC_BASE_GP_RESERVED);
	assert_int_equal(apic_base_write(&s, (1ull << 51) | APIC_BASE_EN, &wide).fault,
			 APIC_BASE_OK);
	assert_int_equal(apic_base_write(&s, (1ull << 52) | APIC_BASE_EN, &wide).fault,
			 APIC_BASE_GP_RESERVED);
	/* no x2APIC in CPUID: EXTD is a reserved bit */
	assert_int_equal(apic_base_write(&s, APIC_BASE_DEFAULT | APIC_BASE_EN | APIC_BASE_EXTD,
					 &narrow).fault,
			 APIC_BASE_GP_RESERVED);
}

static void test_base_relocation(void **unused)
{
	struct apic_base_state s = state(APIC_MODE_XAPIC);
	struct apic_base_write w;

	(void)unused;
	/* kvm-unit-tests' test_apicbase: disable, then enable at 0xfed40000 */
	w = apic_base_write(&s, APIC_BASE_DEFAULT | APIC_BASE_BSP, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	assert_true(w.reset);
	s = w.state;
	w = apic_base_write(&s, 0xfed40000ull | APIC_BASE_BSP | APIC_BASE_EN, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	assert_true(w.base_moved && w.mode_changed && !w.reset);
	assert_int_equal(w.state.base, 0xfed40000ull);
	assert_true(apic_base_page_decoded(&w.state));
	s = w.state;
	/* the same value again: nothing moves */
	w = apic_base_write(&s, apic_base_value(&s), &caps);
	assert_false(w.base_moved || w.mode_changed || w.reset);
	/* back, while enabled: moved, no reset */
	w = apic_base_write(&s, APIC_BASE_DEFAULT | APIC_BASE_BSP | APIC_BASE_EN, &caps);
	assert_true(w.base_moved && !w.reset);
	/* a move into x2APIC mode is taken too (the page is not decoded there) */
	w = apic_base_write(&s, 0xfec00000ull | APIC_BASE_EN | APIC_BASE_EXTD, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	assert_true(w.base_moved);
	assert_false(apic_base_page_decoded(&w.state));
	/* and out of it while disabling */
	s = w.state;
	w = apic_base_write(&s, APIC_BASE_DEFAULT, &caps);
	assert_true(w.base_moved && w.reset);
}

/* kvm-unit-tests' test_enable_x2apic, from xAPIC mode. */
static void test_base_kvm_unit_tests_sequence(void **unused)
{
	struct apic_base_state s = state(APIC_MODE_XAPIC);
	uint64_t base = apic_base_value(&s) & ~(APIC_BASE_EN | APIC_BASE_EXTD);
	struct apic_base_write w;

	(void)unused;
	w = apic_base_write(&s, base | APIC_BASE_EN | APIC_BASE_EXTD, &caps);	/* enable_x2apic */
	assert_int_equal(w.fault, APIC_BASE_OK);
	s = w.state;
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EXTD, &caps).fault,
			 APIC_BASE_GP_INVALID);
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EN, &caps).fault,
			 APIC_BASE_GP_X2APIC_TO_XAPIC);
	w = apic_base_write(&s, base, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	s = w.state;
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EXTD, &caps).fault,
			 APIC_BASE_GP_INVALID);
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EN | APIC_BASE_EXTD, &caps).fault,
			 APIC_BASE_GP_DISABLED_TO_X2APIC);
	w = apic_base_write(&s, base | APIC_BASE_EN, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	s = w.state;
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EXTD, &caps).fault,
			 APIC_BASE_GP_INVALID);
	assert_int_equal(s.mode, APIC_MODE_XAPIC);
}

static void test_base_undecoded_reads(void **unused)
{
	(void)unused;
	assert_int_equal(apic_base_undecoded_read(1), 0xff);
	assert_int_equal(apic_base_undecoded_read(2), 0xffff);
	assert_int_equal(apic_base_undecoded_read(4), 0xffffffffull);
	assert_int_equal(apic_base_undecoded_read(8), ~0ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_init_and_value),
		cmocka_unit_test(test_base_transitions),
		cmocka_unit_test(test_base_reserved_bits),
		cmocka_unit_test(test_base_maxphyaddr_and_no_x2apic),
		cmocka_unit_test(test_base_relocation),
		cmocka_unit_test(test_base_kvm_unit_tests_sequence),
		cmocka_unit_test(test_base_undecoded_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
