// SPDX-License-Identifier: MIT
/*
 * LVT write rules (SDM Vol. 3A figure 11-8) and which x2APIC registers are
 * virtual off direct mode: no LAPIC register but the checked ICR may reach
 * the physical APIC from a mode that shares it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hv/core/lapic_rules.h"
#include "hv/core/msr_policy.h"

static void test_lvt_reserved_bits(void **state)
{
	(void)state;
	/* the timer: bits 8-11 and 13-15 reserved in x2APIC mode */
	for (uint32_t bit = 8; bit <= 15; bit++)
		if (bit != 12)
			assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_TIMER, 0x40 | (1u << bit)));
	for (uint32_t bit = 19; bit < 64; bit++)
		assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_TIMER, 0x40 | (1ull << bit)));
	assert_true(lapic_lvt_write_ok(LAPIC_MSR_LVT_TIMER, 0x40 | (2u << 17)));
	assert_true(lapic_lvt_write_ok(LAPIC_MSR_LVT_TIMER, 0x40 | (1u << 17) | (1u << 16)));
	assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_TIMER, 0x40 | (3u << 17)));
	/* error: no delivery mode, no timer mode */
	assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_ERROR, 0x40 | (4u << 8)));
	assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_ERROR, 0x40 | (1u << 17)));
	assert_true(lapic_lvt_write_ok(LAPIC_MSR_LVT_ERROR, 0x40 | (1u << 16)));
	/* LINT: polarity, trigger mode allowed; bit 11 and 17+ not */
	assert_true(lapic_lvt_write_ok(LAPIC_MSR_LVT_LINT0, 0x40 | (7u << 8) | (7u << 13)));
	assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_LINT1, 0x40 | (1u << 11)));
	assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_LINT1, 0x40 | (1u << 17)));
	/* CMCI/thermal/PMC: delivery allowed, polarity/trigger not */
	assert_true(lapic_lvt_write_ok(LAPIC_MSR_LVT_PMC, 0x40 | (4u << 8)));
	assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_THERMAL, 0x40 | (1u << 13)));
	assert_false(lapic_lvt_write_ok(LAPIC_MSR_LVT_CMCI, 0x40 | (1u << 15)));
	/* not an LVT */
	assert_false(lapic_lvt_write_ok(0x830, 0));
	assert_false(lapic_is_lvt(0x831));
	assert_true(lapic_is_lvt(LAPIC_MSR_LVT_CMCI));
}

/* Max LVT Entry 5 (six entries, Bochs' models): no CMCI; 6 and up: CMCI. */
static void test_lvt_present(void **state)
{
	(void)state;
	assert_false(lapic_lvt_present(LAPIC_MSR_LVT_CMCI, 0x00050014));
	assert_false(lapic_lvt_present(LAPIC_MSR_LVT_CMCI, 0));
	assert_true(lapic_lvt_present(LAPIC_MSR_LVT_CMCI, 0x00060015));
	assert_true(lapic_lvt_present(LAPIC_MSR_LVT_CMCI, 0x01ff0015));
	for (uint32_t msr = LAPIC_MSR_LVT_TIMER; msr <= LAPIC_MSR_LVT_ERROR; msr++)
		assert_true(lapic_lvt_present(msr, 0x00050014));
	/* not an LVT at all, whatever the version says */
	assert_false(lapic_lvt_present(0x830, 0xffffffff));
	assert_false(lapic_lvt_present(0x82e, 0xffffffff));
}

static void test_lvt_filter(void **state)
{
	(void)state;
	/* anything but fixed delivery is masked; read-only bits never written */
	assert_int_equal(lapic_lvt_filter(LAPIC_MSR_LVT_LINT0, 0x40 | (7u << 8)),
			 0x40 | LAPIC_LVT_MASKED);
	assert_int_equal(lapic_lvt_filter(LAPIC_MSR_LVT_LINT1, 0x40 | LAPIC_LVT_REMOTE_IRR |
					  LAPIC_LVT_STATUS | LAPIC_LVT_TRIGGER),
			 0x40 | LAPIC_LVT_TRIGGER);
	assert_int_equal(lapic_lvt_filter(LAPIC_MSR_LVT_TIMER, 0x40 | LAPIC_LVT_STATUS | (2u << 17)),
			 0x40 | (2u << 17));
	/* an unmasked illegal vector is masked, a masked one stays */
	assert_int_equal(lapic_lvt_filter(LAPIC_MSR_LVT_ERROR, 3), 3 | LAPIC_LVT_MASKED);
	assert_int_equal(lapic_lvt_filter(LAPIC_MSR_LVT_TIMER, 16), 16);
	/* every accepted value filters to one the hardware accepts too */
	for (uint32_t msr = LAPIC_MSR_LVT_TIMER; msr <= LAPIC_MSR_LVT_ERROR; msr++)
		for (uint32_t v = 0; v < (1u << 19); v += 0x35)
			if (lapic_lvt_write_ok(msr, v))
				assert_true(lapic_lvt_write_ok(msr, lapic_lvt_filter(msr, v)));
}

/*
 * Off direct mode every APIC register the guest can change or that shows
 * interrupt state is the virtual LAPIC's (the ICR, always checked, aside):
 * SELF_IPI, the count-down timer and the LVTs included.
 */
static void test_virtual_apic_set(void **state)
{
	static const uint32_t virtual_regs[] = {
		0x808, 0x80a, 0x80b, 0x80f, 0x810, 0x817, 0x818, 0x81f, 0x820, 0x827, 0x828,
		0x82f, 0x832, 0x833, 0x834, 0x835, 0x836, 0x837, 0x838, 0x839, 0x83e, 0x83f,
	};
	uint8_t bm[4096];

	(void)state;
	msr_bitmap_build_virtual(bm, 0);
	for (unsigned int i = 0; i < sizeof(virtual_regs) / sizeof(virtual_regs[0]); i++) {
		uint32_t m = virtual_regs[i];

		assert_true(msr_virtual_apic(m));
		assert_true((bm[(m & 0x1fff) / 8] >> (m % 8)) & 1);		/* read exits */
		assert_true((bm[2048 + (m & 0x1fff) / 8] >> (m % 8)) & 1);	/* write exits */
	}
	assert_false(msr_virtual_apic(0x802));	/* the id stays the physical one */
	assert_false(msr_virtual_apic(0x830));	/* the ICR is checked in every mode */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lvt_reserved_bits),
		cmocka_unit_test(test_lvt_present),
		cmocka_unit_test(test_lvt_filter),
		cmocka_unit_test(test_virtual_apic_set),
	};

	return cmocka_run_group_tests_name("lapic_rules", tests, NULL, NULL);
}
