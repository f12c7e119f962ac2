/* SPDX-License-Identifier: MIT */
/* The boot CPU's path (hv/start/): what its files share. */
#ifndef TEMPO_HV_START_START_H
#define TEMPO_HV_START_START_H

#include <stdbool.h>

#include "drivers/acpi.h"
#include "hv/core/boot_info.h"
#include "hv/core/config.h"

/*
 * The machine for the config's device keys (config_platform.machine), from
 * what the boot found: PCI functions, IOAPIC inputs, and the ranges Tempo
 * keeps (@hpet_in_use: the TSC was calibrated with the HPET). After
 * pci_boot_scan() and ioapic_boot().
 */
const struct dev_machine *boot_dev_machine(const struct boot_info *bi,
					   const struct acpi_info *ai, bool hpet_in_use);

#endif
