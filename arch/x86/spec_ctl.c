// SPDX-License-Identifier: MIT
#include "arch/x86/spec_ctl.h"

#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "hv/lib/log.h"

struct spec_plan spec_plan;
uint64_t spec_arch_caps;
uint8_t spec_entry_mode;
/*
 * VERW's memory operand: any selector works, a writable data segment is the
 * fastest (Intel, "Microarchitectural Data Sampling"); the root-mode SS is one.
 */
uint16_t spec_verw_sel;

static const char *const entry_names[] = {
	[SPEC_ENTRY_NONE] = "nothing",
	[SPEC_ENTRY_L1D_FLUSH] = "L1D flush",
	[SPEC_ENTRY_VERW] = "VERW",
};

void spec_boot(uint32_t max_basic_leaf)
{
	uint32_t edx7 = max_basic_leaf >= 7 ? cpuid(7, 0).edx : 0;
	uint32_t ebx7 = max_basic_leaf >= 7 ? cpuid(7, 0).ebx : 0;
	uint64_t caps = 0;

	if ((edx7 & CPUID_7_EDX_ARCH_CAPS) && !rdmsr_safe(MSR_IA32_ARCH_CAPABILITIES, &caps))
		caps = 0;
	spec_arch_caps = caps;
	spec_plan = spec_plan_make(edx7, ebx7, caps);
	asm volatile("mov %%ss, %0" : "=r"(spec_verw_sel));
	spec_entry_mode = spec_plan.entry;
	log_info("Speculation: CPUID 7 EDX 0x%x, ARCH_CAPABILITIES 0x%lx: IBPB between "
		 "partitions %s, on VM entry %s\n", edx7, caps, spec_plan.pred_cmd ? "yes" : "no",
		 entry_names[spec_plan.entry]);
}

void spec_ibpb(void)
{
	if (spec_plan.pred_cmd)
		wrmsr(MSR_IA32_PRED_CMD, PRED_CMD_IBPB);
}
