/* SPDX-License-Identifier: MIT */
/*
 * Multiboot2 header and the 32-bit entry GRUB jumps to (BIOS and UEFI alike:
 * without the "EFI boot services" header tag GRUB exits boot services and
 * enters here in 32-bit protected mode, paging off, EAX = magic, EBX = info).
 * We identity-map the low 4 GiB with 2 MiB pages, enter long mode and call
 * kmain(magic, info_phys).
 */
#include "arch/x86/boot_layout.h"

#define MB2_HEADER_MAGIC	0xe85250d6
#define MB2_ARCH_I386		0

	.section .multiboot2, "a"
	.balign 8
mb2_header:
	.long MB2_HEADER_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	/* end tag */
	.word 0
	.word 0
	.long 8
mb2_header_end:

	.section .text.boot, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	mov	%eax, %esi		/* magic: survives the bss clear below */
	mov	%ebx, %ebp		/* info pointer */

	/* Zero .bss (page tables and stacks live there); GRUB zeroes it too,
	 * other loaders may not. */
	mov	$__bss_start, %edi
	mov	$__bss_end, %ecx
	sub	%edi, %ecx
	xor	%eax, %eax
	rep stosb

	mov	$(boot_stack + BOOT_STACK_SIZE), %esp

	/* Long mode available? CPUID 0x80000001 EDX bit 29. */
	mov	$0x80000000, %eax
	cpuid
	cmp	$0x80000001, %eax
	jb	no_long_mode
	mov	$0x80000001, %eax
	cpuid
	bt	$29, %edx
	jnc	no_long_mode

	/* PML4[0] -> PDPT; PDPT[0..3] -> PD0..PD3; PDs map 0..4 GiB in 2 MiB
	 * pages. The top GiB (APIC, HPET, PCI MMIO) is mapped uncached. */
	mov	$boot_pdpt, %eax
	or	$0x3, %eax
	mov	%eax, boot_pml4
	mov	$boot_pd, %eax
	or	$0x3, %eax
	mov	$boot_pdpt, %edi
	mov	$4, %ecx
1:	mov	%eax, (%edi)
	add	$4096, %eax
	add	$8, %edi
	loop	1b

	mov	$boot_pd, %edi
	xor	%ebx, %ebx		/* entry index 0..2047 */
2:	mov	%ebx, %eax
	shl	$21, %eax		/* low 32 bits of 2 MiB * index */
	or	$0x83, %eax		/* present, writable, 2 MiB page */
	cmp	$1536, %ebx		/* >= 3 GiB: PCD|PWT */
	jb	3f
	or	$0x18, %eax
3:	mov	%eax, (%edi)
	mov	%ebx, %eax
	shr	$11, %eax		/* high bits of the physical address */
	mov	%eax, 4(%edi)
	add	$8, %edi
	inc	%ebx
	cmp	$2048, %ebx
	jb	2b

	mov	%cr4, %eax
	or	$(1 << 5), %eax		/* PAE */
	mov	%eax, %cr4
	mov	$boot_pml4, %eax
	mov	%eax, %cr3
	mov	$0xc0000080, %ecx	/* IA32_EFER */
	rdmsr
	or	$(1 << 8), %eax		/* LME */
	wrmsr
	mov	%cr0, %eax
	or	$((1 << 31) | (1 << 16) | (1 << 5) | 1), %eax	/* PG, WP, NE, PE */
	mov	%eax, %cr0

	lgdt	boot_gdt_ptr
	ljmp	$0x08, $long_mode_entry

no_long_mode:
	mov	$msg_no_lm, %ebx
4:	movb	(%ebx), %al
	test	%al, %al
	jz	5f
	mov	$0xe9, %dx
	outb	%al, %dx
	mov	$0x3f8, %dx
	outb	%al, %dx
	inc	%ebx
	jmp	4b
5:	hlt
	jmp	5b

	.code64
long_mode_entry:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	xor	%ax, %ax
	mov	%ax, %fs
	mov	%ax, %gs
	mov	$(boot_stack + BOOT_STACK_SIZE), %rsp
	mov	%esi, %edi		/* arg 1: magic */
	mov	%ebp, %esi		/* arg 2: info physical address (zero-extended) */
	xor	%ebp, %ebp		/* end of the frame-pointer chain */
	call	kmain
6:	cli
	hlt
	jmp	6b

/*
 * Application processors arrive here from boot/trampoline.S in 32-bit
 * protected mode (boot GDT, flat segments) and take the same road to long
 * mode on the boot page tables. The boot CPU starts them one at a time and
 * leaves the stack and CPU index in ap_boot_stack / ap_boot_index.
 */
	.code32
	.globl ap_entry32
ap_entry32:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	%cr4, %eax
	or	$(1 << 5), %eax		/* PAE */
	mov	%eax, %cr4
	mov	$boot_pml4, %eax
	mov	%eax, %cr3
	mov	$0xc0000080, %ecx	/* IA32_EFER */
	rdmsr
	or	$(1 << 8), %eax		/* LME */
	wrmsr
	mov	%cr0, %eax
	or	$((1 << 31) | (1 << 16) | (1 << 5) | 1), %eax	/* PG, WP, NE, PE */
	mov	%eax, %cr0
	ljmp	$0x08, $ap_long_entry

	.code64
ap_long_entry:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	xor	%ax, %ax
	mov	%ax, %fs
	mov	%ax, %gs
	movq	ap_boot_stack(%rip), %rsp
	movl	ap_boot_index(%rip), %edi
	xor	%ebp, %ebp
	call	ap_main
7:	cli
	hlt
	jmp	7b

	.data
	.balign 8
	.globl ap_boot_stack, ap_boot_index
ap_boot_stack:	.quad 0
ap_boot_index:	.long 0

	.section .rodata
msg_no_lm:
	.asciz "Tempo: FATAL: this CPU has no long mode (x86-64); halting\r\n"

	.balign 8
	.globl boot_gdt
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
	.quad 0x00cf9a000000ffff	/* 0x18: 32-bit code, for the AP trampoline */
boot_gdt_end:
boot_gdt_ptr:
	.word boot_gdt_end - boot_gdt - 1
	.long boot_gdt

	.section .bss
	.balign 4096
	.globl boot_pml4
boot_pml4:	.skip 4096
boot_pdpt:	.skip 4096
boot_pd:	.skip 4096 * 4
	.globl boot_stack
boot_stack:	.skip BOOT_STACK_SIZE

	.section .note.GNU-stack, "", @progbits
