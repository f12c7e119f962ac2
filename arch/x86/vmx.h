/* SPDX-License-Identifier: MIT */
/* VMX operation: VMXON per CPU, the VMCS of a vCPU, entering the guest. */
#ifndef TEMPO_ARCH_X86_VMX_H
#define TEMPO_ARCH_X86_VMX_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/cpu_report.h"
#include "arch/x86/vmx_defs.h"

struct pcpu;
struct vcpu;

/* The control words every VMCS uses, fixed once at boot from the caps. */
struct vmx_controls {
	uint32_t pin, proc, proc2, exit, entry;
	uint64_t cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	uint32_t preemption_timer_rate;
	bool has_rdtscp, has_invpcid, has_xsaves;
};

extern struct vmx_controls vmx_ctl;

/*
 * Compute the controls from @caps; on a missing required control write its
 * name into @err and return false.
 */
bool vmx_controls_init(const struct vmx_caps *caps, char *err, unsigned long errlen);

/* IA32_FEATURE_CONTROL, CR0/CR4 fixed bits, VMXON. */
bool vmx_cpu_enable(struct pcpu *c, char *err, unsigned long errlen);

/* Make the VMCS at @pa current (a shared core switching vCPUs). */
void vmx_vmptrld(uint64_t pa);

/* Build @v's VMCS on this CPU (VMCLEAR, VMPTRLD, every field). */
void vmcs_setup(struct vcpu *v);

/* Enter @v (VMLAUNCH the first time, VMRESUME after). Never returns. */
__attribute__((noreturn)) void vmx_run(struct vcpu *v);

const char *vmx_exit_reason_name(uint32_t reason);
const char *vmx_instr_error_name(uint32_t err);

/* An NMI (a kick from another core) arrived in root mode (arch/x86/trap.c). */
void vmx_root_nmi(void);

static inline uint64_t vmread(uint64_t field)
{
	uint64_t v;

	asm volatile("vmread %1, %0" : "=r"(v) : "r"(field) : "cc");
	return v;
}

static inline void vmwrite(uint64_t field, uint64_t value)
{
	asm volatile("vmwrite %1, %0" : : "r"(field), "r"(value) : "cc", "memory");
}

#endif
