/* SPDX-License-Identifier: MIT */
/*
 * Multiboot header, assembled once per flavour: -DMB_VERSION=1 gives a
 * multiboot1 header (memory info only, no a.out kludge: the loader reads the
 * ELF), -DMB_VERSION=2 a multiboot2 one. The linker script puts it first.
 */
#define MB1_HEADER_MAGIC	0x1badb002
#define MB1_FLAG_MEMINFO	(1 << 1)
#define MB2_HEADER_MAGIC	0xe85250d6
#define MB2_ARCH_I386		0

	.section .multiboot, "a"
#if MB_VERSION == 1
	.balign 4
	.long	MB1_HEADER_MAGIC
	.long	MB1_FLAG_MEMINFO
	.long	-(MB1_HEADER_MAGIC + MB1_FLAG_MEMINFO)
#elif MB_VERSION == 2
	.balign 8
mb2_header:
	.long	MB2_HEADER_MAGIC
	.long	MB2_ARCH_I386
	.long	mb2_header_end - mb2_header
	.long	-(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	/* end tag */
	.word	0
	.word	0
	.long	8
mb2_header_end:
#else
#error "MB_VERSION must be 1 or 2"
#endif

	.section .note.GNU-stack, "", @progbits
