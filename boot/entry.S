/* SPDX-License-Identifier: MIT */
/*
 * The two ways in:
 * - _start: the 32-bit entry GRUB jumps to (BIOS and UEFI alike: without the
 *   "EFI boot services" header tag GRUB exits boot services and enters here
 *   in 32-bit protected mode, paging off, EAX = magic, EBX = info). We enter
 *   long mode on the boot page tables and call kmain(magic, info_phys).
 * - _start_efi64: the 64-bit entry the Tempo EFI loader (boot/efi/loader.c)
 *   calls after ExitBootServices, on the firmware's identity-mapped page
 *   tables; it finds the address in the EFI entry header below. We switch to
 *   our own GDT, page tables and stack and call kmain_efi(magic, info, size).
 * Both run on the same boot page tables: an identity map of the low 4 GiB in
 * 2 MiB pages, built at link time (.data below), so neither path has code to
 * build them and the APs use them too.
 */
#include "arch/x86/boot_layout.h"
#include "hv/lib/boot_asm.h"

/* What CR0 gets besides PG on the way to long mode, on the BSP and the APs. */
#define BOOT_CR0_SET	(X86_CR0_WP|X86_CR0_NE|X86_CR0_PE)

/* The flat data segments of the boot GDT; FS and GS null. */
.macro LOAD_BOOT_DATA_SEGMENTS
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	xor	%ax, %ax
	mov	%ax, %fs
	mov	%ax, %gs
.endm

	MB2_HEADER .multiboot2

	.section .multiboot2, "a"
	/*
	 * The EFI entry header: the loader looks for the magic 8-byte aligned in
	 * the first 32 KiB of the file (as GRUB looks for the multiboot2 header)
	 * and calls the 64-bit physical address that follows it. A header rather
	 * than a symbol lookup, so a stripped image still boots.
	 */
	.balign 8
efi_entry_header:
	.quad EFI_ENTRY_HDR_MAGIC
	.quad _start_efi64

	.section .text.boot, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	mov	%eax, %esi		/* magic: survives the bss clear below */
	mov	%ebx, %ebp		/* info pointer */

	/* Zero .bss (the stacks live there); GRUB zeroes it too, other
	 * loaders may not. */
	CLEAR_BSS

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

	lgdt	boot_gdt_ptr
	ENTER_LONG_MODE boot_pml4, 0x08, long_mode_entry, BOOT_CR0_SET

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
	LOAD_BOOT_DATA_SEGMENTS
	mov	$(boot_stack + BOOT_STACK_SIZE), %rsp
	mov	%esi, %edi		/* arg 1: magic */
	mov	%ebp, %esi		/* arg 2: info physical address (zero-extended) */
	xor	%ebp, %ebp		/* end of the frame-pointer chain */
	call	kmain
6:	cli
	hlt
	jmp	6b

/*
 * The EFI loader calls here (SysV: RDI = EFI_BOOT_MAGIC, RSI = the
 * struct boot_info it filled, RDX = its size) after ExitBootServices, in
 * 64-bit mode on the firmware's page tables, GDT and stack, which all map
 * the low 4 GiB 1:1 and must be replaced before the firmware's memory is
 * handed out. The loader refuses 5-level paging (CR4.LA57), which cannot be
 * turned off from long mode.
 */
	.globl _start_efi64
_start_efi64:
	cli
	cld
	mov	%rdi, %r12		/* the arguments survive the bss clear */
	mov	%rsi, %r13
	mov	%rdx, %r14

	/* The loader zeroed our image, but this entry must not depend on it. */
	CLEAR_BSS
	mov	$(boot_stack + BOOT_STACK_SIZE), %esp

	lgdt	boot_gdt_ptr(%rip)
	pushq	$0x08
	lea	1f(%rip), %rax
	pushq	%rax
	lretq
1:	LOAD_BOOT_DATA_SEGMENTS
	/* A null selector need not clear the bases in 64-bit mode. */
	xor	%eax, %eax
	xor	%edx, %edx
	mov	$0xc0000100, %ecx	/* IA32_FS_BASE */
	wrmsr
	mov	$0xc0000101, %ecx	/* IA32_GS_BASE */
	wrmsr

	/*
	 * CR4 as the 32-bit path leaves it, PAE only: this drops the firmware's
	 * PGE (flushing its global TLB entries), PCIDE, SMEP/SMAP, OSFXSR and
	 * the like, so both boot paths hand C the same CPU state.
	 */
	mov	$(1 << 5), %eax
	mov	%rax, %cr4
	mov	$boot_pml4, %eax
	mov	%rax, %cr3
	mov	%cr0, %rax
	or	$((1 << 16) | (1 << 5)), %eax	/* WP, NE */
	mov	%rax, %cr0
	/* EFER.NXE off as on the 32-bit path and the APs; only now, as the
	 * firmware's tables (gone with the CR3 load) used the XD bit. */
	mov	$0xc0000080, %ecx	/* IA32_EFER */
	rdmsr
	and	$~(1 << 11), %eax
	wrmsr

	mov	%r12d, %edi		/* arg 1: magic */
	mov	%r13, %rsi		/* arg 2: struct boot_info physical address */
	mov	%r14, %rdx		/* arg 3: its size */
	xor	%ebp, %ebp
	call	kmain_efi
8:	cli
	hlt
	jmp	8b

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
	ENTER_LONG_MODE boot_pml4, 0x08, ap_long_entry, BOOT_CR0_SET

	.code64
ap_long_entry:
	LOAD_BOOT_DATA_SEGMENTS
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
boot_gdt_ptr:				/* lgdt reads 6 bytes in 32-bit mode, 10 in 64 */
	.word boot_gdt_end - boot_gdt - 1
	.quad boot_gdt

/*
 * The boot page tables: PML4[0] -> PDPT; PDPT[0..3] -> PD0..PD3; the PDs map
 * 0..4 GiB in 2 MiB pages (present, writable, PS). The top GiB (APIC, HPET,
 * PCI MMIO) is mapped uncached (PCD|PWT).
 */
	.data
	.balign 4096
	.globl boot_pml4
boot_pml4:
	.quad boot_pdpt + 0x3
	.fill 511, 8, 0
boot_pdpt:
	.quad boot_pd + 0x3
	.quad boot_pd + 0x1000 + 0x3
	.quad boot_pd + 0x2000 + 0x3
	.quad boot_pd + 0x3000 + 0x3
	.fill 508, 8, 0
boot_pd:
	.set pde, 0
	.rept 1536
	.quad (pde << 21) | 0x83
	.set pde, pde + 1
	.endr
	.rept 512
	.quad (pde << 21) | 0x83 | 0x18
	.set pde, pde + 1
	.endr

	.section .bss
	.balign 4096
	.globl boot_stack
boot_stack:	.skip BOOT_STACK_SIZE

	.section .note.GNU-stack, "", @progbits
