/* SPDX-License-Identifier: MIT */
/* x87/SSE/AVX state and XCR0 on shared cores (hv/fpu.c); xsave_plan is in hv/platform.h. */
#ifndef TEMPO_HV_FPU_H
#define TEMPO_HV_FPU_H

struct vcpu;

/* Boot: what the CPU's XSAVE components need and which a guest may enable (xsave_plan). */
void xsave_plan_boot(void);
/* @v's XCR0 and FPU state out of the core, and back in. */
void fpu_switch_out(struct vcpu *v);
void fpu_switch_in(struct vcpu *v);

#endif
