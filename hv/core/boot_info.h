/* SPDX-License-Identifier: MIT */
/*
 * The normalized boot information every boot path produces (multiboot2 from
 * GRUB today, the GNU-EFI loader later). Everything after the boot path reads
 * only this structure, never the loader's own format.
 */
#ifndef TEMPO_HV_BOOT_INFO_H
#define TEMPO_HV_BOOT_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOOT_INFO_MAX_MMAP	128
#define BOOT_INFO_MAX_MODULES	16
#define BOOT_INFO_CMDLINE_LEN	256
#define BOOT_INFO_NAME_LEN	64
#define BOOT_INFO_MOD_CMDLINE_LEN 128
#define BOOT_INFO_RSDP_MAX	36	/* ACPI 2.0+ RSDP is 36 bytes, 1.0 is 20 */

/* Memory types, numbered as multiboot2 (and the E820 map) number them. */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,
	BOOT_MEM_RESERVED = 2,
	BOOT_MEM_ACPI_RECLAIM = 3,
	BOOT_MEM_ACPI_NVS = 4,
	BOOT_MEM_BAD = 5,
};

struct boot_mmap_entry {
	uint64_t base;
	uint64_t length;
	uint32_t type;		/* enum boot_mem_type; unknown types kept as given */
};

struct boot_module {
	uint64_t start;		/* physical, inclusive */
	uint64_t end;		/* physical, exclusive */
	char cmdline[BOOT_INFO_MOD_CMDLINE_LEN];	/* always NUL-terminated */
};

struct boot_info {
	char cmdline[BOOT_INFO_CMDLINE_LEN];	/* always NUL-terminated */
	char loader_name[BOOT_INFO_NAME_LEN];	/* always NUL-terminated */

	uint32_t mmap_count;
	bool mmap_truncated;	/* more entries than BOOT_INFO_MAX_MMAP */
	struct boot_mmap_entry mmap[BOOT_INFO_MAX_MMAP];

	uint32_t module_count;
	bool modules_truncated;
	struct boot_module modules[BOOT_INFO_MAX_MODULES];

	/* A copy of the RSDP (multiboot2 hands a copy, not an address). */
	bool has_rsdp;
	uint8_t rsdp_revision;	/* 0: ACPI 1.0 (20 bytes), 2: 2.0+ (36 bytes) */
	uint32_t rsdp_len;
	uint8_t rsdp[BOOT_INFO_RSDP_MAX];
	uint64_t rsdp_phys;	/* where the RSDP lives, 0 when only a copy is known */

	/* EFI details; the hypervisor does not call EFI, it only reports them. */
	bool has_efi64_system_table;
	uint64_t efi64_system_table;
	bool has_efi32_system_table;
	uint32_t efi32_system_table;
	bool has_efi_mmap;
	bool efi_boot_services_active;	/* multiboot2 tag 18 seen */

	/* Where the loader's own info block lies, so memory carving skips it. */
	uint64_t info_phys;
	uint64_t info_size;
};

#endif
