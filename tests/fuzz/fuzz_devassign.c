// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the device-assignment keys of the partition config
 * (hv/core/devassign.c) and the checks over what they parse. The input is
 * up to eight values, separated by NUL bytes, handed in turn to pci,
 * ports, mmio and irqs of two partitions; the checks then run against a
 * small fixed machine. Traps when a promise of hv/core/devassign.h fails:
 * an accepted list is within its limits, sorted out (no repeats, no
 * overlaps, ranges in order, memory page-aligned without wrap); a refused
 * one is empty with a one-line message naming its key; the checks count
 * the same refusals with room for them or without.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/devassign.h"

#define CHECK(cond)	do { if (!(cond)) abort(); } while (0)

static const struct dev_fn_info fns[] = {
	{ 0x0000, 0, 0x060000, { { 0 } }, 0, 0 },
	{ 0x00c8, 0, 0x020000, { { false, 0xf7d00000, 0x20000 }, { true, 0xf080, 0x20 } }, 1, 11 },
	{ 0x0100, 0x81, 0x060400, { { false, 0xf7c00000, 0x1000 } }, 0, 0 },
	{ 0x0200, 0, 0x070002, { { true, 0xe000, 8 } }, 1, 0xff },
};
static const struct dev_gsi_range gsis[] = { { 0, 24 }, { 24, 24 } };

static void check_list(const struct dev_assignment *a, enum dev_key k)
{
	switch (k) {
	case DEV_KEY_PCI:
		CHECK(a->pci_count <= DEV_MAX_PCI);
		for (uint32_t i = 0; i < a->pci_count; i++)
			for (uint32_t j = 0; j < i; j++)
				CHECK(a->pci[i] != a->pci[j]);
		break;
	case DEV_KEY_PORTS:
		CHECK(a->port_count <= DEV_MAX_PORTS);
		for (uint32_t i = 0; i < a->port_count; i++) {
			CHECK(a->ports[i].first <= a->ports[i].last);
			for (uint32_t j = 0; j < i; j++)
				CHECK(a->ports[i].last < a->ports[j].first ||
				      a->ports[j].last < a->ports[i].first);
		}
		break;
	case DEV_KEY_MMIO:
		CHECK(a->mmio_count <= DEV_MAX_MMIO);
		for (uint32_t i = 0; i < a->mmio_count; i++) {
			const struct dev_mmio_range *r = &a->mmio[i];

			CHECK(r->size && !((r->base | r->size) & 0xfff));
			CHECK(r->base <= UINT64_MAX - r->size + 1);
			for (uint32_t j = 0; j < i; j++)
				CHECK(r->base + (r->size - 1) < a->mmio[j].base ||
				      a->mmio[j].base + (a->mmio[j].size - 1) < r->base);
		}
		break;
	default:
		CHECK(a->irq_count <= DEV_MAX_IRQS);
		for (uint32_t i = 0; i < a->irq_count; i++) {
			CHECK(a->irqs[i] < DEV_GSI_LIMIT);
			for (uint32_t j = 0; j < i; j++)
				CHECK(a->irqs[i] != a->irqs[j]);
		}
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dev_assignment part[2];
	static struct dev_refusal out[16];
	struct dev_reserved reserved[32];
	struct dev_platform plat = {
		.console_port = 0x3f8, .lapic_phys = 0xfee00000, .ioapic_count = 1,
		.ioapic_phys = { 0xfec00000 }, .hpet_in_use = true, .hpet_phys = 0xfed00000,
	};
	struct dev_machine m = { fns, 4, gsis, 2, reserved, 0, false };
	struct dev_partition parts[2] = { { "a", &part[0] }, { "b", &part[1] } };
	size_t at = 0;
	char err[DEV_MSG_LEN];

	memset(part, 0, sizeof(part));
	for (uint32_t v = 0; v < 8 && at <= size; v++) {
		const char *value = (const char *)data + at;
		const uint8_t *end = memchr(data + at, 0, size - at);
		size_t len = end ? (size_t)(end - (data + at)) : size - at;
		enum dev_key k = (enum dev_key)(v % DEV_KEY_COUNT);
		struct dev_assignment *a = &part[v / DEV_KEY_COUNT];
		int r;

		/* an exact-size copy: a read past the value is caught */
		char *copy = malloc(len ? len : 1);

		if (!copy)
			return 0;
		memcpy(copy, value, len);
		memset(err, 0x5a, sizeof(err));
		r = devassign_parse(a, k, copy, len, v + 1, err, sizeof(err));
		free(copy);
		CHECK(memchr(err, 0, sizeof(err)));
		if (r) {
			CHECK(!strncmp(err, devassign_key_name(k), strlen(devassign_key_name(k))));
			CHECK(!strchr(err, '\n'));
			CHECK(!(a->given & (1u << k)));
		} else {
			CHECK(!err[0] && (a->given & (1u << k)) && a->line[k] == v + 1);
		}
		check_list(a, k);
		at += len + 1;
	}
	m.reserved_count = devassign_reserved(&plat, reserved, 32);
	CHECK(m.reserved_count <= 32);
	{
		uint32_t n = devassign_check(parts, 2, &m, out, 16);

		CHECK(n == devassign_check(parts, 2, &m, NULL, 0));
		for (uint32_t i = 0; i < n && i < 16; i++) {
			CHECK(out[i].partition < 2 && (unsigned int)out[i].key < DEV_KEY_COUNT);
			CHECK(memchr(out[i].msg, 0, sizeof(out[i].msg)));
			CHECK(!strncmp(out[i].msg, devassign_key_name(out[i].key),
				       strlen(devassign_key_name(out[i].key))));
		}
		/* an unknown machine (tempo-config without --machine) refuses a subset */
		m.unknown = true;
		CHECK(devassign_check(parts, 2, &m, NULL, 0) <= n);
	}
	return 0;
}
