/* SPDX-License-Identifier: MIT */
/*
 * Multiboot header, assembled once per flavour: -DMB_VERSION=1 gives a
 * multiboot1 header (memory info only, no a.out kludge: the loader reads the
 * ELF), -DMB_VERSION=2 a multiboot2 one (hv/lib/boot_asm.h, the hypervisor's
 * own). The linker script puts it first.
 */
#include "hv/lib/boot_asm.h"

#define MB1_HEADER_MAGIC	0x1badb002
#define MB1_FLAG_MEMINFO	(1 << 1)

#if MB_VERSION == 1
	.section .multiboot, "a"
	.balign 4
	.long	MB1_HEADER_MAGIC
	.long	MB1_FLAG_MEMINFO
	.long	-(MB1_HEADER_MAGIC + MB1_FLAG_MEMINFO)
#elif MB_VERSION == 2
	MB2_HEADER .multiboot
#else
#error "MB_VERSION must be 1 or 2"
#endif

	.section .note.GNU-stack, "", @progbits
