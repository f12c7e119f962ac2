/* SPDX-License-Identifier: MIT */
/*
 * Finding the CPUs through ACPI: RSDP -> RSDT/XSDT -> MADT, local APIC
 * (type 0) and local x2APIC (type 9) entries that are enabled.
 */
#ifndef TEMPO_GUESTS_COMMON_ACPI_H
#define TEMPO_GUESTS_COMMON_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#define ACPI_MAX_CPUS		64
#define ACPI_RSDP_MAX		36

struct acpi_cpus {
	unsigned int count;
	uint32_t apic_ids[ACPI_MAX_CPUS];	/* in MADT order, no duplicates */
	bool cut;				/* more enabled CPUs than fit */
};

/*
 * Scans the EBDA's first KiB and 0xE0000-0xFFFFF on 16-byte boundaries for a
 * valid RSDP (the BIOS way, for multiboot1 where the loader passes none);
 * copies it into @rsdp and returns its length, or 0 when there is none.
 */
uint32_t acpi_find_rsdp_bios(uint8_t rsdp[ACPI_RSDP_MAX]);

/*
 * Walks @rsdp (a copy, @len bytes) to the MADT and lists its enabled CPUs.
 * Returns NULL on success, else why it stopped.
 */
const char *acpi_madt_cpus(const uint8_t *rsdp, uint32_t len, struct acpi_cpus *out);

#endif
