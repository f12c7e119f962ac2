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
entry_failed:				/* RDI: the vcpu_arch */
	and	$-16, %rsp
	call	vmx_entry_failed	/* does not return */
	ud2

/* the entry's mitigation (flush_l1d above) */
3:	cmpb	$SPEC_ENTRY_L1D_FLUSH, spec_entry_mode(%rip)
	jne	5f
	flush_l1d
	jmp	4b
5:	verw	spec_verw_sel(%rip)
	jmp	4b

	.globl vmx_exit_stub
vmx_exit_stub:
	push	%rax
	mov	8(%rsp), %rax		/* slot[0]: the vcpu_arch */
	cmpb	$0, VA_ASIDE_LEFT(%rax)	/* a tick that may step aside (below) */
	jne	vmx_exit_aside
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
	mov	8(%rsp), %rdi		/* slot[1]: hv's vCPU, opaque */
	xor	%ebp, %ebp
	call	hv_exit_handler	/* returns when that vCPU is to be resumed */
	mov	0(%rsp), %rdi		/* slot[0] again: the same vcpu_arch */
	mov	$1, %esi
	jmp	vmx_enter

/*
 * Issue 14: a host tick that would meet the guest's deadline steps aside
 * here, before anything else (struct vmx_tick_aside, arch/x86/vmx.h): a
 * guest deadline that falls in this exit waits for all of it, so it is as
 * short as it can be. RAX holds the vcpu_arch, the guest's RAX is at
 * 0(%rsp); RCX and RDX are saved below it, and no other register is
 * touched. The 32-bit difference holds while the window and the steps'
 * reach are under 2^31 TSC ticks (hv/core/timer.c caps them).
 * Only exit 52 (the preemption timer) may step: it never comes during event
 * delivery (SDM Vol. 3C 26.5.1), so there is nothing to re-inject. The
 * entry mitigation is vmx_enter's; nothing of the host's but the vCPU's own
 * step-aside fields and the VMCS is read here.
 */
vmx_exit_aside:
	push	%rcx
	push	%rdx
	mov	$VMCS_EXIT_REASON, %ecx
	vmread	%rcx, %rdx
	cmp	$EXIT_REASON_PREEMPTION_TIMER, %edx
	jne	9f
	mov	$MSR_IA32_TSC_DEADLINE, %ecx
	rdmsr
	mov	24(%rsp), %rdx		/* slot[0]: the vcpu_arch */
	sub	VA_ASIDE_LO(%rdx), %eax
	cmp	VA_ASIDE_SPAN(%rdx), %eax
	jae	7f
1:	decb	VA_ASIDE_LEFT(%rdx)	/* step: the tick, and the window, move on */
	mov	VA_ASIDE_STEP(%rdx), %eax
	add	%eax, VA_ASIDE_LO(%rdx)
	mov	$VMCS_PREEMPTION_TIMER_VALUE, %eax
	vmwrite	VA_ASIDE_PTV(%rdx), %rax
	mov	VA_ASIDE_IRR_MSR(%rdx), %ecx	/* a hit: the fire waits for the entry */
	rdmsr
	mov	24(%rsp), %rcx
	test	VA_ASIDE_IRR_MASK(%rcx), %eax
	jz	2f
	incl	VA_ASIDE_HITS(%rcx)
2:	cmpb	$SPEC_ENTRY_NONE, spec_entry_mode(%rip)
	jne	5f
3:	pop	%rdx
	pop	%rcx
	pop	%rax
	vmresume
4:	mov	0(%rsp), %rdi		/* slot[0] */
	jmp	entry_failed
5:	cmpb	$SPEC_ENTRY_L1D_FLUSH, spec_entry_mode(%rip)
	jne	6f
	flush_l1d
	jmp	3b
6:	pop	%rdx
	pop	%rcx
	pop	%rax
	verw	spec_verw_sel(%rip)
	vmresume
	jmp	4b
	/*
	 * Outside the window. On hardware the MSR reads 0 once its deadline
	 * fired (SDM Vol. 3A 11.5.4.1): a fire in this exit's first
	 * instructions then shows as the vector pending in the IRR where the
	 * guest would have taken it before the exit (hv/timer_exit.c
	 * tick_guest_fired, the same test): IF set, no STI or MOV-SS shadow
	 * (SDM Vol. 3C 25.4.2), its class above the processor priority (the
	 * physical APIC's, the guest's in direct mode).
	 */
7:	mov	$MSR_IA32_TSC_DEADLINE, %ecx
	rdmsr
	or	%edx, %eax
	jnz	9f
	mov	24(%rsp), %rdx
	mov	VA_ASIDE_IRR_MSR(%rdx), %ecx
	rdmsr
	mov	24(%rsp), %rdx
	test	VA_ASIDE_IRR_MASK(%rdx), %eax
	jz	9f
	mov	$VMCS_GUEST_RFLAGS, %eax
	vmread	%rax, %rcx
	bt	$9, %ecx
	jnc	9f
	mov	$VMCS_GUEST_INTERRUPTIBILITY, %eax
	vmread	%rax, %rcx
	test	$3, %ecx
	jnz	9f
	mov	$X2APIC_PPR_MSR, %ecx
	rdmsr
	mov	24(%rsp), %rdx
	and	$0xf0, %eax
	cmp	VA_ASIDE_VCLASS(%rdx), %eax
	jb	1b
9:	pop	%rdx			/* hv takes this exit */
	pop	%rcx
	mov	8(%rsp), %rax
	jmp	vmx_exit_save

	.section .note.GNU-stack, "", @progbits
