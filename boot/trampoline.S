/* SPDX-License-Identifier: MIT */
/*
 * The AP trampoline: copied to a free page below 1 MiB, where a SIPI starts
 * an application processor in real mode at CS = page >> 4, IP = 0. It only
 * loads the boot GDT and jumps to ap_entry32 (boot/entry.S) in protected
 * mode; everything it needs is a link-time constant, so the copy works at
 * any page and nothing is patched.
 */

#define BOOT_GDT_LIMIT (4 * 8 - 1)	/* boot/entry.S: null, code64, data, code32 */

	.section .rodata
	.code16
	.globl trampoline_start, trampoline_end
	.balign 16
trampoline_start:
	cli
	cld
	mov	%cs, %ax
	mov	%ax, %ds
	lgdtl	tr_gdt_ptr - trampoline_start
	mov	%cr0, %eax
	or	$1, %eax		/* PE */
	mov	%eax, %cr0
	ljmpl	*(tr_far32 - trampoline_start)

	.balign 8
tr_gdt_ptr:
	.word	BOOT_GDT_LIMIT
	.long	boot_gdt
tr_far32:
	.long	ap_entry32
	.word	0x18			/* 32-bit code in the boot GDT */
trampoline_end:

	.section .note.GNU-stack, "", @progbits
