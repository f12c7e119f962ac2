// SPDX-License-Identifier: MIT
/* Which speculative-execution mitigations a CPU needs, and the SMT sibling test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/x86/msr.h"
#include "hv/core/msr_policy.h"
#include "hv/core/spec.h"

/* Skylake-class CPU with current microcode: IBRS/IBPB, STIBP, L1D_FLUSH, MD_CLEAR, SSBD */
#define SKL_EDX7	(CPUID_7_EDX_IBRS_IBPB | CPUID_7_EDX_STIBP | CPUID_7_EDX_L1D_FLUSH | \
			 CPUID_7_EDX_MD_CLEAR | CPUID_7_EDX_SSBD)

static void test_plan(void **state)
{
	struct spec_plan p;

	(void)state;
	/* an old CPU (or Bochs): nothing exists, nothing is done */
	p = spec_plan_make(0, 0, 0);
	assert_false(p.spec_ctrl);
	assert_false(p.pred_cmd);
	assert_false(p.flush_cmd);
	assert_false(p.arch_caps);
	assert_int_equal(p.entry, SPEC_ENTRY_NONE);

	/* Skylake without ARCH_CAPABILITIES: L1TF-affected, flush on entry */
	p = spec_plan_make(SKL_EDX7, 0, 0);
	assert_true(p.spec_ctrl);
	assert_true(p.pred_cmd);
	assert_true(p.flush_cmd);
	assert_int_equal(p.entry, SPEC_ENTRY_L1D_FLUSH);

	/* an ARCH_CAPABILITIES value without the CPUID bit is not believed */
	p = spec_plan_make(SKL_EDX7, 0, ARCH_CAP_RDCL_NO | ARCH_CAP_MDS_NO);
	assert_int_equal(p.entry, SPEC_ENTRY_L1D_FLUSH);

	/* the CPU flushes L1D itself on VM entry (nested hypervisor below us) */
	p = spec_plan_make(SKL_EDX7 | CPUID_7_EDX_ARCH_CAPS, 0, ARCH_CAP_SKIP_L1DFL_VMENTRY);
	assert_int_equal(p.entry, SPEC_ENTRY_VERW);
	assert_true(p.arch_caps);

	/* Cascade Lake: RDCL_NO (no L1TF) but MDS/TAA through MD_CLEAR: VERW */
	p = spec_plan_make(SKL_EDX7 | CPUID_7_EDX_ARCH_CAPS, 0, ARCH_CAP_RDCL_NO);
	assert_int_equal(p.entry, SPEC_ENTRY_VERW);

	/* Ice Lake and later: RDCL_NO and MDS_NO: nothing on entry */
	p = spec_plan_make(SKL_EDX7 | CPUID_7_EDX_ARCH_CAPS, 0, ARCH_CAP_RDCL_NO | ARCH_CAP_MDS_NO);
	assert_int_equal(p.entry, SPEC_ENTRY_NONE);
	assert_true(p.pred_cmd);

	/* L1TF-affected but no L1D_FLUSH command (old microcode), MD_CLEAR: VERW */
	p = spec_plan_make(CPUID_7_EDX_IBRS_IBPB | CPUID_7_EDX_MD_CLEAR, 0, 0);
	assert_int_equal(p.entry, SPEC_ENTRY_VERW);
	assert_false(p.flush_cmd);

	/* STIBP or SSBD alone still mean IA32_SPEC_CTRL exists; no IBPB then */
	p = spec_plan_make(CPUID_7_EDX_SSBD, 0, 0);
	assert_true(p.spec_ctrl);
	assert_false(p.pred_cmd);
}

static void test_guest_view(void **state)
{
	(void)state;
	/* what has a row stays; SRBDS_CTRL, TSX_FORCE_ABORT, CORE_CAPS go */
	assert_int_equal(spec_guest_cpuid7_edx(SKL_EDX7 | CPUID_7_EDX_ARCH_CAPS),
			 SKL_EDX7 | CPUID_7_EDX_ARCH_CAPS);
	assert_int_equal(spec_guest_cpuid7_edx(CPUID_7_EDX_SRBDS_CTRL | CPUID_7_EDX_CORE_CAPS |
					       CPUID_7_EDX_TSX_FORCE_ABORT | CPUID_7_EDX_MD_CLEAR),
			 CPUID_7_EDX_MD_CLEAR);
	assert_int_equal(spec_guest_arch_caps(ARCH_CAP_RDCL_NO | ARCH_CAP_MDS_NO |
					      ARCH_CAP_TSX_CTRL | ARCH_CAP_FB_CLEAR_CTRL),
			 ARCH_CAP_RDCL_NO | ARCH_CAP_MDS_NO);
	assert_true(spec_pred_cmd_valid(0));
	assert_true(spec_pred_cmd_valid(PRED_CMD_IBPB));
	assert_false(spec_pred_cmd_valid(2));
	assert_false(spec_pred_cmd_valid(1ull << 63));
	assert_true(spec_flush_cmd_valid(FLUSH_CMD_L1D));
	assert_false(spec_flush_cmd_valid(3));
}

static void test_smt(void **state)
{
	/* partitions: a on CPUs 0-1, b on CPU 2, c on CPU 3, b and c share CPU 4 */
	/* partitions on CPUs {0,1}, {2,4} and {3,4, and 300 and 4095 far above 63} */
	static struct cpuset sets[3] = { { { 0x3 } }, { { 0x14 } }, { { 0x18 } } };
	const struct cpuset *const masks[] = { &sets[0], &sets[1], &sets[2] };

	cpuset_add(&sets[2], 300);
	cpuset_add(&sets[2], 4095);

	(void)state;
	/* leaf 0xB: SMT level, 1 bit of thread id (2 threads a core) */
	assert_int_equal(spec_smt_shift(0x16, 1, CPUID_B_LEVEL_SMT << 8), 1);
	/* no leaf 0xB, or sub-leaf 0 is not the SMT level: no information */
	assert_int_equal(spec_smt_shift(0xa, 1, CPUID_B_LEVEL_SMT << 8), 0);
	assert_int_equal(spec_smt_shift(0x16, 4, 2u << 8), 0);
	/* x2APIC ids 4 and 5 are one core's threads; 5 and 6 are not */
	assert_true(spec_smt_siblings(4, 5, 1));
	assert_false(spec_smt_siblings(5, 6, 1));
	assert_false(spec_smt_siblings(4, 4, 1));
	assert_false(spec_smt_siblings(4, 5, 0));
	/* 4 threads a core (Xeon Phi): 8-11 share one */
	assert_true(spec_smt_siblings(8, 11, 2));
	assert_false(spec_smt_siblings(8, 12, 2));
	/* the same partition on both: no split; different ones: split */
	assert_false(spec_cpus_split(masks, 3, 0, 1));
	assert_true(spec_cpus_split(masks, 3, 1, 2));
	assert_true(spec_cpus_split(masks, 3, 2, 3));
	/* a shared CPU holds two partitions already */
	assert_true(spec_cpus_split(masks, 3, 4, 5));
	/* CPUs no partition uses (the hypervisor's) */
	assert_false(spec_cpus_split(masks, 3, 5, 6));
	assert_false(spec_cpus_split(masks, 3, 0, 6));
	/* CPU indexes above 63 */
	assert_true(spec_cpus_split(masks, 3, 300, 2));
	assert_false(spec_cpus_split(masks, 3, 300, 4095));
	assert_false(spec_cpus_split(masks, 3, 301, 4096));
}

/* The speculation MSRs have rows: none falls through to "not in the table: #GP". */
static void test_msr_rows(void **state)
{
	uint8_t bitmap[4096];
	const struct msr_rule *r;

	(void)state;
	r = msr_rule_find(MSR_IA32_SPEC_CTRL);
	assert_int_equal(r->read, MSR_PASS);
	assert_int_equal(r->write, MSR_PASS);
	r = msr_rule_find(MSR_IA32_PRED_CMD);
	assert_int_equal(r->read, MSR_GP);	/* write-only */
	assert_int_equal(r->write, MSR_EMULATE);
	r = msr_rule_find(MSR_IA32_ARCH_CAPABILITIES);
	assert_int_equal(r->read, MSR_EMULATE);
	assert_int_equal(r->write, MSR_GP);	/* read-only */
	r = msr_rule_find(MSR_IA32_FLUSH_CMD);
	assert_int_equal(r->read, MSR_GP);
	assert_int_equal(r->write, MSR_EMULATE);
	/* SPEC_CTRL costs no exit; PRED_CMD and FLUSH_CMD writes exit to be checked */
	msr_bitmap_build(bitmap);
	assert_int_equal(bitmap[MSR_IA32_SPEC_CTRL / 8] & (1u << (MSR_IA32_SPEC_CTRL % 8)), 0);
	assert_int_equal(bitmap[2048 + MSR_IA32_SPEC_CTRL / 8] & (1u << (MSR_IA32_SPEC_CTRL % 8)),
			 0);
	assert_int_not_equal(bitmap[2048 + MSR_IA32_PRED_CMD / 8] &
			     (1u << (MSR_IA32_PRED_CMD % 8)), 0);
	assert_int_not_equal(bitmap[2048 + MSR_IA32_FLUSH_CMD / 8] &
			     (1u << (MSR_IA32_FLUSH_CMD % 8)), 0);
}

/* MDS_NO parts still need VERW for TAA (TSX present, no TAA_NO) and RFDS (RFDS_CLEAR) */
static void test_plan_taa_rfds(void **state)
{
	struct spec_plan p;
	uint32_t edx7 = CPUID_7_EDX_MD_CLEAR | CPUID_7_EDX_ARCH_CAPS;

	(void)state;
	p = spec_plan_make(edx7, CPUID_7_EBX_RTM, ARCH_CAP_RDCL_NO | ARCH_CAP_MDS_NO);
	assert_int_equal(p.entry, SPEC_ENTRY_VERW);
	p = spec_plan_make(edx7, CPUID_7_EBX_RTM,
			   ARCH_CAP_RDCL_NO | ARCH_CAP_MDS_NO | ARCH_CAP_TAA_NO);
	assert_int_equal(p.entry, SPEC_ENTRY_NONE);
	p = spec_plan_make(edx7, 0, ARCH_CAP_MDS_NO | ARCH_CAP_RFDS_CLEAR);
	assert_int_equal(p.entry, SPEC_ENTRY_VERW);
	p = spec_plan_make(edx7, 0, ARCH_CAP_MDS_NO | ARCH_CAP_RFDS_CLEAR | ARCH_CAP_RFDS_NO);
	assert_int_equal(p.entry, SPEC_ENTRY_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_taa_rfds),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_guest_view),
		cmocka_unit_test(test_smt),
		cmocka_unit_test(test_msr_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
