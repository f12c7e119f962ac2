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

static int ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * What the parser promises about channel @i, which channels_build maps
 * without checking: sizes, peers, and each peer's range clear of its RAM, the
 * MMIO window, the 64 GiB limit and its other channels.
 */
static void check_channel(const struct hv_config *cfg, uint32_t i)
{
	const struct channel_config *c = &cfg->channels[i];

	if (c->size < CONFIG_CHANNEL_MIN || c->size > CONFIG_CHANNEL_MAX ||
	    c->size % CONFIG_CHANNEL_MIN || c->peer_count < 2 || c->peer_count > CONFIG_MAX_PEERS ||
	    !c->doorbell_limit || c->doorbell_limit > CONFIG_MAX_DOORBELL_LIMIT)
		__builtin_trap();
	for (uint32_t k = 0; k < c->peer_count; k++) {
		const struct channel_peer *pe = &c->peers[k];

		if (pe->partition >= cfg->partition_count || pe->gpa % CONFIG_CHANNEL_MIN ||
		    (c->size >= CONFIG_MEM_ALIGN && pe->gpa % CONFIG_MEM_ALIGN) ||
		    pe->gpa < cfg->partitions[pe->partition].memory_bytes ||
		    pe->gpa > CONFIG_GUEST_PHYS_LIMIT - c->size ||
		    ranges_overlap(pe->gpa, c->size, CONFIG_GUEST_MMIO_START,
				   CONFIG_GUEST_MMIO_END - CONFIG_GUEST_MMIO_START))
			__builtin_trap();
		for (uint32_t j = 0; j < i; j++)
			for (uint32_t m = 0; m < cfg->channels[j].peer_count; m++) {
				const struct channel_peer *o = &cfg->channels[j].peers[m];

				if (o->partition == pe->partition &&
				    ranges_overlap(pe->gpa, c->size, o->gpa, cfg->channels[j].size))
					__builtin_trap();
			}
		for (uint32_t m = 0; m < k; m++)
			if (c->peers[m].partition == pe->partition)
				__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hv_config cfg;
	static struct config_errors errs;
	struct config_error err;
	int all_rc;

	/* every error kept: each message sane, the first the one config_parse gives */
	memset(&errs, 0x5a, sizeof(errs));
	all_rc = config_parse_all((const char *)data, size, &cfg, &errs);
	if (!all_rc != !errs.count)
		__builtin_trap();
	for (uint32_t i = 0; i < errs.count && i < CONFIG_MAX_ERRORS; i++)
		check_msg(&errs.list[i]);
	memset(&err, 0x5a, sizeof(err));
	if (config_parse((const char *)data, size, &cfg, &err)) {
		if (!all_rc || err.line != errs.list[0].line || strcmp(err.msg, errs.list[0].msg))
			__builtin_trap();
		if (!err.msg[0])
			__builtin_trap();
		check_msg(&err);
		return 0;
	}
	check_msg(&err);
	for (uint32_t i = 0; i < cfg.partition_count; i++) {
		const struct partition_config *p = &cfg.partitions[i];

		/* What the parser promises the rest of the hypervisor. */
		if (cpuset_empty(&p->cpus) || !p->memory_bytes || p->memory_bytes % CONFIG_MEM_ALIGN ||
		    p->base % CONFIG_MEM_ALIGN || p->base > UINT64_MAX - p->memory_bytes ||
		    p->module_count > CONFIG_MAX_MODULES || !p->name[0] || !p->image[0])
			__builtin_trap();
		/* the device lists within their arrays, each range sane */
		if (p->dev.pci_count > DEV_MAX_PCI || p->dev.port_count > DEV_MAX_PORTS ||
		    p->dev.mmio_count > DEV_MAX_MMIO || p->dev.irq_count > DEV_MAX_IRQS)
			__builtin_trap();
		for (uint32_t k = 0; k < p->dev.mmio_count; k++)
			if (!p->dev.mmio[k].size || p->dev.mmio[k].size % DEV_MMIO_GRAIN ||
			    p->dev.mmio[k].base % DEV_MMIO_GRAIN ||
			    p->dev.mmio[k].base > UINT64_MAX - (p->dev.mmio[k].size - 1))
				__builtin_trap();
	}
	for (uint32_t i = 0; i < cfg.channel_count; i++)
		check_channel(&cfg, i);
	if (all_rc)
		__builtin_trap();
	memset(&err, 0x5a, sizeof(err));
	config_validate(&cfg, &plat, &err);
	check_msg(&err);
	memset(&errs, 0x5a, sizeof(errs));
	config_validate_all(&cfg, &plat, &errs);
	for (uint32_t i = 0; i < errs.count && i < CONFIG_MAX_ERRORS; i++)
		check_msg(&errs.list[i]);
	return 0;
}
