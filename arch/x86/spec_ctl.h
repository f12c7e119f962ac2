/* SPDX-License-Identifier: MIT */
/*
 * Speculative-execution mitigations this CPU needs (hv/core/spec.c decides),
 * read once at boot; VM entry tests spec_entry_mode, a shared core's switch
 * calls spec_ibpb() (docs/containment.md).
 */
#ifndef TEMPO_ARCH_X86_SPEC_CTL_H
#define TEMPO_ARCH_X86_SPEC_CTL_H

#include <stdint.h>

#include "hv/core/spec.h"

extern struct spec_plan spec_plan;
extern uint64_t spec_arch_caps;		/* IA32_ARCH_CAPABILITIES, 0 if absent */
extern uint8_t spec_entry_mode;		/* SPEC_ENTRY_*, read by arch/x86/vmx_entry.S */

/* Boot CPU, before any guest: read CPUID 7 and IA32_ARCH_CAPABILITIES, log the plan. */
void spec_boot(uint32_t max_basic_leaf);
/* Indirect branch prediction barrier (IA32_PRED_CMD.IBPB), where the CPU has it. */
void spec_ibpb(void);

#endif
