// SPDX-License-Identifier: MIT
/* The CPUID policy table: its rows, and what a guest sees through them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/cpuid_policy.h"
#include "hv/core/hypercall_abi.h"
#include "hv/core/spec.h"
#include "hv/core/xcr0.h"

#define B(n) (1u << (n))

static unsigned int stats_calls;

static uint32_t stats_stub(void *ctx)
{
	(void)ctx;
	stats_calls++;
	return 1;
}

static struct cpuid_facts facts(void)
{
	struct cpuid_facts f = {
		.max_basic = 0x20, .tsc_hz = 2400000000ull,
		.xcr0_allowed = XCR0_X87 | XCR0_SSE | XCR0_AVX | XCR0_PKRU,
		.xsave_area_bytes = 1000,
		.has_invpcid = true, .has_xsaves = true, .has_rdtscp = true, .guest_apic_on = true,
		.stats = stats_stub,
	};

	return f;
}

/* The answer a guest gets when the CPU answers @host (all ones by default). */
static struct cpuid_out ask(const struct cpuid_facts *f, uint32_t leaf, uint32_t sub, uint32_t host)
{
	struct cpuid_out r = { { 0, 0, 0, 0 } };

	if (cpuid_policy_source(f, leaf) == CPUID_SRC_HOST)
		r.reg[0] = r.reg[1] = r.reg[2] = r.reg[3] = host;
	cpuid_policy_apply(f, leaf, sub, &r);
	return r;
}

static void test_rows_sorted_explained(void **state)
{
	unsigned int n;
	const struct cpuid_rule *r = cpuid_rules(&n);

	(void)state;
	assert_true(n > 10);
	for (unsigned int i = 0; i < n; i++) {
		assert_non_null(r[i].why);
		assert_true(strlen(r[i].why) > 3);
		assert_true(r[i].reg <= CPUID_EDX);
		assert_true(r[i].op <= CPUID_SYNTH);
		assert_true(r[i].when <= CPUID_GUEST_APIC_ON);
		if (i)
			assert_true(r[i - 1].leaf <= r[i].leaf);
		/* a mirror needs a fact to mirror */
		if (r[i].op == CPUID_MIRROR)
			assert_true(r[i].when != CPUID_ALWAYS);
	}
}

/* Leaf 1: VMX, SMX, MWAIT hidden; x2APIC and the TSC deadline passed; the hypervisor bit set. */
static void test_leaf1(void **state)
{
	struct cpuid_facts f = facts();
	struct cpuid_out r = ask(&f, 1, 0, 0xffffffff);

	(void)state;
	assert_false(r.reg[CPUID_ECX] & B(5));		/* VMX */
	assert_false(r.reg[CPUID_ECX] & B(6));		/* SMX */
	assert_false(r.reg[CPUID_ECX] & B(3));		/* MONITOR */
	assert_true(r.reg[CPUID_ECX] & B(21));		/* x2APIC: the guest's APIC mode */
	assert_true(r.reg[CPUID_ECX] & B(24));		/* TSC deadline */
	assert_true(r.reg[CPUID_ECX] & B(31));		/* hypervisor */
	assert_false(r.reg[CPUID_EDX] & B(7));		/* MCE */
	assert_false(r.reg[CPUID_EDX] & B(14));		/* MCA */
	assert_true(r.reg[CPUID_EDX] & B(9));		/* APIC: enabled */
	/* APIC is IA32_APIC_BASE's enable bit (kvm-unit-tests' apic test checks it) */
	f.guest_apic_on = false;
	assert_false(ask(&f, 1, 0, 0xffffffff).reg[CPUID_EDX] & B(9));
	f.guest_apic_on = true;
	/* OSXSAVE is the guest's CR4 bit, whatever the host's */
	assert_false(r.reg[CPUID_ECX] & B(27));
	f.guest_osxsave = true;
	r = ask(&f, 1, 0, 0);
	assert_true(r.reg[CPUID_ECX] & B(27));
	assert_int_equal(r.reg[CPUID_ECX], B(27) | B(31));
}

static void test_leaf7(void **state)
{
	struct cpuid_facts f = facts();
	struct cpuid_out r = ask(&f, 7, 0, 0xffffffff);

	(void)state;
	assert_false(r.reg[CPUID_EBX] & B(1));		/* TSC_ADJUST */
	assert_true(r.reg[CPUID_EBX] & B(10));		/* INVPCID, VMX has it */
	assert_false(r.reg[CPUID_ECX] & B(5));		/* WAITPKG */
	/* features whose MSRs are #GP: RDT, MPX, PT; CET, TME, ENQCMD, PKS; UINTR, PCONFIG, arch LBR */
	assert_false(r.reg[CPUID_EBX] & (B(2) | B(12) | B(14) | B(15) | B(25)));
	assert_false(r.reg[CPUID_ECX] & (B(7) | B(13) | B(23) | B(24) | B(29) | B(30) | B(31)));
	assert_false(r.reg[CPUID_EDX] & (B(5) | B(18) | B(19) | B(20)));
	assert_true(r.reg[CPUID_ECX] & B(22));		/* RDPID, where RDTSCP is enabled */
	/* sub-leaf 1: ArchPerfmonExt, FRED, NMI_SRC, HRESET, MSRLIST; PPIN; USER_MSR */
	r = ask(&f, 7, 1, 0xffffffff);
	assert_false(r.reg[CPUID_EAX] & (B(8) | B(17) | B(20) | B(22) | B(27)));
	assert_true(r.reg[CPUID_EAX] & B(18));		/* LKGS: an instruction, no MSR */
	assert_false(r.reg[CPUID_EBX] & B(0));
	assert_false(r.reg[CPUID_EDX] & B(15));
	/* sub-leaf 2: UC_LOCK_DISABLE */
	r = ask(&f, 7, 2, 0xffffffff);
	assert_false(r.reg[CPUID_EDX] & B(6));
	/* RDPID goes with RDTSCP (SDM: #UD in VMX non-root without it) */
	f.has_rdtscp = false;
	r = ask(&f, 7, 0, 0xffffffff);
	assert_false(r.reg[CPUID_ECX] & B(22));
	f.has_rdtscp = true;
	r = ask(&f, 7, 0, 0xffffffff);
	assert_false(r.reg[CPUID_ECX] & B(4));		/* OSPKE: CR4.PKE clear */
	assert_true(r.reg[CPUID_ECX] & B(3));		/* PKU: PKRU allowed */
	/* speculation controls: those with no MSR row hidden (spec_guest_cpuid7_edx) */
	assert_false(r.reg[CPUID_EDX] & (CPUID_7_EDX_SRBDS_CTRL | CPUID_7_EDX_TSX_FORCE_ABORT |
					 CPUID_7_EDX_CORE_CAPS));
	assert_true(r.reg[CPUID_EDX] & CPUID_7_EDX_IBRS_IBPB);
	f.guest_pke = true;
	f.has_invpcid = false;
	r = ask(&f, 7, 0, 0);
	assert_int_equal(r.reg[CPUID_ECX], B(4));
	r = ask(&f, 7, 0, 0xffffffff);
	assert_false(r.reg[CPUID_EBX] & B(10));
	/* PKU hidden where PKRU is not in the guests' XCR0 */
	f.xcr0_allowed &= ~XCR0_PKRU;
	r = ask(&f, 7, 0, 0xffffffff);
	assert_false(r.reg[CPUID_ECX] & B(3));
	/* other sub-leaves: not the sub-leaf 0 rows */
	r = ask(&f, 7, 2, 0xffffffff);
	assert_true(r.reg[CPUID_EBX] & B(1));
}

/* the leaves of hidden features read 0, as on a CPU without them */
static void test_hidden_leaves(void **state)
{
	static const uint32_t leaves[] = { 0xf, 0x10, 0x12, 0x14, 0x19, 0x1b, 0x1c, 0x20, 0x23 };
	struct cpuid_facts f = facts();

	(void)state;
	f.max_basic = 0x23;
	for (unsigned int i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
		struct cpuid_out r = ask(&f, leaves[i], 0, 0xffffffff);

		for (int reg = CPUID_EAX; reg <= CPUID_EDX; reg++)
			assert_int_equal(r.reg[reg], 0);
	}
	/* a leaf with no hidden feature is still the host's */
	assert_int_equal(ask(&f, 0xb, 0, 0x1234).reg[CPUID_EBX], 0x1234);
}

static void test_leaf_d(void **state)
{
	struct cpuid_facts f = facts();
	struct cpuid_out r = ask(&f, 0xd, 0, 0xffffffff);

	(void)state;
	assert_int_equal(r.reg[CPUID_EAX], (uint32_t)f.xcr0_allowed);
	assert_int_equal(r.reg[CPUID_EDX], 0);
	assert_int_equal(r.reg[CPUID_ECX], f.xsave_area_bytes);
	/* a component not allowed: as for one the CPU lacks */
	r = ask(&f, 0xd, 5, 0xffffffff);
	assert_int_equal(r.reg[CPUID_EAX] | r.reg[CPUID_EBX] | r.reg[CPUID_ECX] |
				 r.reg[CPUID_EDX], 0);
	r = ask(&f, 0xd, 9, 0x1234);
	assert_int_equal(r.reg[CPUID_EAX], 0x1234);
	r = ask(&f, 0xd, 1, 0xffffffff);
	assert_true(r.reg[CPUID_EAX] & B(3));
	/* IA32_XSS stays 0: no supervisor component offered (Intel PT, CET, ...) */
	assert_int_equal(r.reg[CPUID_ECX], 0);
	assert_int_equal(r.reg[CPUID_EDX], 0);
	f.has_xsaves = false;
	r = ask(&f, 0xd, 1, 0xffffffff);
	assert_false(r.reg[CPUID_EAX] & B(3));
}

static void test_tsc_and_tempo_leaves(void **state)
{
	struct cpuid_facts f = facts();
	struct cpuid_out r;

	(void)state;
	r = ask(&f, 0x15, 0, 0xffffffff);
	assert_int_equal(r.reg[CPUID_EAX], 1);
	assert_int_equal(r.reg[CPUID_EBX], 1);
	assert_int_equal(r.reg[CPUID_ECX], 2400000000u);
	r = ask(&f, 0x16, 0, 0xffffffff);
	assert_int_equal(r.reg[CPUID_EAX], 2400);
	assert_int_equal(r.reg[CPUID_ECX], 100);
	f.tsc_hz = 5000000000ull;
	r = ask(&f, 0x15, 0, 0);
	assert_int_equal(r.reg[CPUID_EBX], 1000);
	assert_int_equal(r.reg[CPUID_ECX], 5000000);
	/* unknown frequency on a CPU that has the leaf: the CPU's answer */
	f.tsc_hz = 0;
	r = ask(&f, 0x15, 0, 0x77);
	assert_int_equal(r.reg[CPUID_EAX], 0x77);
	/* a CPU without leaves 0xe..0x16: empty, and the TSC leaves synthesised */
	f.max_basic = 0xd;
	assert_int_equal(ask(&f, 0, 0, 0xd).reg[CPUID_EAX], 0x16);
	assert_int_equal(ask(&f, 0, 0, 0x1f).reg[CPUID_EAX], 0x1f);
	assert_int_equal(cpuid_policy_source(&f, 0xe), CPUID_SRC_ZERO);
	assert_int_equal(cpuid_policy_source(&f, 0x17), CPUID_SRC_HOST);
	assert_int_equal(ask(&f, 0x15, 0, 0xffffffff).reg[CPUID_EAX], 1);
	/* Tempo's leaves */
	f = facts();
	r = ask(&f, TEMPO_CPUID_BASE, 0, 0xffffffff);
	assert_int_equal(r.reg[CPUID_EAX], TEMPO_CPUID_STATS);
	assert_int_equal(r.reg[CPUID_EBX], TEMPO_CPUID_SIG_EBX);
	assert_int_equal(r.reg[CPUID_ECX], TEMPO_CPUID_SIG_ECX);
	assert_int_equal(r.reg[CPUID_EDX], TEMPO_CPUID_SIG_EDX);
	assert_int_equal(ask(&f, TEMPO_CPUID_BASE + 1, 0, 0).reg[CPUID_EAX],
			 TEMPO_FEATURE_PV_LAZY_TIMER);
	assert_int_equal(ask(&f, TEMPO_CPUID_TIMING, 0, 0).reg[CPUID_EAX], 2400000);
	assert_int_equal(ask(&f, 0x40000005, 0, 0).reg[CPUID_EAX], 0);
	stats_calls = 0;
	assert_int_equal(ask(&f, TEMPO_CPUID_STATS, 0, 0).reg[CPUID_EAX], 1);
	assert_int_equal(stats_calls, 1);
	ask(&f, TEMPO_CPUID_TIMING, 0, 0);
	assert_int_equal(stats_calls, 1);	/* only its own leaf takes a snapshot */
}

static void test_extended(void **state)
{
	struct cpuid_facts f = facts();
	struct cpuid_out r = ask(&f, 0x80000001, 0, 0xffffffff);

	(void)state;
	assert_false(r.reg[CPUID_ECX] & B(2));		/* SVM */
	assert_true(r.reg[CPUID_EDX] & B(27));		/* RDTSCP */
	f.has_rdtscp = false;
	assert_false(ask(&f, 0x80000001, 0, 0xffffffff).reg[CPUID_EDX] & B(27));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_sorted_explained),
		cmocka_unit_test(test_leaf1),
		cmocka_unit_test(test_leaf7),
		cmocka_unit_test(test_hidden_leaves),
		cmocka_unit_test(test_leaf_d),
		cmocka_unit_test(test_tsc_and_tempo_leaves),
		cmocka_unit_test(test_extended),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
