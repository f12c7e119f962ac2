// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the DMAR table alone (acpi_dmar_parse), the input being
 * the table from its first byte; then the scope lookups on what it kept.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/acpi.h"

/* Every bridge at device 1 of any bus leads to the next bus, up to bus 9. */
static bool fake_buses(void *ctx, uint16_t segment, uint16_t bdf, uint8_t *sec, uint8_t *sub)
{
	(void)ctx;
	if (segment || ((bdf >> 3) & 31) != 1 || (bdf >> 8) >= 9)
		return false;
	*sec = (uint8_t)((bdf >> 8) + 1);
	*sub = 9;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_dmar d;
	static const struct acpi_dmar zero;
	const struct acpi_pci_bridges br = { .buses = fake_buses };
	char err[160];
	uint8_t *buf;
	uint16_t sid;
	int ret;

	if (size > UINT32_MAX)
		return 0;
	/* An exact-size copy so a read one byte past the table is caught. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(err, 0x5a, sizeof(err));
	ret = acpi_dmar_parse(buf, (uint32_t)size, &d, err, sizeof(err));
	if (!memchr(err, 0, sizeof(err)))
		abort();
	if (ret) {
		if (!err[0] || memcmp(&d, &zero, sizeof(d)))
			abort();
		free(buf);
		return 0;
	}
	if (err[0] || !d.unit_count || d.unit_count > ACPI_DMAR_MAX_UNITS ||
	    d.rmrr_count > ACPI_DMAR_MAX_RMRRS || d.scope_count > ACPI_DMAR_MAX_SCOPES)
		abort();
	for (uint32_t i = 0; i < d.unit_count; i++)
		if (d.units[i].scope_first + d.units[i].scope_count > d.scope_count ||
		    !d.units[i].reg_phys || (d.units[i].reg_phys & 0xfff))
			abort();
	for (uint32_t i = 0; i < d.rmrr_count; i++)
		if (d.rmrrs[i].scope_first + d.rmrrs[i].scope_count > d.scope_count ||
		    !d.rmrrs[i].scope_count || d.rmrrs[i].limit < d.rmrrs[i].base)
			abort();
	for (uint32_t bus = 0; bus < 10; bus++) {
		int u = acpi_dmar_unit_of(&d, 0, acpi_bdf((uint8_t)bus, 0, 0), &br);
		int r = acpi_dmar_rmrr_of(&d, 0, acpi_bdf((uint8_t)bus, 0, 0), &br);

		if (u < -1 || u >= (int)d.unit_count || r < -1 || r >= (int)d.rmrr_count)
			abort();
	}
	if (acpi_dmar_ioapic_unit(&d, 0, &br, &sid) >= (int)d.unit_count)
		abort();
	free(buf);
	return 0;
}
