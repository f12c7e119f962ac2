/* SPDX-License-Identifier: MIT */
/* x87/SSE/AVX state and XCR0 on shared cores (hv/guest/fpu.c); xsave_plan is in hv/state/platform.h. */
#ifndef TEMPO_HV_FPU_H
#define TEMPO_HV_FPU_H

#include <stdint.h>

struct vcpu;

/* Boot: what the CPU's XSAVE components need and which a guest may enable (xsave_plan). */
void xsave_plan_boot(void);
/* @v's XCR0 and FPU state out of the core, and back in. */
void fpu_switch_out(struct vcpu *v);
void fpu_switch_in(struct vcpu *v);
/* A shared core's area in the reset state: what a fresh or restarted vCPU starts from. */
void fpu_area_reset(void *area, uint64_t bytes);
/* This core's FPU, SIMD registers and XCR0 to their reset state (a restarted vCPU). */
void fpu_reset_core(void);

#endif
