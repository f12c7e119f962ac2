// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: firmware ACPI tables. The input is a fake physical
 * memory starting at FAKE_BASE; its first 36 bytes (or fewer) are also the
 * RSDP copy handed to acpi_parse(). map() serves ranges inside the input
 * only, so every table pointer, length and entry is the fuzzer's to choose.
 * The MADT, HPET, MCFG and DMAR parsers then run on whatever they find.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/acpi.h"

#define FAKE_BASE 0x1000u

struct fake {
	const uint8_t *buf;
	size_t len;
};

static const void *fake_map(void *ctx, uint64_t phys, size_t len)
{
	const struct fake *f = ctx;

	if (phys < FAKE_BASE || phys - FAKE_BASE > f->len || len > f->len - (phys - FAKE_BASE))
		return NULL;
	return f->buf + (phys - FAKE_BASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info info;
	static const struct acpi_info zero;
	struct fake f;
	struct acpi_mem mem = { .map = fake_map, .ctx = &f };
	char err[160], warn[256];
	uint8_t *buf;
	int ret;

	/* An exact-size copy so a read one byte past a mapped range is caught. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	f.buf = buf;
	f.len = size;
	memset(err, 0x5a, sizeof(err));
	memset(warn, 0x5a, sizeof(warn));
	ret = acpi_parse(buf, size < 36 ? size : 36, &mem, &info, err, sizeof(err), warn,
			 sizeof(warn));
	if (!memchr(err, 0, sizeof(err)) || !memchr(warn, 0, sizeof(warn)))
		abort();
	if (ret) {
		if (!err[0] || memcmp(&info, &zero, sizeof(info)))
			abort();
	} else {
		if (err[0] || info.cpu_count > ACPI_MAX_CPUS ||
		    info.table_count > ACPI_MAX_TABLES || info.ioapic_count > ACPI_MAX_IOAPICS ||
		    !memchr(info.oem_id, 0, 7))
			abort();
		/* Every MCFG range kept is one: a base, buses in order, no wrap. */
		if (info.mcfg_count > ACPI_MAX_MCFG || info.has_mcfg != (info.mcfg_count > 0))
			abort();
		for (uint32_t i = 0; i < info.mcfg_count; i++) {
			const struct acpi_mcfg *m = &info.mcfg[i];
			uint64_t top = ((uint64_t)m->bus_end + 1) << 20;

			if (!m->base || m->bus_start > m->bus_end || m->base > UINT64_MAX - top + 1)
				abort();
		}
		/* A DMAR kept is one the parser accepted whole: counts and scopes in range. */
		if (info.has_dmar != (info.dmar.unit_count > 0) ||
		    info.dmar.unit_count > ACPI_DMAR_MAX_UNITS ||
		    info.dmar.rmrr_count > ACPI_DMAR_MAX_RMRRS ||
		    info.dmar.scope_count > ACPI_DMAR_MAX_SCOPES)
			abort();
		for (uint32_t i = 0; i < info.dmar.unit_count; i++)
			if (info.dmar.units[i].scope_first + info.dmar.units[i].scope_count >
			    info.dmar.scope_count || !info.dmar.units[i].reg_phys)
				abort();
		/* No APIC ID twice. */
		for (uint32_t i = 0; i < info.cpu_count; i++)
			for (uint32_t j = 0; j < i; j++)
				if (info.cpus[i].apic_id == info.cpus[j].apic_id)
					abort();
	}
	free(buf);
	return 0;
}
