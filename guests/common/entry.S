/* SPDX-License-Identifier: MIT */
/*
 * 32-bit entry for guests, entered the way GRUB enters a multiboot kernel
 * (protected mode, paging off, EAX = magic, EBX = info). The loader's GDT
 * may be gone by now, so we load our own before touching a segment register.
 * Also here: the exception stubs and the AP trampoline.
 */
#include "guests/common/layout.h"
#include "hv/lib/boot_asm.h"

#define EXC_WITH_ERROR_CODE	((1 << 8) | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13) | \
				 (1 << 14) | (1 << 17) | (1 << 21) | (1 << 29) | (1 << 30))

	.section .text
	.code32
	.globl _start
_start:
	cli
	cld
	lgdt	gdt_ptr
	ljmp	$GDT_CODE32, $1f
1:	mov	$GDT_DATA32, %ecx
	mov	%ecx, %ds
	mov	%ecx, %es
	mov	%ecx, %ss
	mov	%ecx, %fs
	mov	%ecx, %gs
	mov	$(boot_stack + GUEST_BOOT_STACK_SIZE), %esp
	mov	%eax, %esi		/* magic and info survive the .bss clear */
	mov	%ebx, %ebp

	/* GRUB zeroes .bss; a loader that does not must not break us. */
	CLEAR_BSS

	push	%ebp			/* arg 2: info */
	push	%esi			/* arg 1: magic */
	xor	%ebp, %ebp		/* end of the frame-pointer chain */
	call	guest_main
2:	cli
	hlt
	jmp	2b

/*
 * APs arrive here from the trampoline in 32-bit mode on its temporary GDT.
 * Each takes a ticket, which picks its stack; tickets past the last stack
 * park (the BSP never starts that many).
 */
	.globl smp_ap_entry32
smp_ap_entry32:
	lgdt	gdt_ptr
	ljmp	$GDT_CODE32, $1f
1:	mov	$GDT_DATA32, %ecx
	mov	%ecx, %ds
	mov	%ecx, %es
	mov	%ecx, %ss
	mov	%ecx, %fs
	mov	%ecx, %gs
	mov	$1, %eax
	lock xadd %eax, smp_ap_ticket
	cmp	$(SMP_MAX_CPUS - 1), %eax
	jae	3f
	inc	%eax
	shl	$SMP_AP_STACK_SHIFT, %eax
	add	$smp_ap_stacks, %eax
	mov	%eax, %esp
	xor	%ebp, %ebp
	call	smp_ap_main
3:	cli
	hlt
	jmp	3b

/* Exception stubs: push a dummy error code where the CPU pushes none. */
	.macro	exc_stub vec
exc_stub_\vec:
	.if	(EXC_WITH_ERROR_CODE & (1 << \vec)) == 0
	pushl	$0
	.endif
	pushl	$\vec
	jmp	exc_common
	.endm

	.irp	vec, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, \
		24, 25, 26, 27, 28, 29, 30, 31
	exc_stub \vec
	.endr

exc_common:
	pusha
	cld
	push	%esp			/* struct exc_frame * */
	call	exc_dispatch
	add	$4, %esp
	popa
	add	$8, %esp		/* vector, error code */
	iret

	.section .rodata
	.balign 4
	.globl exc_stubs
exc_stubs:
	.irp	vec, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, \
		24, 25, 26, 27, 28, 29, 30, 31
	.long	exc_stub_\vec
	.endr

	.balign 8
gdt:
	.quad	0
	.quad	0x00cf9a000000ffff	/* 0x08: 32-bit code, flat */
	.quad	0x00cf92000000ffff	/* 0x10: data, flat */
gdt_end:
gdt_ptr:
	.word	gdt_end - gdt - 1
	.long	gdt

/*
 * AP trampoline, copied to SMP_TRAMPOLINE_PHYS by smp_start_aps(). A SIPI
 * starts the AP in real mode with CS = vector << 8, IP = 0, so everything in
 * here is addressed relative to its start. It enters protected mode and
 * jumps to smp_ap_entry32 in the kernel proper.
 */
#define TRAMP(sym)	(SMP_TRAMPOLINE_PHYS + (sym) - smp_tramp_start)

	.balign 16
	.globl smp_tramp_start, smp_tramp_end
smp_tramp_start:
	.code16
	cli
	cld
	mov	%cs, %ax
	mov	%ax, %ds
	lgdtl	tramp_gdt_ptr - smp_tramp_start
	mov	%cr0, %eax
	/* After INIT, CR0 has CD and NW set: turn the caches on too. */
	and	$0x9fffffff, %eax
	or	$1, %eax		/* PE */
	mov	%eax, %cr0
	ljmpl	$GDT_CODE32, $TRAMP(tramp_pm)
	.code32
tramp_pm:
	mov	$GDT_DATA32, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	mov	$smp_ap_entry32, %eax
	jmp	*%eax

	.balign 8
tramp_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff	/* 0x08: 32-bit code, flat */
	.quad	0x00cf92000000ffff	/* 0x10: data, flat */
tramp_gdt_end:
tramp_gdt_ptr:
	.word	tramp_gdt_end - tramp_gdt - 1
	.long	TRAMP(tramp_gdt)
smp_tramp_end:

	.section .bss
	.balign 16
boot_stack:
	.skip	GUEST_BOOT_STACK_SIZE
	.balign 16
	.globl smp_ap_stacks
smp_ap_stacks:
	.skip	(SMP_MAX_CPUS - 1) * SMP_AP_STACK_SIZE

	.section .note.GNU-stack, "", @progbits
