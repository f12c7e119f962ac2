/* SPDX-License-Identifier: MIT */
/*
 * Assembler macros for a 32-bit multiboot entry, shared by the hypervisor's
 * (boot/entry.S) and the guests' (guests/common/mbheader.S, guests/fuzz/entry.S):
 * - MB2_HEADER section: a multiboot2 header with no tag but the end tag;
 * - CLEAR_BSS: zero __bss_start..__bss_end;
 * - ENTER_LONG_MODE: the switch from 32-bit protected mode to long mode.
 * Here in the library layer because it is the one layer both boot/ and
 * guests/ may include (tests/layering/check.sh); definitions only, nothing is
 * assembled where they are not used. Include from .S files only.
 */
#ifndef TEMPO_HV_LIB_BOOT_ASM_H
#define TEMPO_HV_LIB_BOOT_ASM_H

#ifndef __ASSEMBLER__
#error "hv/lib/boot_asm.h holds assembler macros: include it from .S files only"
#endif

#define MB2_HEADER_MAGIC	0xe85250d6
#define MB2_ARCH_I386		0

#define X86_CR0_PE		0x00000001
#define X86_CR0_NE		0x00000020
#define X86_CR0_WP		0x00010000
#define X86_CR0_NW		0x20000000
#define X86_CR0_CD		0x40000000
#define X86_CR0_PG		0x80000000
#define X86_CR4_PAE		0x00000020
#define X86_MSR_EFER		0xc0000080
#define X86_EFER_LME		0x00000100

/*
 * The multiboot2 header (Multiboot2 spec 3.1) in @section, 8-byte aligned;
 * the linker script puts that section where the loader looks (first 32 KiB).
 */
.macro MB2_HEADER section:req
	.pushsection \section, "a"
	.balign 8
1:	.long	MB2_HEADER_MAGIC
	.long	MB2_ARCH_I386
	.long	2f - 1b
	.long	-(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (2f - 1b))
	.word	0			/* end tag */
	.word	0
	.long	8
2:
	.popsection
.endm

/*
 * Zeroes __bss_start..__bss_end (linker script symbols below 4 GiB), in
 * 32-bit or 64-bit code, with flat ES. Clobbers EAX, ECX and EDI.
 */
.macro CLEAR_BSS
	mov	$__bss_start, %edi
	mov	$__bss_end, %ecx
	sub	%edi, %ecx
	xor	%eax, %eax
	rep stosb
.endm

/*
 * From 32-bit protected mode with paging off to long mode: CR4.PAE, CR3 =
 * @pml4 (an identity map of at least this code), EFER.LME, then CR0.PG with
 * @cr0_set added and @cr0_clear cleared, and a far jump to @target (64-bit
 * code) through @cs64, a 64-bit code selector of the GDT already loaded.
 * Other CR4 and EFER bits are kept. Clobbers EAX, ECX and EDX. Arguments are
 * expressions without spaces (gas splits macro arguments at them).
 */
.macro ENTER_LONG_MODE pml4:req, cs64:req, target:req, cr0_set:req, cr0_clear=0
	.code32
	mov	%cr4, %eax
	or	$X86_CR4_PAE, %eax
	mov	%eax, %cr4
	mov	$\pml4, %eax
	mov	%eax, %cr3
	mov	$X86_MSR_EFER, %ecx
	rdmsr
	or	$X86_EFER_LME, %eax
	wrmsr
	mov	%cr0, %eax
	or	$(X86_CR0_PG | (\cr0_set)), %eax
	.if	\cr0_clear
	and	$~(\cr0_clear), %eax
	.endif
	mov	%eax, %cr0
	ljmp	$\cs64, $\target
.endm

#endif
