/* SPDX-License-Identifier: MIT */
/* Constants shared by the guests' assembly and C. */
#ifndef TEMPO_GUESTS_COMMON_LAYOUT_H
#define TEMPO_GUESTS_COMMON_LAYOUT_H

#define GUEST_BOOT_STACK_SIZE	0x4000

#define GDT_CODE32		0x08
#define GDT_DATA32		0x10

/* CPUs a guest starts at most (the BSP included); each AP gets a stack. */
#define SMP_MAX_CPUS		64
#define SMP_AP_STACK_SHIFT	12
#define SMP_AP_STACK_SIZE	(1 << SMP_AP_STACK_SHIFT)
/*
 * Where the AP trampoline runs: SIPI starts an AP in real mode at
 * vector << 12, so it must be a page below 1 MiB. 0x8000 is free RAM under
 * BIOS boots once GRUB has jumped to the kernel.
 */
#define SMP_TRAMPOLINE_PHYS	0x8000

#endif
