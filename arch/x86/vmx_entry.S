/* SPDX-License-Identifier: MIT */
/*
 * Guest entry and the VM-exit landing pad. HOST_RSP points at the CPU's
 * exit area (struct vmx_exit_area, arch/x86/vmx.h; 16-byte aligned, above
 * everything else on the CPU's stack): the struct vcpu_arch pointer, then
 * hv's vCPU pointer (vmx_run fills both), then the tick step-aside, so the
 * exit path finds them without any lookup; hv's vCPU is opaque here, only
 * passed on to hv_exit_handler. struct guest_regs is the first member of
 * struct vcpu_arch: rax, rbx, rcx, rdx, rsi, rdi, rbp, r8-r15 at offsets
 * 0, 8, ... 112.
 */

#include "arch/x86/msr.h"
#include "arch/x86/vmx_defs.h"
#include "hv/lib/spec_defs.h"

/*
 * L1TF: flush L1D before the guest runs (SDM Vol. 4 IA32_FLUSH_CMD; on
 * MD_CLEAR CPUs it also overwrites the fill and store buffers). Else MDS:
 * VERW with a memory operand overwrites the buffers (Intel, "Deep Dive:
 * Microarchitectural Data Sampling"). Only RAX, RCX, RDX are touched, before
 * the guest's registers are loaded.
 */
.macro flush_l1d
	mov	$MSR_IA32_FLUSH_CMD, %ecx
	mov	$FLUSH_CMD_L1D, %eax
	xor	%edx, %edx
	wrmsr
.endm

	.set	X2APIC_PPR_MSR, 0x80a	/* SDM Vol. 3A 11.12.1.2 */

/*
 * TEMPO_PROFILE builds (hv/ops/prof.h): the TSC into the exit area at
 * the stub's start and before each entry loads the guest's registers.
 * Nothing otherwise.
 */
.macro prof_stub_stamp		/* EA_STEP_PROF instructions */
#ifdef TEMPO_PROFILE
	mov	%rax, EA_RAX(%rsp)
	mov	%rdx, EA_RDX(%rsp)
	rdtsc
	mov	%eax, EA_PROF_STUB(%rsp)
	mov	%edx, EA_PROF_STUB + 4(%rsp)
	mov	EA_RAX(%rsp), %rax
	mov	EA_RDX(%rsp), %rdx
#endif
.endm

	.text
/*
 * uint32_t vmx_enter(struct vcpu_arch *a, int launched): returns only if
 * the VMLAUNCH or VMRESUME failed, with its VM-instruction error (SDM Vol.
 * 3C 31.4; in a TEMPO_VMCS_CHECK build, VMX_ERR_VMCS_CHECK when the checker
 * refused it, arch/x86/vmx_check.h), and the callee-saved registers it had:
 * the guest's were loaded over them.
 */
	.globl vmx_enter
vmx_enter:
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	push	%r14
	push	%r15
#ifdef TEMPO_VMCS_CHECK
	/* the call and six pushes left RSP 8 below a 16-byte boundary */
	push	%rdi
	push	%rsi
	sub	$8, %rsp
	call	vmx_check_entry		/* EAX: 0 to enter, else the error */
	add	$8, %rsp
	pop	%rsi
	pop	%rdi
	test	%eax, %eax
	jnz	6f
#endif
	/* decided once at boot (hv/core/spec.c, spec_set_entry_mode): one test on every entry */
	cmpb	$SPEC_ENTRY_NONE, spec_entry_mode(%rip)
	jne	3f
4:
#ifdef TEMPO_PROFILE
	mov	VA_HOST_SLOT(%rdi), %rcx
	rdtsc
	mov	%eax, EA_PROF_ENTRY(%rcx)
	mov	%edx, EA_PROF_ENTRY + 4(%rcx)
#endif
	mov	%rdi, %rax
	test	%esi, %esi
	mov	8(%rax), %rbx
	mov	16(%rax), %rcx
	mov	24(%rax), %rdx
	mov	32(%rax), %rsi
	mov	40(%rax), %rdi
	mov	48(%rax), %rbp
	mov	56(%rax), %r8
	mov	64(%rax), %r9
	mov	72(%rax), %r10
	mov	80(%rax), %r11
	mov	88(%rax), %r12
	mov	96(%rax), %r13
	mov	104(%rax), %r14
	mov	112(%rax), %r15
	mov	0(%rax), %rax		/* flags from the test survive the moves */
	jnz	1f
	vmlaunch
	jmp	2f
1:	vmresume
2:	mov	$VMCS_INSTR_ERROR, %eax
	vmread	%rax, %rax
6:	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	ret

/* the entry's mitigation (flush_l1d above) */
3:	cmpb	$SPEC_ENTRY_L1D_FLUSH, spec_entry_mode(%rip)
	jne	5f
	flush_l1d
	jmp	4b
5:	verw	spec_verw_sel(%rip)
	jmp	4b

/*
 * The exit stubs. HOST_RSP points at the CPU's exit area (struct
 * vmx_exit_area, EA_*): its vcpu_arch, then hv's vCPU, then the
 * step-aside. A vCPU that may step its ticks aside (direct mode on a core
 * of its own) has one of the vmx_exit_aside_* stubs, one per entry
 * mitigation, so its resume does not test the mode (vmx.c picks it at
 * VMCS setup); every other vCPU has vmx_exit_stub, which tests nothing.
 */
	.globl vmx_exit_stub
vmx_exit_stub:
	prof_stub_stamp
	push	%rax
	mov	8(%rsp), %rax		/* EA_ARCH */
vmx_exit_save:
	mov	%rbx, 8(%rax)
	mov	%rcx, 16(%rax)
	mov	%rdx, 24(%rax)
	mov	%rsi, 32(%rax)
	mov	%rdi, 40(%rax)
	mov	%rbp, 48(%rax)
	mov	%r8, 56(%rax)
	mov	%r9, 64(%rax)
	mov	%r10, 72(%rax)
	mov	%r11, 80(%rax)
	mov	%r12, 88(%rax)
	mov	%r13, 96(%rax)
	mov	%r14, 104(%rax)
	mov	%r15, 112(%rax)
	popq	0(%rax)			/* guest rax */
	mov	8(%rsp), %rdi		/* EA_OWNER: hv's vCPU, opaque */
	xor	%ebp, %ebp
	call	hv_exit_handler	/* the vCPU to resume, or NULL: it left its core */
resume:
	test	%rax, %rax
	jz	left
	mov	EA_ARCH(%rsp), %rdi	/* the same vcpu_arch */
	mov	$1, %esi
	call	vmx_enter		/* returns only if the VMRESUME failed */
resume_failed:				/* RSP: the exit area, as at the exit; EAX: the error */
	mov	%eax, %esi
	mov	EA_OWNER(%rsp), %rdi
	call	hv_resume_failed
	jmp	resume
	/*
	 * The vCPU has left (its partition ended, a window ended, an INIT):
	 * the core's loop starts afresh on this stack, below the exit area,
	 * which stays the CPU's.
	 */
left:	call	hv_pcpu_loop
	ud2

/*
 * TEMPO_VMCS_CHECK builds (arch/x86/vmx_check.h): the step-aside's
 * re-entry checked too. At 10: RAX and RDX are the guest's, its RCX is in
 * the exit area; they and the caller-saved rest are pushed below it (eight:
 * RSP, the exit area, is 16-byte aligned, and so it stays for the call). A
 * refused one goes to hv (20f), whose resume is checked in full. Nothing
 * otherwise.
 */
.macro aside_check
#ifdef TEMPO_VMCS_CHECK
	push	%rax
	push	%rdx
	push	%rsi
	push	%rdi
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	lea	64(%rsp), %rdi		/* the exit area */
	call	vmx_check_aside
	test	%eax, %eax		/* the pops keep the flags */
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rax
	jnz	20f
#endif
.endm

/*
 * A host tick that would meet the guest's deadline steps aside here,
 * before anything else (struct vmx_tick_aside, arch/x86/vmx.h): a guest
 * deadline that falls in this exit waits for all of it, so it is as short
 * as it can be: EA_STEP_TICKS (20) instructions from the exit to
 * VMRESUME (\steps, with the entry mitigation's own and the timer rate's
 * scaling), with no RDTSC or RDMSR (in SMP Bochs each ends a trace, which
 * a turn of the other CPUs follows): the exit stored its own time and the
 * guest's deadline (the exit area's MSR-store entries), read with MOVs.
 * Everything is read off RSP (the exit area), which does not move; only
 * RCX is used, kept there, until a path needs RAX and RDX too (17, 18:
 * kept there as well). The window is the exit's time less bias (two
 * margins) to span later: x = D - then + bias below span, 32-bit and unsigned, so a
 * D behind it wraps above; x is also the step, the tick's move to bias past
 * D. A D in the step itself, under \steps after the exit's time, comes
 * before its VMRESUME: a hit, counted (tested before the window; such a D
 * is in it, bias + \steps being under span: hv plans no steps for a
 * margin under EA_STEP_TICKS_MAX, hv/time/aside.c). A D of 0 (none, or
 * fired) is in the window only where the exit's time is, in its low 32
 * bits, one of span values in 2^32: a step then moves a tick that nothing
 * needed moved, within the plan's bound like any step. The steps are
 * counted in lo, whose last step carries into closed. Only exit 52 (the
 * preemption timer) may step: it never comes during event delivery (SDM
 * Vol. 3C 26.5.1), so there is nothing to re-inject. The entry's
 * mitigation is the stub's own (\mitigation); nothing of the host's but
 * the CPU's exit area and the VMCS is read here.
 */
.macro exit_aside mitigation, steps, scaled
	prof_stub_stamp
	mov	%rcx, EA_RCX(%rsp)
	mov	$VMCS_EXIT_REASON, %ecx
	vmread	%rcx, %rcx
	cmp	$EXIT_REASON_PREEMPTION_TIMER, %ecx
	jne	20f
	cmpl	$0, EA_CLOSED(%rsp)
	jne	18f
	mov	EA_DEADLINE(%rsp), %ecx	/* D's low 32 bits, as the exit stored it */
	sub	EA_TSC(%rsp), %ecx	/* less the exit's time (32-bit: RCX's upper half is 0) */
#ifdef TEMPO_PROFILE
	cmp	$(\steps + EA_STEP_PROF), %ecx
#else
	cmp	$\steps, %ecx		/* CF: D comes in this step, before its VMRESUME */
#endif
	adcl	$0, EA_HITS(%rsp)
	add	EA_BIAS(%rsp), %ecx	/* x = D - then + before */
	cmp	EA_SPAN(%rsp), %rcx
	jae	17f
	/*
	 * The step: the tick comes x ticks later (D - the exit's time + bias),
	 * just past D and the guest's work after it (bias), not a fixed
	 * stride: the guest's next deadline, written after its handler, is
	 * then as far from that exit as it is from D. The timer counts in
	 * units of 2^rate TSC ticks: x >> rate, as x times 2^(32 - rate) in
	 * 64 bits, upper half (\scaled: a rate other than 0; the entry and
	 * exit between cover the rounding down).
	 */
11:
	.if \scaled
	imul	EA_VMUL(%rsp), %rcx
	shr	$32, %rcx
	.endif
	mov	%rcx, EA_PTV(%rsp)
	mov	$VMCS_PREEMPTION_TIMER_VALUE, %ecx
	vmwrite	EA_PTV(%rsp), %rcx
	incq	EA_LO(%rsp)		/* 64-bit: past the last step, into closed */
10:	aside_check
	.if \mitigation == SPEC_ENTRY_L1D_FLUSH
	mov	%rax, EA_RAX(%rsp)
	mov	%rdx, EA_RDX(%rsp)
	flush_l1d
	mov	EA_RAX(%rsp), %rax
	mov	EA_RDX(%rsp), %rdx
	.endif
	mov	EA_RCX(%rsp), %rcx
	.if \mitigation == SPEC_ENTRY_VERW
	verw	spec_verw_sel(%rip)
	.endif
	vmresume
	mov	$VMCS_INSTR_ERROR, %eax
	vmread	%rax, %rax
	jmp	resume_failed
	/*
	 * Exit 52, armed, outside the window. On hardware the MSR reads 0 once
	 * its deadline fired (SDM Vol. 3A 11.5.4.1): a fire in this exit's
	 * first instructions then shows as the vector pending in the IRR where
	 * the guest would have taken it before the exit (hv/time/timer_exit.c
	 * tick_guest_fired, the same test): IF set, no STI or MOV-SS shadow
	 * (SDM Vol. 3C 25.4.2), its class above the processor priority (the
	 * physical APIC's, the guest's in direct mode). That step is a hit
	 * (in Bochs, which keeps a fired D in the MSR, such a fire comes here
	 * only with D 0; one just before the exit, still pending, steps in the
	 * window with no hit counted).
	 */
17:	cmpq	$0, EA_DEADLINE(%rsp)
	jne	18f
	mov	%rax, EA_RAX(%rsp)
	mov	%rdx, EA_RDX(%rsp)
	mov	EA_IRR_MSR(%rsp), %ecx
	rdmsr
	test	EA_IRR_MASK(%rsp), %eax
	jz	21f
	mov	$VMCS_GUEST_RFLAGS, %eax
	vmread	%rax, %rcx
	bt	$9, %ecx
	jnc	19f
	mov	$VMCS_GUEST_INTERRUPTIBILITY, %eax
	vmread	%rax, %rcx
	test	$3, %ecx
	jnz	19f
	mov	$X2APIC_PPR_MSR, %ecx
	rdmsr
	and	$0xf0, %eax
	cmp	EA_VCLASS(%rsp), %eax
	jae	19f
	mov	EA_RAX(%rsp), %rax
	mov	EA_RDX(%rsp), %rdx
	incl	EA_HITS(%rsp)
	mov	EA_SPAN(%rsp), %rcx	/* D is behind: a step of the window's length */
	jmp	11b
	/*
	 * Exit 52, not a step: the stub's own tick, if hv opened it (struct
	 * vmx_stub_tick, arch/x86/vmx.h). Every test comes before the first
	 * write but the guest's RAX and RDX (kept in the area), so a refusal
	 * leaves the rest as it was for hv. RAX holds the TSC from 12 on: read
	 * here, as hv's tick reads it, not the exit's stored time, so the
	 * next tick's timer value counts from this exit's late part as hv's
	 * would.
	 */
18:	mov	%rax, EA_RAX(%rsp)
	mov	%rdx, EA_RDX(%rsp)
21:	cmpl	$0, EA_ST_OPEN(%rsp)
	je	19f
	mov	EA_DEADLINE(%rsp), %rcx
	test	%rcx, %rcx
	jz	16f
	cmp	EA_ST_FAR(%rsp), %rcx	/* a deadline hv may place the next tick for */
	jb	19f
	jmp	12f
16:	mov	EA_ST_IRR_MSR(%rsp), %ecx	/* 0: fired and pending (hardware), or none */
	test	%ecx, %ecx
	jz	12f
	rdmsr				/* its vector pending: hv defers (tick_guest_fired) */
	test	EA_ST_IRR_MASK(%rsp), %eax
	jnz	19f
12:	cmpl	$0, EA_ST_LEFT(%rsp)
	je	19f
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	cmp	EA_ST_DUE(%rsp), %rax	/* before it: a kick's timer of 0, not the tick */
	jb	19f
	cmp	EA_ST_NEXT(%rsp), %rax	/* a whole period late: hv counts the ticks missed */
	jae	19f
	mov	$VMCS_GUEST_ACTIVITY_STATE, %ecx
	vmread	%rcx, %rdx
	test	%edx, %edx
	jz	13f			/* active */
	cmp	$1, %edx		/* HLT, with IF set; else hv judges (check_halted_forever) */
	jne	19f
	mov	$VMCS_GUEST_RFLAGS, %ecx
	vmread	%rcx, %rdx
	bt	$9, %edx
	jnc	19f
	jmp	14f
13:	incl	EA_ST_BUSY(%rsp)
14:	decl	EA_ST_LEFT(%rsp)
	incl	EA_ST_TAKEN(%rsp)
	mov	%rax, EA_ST_LAST_NOW(%rsp)
	mov	EA_DEADLINE(%rsp), %rcx
	mov	%rcx, EA_ST_LAST_D(%rsp)
	mov	%rax, %rcx		/* late: now less the tick's grid time, next - period */
	sub	EA_ST_NEXT(%rsp), %rcx	/* (as host_timer_run counts it; due may be placed later) */
	add	EA_ST_PERIOD(%rsp), %rcx
	add	%rcx, EA_ST_LATE_SUM(%rsp)
	cmp	EA_ST_LATE_MAX(%rsp), %rcx
	jbe	15f
	mov	%rcx, EA_ST_LATE_MAX(%rsp)
15:	mov	EA_ST_NEXT(%rsp), %rdx
	mov	%rdx, EA_ST_DUE(%rsp)
	sub	%rax, %rdx		/* next - now: 1 .. a period */
	mov	EA_ST_ROUND(%rsp), %eax	/* 32-bit: the TSC in RAX is stored already */
	mov	EA_ST_RATE(%rsp), %ecx
	dec	%rdx			/* as ptimer_value: ((x - 1) rounded up by the rate) + 1 */
	add	%rax, %rdx
	shr	%cl, %rdx
	inc	%rdx
	mov	$VMCS_PREEMPTION_TIMER_VALUE, %eax
	vmwrite	%rdx, %rax
	mov	EA_ST_PERIOD(%rsp), %rcx
	add	%rcx, EA_ST_NEXT(%rsp)
	add	%rcx, EA_ST_FAR(%rsp)
	movl	$1, EA_CLOSED(%rsp)	/* the step-aside's plan was for the tick just taken */
	cmpl	$0, EA_ST_OPEN(%rsp)	/* a kick's NMI closed it meanwhile: its 0 wins */
	jne	22f
	xor	%edx, %edx
	vmwrite	%rdx, %rax
22:	mov	EA_RAX(%rsp), %rax
	mov	EA_RDX(%rsp), %rdx
	jmp	10b
19:	mov	EA_RAX(%rsp), %rax	/* hv takes this exit */
	mov	EA_RDX(%rsp), %rdx
20:	mov	EA_RCX(%rsp), %rcx	/* (from here RAX and RDX are the guest's) */
	push	%rax
	mov	8(%rsp), %rax		/* EA_ARCH */
	jmp	vmx_exit_save
.endm

	/* a preemption-timer rate of 0 (Bochs), then any other (hardware: 5 is common) */
	.globl vmx_exit_aside_none, vmx_exit_aside_l1d, vmx_exit_aside_verw
vmx_exit_aside_none:
	exit_aside SPEC_ENTRY_NONE, EA_STEP_TICKS, 0
vmx_exit_aside_l1d:
	exit_aside SPEC_ENTRY_L1D_FLUSH, EA_STEP_TICKS_L1D, 0
vmx_exit_aside_verw:
	exit_aside SPEC_ENTRY_VERW, EA_STEP_TICKS_VERW, 0
	.globl vmx_exit_aside_none_scaled, vmx_exit_aside_l1d_scaled, vmx_exit_aside_verw_scaled
vmx_exit_aside_none_scaled:
	exit_aside SPEC_ENTRY_NONE, EA_STEP_TICKS_SCALED, 1
vmx_exit_aside_l1d_scaled:
	exit_aside SPEC_ENTRY_L1D_FLUSH, EA_STEP_TICKS_L1D_SCALED, 1
vmx_exit_aside_verw_scaled:
	exit_aside SPEC_ENTRY_VERW, EA_STEP_TICKS_VERW_SCALED, 1

	.section .note.GNU-stack, "", @progbits
