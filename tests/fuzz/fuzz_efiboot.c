// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: what the EFI loader reads from outside, its tempo.conf
 * and the firmware's memory map and ConOut device path. Runs each parser of
 * boot/efi/efiboot.c on the input and traps on any result that breaks its
 * contract; ASan and UBSan catch the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/efi/efiboot.h"

static void check_conf(const uint8_t *data, size_t len)
{
	static struct efi_conf conf;
	char err[160];
	int ret;

	memset(err, 0x5a, sizeof(err));
	ret = efi_conf_parse((const char *)data, len, &conf, err, sizeof(err));
	if (!memchr(err, 0, sizeof(err)) || (ret != 0) != (err[0] != 0))
		abort();
	if (ret)
		return;
	if (!conf.hypervisor[0] || conf.module_count > BOOT_INFO_MAX_MODULES)
		abort();
	if (!memchr(conf.hypervisor, 0, sizeof(conf.hypervisor)) ||
	    !memchr(conf.cmdline, 0, sizeof(conf.cmdline)))
		abort();
	for (uint32_t i = 0; i < conf.module_count; i++)
		if (!conf.modules[i].path[0] || strchr(conf.modules[i].path, '/'))
			abort();
}

/* The map: sorted, no overlaps, no empty entries, never more than fit. */
static void check_mmap(const uint8_t *data, size_t len)
{
	static struct boot_info bi;
	size_t desc_size;

	if (!len)
		return;
	desc_size = sizeof(struct efi_mem_desc) + (data[0] % 4) * 8;
	if (efi_mmap_convert(data + 1, len - 1, desc_size, &bi))
		abort();
	if (bi.mmap_count > BOOT_INFO_MAX_MMAP)
		abort();
	for (uint32_t i = 0; i < bi.mmap_count; i++) {
		const struct boot_mmap_entry *e = &bi.mmap[i];

		if (!e->length || e->base + e->length < e->base)
			abort();
		if (i && bi.mmap[i - 1].base + bi.mmap[i - 1].length > e->base)
			abort();
	}
	(void)boot_mmap_usable_page(&bi, 0x1000, 0x9f000);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	check_conf(data, len);
	check_mmap(data, len);
	(void)efi_devpath_has_uart(data, len);
	return 0;
}
