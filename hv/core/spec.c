// SPDX-License-Identifier: MIT
#include "hv/core/spec.h"

struct spec_plan spec_plan_make(uint32_t edx7, uint32_t ebx7, uint64_t arch_caps)
{
	struct spec_plan p = { false, false, false, false, SPEC_ENTRY_NONE };

	if (!(edx7 & CPUID_7_EDX_ARCH_CAPS))
		arch_caps = 0;	/* no MSR: the CPU claims no immunity */
	p.spec_ctrl = edx7 & (CPUID_7_EDX_IBRS_IBPB | CPUID_7_EDX_STIBP | CPUID_7_EDX_SSBD);
	p.pred_cmd = edx7 & CPUID_7_EDX_IBRS_IBPB;
	p.flush_cmd = edx7 & CPUID_7_EDX_L1D_FLUSH;
	p.arch_caps = edx7 & CPUID_7_EDX_ARCH_CAPS;
	/*
	 * L1TF: a guest may read L1D lines the hypervisor or another partition
	 * left (Intel "Deep Dive: L1 Terminal Fault"). On MD_CLEAR CPUs the L1D
	 * flush also overwrites the buffers VERW would, so one of the two is enough.
	 */
	if (p.flush_cmd && !(arch_caps & (ARCH_CAP_RDCL_NO | ARCH_CAP_SKIP_L1DFL_VMENTRY)))
		p.entry = SPEC_ENTRY_L1D_FLUSH;
	else if ((edx7 & CPUID_7_EDX_MD_CLEAR) &&
		 (!(arch_caps & ARCH_CAP_MDS_NO) ||
		  /* TAA: MDS_NO parts with TSX still leak through aborts (TAA_NO) */
		  ((ebx7 & CPUID_7_EBX_RTM) && !(arch_caps & ARCH_CAP_TAA_NO)) ||
		  /* RFDS: VERW clears the register file where RFDS_CLEAR says so */
		  ((arch_caps & ARCH_CAP_RFDS_CLEAR) && !(arch_caps & ARCH_CAP_RFDS_NO))))
		p.entry = SPEC_ENTRY_VERW;
	return p;
}

uint32_t spec_guest_cpuid7_edx(uint32_t edx7)
{
	/* IA32_MCU_OPT_CTRL, IA32_TSX_FORCE_ABORT, IA32_CORE_CAPABILITIES: no row, #GP */
	return edx7 & ~(CPUID_7_EDX_SRBDS_CTRL | CPUID_7_EDX_TSX_FORCE_ABORT |
			CPUID_7_EDX_CORE_CAPS);
}

uint64_t spec_guest_arch_caps(uint64_t host)
{
	return host & ~(ARCH_CAP_TSX_CTRL | ARCH_CAP_MCU_CONTROL | ARCH_CAP_DOITM |
			ARCH_CAP_FB_CLEAR_CTRL);
}

bool spec_pred_cmd_valid(uint64_t value)
{
	return !(value & ~(uint64_t)PRED_CMD_IBPB);
}

bool spec_flush_cmd_valid(uint64_t value)
{
	return !(value & ~(uint64_t)FLUSH_CMD_L1D);
}

uint32_t spec_smt_shift(uint32_t max_basic_leaf, uint32_t eax_b0, uint32_t ecx_b0)
{
	if (max_basic_leaf < 0xb || ((ecx_b0 >> 8) & 0xff) != CPUID_B_LEVEL_SMT)
		return 0;
	return eax_b0 & 0x1f;
}

bool spec_smt_siblings(uint32_t apic_a, uint32_t apic_b, uint32_t smt_shift)
{
	if (apic_a == apic_b)
		return false;
	return smt_shift >= 32 || !((apic_a ^ apic_b) >> smt_shift);
}

bool spec_cpus_split(const struct cpuset *const *sets, uint32_t count, uint32_t a, uint32_t b)
{
	uint32_t users = 0;

	for (uint32_t i = 0; i < count; i++)
		if (cpuset_has(sets[i], a) || cpuset_has(sets[i], b))
			users++;
	return users > 1;
}
