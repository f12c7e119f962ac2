/* SPDX-License-Identifier: MIT */
/*
 * guests/fuzz: multiboot2 header, the 32-bit entry (protected mode, paging
 * off, EAX = magic, EBX = info, as GRUB and Tempo enter a kernel), the switch
 * to long mode on identity-mapped page tables, the 64-bit IDT stubs, and
 * fz_try(): run one operation and come back here whatever it raises.
 */
#include "guests/fuzz/layout.h"
#include "hv/lib/boot_asm.h"

#define EXC_WITH_ERROR_CODE	((1 << 8) | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13) | \
				 (1 << 14) | (1 << 17) | (1 << 21) | (1 << 29) | (1 << 30))

	MB2_HEADER .multiboot

	.section .text.entry, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	mov	%eax, %esi		/* magic, info: kept for fz_main */
	mov	%ebx, %edi
	lgdt	gdt_ptr
	ljmp	$FZ_CS32, $1f
1:	mov	$FZ_DS, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	mov	%eax, %fs
	mov	%eax, %gs
	mov	$(fz_stack + FZ_STACK_SIZE), %esp

	/* .bss (the page tables and the stack are in it) */
	mov	%edi, %ebp
	CLEAR_BSS
	mov	%ebp, %edi

	/* Two identical PML4s (fz_pml4_a/b, for CR3 switches) -> one PDPT -> one
	 * PD of 2 MiB pages: 0-1 GiB identity, supervisor, writable. */
	mov	$(fz_pdpt + 3), %eax
	mov	%eax, fz_pml4_a
	mov	%eax, fz_pml4_b
	mov	$(fz_pd + 3), %eax
	mov	%eax, fz_pdpt
	mov	$fz_pd, %ebx
	mov	$0x83, %eax		/* P | RW | PS */
	xor	%ecx, %ecx
2:	mov	%eax, (%ebx, %ecx, 8)
	add	$0x200000, %eax
	inc	%ecx
	cmp	$512, %ecx
	jb	2b

	/* PG with NE and PE, caches on (CD and NW clear) */
	ENTER_LONG_MODE fz_pml4_a, FZ_CS64, long_entry, X86_CR0_NE|X86_CR0_PE, X86_CR0_CD|X86_CR0_NW

	.code64
long_entry:
	mov	$FZ_DS, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	mov	%eax, %fs
	mov	%eax, %gs
	mov	$(fz_stack + FZ_STACK_SIZE), %rsp
	mov	%esi, %esi		/* zero-extend magic and info */
	mov	%edi, %eax
	mov	%rsi, %rdi
	mov	%rax, %rsi
	xor	%ebp, %ebp
	call	fz_main
3:	cli
	hlt
	jmp	3b

/*
 * int fz_try(void (*fn)(void *), void *arg): calls fn(arg). Returns 0 when it
 * returned, 1 when an exception (or an interrupt on vectors 0-31) cut it
 * short: fz_trap() then sent us to fz_try_resume with the stack as it was
 * here and the flags (IF included) fz_try was called with.
 */
	.text
	.globl fz_try
fz_try:
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	pushfq
	mov	%rsp, fz_ctx_rsp(%rip)
	mov	%rdi, %rax
	mov	%rsi, %rdi
	call	*%rax
	xor	%eax, %eax
	jmp	4f
fz_try_resume:
	mov	$1, %eax
4:	movq	$0, fz_ctx_rsp(%rip)
	popfq
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	ret

/*
 * IDT stubs, 16 bytes each from fz_vec_stubs: the vector and (where the CPU
 * pushes none) a dummy error code. Vectors 32-255 never get one from the CPU.
 */
	.balign 16
	.globl fz_vec_stubs
fz_vec_stubs:
	.set	v, 0
	.rept	256
	.balign 16
	.if	v < 32
	.if	((EXC_WITH_ERROR_CODE >> v) & 1) == 0
	pushq	$0
	.endif
	.else
	pushq	$0
	.endif
	pushq	$v
	jmp	vec_common
	.set	v, v + 1
	.endr

/* struct fz_frame (main.c): r15 ... rax, vector, error, rip, cs, rflags, rsp, ss */
vec_common:
	push	%rax
	push	%rcx
	push	%rdx
	push	%rbx
	push	%rbp
	push	%rsi
	push	%rdi
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	cld
	mov	%rsp, %rdi
	mov	%rsp, %rbx
	and	$-16, %rsp
	call	fz_trap
	mov	%rbx, %rsp
	test	%eax, %eax
	jnz	5f
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rdi
	pop	%rsi
	pop	%rbp
	pop	%rbx
	pop	%rdx
	pop	%rcx
	pop	%rax
	add	$16, %rsp
	iretq
	/* Resume fz_try with its own stack; IRETQ also ends NMI blocking. */
5:	mov	fz_ctx_rsp(%rip), %rax
	pushq	$FZ_DS
	push	%rax
	pushq	$2
	pushq	$FZ_CS64
	lea	fz_try_resume(%rip), %rax
	push	%rax
	iretq

	.section .rodata
	.balign 8
	.globl fz_gdt
fz_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff	/* FZ_CS32: 32-bit code, flat */
	.quad	0x00cf92000000ffff	/* FZ_DS: data, flat */
	.quad	0x00af9a000000ffff	/* FZ_CS64: 64-bit code */
fz_gdt_end:
gdt_ptr:
	.word	fz_gdt_end - fz_gdt - 1
	.quad	fz_gdt

	.section .bss
	.balign 4096
	.globl fz_pml4_a, fz_pml4_b, fz_pdpt, fz_pd
fz_pml4_a:
	.skip	4096
fz_pml4_b:
	.skip	4096
fz_pdpt:
	.skip	4096
fz_pd:
	.skip	4096
	.balign 16
	.globl fz_stack
fz_stack:
	.skip	FZ_STACK_SIZE
	.balign 8
	.globl fz_ctx_rsp
fz_ctx_rsp:
	.skip	8

	.section .note.GNU-stack, "", @progbits
