/* SPDX-License-Identifier: MIT */
/* Constants shared by the assembly entry and C. */
#ifndef TEMPO_ARCH_X86_BOOT_LAYOUT_H
#define TEMPO_ARCH_X86_BOOT_LAYOUT_H

#define BOOT_STACK_SIZE		0x8000
#define IDENTITY_MAP_LIMIT	0x100000000ull	/* the boot page tables map 0..4 GiB */

#endif
