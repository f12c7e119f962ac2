/* SPDX-License-Identifier: MIT */
/*
 * The EFI loader's two pieces of pure logic, kept apart from the firmware
 * calls so the host unit tests can run them: the loader file parser and the
 * conversion of the EFI memory map into the hypervisor's boot_info map.
 */
#ifndef TEMPO_BOOT_EFI_EFIBOOT_H
#define TEMPO_BOOT_EFI_EFIBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/core/boot_info.h"

#define EFI_CONF_PATH_LEN	256

struct efi_conf_module {
	char path[EFI_CONF_PATH_LEN];		/* backslashes, NUL-terminated */
	char string[BOOT_INFO_MOD_CMDLINE_LEN];	/* may be empty */
};

struct efi_conf {
	char hypervisor[EFI_CONF_PATH_LEN];
	char cmdline[BOOT_INFO_CMDLINE_LEN];
	uint32_t module_count;
	struct efi_conf_module modules[BOOT_INFO_MAX_MODULES];
};

/*
 * Parse the loader file (@len bytes, need not be NUL-terminated). One
 * statement a line, '#' starts a comment, blank lines are ignored:
 *   hypervisor = PATH          required, once
 *   cmdline = TEXT             optional, once (the rest of the line, trimmed)
 *   module = PATH [STRING]     0..BOOT_INFO_MAX_MODULES times, kept in order
 * PATHs are on the volume the loader came from; '/' is taken as '\'.
 * Returns 0, or -1 with "line N: what was wrong" in @err.
 */
int efi_conf_parse(const char *text, size_t len, struct efi_conf *out, char *err,
		   size_t errlen);

/* EFI_MEMORY_DESCRIPTOR (UEFI 2.10, 7.2); entries are desc_size apart. */
struct efi_mem_desc {
	uint32_t type;
	uint32_t pad;
	uint64_t phys_start;
	uint64_t virt_start;
	uint64_t pages;
	uint64_t attribute;
};

/* EFI_MEMORY_TYPE values the conversion names. */
enum {
	EFI_MT_LOADER_CODE = 1,
	EFI_MT_LOADER_DATA = 2,
	EFI_MT_BS_CODE = 3,
	EFI_MT_BS_DATA = 4,
	EFI_MT_CONVENTIONAL = 7,
	EFI_MT_UNUSABLE = 8,
	EFI_MT_ACPI_RECLAIM = 9,
	EFI_MT_ACPI_NVS = 10,
};

/*
 * The boot_info type of an EFI memory type once boot services are gone.
 * Loader code and data are reserved: they hold the hypervisor image (code),
 * the modules and the boot_info block (data), besides the loader itself.
 */
uint32_t efi_mem_type_to_boot(uint32_t efi_type);

/*
 * Convert the EFI map (@map_size bytes, @desc_size apart) into @bi's map:
 * sorted by address, adjacent entries of one type merged, no overlaps
 * (where the firmware's entries overlap, the stricter type wins: usable
 * memory never covers anything else), empty and wrapping entries dropped.
 * Sets mmap_truncated when more than BOOT_INFO_MAX_MMAP entries remain.
 * Returns 0, or -1 when @desc_size is smaller than a descriptor.
 */
int efi_mmap_convert(const void *map, size_t map_size, size_t desc_size, struct boot_info *bi);

/*
 * Whether the (multi-instance) device path @dp, @len bytes, names a UART
 * (messaging node 0x03/0x0e): the firmware's ConOut variable has one when
 * it mirrors its console to a serial port. A malformed path answers false.
 */
bool efi_devpath_has_uart(const void *dp, size_t len);

/* Whether @bi's map has a whole usable page in [@lo, @hi). */
bool boot_mmap_usable_page(const struct boot_info *bi, uint64_t lo, uint64_t hi);

#endif
