// SPDX-License-Identifier: MIT
/*
 * The MSR table per timer mode: each row's action in each mode, the named
 * handlers of EMULATE, and the bitmaps built from it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/msr_policy.h"
#include "hv/core/timer_modes.h"

static int bit(const uint8_t *bm, uint32_t msr, int write)
{
	uint32_t base = (msr >= 0xc0000000 ? 1024 : 0) + (write ? 2048 : 0);

	msr &= 0x1fff;
	return (bm[base + msr / 8] >> (msr % 8)) & 1;
}

static enum msr_action act(uint32_t msr, enum timer_mode m, bool write)
{
	return msr_action(msr_rule_find(msr), timer_mode(m), write);
}

static void test_handlers_named(void **state)
{
	unsigned int n;
	const struct msr_rule *r = msr_rules(&n);

	(void)state;
	for (unsigned int i = 0; i < n; i++) {
		bool emulates = r[i].read == MSR_EMULATE || r[i].write == MSR_EMULATE;

		/* EMULATE names its handler; a handler is named only for EMULATE */
		assert_int_equal(emulates, r[i].handler != MSR_H_NONE);
		assert_true(r[i].handler < MSR_H_COUNT);
		assert_true(r[i].virt <= MSR_VIRT_DEADLINE);
		/* the table gives direct-mode actions: the virtual ones come from virt */
		assert_true(r[i].read <= MSR_IGNORE && r[i].write <= MSR_IGNORE);
		/* only the x2APIC block is the virtual LAPIC's */
		if (r[i].virt == MSR_VIRT_APIC)
			assert_true(r[i].first >= 0x800 && r[i].last <= 0x8ff);
	}
}

static void test_actions_per_mode(void **state)
{
	(void)state;
	/* direct owns the LAPIC: its registers and the deadline pass */
	assert_int_equal(act(0x6e0, TIMER_DIRECT, true), MSR_PASS);
	assert_int_equal(act(0x808, TIMER_DIRECT, true), MSR_PASS);
	assert_int_equal(act(0x80b, TIMER_DIRECT, false), MSR_GP);
	assert_int_equal(act(0x832, TIMER_DIRECT, true), MSR_EMULATE);
	/* inject: the APIC is virtual, the deadline the hardware's */
	assert_int_equal(act(0x6e0, TIMER_INJECT, true), MSR_PASS);
	assert_int_equal(act(0x808, TIMER_INJECT, true), MSR_VAPIC);
	assert_int_equal(act(0x832, TIMER_INJECT, false), MSR_VAPIC);
	assert_int_equal(act(0x80b, TIMER_INJECT, false), MSR_VAPIC);
	/* emulated, pv-lazy: and the deadline is the software timer's */
	assert_int_equal(act(0x6e0, TIMER_EMULATED, true), MSR_SOFT_DEADLINE);
	assert_int_equal(act(0x6e0, TIMER_PV_LAZY, false), MSR_SOFT_DEADLINE);
	assert_int_equal(act(0x83f, TIMER_PV_LAZY, true), MSR_VAPIC);
	/* every mode: the ICR checked, the id and LDR the hardware's, the rest as the table */
	for (unsigned int m = 0; m <= TIMER_MODE_COUNT; m++) {
		assert_int_equal(act(0x830, (enum timer_mode)m, true), MSR_EMULATE);
		assert_int_equal(act(0x802, (enum timer_mode)m, false), MSR_PASS);
		assert_int_equal(act(0x80d, (enum timer_mode)m, false), MSR_EMULATE);
		assert_int_equal(act(0x1b, (enum timer_mode)m, true), MSR_EMULATE);
		assert_int_equal(act(0x480, (enum timer_mode)m, false), MSR_GP);
		assert_int_equal(act(0x12345, (enum timer_mode)m, false), MSR_GP);
	}
	/* an unknown mode has nothing of its own */
	assert_int_equal(act(0x6e0, TIMER_MODE_COUNT, true), MSR_SOFT_DEADLINE);
	assert_int_equal(act(0x808, TIMER_MODE_COUNT, true), MSR_VAPIC);
	/* hv/exit/msr.c's fast row asks for 0x6e0 directly: it is the one deadline row */
	{
		unsigned int n, deadline_rows = 0;
		const struct msr_rule *r = msr_rules(&n);

		for (unsigned int i = 0; i < n; i++)
			if (r[i].virt == MSR_VIRT_DEADLINE) {
				assert_int_equal(r[i].first, 0x6e0);
				assert_int_equal(r[i].last, 0x6e0);
				deadline_rows++;
			}
		assert_int_equal(deadline_rows, 1);
	}
}

/* The virtual set before the table carried it (msr_virtual_apic() as a list). */
static int old_virtual_apic(uint32_t msr)
{
	return msr == 0x808 || msr == 0x80a || msr == 0x80b || msr == 0x80f ||
	       (msr >= 0x810 && msr <= 0x828) || msr == 0x82f ||
	       (msr >= 0x832 && msr <= 0x839) || msr == 0x83e || msr == 0x83f;
}

static const uint32_t probes[][2] = {
	{ 0, 0x1fff }, { 0xc0000000, 0xc0001fff },
};

static void test_bitmaps_per_mode(void **state)
{
	static uint8_t bm[4096], direct[4096], virt[4096];

	(void)state;
	msr_bitmap_build(direct);
	for (unsigned int m = 0; m < TIMER_MODE_COUNT; m++) {
		const struct timer_mode_desc *d = timer_mode((enum timer_mode)m);

		msr_bitmap_build_mode(bm, d);
		/* the two shapes hv/time/vcpu_timer.c builds are the modes' own */
		if (d->owns_lapic) {
			assert_memory_equal(bm, direct, sizeof(bm));
		} else {
			msr_bitmap_build_virtual(virt, d->soft_deadline);
			assert_memory_equal(bm, virt, sizeof(bm));
		}
		for (unsigned int p = 0; p < 2; p++)
			for (uint32_t msr = probes[p][0]; msr <= probes[p][1]; msr++)
				for (int w = 0; w < 2; w++) {
					const struct msr_rule *r = msr_rule_find(msr);
					int pass = (w ? r->write : r->read) == MSR_PASS;

					/* as before the table carried the modes */
					if (!d->owns_lapic && old_virtual_apic(msr))
						pass = 0;
					if (d->soft_deadline && msr == 0x6e0)
						pass = 0;
					assert_int_equal(bit(bm, msr, w), !pass);
				}
	}
	for (uint32_t msr = 0x800; msr <= 0x8ff; msr++)
		assert_int_equal(old_virtual_apic(msr), msr_virtual_apic(msr));
}

/*
 * On a shared core another vCPU runs between two windows: an MSR a guest
 * writes without an exit, in a mode that may share a core, must be kept by
 * someone (the VMCS, root mode's switch, or code of its own).
 */
static void test_kept_on_shared_cores(void **state)
{
	static const uint32_t want[] = {
		0xc0000081, 0xc0000082, 0xc0000083, 0xc0000084, 0xc0000102, 0xc0000103,
	};
	uint32_t got[8];
	unsigned int n;
	const struct msr_rule *r = msr_rules(&n);

	(void)state;
	for (unsigned int m = 0; m < TIMER_MODE_COUNT; m++) {
		const struct timer_mode_desc *d = timer_mode((enum timer_mode)m);

		if (!d->may_share_core)
			continue;
		for (unsigned int i = 0; i < n; i++)
			if (msr_action(&r[i], d, true) == MSR_PASS)
				assert_int_not_equal(r[i].kept, MSR_KEPT_NONE);
	}
	/* what hv/run/switch.c's switched_msrs[] holds, in its order */
	assert_int_equal(msr_root_switched(got, 8), 6);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(msr_root_switched(got, 2), 6);	/* a short array: the count all the same */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handlers_named),
		cmocka_unit_test(test_actions_per_mode),
		cmocka_unit_test(test_bitmaps_per_mode),
		cmocka_unit_test(test_kept_on_shared_cores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
