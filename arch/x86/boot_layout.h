/* SPDX-License-Identifier: MIT */
/* Constants shared by the assembly entry and C. */
#ifndef TEMPO_ARCH_X86_BOOT_LAYOUT_H
#define TEMPO_ARCH_X86_BOOT_LAYOUT_H

#define BOOT_STACK_SIZE		0x8000
#define IDENTITY_MAP_LIMIT	0x100000000ull	/* the boot page tables map 0..4 GiB */

/*
 * The EFI loader's way in (boot/entry.S, boot/efi/loader.c): the header's
 * magic ("TempoEFI" in memory), 8-byte aligned in the image file's first
 * EFI_ENTRY_HDR_SEARCH bytes and followed by the 64-bit physical address of
 * _start_efi64; and the magic the loader passes there in RDI.
 */
#define EFI_ENTRY_HDR_MAGIC	0x4946456f706d6554
#define EFI_ENTRY_HDR_SEARCH	32768
#define EFI_BOOT_MAGIC		0x54454649

#endif
