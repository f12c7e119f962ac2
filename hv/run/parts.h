/* SPDX-License-Identifier: MIT */
/*
 * The run room's part of struct vcpu (hv/state/vcpu.h): types only. What
 * the VMCS does not switch, kept while another vCPU has the core (shared
 * cores, hv/run/switch.c) and loaded at a restart. Written by hv/run/ and,
 * for XCR0 and the FPU area, hv/guest/fpu.c.
 */
#ifndef TEMPO_HV_RUN_PARTS_H
#define TEMPO_HV_RUN_PARTS_H

#include <stdint.h>

struct vcpu_saved {
	uint64_t msrs[6];	/* STAR, LSTAR, CSTAR, FMASK, KERNEL_GS_BASE, TSC_AUX */
	uint64_t cr2;
	uint64_t dr[4], dr6;	/* DR7 and DEBUGCTL are in the VMCS */
	uint64_t xcr0;
	uint64_t spec_ctrl;	/* IA32_SPEC_CTRL, where the CPU has it */
	void *fpu;		/* XSAVE area (xsave_plan.area_bytes, shared cores only) */
	uint64_t fpu_bytes;
};

#endif
