/* SPDX-License-Identifier: MIT */
/*
 * The guest's instruction and registers at a VM exit: reading its
 * registers, completing the instruction it exited on (and the single-step
 * #DB that owes), its privilege and mode. Inline: every exit handler uses
 * them and they are a few VMREADs each.
 */
#ifndef TEMPO_HV_GUEST_INSN_H
#define TEMPO_HV_GUEST_INSN_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vmx.h"
#include "hv/core/single_step.h"
#include "hv/state/vcpu.h"

#define VEC_DB		1
#define VEC_UD		6
#define VEC_GP		13

/*
 * The single-step #DB an instruction Tempo completed for the guest owes it
 * (hv/core/single_step.h), injected with DR6.BS set (DR6 is the guest's
 * while it exits: MOV DR does not exit, hv/run/switch.c). Injected as an
 * exception, not as a pending debug exception, so an interrupt or NMI Tempo
 * wants to deliver waits for its window behind it, as it would behind the
 * real trap (SDM Vol. 3A 6.9: traps of the previous instruction come before
 * NMIs and interrupts).
 */
static inline bool single_step_trap(void)
{
	uint64_t rflags = vmread(VMCS_GUEST_RFLAGS), dr6;

	/* TF is almost never set: one VMREAD on the way out */
	if (!(rflags & SS_RFLAGS_TF) ||
	    !single_step_due(rflags, vmread(VMCS_GUEST_DEBUGCTL), (uint32_t)vmread(VMCS_ENTRY_INTR_INFO)))
		return false;
	asm volatile("mov %%dr6, %0" : "=r"(dr6));
	asm volatile("mov %0, %%dr6" : : "r"(single_step_dr6(dr6)));
	vmwrite(VMCS_ENTRY_INTR_INFO, INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | VEC_DB);
	return true;
}

/* Completes the exiting instruction; true if its single-step #DB is on its way in. */
static inline bool skip_instruction(void)
{
	uint64_t rip = vmread(VMCS_GUEST_RIP) + vmread(VMCS_EXIT_INSTR_LEN);
	uint64_t intr = vmread(VMCS_GUEST_INTERRUPTIBILITY);

	vmwrite(VMCS_GUEST_RIP, rip);
	/* the emulated instruction ends STI / MOV SS blocking (SDM 25.4.2) */
	if (intr & 3)
		vmwrite(VMCS_GUEST_INTERRUPTIBILITY, intr & ~3ull);
	return single_step_trap();
}

static inline bool guest_long_mode(void)
{
	return vmread(VMCS_ENTRY_CONTROLS) & ENTRY_IA32E_MODE_GUEST;
}

/* CPL is SS.DPL (SDM Vol. 3A 5.5) */
static inline uint32_t guest_cpl(void)
{
	return (vmread(VMCS_GUEST_SS_AR) >> 5) & 3;
}

static inline uint64_t *gpr(struct vcpu *v, uint32_t index)
{
	/* SDM encoding: rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15 */
	static const uint8_t offset[16] = { 0, 2, 3, 1, 0xff, 6, 4, 5,
					    7, 8, 9, 10, 11, 12, 13, 14 };

	return &((uint64_t *)&v->arch.regs)[offset[index & 15]];
}

static inline uint64_t read_gpr(struct vcpu *v, uint32_t index)
{
	return (index & 15) == 4 ? vmread(VMCS_GUEST_RSP) : *gpr(v, index);
}

/* EDX:EAX, as WRMSR and XSETBV take it */
static inline uint64_t guest_edx_eax(const struct vcpu *v)
{
	return ((v->arch.regs.rdx & 0xffffffff) << 32) | (v->arch.regs.rax & 0xffffffff);
}

#endif
