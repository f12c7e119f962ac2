/* SPDX-License-Identifier: MIT */
/*
 * rtbench's interrupt entry points (32-bit interrupt gates, IF=0 inside).
 *
 * rt_timer_stub: the measured path. The latency is the TSC read here minus
 * the deadline, so RDTSC comes as early as it can: only the two pushes that
 * save the registers it overwrites precede it. The TSC is then passed to C
 * as a uint64_t argument (high half pushed first, cdecl).
 */

	.section .text
	.code32

	.globl rt_timer_stub
rt_timer_stub:
	push	%eax
	push	%edx
	rdtsc
	push	%ecx
	push	%edx			/* uint64_t tsc: high half */
	push	%eax			/* low half */
	cld
	call	rt_timer_irq
	add	$8, %esp
	pop	%ecx
	pop	%edx
	pop	%eax
	iret

/* The APIC's spurious vector: counted, never EOI'd (SDM Vol. 3A 10.9). */
	.globl rt_spurious_stub
rt_spurious_stub:
	lock incl rt_spurious_count
	iret

/*
 * One 16-byte stub per vector 32..254, so C finds the stub of vector v at
 * rt_stray_stubs + 16 * (v - 32). Each pushes its vector for rt_stray_irq().
 */
	.balign 16
	.globl rt_stray_stubs
rt_stray_stubs:
	.set	vec, 32
	.rept	255 - 32
	.balign	16
	pushl	$vec
	jmp	rt_stray_common
	.set	vec, vec + 1
	.endr

rt_stray_common:
	pusha
	cld
	pushl	32(%esp)		/* the vector, above pusha's 8 registers */
	call	rt_stray_irq
	add	$4, %esp
	popa
	add	$4, %esp
	iret

	.section .note.GNU-stack, "", @progbits
