// SPDX-License-Identifier: MIT
#include "arch/x86/spec_ctl.h"

#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"

#define CPUID_7_EDX_ARCH_CAPABILITIES	(1u << 29)	/* IA32_ARCH_CAPABILITIES */

uint64_t spec_arch_caps;
uint8_t spec_entry_mode;
/*
 * VERW's memory operand: any selector works, a writable data segment is the
 * fastest (Intel, "Microarchitectural Data Sampling"); the root-mode SS is one.
 */
uint16_t spec_verw_sel;

struct spec_cpu spec_read_cpu(uint32_t max_basic_leaf)
{
	struct spec_cpu s = { 0, 0, 0 };

	if (max_basic_leaf >= 7) {
		s.edx7 = cpuid(7, 0).edx;
		s.ebx7 = cpuid(7, 0).ebx;
	}
	if ((s.edx7 & CPUID_7_EDX_ARCH_CAPABILITIES) &&
	    !rdmsr_safe(MSR_IA32_ARCH_CAPABILITIES, &s.arch_caps))
		s.arch_caps = 0;
	spec_arch_caps = s.arch_caps;
	return s;
}

void spec_set_entry_mode(uint8_t mode)
{
	asm volatile("mov %%ss, %0" : "=r"(spec_verw_sel));
	spec_entry_mode = mode;
}

void spec_ibpb(void)
{
	wrmsr(MSR_IA32_PRED_CMD, PRED_CMD_IBPB);
}
