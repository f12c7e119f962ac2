// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for hv/core/config.c: the input is a config file; whatever
 * parses is also checked against a fixed platform, so config_validate sees
 * every shape of config the parser lets through.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hv/core/config.h"

static const struct config_platform plat = {
	.cpu_count = 4,
	.module_count = 3,
	.module_names = { "hello", "partitions", "initrd" },
	.usable_bytes = 1ull << 30,
};

/* A message must always be a terminated string: it goes straight to printk. */
static void check_msg(const struct config_error *err)
{
	if (strnlen(err->msg, sizeof(err->msg)) >= sizeof(err->msg))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hv_config cfg;
	struct config_error err;

	memset(&err, 0x5a, sizeof(err));
	if (config_parse((const char *)data, size, &cfg, &err)) {
		if (!err.msg[0])
			__builtin_trap();
		check_msg(&err);
		return 0;
	}
	check_msg(&err);
	for (uint32_t i = 0; i < cfg.partition_count; i++) {
		const struct partition_config *p = &cfg.partitions[i];

		/* What the parser promises the rest of the hypervisor. */
		if (!p->cpu_mask || !p->memory_bytes || p->memory_bytes % CONFIG_MEM_ALIGN ||
		    p->base % CONFIG_MEM_ALIGN || p->base > UINT64_MAX - p->memory_bytes ||
		    p->module_count > CONFIG_MAX_MODULES || !p->name[0] || !p->image[0])
			__builtin_trap();
	}
	memset(&err, 0x5a, sizeof(err));
	config_validate(&cfg, &plat, &err);
	check_msg(&err);
	return 0;
}
