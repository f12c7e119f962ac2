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
#include "hv/core/debug_trap.h"
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

/*
 * The #DB an access Tempo emulated owes (an MMIO load or store): the
 * access never reached memory on the CPU (the exit came
 * first), so neither did the data or I/O breakpoints DR0-DR3 set on it
 * (SDM Vol. 3B 17.3.1.2: a trap after the instruction). Raised here with
 * the single-step trap the instruction also owes, in one #DB whose DR6
 * reports both (hv/core/debug_trap.h). DR7 is in the VMCS (saved on exit);
 * DR0-DR3 and DR6 are still the guest's. Call after the instruction is
 * complete (RIP past it); true if a #DB is on its way in.
 */
static inline bool emulated_access_trap(enum dt_access access, uint64_t addr, uint32_t size_bytes)
{
	uint64_t dr7 = vmread(VMCS_GUEST_DR7), dr[4], hit, dr6;
	bool stepped;

	/* no breakpoint enabled, as almost always: one VMREAD more than before */
	if (!(dr7 & DT_DR7_ENABLE_MASK))
		return single_step_trap();
	asm volatile("mov %%dr0, %0" : "=r"(dr[0]));
	asm volatile("mov %%dr1, %0" : "=r"(dr[1]));
	asm volatile("mov %%dr2, %0" : "=r"(dr[2]));
	asm volatile("mov %%dr3, %0" : "=r"(dr[3]));
	hit = data_breakpoints_hit(dr7, dr, vmread(VMCS_GUEST_CR4), access, addr, size_bytes);
	if (!hit || (vmread(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID))
		return single_step_trap();
	stepped = single_step_due(vmread(VMCS_GUEST_RFLAGS), vmread(VMCS_GUEST_DEBUGCTL), 0);
	asm volatile("mov %%dr6, %0" : "=r"(dr6));
	asm volatile("mov %0, %%dr6" : : "r"(debug_trap_dr6(dr6, hit, stepped)));
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
