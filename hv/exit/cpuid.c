// SPDX-License-Identifier: MIT
/*
 * CPUID exits: the real CPUID where the policy starts from the host's answer,
 * then the rows of hv/core/cpuid_policy.c with this vCPU's facts.
 */
#include "arch/x86/cpu.h"
#include "arch/x86/vmx.h"
#include "hv/core/cpuid_policy.h"
#include "hv/exit/exit.h"
#include "hv/ops/console.h"
#include "hv/state/platform.h"

#define CR4_OSXSAVE	(1ull << 18)
#define CR4_PKE		(1ull << 22)

static uint32_t cpuid_stats(void *ctx)
{
	return snapshot_vcpu(ctx);
}

enum exit_action exit_cpuid(struct vcpu *v, struct exit_ctx *x)
{
	uint32_t leaf = (uint32_t)v->arch.regs.rax, sub = (uint32_t)v->arch.regs.rcx;
	uint64_t cr4;
	struct cpuid_facts f = {
		.max_basic = platform.cpuid_max_basic,
		.tsc_hz = platform.tsc_hz,
		.xcr0_allowed = xsave_plan.xcr0_allowed,
		.xsave_area_bytes = xsave_plan.area_bytes,
		.has_invpcid = vmx_ctl.has_invpcid,
		.has_xsaves = vmx_ctl.has_xsaves,
		.has_rdtscp = vmx_ctl.has_rdtscp,
		.stats = cpuid_stats,
		.stats_ctx = v,
	};
	struct cpuid_out r = { { 0, 0, 0, 0 } };

	(void)x;
	if (leaf == HV_TEST_FAULT_LEAF && hv_test_exit_fault)
		asm volatile("ud2");
	cr4 = vmread(VMCS_GUEST_CR4);
	f.guest_osxsave = cr4 & CR4_OSXSAVE;
	f.guest_pke = cr4 & CR4_PKE;
	f.guest_apic_on = v->apic.base.mode != APIC_MODE_DISABLED;
	if (cpuid_policy_source(&f, leaf) == CPUID_SRC_HOST) {
		struct cpuid_regs h = cpuid(leaf, sub);

		r.reg[CPUID_EAX] = h.eax;
		r.reg[CPUID_EBX] = h.ebx;
		r.reg[CPUID_ECX] = h.ecx;
		r.reg[CPUID_EDX] = h.edx;
	}
	cpuid_policy_apply(&f, leaf, sub, &r);
	v->arch.regs.rax = r.reg[CPUID_EAX];
	v->arch.regs.rbx = r.reg[CPUID_EBX];
	v->arch.regs.rcx = r.reg[CPUID_ECX];
	v->arch.regs.rdx = r.reg[CPUID_EDX];
	skip_instruction();
	return EXIT_RESUME;
}
