/* SPDX-License-Identifier: MIT */
/* The root-mode life of every core (hv/run/loop.c); hv_pcpu_loop is in hv/upcalls.h. */
#ifndef TEMPO_HV_PCPU_H
#define TEMPO_HV_PCPU_H

#include <stdint.h>

struct vcpu;

/* Number hv's cores after arch's (smp_enumerate): pcpus[0..count). */
void pcpus_init(uint32_t count);

/* Build @v's VMCS on this core, its timer mode and LVT with it. */
void vcpu_vmcs_setup(struct vcpu *v);

/* Enter @v: the preemption timer armed, its exit no longer this core's to handle. */
__attribute__((noreturn)) void vcpu_enter(struct vcpu *v);

#endif
