/* SPDX-License-Identifier: MIT */
/*
 * Guest entry and the VM-exit landing pad. HOST_RSP points at a 16-byte
 * aligned slot on the CPU's stack (vmx_run fills it) that holds the struct
 * vcpu_arch pointer and then hv's vCPU pointer, so the exit path finds both
 * without any lookup; the second is opaque here, only passed on to
 * hv_exit_handler. struct guest_regs is the first member of struct vcpu_arch
 * (arch/x86/vmx.h): rax, rbx, rcx, rdx, rsi, rdi, rbp, r8-r15 at offsets
 * 0, 8, ... 112.
 */

#include "arch/x86/msr.h"
#include "hv/lib/spec_defs.h"

	.text
/* void vmx_enter(struct vcpu_arch *a, int launched) */
	.globl vmx_enter
vmx_enter:
	push	%rdi			/* for vmx_entry_failed */
	/* decided once at boot (hv/core/spec.c, spec_set_entry_mode): one test on every entry */
	cmpb	$SPEC_ENTRY_NONE, spec_entry_mode(%rip)
	jne	3f
4:	mov	%rdi, %rax
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
2:	pop	%rdi
	and	$-16, %rsp
	call	vmx_entry_failed	/* does not return */
	ud2

/*
 * L1TF: flush L1D before the guest runs (SDM Vol. 4 IA32_FLUSH_CMD; on
 * MD_CLEAR CPUs it also overwrites the fill and store buffers). Else MDS:
 * VERW with a memory operand overwrites the buffers (Intel, "Deep Dive:
 * Microarchitectural Data Sampling"). Only RAX, RCX, RDX are touched here,
 * before the guest's registers are loaded.
 */
3:	cmpb	$SPEC_ENTRY_L1D_FLUSH, spec_entry_mode(%rip)
	jne	5f
	mov	$MSR_IA32_FLUSH_CMD, %ecx
	mov	$FLUSH_CMD_L1D, %eax
	xor	%edx, %edx
	wrmsr
	jmp	4b
5:	verw	spec_verw_sel(%rip)
	jmp	4b

	.globl vmx_exit_stub
vmx_exit_stub:
	push	%rax
	mov	8(%rsp), %rax		/* slot[0]: the vcpu_arch */
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
	mov	8(%rsp), %rdi		/* slot[1]: hv's vCPU, opaque */
	xor	%ebp, %ebp
	call	hv_exit_handler	/* returns when that vCPU is to be resumed */
	mov	0(%rsp), %rdi		/* slot[0] again: the same vcpu_arch */
	mov	$1, %esi
	jmp	vmx_enter

	.section .note.GNU-stack, "", @progbits
