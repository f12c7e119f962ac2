/* SPDX-License-Identifier: MIT */
/*
 * Speculation control, the hardware side: what the CPU reports (CPUID 7,
 * IA32_ARCH_CAPABILITIES), what every VM entry does (spec_entry_mode, read
 * by arch/x86/vmx_entry.S) and the branch-predictor barrier. Which
 * mitigations a CPU needs is hv's decision (hv/core/spec.c, from hv/start/main.c);
 * docs/containment.md.
 */
#ifndef TEMPO_ARCH_X86_SPEC_CTL_H
#define TEMPO_ARCH_X86_SPEC_CTL_H

#include <stdint.h>

#include "hv/lib/spec_defs.h"

/* What the CPU says about itself, read once at boot. */
struct spec_cpu {
	uint32_t edx7, ebx7;	/* CPUID.(EAX=7,ECX=0) EDX and EBX, 0 without leaf 7 */
	uint64_t arch_caps;	/* IA32_ARCH_CAPABILITIES, 0 if absent */
};

extern uint64_t spec_arch_caps;		/* IA32_ARCH_CAPABILITIES, 0 if absent */
extern uint8_t spec_entry_mode;		/* SPEC_ENTRY_*, read by arch/x86/vmx_entry.S */
extern uint16_t spec_verw_sel;		/* VERW's operand, read by arch/x86/vmx_entry.S */

/* Boot CPU: read CPUID 7 and IA32_ARCH_CAPABILITIES (also into spec_arch_caps). */
struct spec_cpu spec_read_cpu(uint32_t max_basic_leaf);
/* From now on every VM entry does @mode (SPEC_ENTRY_*) first. */
void spec_set_entry_mode(uint8_t mode);
/* Indirect branch prediction barrier (IA32_PRED_CMD.IBPB): only where the CPU has it. */
void spec_ibpb(void);

#endif
