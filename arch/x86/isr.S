/* SPDX-License-Identifier: MIT */
/* Exception entry stubs: normalize the frame to struct trap_frame, call C. */
#include "arch/x86/trap.h"

.macro ISR_NOERR vec
	.globl isr_\vec
isr_\vec:
	pushq	$0
	pushq	$\vec
	jmp	isr_common
.endm

.macro ISR_ERR vec
	.globl isr_\vec
isr_\vec:
	pushq	$\vec
	jmp	isr_common
.endm

	.text
ISR_NOERR 0
ISR_NOERR 1
ISR_NOERR 2
ISR_NOERR 3
ISR_NOERR 4
ISR_NOERR 5
ISR_NOERR 6
ISR_NOERR 7
ISR_ERR   8
ISR_NOERR 9
ISR_ERR   10
ISR_ERR   11
ISR_ERR   12
ISR_ERR   13
ISR_ERR   14
ISR_NOERR 15
ISR_NOERR 16
ISR_ERR   17
ISR_NOERR 18
ISR_NOERR 19
ISR_NOERR 20
ISR_ERR   21
ISR_NOERR 22
ISR_NOERR 23
ISR_NOERR 24
ISR_NOERR 25
ISR_NOERR 26
ISR_NOERR 27
ISR_NOERR 28
ISR_ERR   29
ISR_ERR   30
ISR_NOERR 31
/*
 * Vectors 32-255: none is expected in root mode (IF stays 0 there but for
 * short windows), yet one that comes (a guest's vector left in the IRR, a
 * stray) must be acknowledged and counted, never fatal: one 16-byte stub
 * per vector, so trap_dispatch knows which it was.
 */
	.balign 16
	.globl isr_irq_stubs
isr_irq_stubs:
	.set irq_vec, 32
	.rept 224
	.balign 16
	pushq	$0
	pushq	$irq_vec
	jmp	isr_common
	.set irq_vec, irq_vec + 1
	.endr

isr_common:
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	mov	%rsp, %rdi
	cld
	call	trap_dispatch
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	add	$16, %rsp		/* vector, error code */
	iretq

/*
 * The hypervisor's timer vector, taken only in timer_save_hw's short STI
 * window (hv/time/vcpu_timer.c: a shared core's switch-out, an inject vCPU's mode
 * switch): caller-saved registers, C, iret.
 */
	.globl isr_hv_timer
isr_hv_timer:
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	mov	%rsp, %rax
	and	$-16, %rsp
	pushq	%rax
	pushq	%rax
	cld
	call	hv_timer_vector_handler
	popq	%rax
	popq	%rsp
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rax
	iretq

/*
 * The idle wake-up (hv/run/loop.c idle_wait): a root-mode core with nothing
 * to run sleeps in HLT until its own TSC deadline; the handler only EOIs.
 * The posted-interrupt notification taken in root mode too (arch/x86/trap.h).
 */
	.globl isr_idle_wake
isr_idle_wake:
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	mov	$0x80b, %ecx		/* x2APIC EOI */
	xor	%eax, %eax
	xor	%edx, %edx
	wrmsr
	popq	%rdx
	popq	%rcx
	popq	%rax
	iretq

/*
 * The local APIC's spurious vector. A true spurious interrupt sets no ISR
 * bit and must not be acknowledged (an EOI would end another vector's
 * service, SDM 11.9); but a fixed interrupt may carry the same vector (a
 * guest's IPI, say) and then is in service like any other: left there, it
 * would block every vector of its priority class (0xe0-0xef, the host timer
 * among them) on this core for good. EOI only if its ISR bit is set.
 */
	.globl isr_apic_spurious
isr_apic_spurious:
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	mov	$(0x810 + TRAP_SPURIOUS_VECTOR / 32), %ecx	/* x2APIC ISR word */
	rdmsr
	bt	$(TRAP_SPURIOUS_VECTOR % 32), %eax
	jnc	1f
	mov	$0x80b, %ecx		/* x2APIC EOI */
	xor	%eax, %eax
	xor	%edx, %edx
	wrmsr
1:	popq	%rdx
	popq	%rcx
	popq	%rax
	iretq

	.section .rodata
	.balign 8
	.globl isr_table
isr_table:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad isr_\v
	.endr

/*
 * bool rdmsr_safe(uint32_t msr, uint64_t *value): a #GP on the rdmsr is
 * caught through the exception table and turned into a false return.
 */
	.text
	.globl rdmsr_safe
rdmsr_safe:
	mov	%edi, %ecx
	xor	%eax, %eax
	xor	%edx, %edx
1:	rdmsr
	shl	$32, %rdx
	or	%rdx, %rax
	mov	%rax, (%rsi)
	mov	$1, %eax
	ret
2:	movq	$0, (%rsi)
	xor	%eax, %eax
	ret

	.section .ex_table, "a"
	.balign 8
	.quad 1b, 2b

/*
 * bool wrmsr_safe(uint32_t msr, uint64_t value): a value the CPU refuses
 * (#GP) is reported instead of ending the hypervisor.
 */
	.text
	.globl wrmsr_safe
wrmsr_safe:
	mov	%edi, %ecx
	mov	%rsi, %rax
	mov	%rsi, %rdx
	shr	$32, %rdx
3:	wrmsr
	mov	$1, %eax
	ret
4:	xor	%eax, %eax
	ret

	.section .ex_table, "a"
	.balign 8
	.quad 3b, 4b

/*
 * bool xsetbv_safe(uint32_t xcr, uint64_t value): a value the CPU refuses
 * (#GP, SDM Vol. 2B XSETBV) is reported instead of ending the hypervisor.
 */
	.text
	.globl xsetbv_safe
xsetbv_safe:
	mov	%edi, %ecx
	mov	%rsi, %rax
	mov	%rsi, %rdx
	shr	$32, %rdx
5:	xsetbv
	mov	$1, %eax
	ret
6:	xor	%eax, %eax
	ret

	.section .ex_table, "a"
	.balign 8
	.quad 5b, 6b

	.section .note.GNU-stack, "", @progbits
