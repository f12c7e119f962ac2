// SPDX-License-Identifier: MIT
/* The MSR policy table and bitmap, and the ICR destination check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/apic.h"
#include "hv/core/icr.h"
#include "hv/core/msr_policy.h"

static int bitmap_bit(const uint8_t *bm, uint32_t msr, int write)
{
	uint32_t base = (msr >= 0xc0000000 ? 1024 : 0) + (write ? 2048 : 0);

	msr &= 0x1fff;
	return (bm[base + msr / 8] >> (msr % 8)) & 1;
}

static void test_table_sorted_disjoint(void **state)
{
	unsigned int n;
	const struct msr_rule *r = msr_rules(&n);

	(void)state;
	assert_true(n > 10);
	for (unsigned int i = 0; i < n; i++) {
		assert_true(r[i].first <= r[i].last);
		assert_non_null(r[i].what);
		if (i)
			assert_true(r[i - 1].last < r[i].first);
	}
}

static void test_rules(void **state)
{
	(void)state;
	assert_int_equal(msr_rule_find(0x6e0)->write, MSR_PASS);	/* TSC deadline */
	assert_int_equal(msr_rule_find(0x6e0)->read, MSR_PASS);
	assert_int_equal(msr_rule_find(0x3b)->write, MSR_IGNORE);	/* TSC_ADJUST */
	assert_int_equal(msr_rule_find(0x1b)->write, MSR_EMULATE);	/* APIC base */
	assert_int_equal(msr_rule_find(0x830)->write, MSR_EMULATE);	/* ICR */
	assert_int_equal(msr_rule_find(0xda0)->read, MSR_EMULATE);	/* IA32_XSS */
	assert_int_equal(msr_rule_find(0xda0)->write, MSR_EMULATE);
	assert_int_equal(msr_rule_find(0xda0)->handler, MSR_H_XSS);
	assert_int_equal(msr_rule_find(0x80f)->write, MSR_EMULATE);	/* SVR */
	for (uint32_t m = 0x832; m <= 0x837; m++)
		assert_int_equal(msr_rule_find(m)->write, MSR_EMULATE);	/* LVTs */
	assert_int_equal(msr_rule_find(0x80b)->write, MSR_PASS);	/* EOI */
	assert_int_equal(msr_rule_find(0x480)->read, MSR_GP);	/* VMX caps */
	assert_int_equal(msr_rule_find(0x3a)->write, MSR_GP);	/* feature control */
	assert_int_equal(msr_rule_find(0x10)->write, MSR_IGNORE);	/* IA32_TSC */
	assert_int_equal(msr_rule_find(0x277)->write, MSR_PASS);	/* PAT */
	/*
	 * The guest's MTRRs are its own, not the host's (a host's UC default
	 * passed through made Linux trim its RAM): kept and checked per vCPU.
	 */
	assert_int_equal(msr_rule_find(0xfe)->read, MSR_EMULATE);	/* MTRRCAP */
	assert_int_equal(msr_rule_find(0xfe)->write, MSR_GP);
	for (uint32_t m = 0x200; m <= 0x20f; m++)			/* PHYSBASE/MASK 0-7 */
		assert_int_equal(msr_rule_find(m)->handler, MSR_H_MTRR);
	assert_int_equal(msr_rule_find(0x210)->read, MSR_IGNORE);	/* beyond VCNT */
	assert_int_equal(msr_rule_find(0x250)->write, MSR_EMULATE);	/* FIX64K */
	assert_int_equal(msr_rule_find(0x258)->handler, MSR_H_MTRR);	/* FIX16K */
	assert_int_equal(msr_rule_find(0x259)->handler, MSR_H_MTRR);
	assert_int_equal(msr_rule_find(0x268)->handler, MSR_H_MTRR);	/* FIX4K */
	assert_int_equal(msr_rule_find(0x26f)->handler, MSR_H_MTRR);
	assert_int_equal(msr_rule_find(0x270)->read, MSR_IGNORE);
	assert_int_equal(msr_rule_find(0x2fe)->read, MSR_IGNORE);
	assert_int_equal(msr_rule_find(0x2ff)->read, MSR_EMULATE);
	assert_int_equal(msr_rule_find(0x2ff)->write, MSR_EMULATE);
	assert_int_equal(msr_rule_find(0x2ff)->handler, MSR_H_MTRR);
	assert_int_equal(msr_rule_find(0x1a0)->write, MSR_EMULATE);	/* MISC_ENABLE */
	assert_int_equal(msr_rule_find(0x1a0)->handler, MSR_H_MISC_ENABLE);
	/* machine checks: MCG_CAP reads 0 (no bank, no MCG_CTL), the banks #GP */
	assert_int_equal(msr_rule_find(0x179)->read, MSR_IGNORE);
	assert_int_equal(msr_rule_find(0x179)->write, MSR_GP);
	assert_int_equal(msr_rule_find(0x17a)->read, MSR_IGNORE);
	assert_int_equal(msr_rule_find(0x17b)->read, MSR_GP);	/* MCG_CTL: MCG_CAP.MCG_CTL_P = 0 */
	assert_int_equal(msr_rule_find(0x17b)->write, MSR_GP);
	for (uint32_t m = 0x400; m <= 0x47f; m++) {		/* MC0_CTL .. MC31_MISC */
		assert_int_equal(msr_rule_find(m)->read, MSR_GP);
		assert_int_equal(msr_rule_find(m)->write, MSR_GP);
	}
	/* not listed: #GP */
	assert_int_equal(msr_rule_find(0x12345)->read, MSR_GP);
	assert_int_equal(msr_rule_find(0xc0010000)->write, MSR_GP);
}

static void test_bitmap(void **state)
{
	uint8_t bm[4096];

	(void)state;
	msr_bitmap_build(bm);
	assert_int_equal(bitmap_bit(bm, 0x6e0, 1), 0);	/* no exit on deadline writes */
	assert_int_equal(bitmap_bit(bm, 0x6e0, 0), 0);
	assert_int_equal(bitmap_bit(bm, 0x80b, 1), 0);	/* EOI */
	assert_int_equal(bitmap_bit(bm, 0x830, 1), 1);	/* ICR writes exit */
	assert_int_equal(bitmap_bit(bm, 0x830, 0), 1);	/* ICR reads too: the vCPU's own last write */
	assert_int_equal(bitmap_bit(bm, 0x1b, 1), 1);
	assert_int_equal(bitmap_bit(bm, 0x3b, 1), 1);
	assert_int_equal(bitmap_bit(bm, 0x12, 0), 1);	/* unlisted reads exit */
	assert_int_equal(bitmap_bit(bm, 0xc0000080, 1), 1);	/* EFER emulated */
	assert_int_equal(bitmap_bit(bm, 0xc0000100, 1), 0);	/* FS base */
}

static const uint32_t ids[3] = { 1, 2, 17 };

/* What a guest may write to the x2APIC ICR, and what is #GP (SDM figure 11-28). */
static void test_icr_x2apic_reserved(void **state)
{
	static const uint64_t good[] = {
		0x40,				/* fixed */
		(1u << 18) | 0x40,		/* self */
		(3u << 18) | (1u << 14) | 0x40,	/* all but self, level asserted */
		(5u << 8) | (1u << 14) | (1u << 15),	/* INIT assert, level-triggered */
		(5u << 8) | (1u << 15),		/* INIT de-assert */
		(6u << 8) | (1u << 14) | 0x9f,	/* SIPI */
		(1u << 11) | (4u << 8),		/* logical, NMI */
		(1u << 12) | 0x40,		/* delivery status: ignored */
		0xffffffffull << 32 | 0x40,	/* any destination */
	};
	static const int reserved[] = { 13, 16, 17, 20, 24, 31 };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(good[i] & ICR_X2APIC_RESERVED, 0);
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		assert_true((0x40 | 1ull << reserved[i]) & ICR_X2APIC_RESERVED);
}

static void test_icr_physical(void **state)
{
	struct icr_route r;

	(void)state;
	r = icr_route(ids, 3, 0, ((uint64_t)2 << 32) | 0x40);
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 2);
	assert_int_equal(r.vector, 0x40);
	/* another partition's CPU, or the hypervisor's */
	r = icr_route(ids, 3, 0, ((uint64_t)0 << 32) | 0x40);
	assert_int_equal(r.verdict, ICR_DENY);
	assert_non_null(r.why);
	/* the physical broadcast: every vCPU of the partition, none beyond it */
	r = icr_route(ids, 3, 0, ((uint64_t)0xffffffff << 32) | 0x40);
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 7);
	/* illegal vector */
	r = icr_route(ids, 3, 0, ((uint64_t)2 << 32) | 0x05);
	assert_int_equal(r.verdict, ICR_DENY);
}

static void test_icr_modes(void **state)
{
	struct icr_route r;
	uint64_t to2 = (uint64_t)2 << 32;

	(void)state;
	r = icr_route(ids, 3, 0, to2 | ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
	assert_int_equal(r.verdict, ICR_INIT);
	r = icr_route(ids, 3, 0, to2 | ICR_DELIVERY_INIT);	/* de-assert */
	assert_int_equal(r.verdict, ICR_IGNORE);
	r = icr_route(ids, 3, 0, to2 | ICR_DELIVERY_SIPI | 0x08);
	assert_int_equal(r.verdict, ICR_SIPI);
	assert_int_equal(r.vector, 8);
	/* NMIs inside the partition are virtual NMIs; lowest priority reaches one */
	r = icr_route(ids, 3, 0, to2 | ICR_DELIVERY_NMI);
	assert_int_equal(r.verdict, ICR_NMI);
	assert_int_equal(r.targets, 2);
	assert_int_equal(icr_route(ids, 3, 0, to2 | ICR_DELIVERY_SMI).verdict, ICR_DENY);
	r = icr_route(ids, 3, 0, ICR_SHORTHAND_ALL | ICR_DELIVERY_LOWEST | 0x40);
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 7);		/* all of them, for icr_pick_one */
	assert_true(r.one);
	assert_false(icr_route(ids, 3, 0, ICR_SHORTHAND_ALL | 0x40).one);	/* fixed: each */
	/* the lowest index that can take it; one waiting for SIPI is passed over */
	assert_int_equal(icr_pick_one(7, 7), 1);
	assert_int_equal(icr_pick_one(7, 6), 2);
	assert_int_equal(icr_pick_one(6, 5), 4);
	/* none can: the lowest target, which drops and counts it */
	assert_int_equal(icr_pick_one(6, 1), 2);
	assert_int_equal(icr_pick_one(0, 7), 0);
	assert_int_equal(icr_pick_one(1ull << 63, ~0ull), 1ull << 63);
	assert_int_equal(icr_route(ids, 3, 0, to2 | ICR_DELIVERY_LOWEST | 0x05).verdict,
			 ICR_DENY);
	/* an NMI outside the partition is still outside */
	r = icr_route(ids, 3, 0, ((uint64_t)9 << 32) | ICR_DELIVERY_NMI);
	assert_int_equal(r.verdict, ICR_DENY);
	assert_true(r.outside);
	assert_int_equal(icr_route(ids, 3, 0, to2 | (3u << 8)).verdict, ICR_DENY);
	assert_int_equal(icr_route(ids, 3, 0, to2 | (7u << 8)).verdict, ICR_DENY);
}

static void test_icr_shorthands_and_logical(void **state)
{
	struct icr_route r;

	(void)state;
	r = icr_route(ids, 3, 1, ICR_SHORTHAND_SELF | 0x30);
	assert_int_equal(r.targets, 2);
	r = icr_route(ids, 3, 1, ICR_SHORTHAND_ALL | 0x30);
	assert_int_equal(r.targets, 7);
	r = icr_route(ids, 3, 1, ICR_SHORTHAND_OTHERS | ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
	assert_int_equal(r.verdict, ICR_INIT);
	assert_int_equal(r.targets, 5);
	/* cluster 0, APICs 1 and 2: both ours */
	r = icr_route(ids, 3, 0, ((uint64_t)0x00000006 << 32) | ICR_DEST_LOGICAL | 0x30);
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 3);
	/* cluster 1, APIC 17 (bit 1) */
	r = icr_route(ids, 3, 0, ((uint64_t)0x00010002 << 32) | ICR_DEST_LOGICAL | 0x30);
	assert_int_equal(r.targets, 4);
	/* cluster 0 APIC 0 is not ours: refused even with ours in the mask */
	r = icr_route(ids, 3, 0, ((uint64_t)0x00000007 << 32) | ICR_DEST_LOGICAL | 0x30);
	assert_int_equal(r.verdict, ICR_DENY);
	r = icr_route(ids, 3, 0, ((uint64_t)0xffffffff << 32) | ICR_DEST_LOGICAL | 0x30);
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 7);
	assert_int_equal(x2apic_logical_id(17), 0x00010002);
	/* nothing addressed goes nowhere, as on a CPU: ignored, not refused */
	r = icr_route(ids, 1, 0, ICR_SHORTHAND_OTHERS | 0x30);
	assert_int_equal(r.verdict, ICR_IGNORE);
	assert_int_equal(r.targets, 0);
	r = icr_route(ids, 1, 0, ICR_SHORTHAND_OTHERS | ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
	assert_int_equal(r.verdict, ICR_IGNORE);
	r = icr_route(ids, 3, 0, ((uint64_t)0x00050000 << 32) | ICR_DEST_LOGICAL | 0x30);
	assert_int_equal(r.verdict, ICR_IGNORE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted_disjoint),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_bitmap),
		cmocka_unit_test(test_icr_x2apic_reserved),
		cmocka_unit_test(test_icr_physical),
		cmocka_unit_test(test_icr_modes),
		cmocka_unit_test(test_icr_shorthands_and_logical),
	};

	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
