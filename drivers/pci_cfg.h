/* SPDX-License-Identifier: MIT */
/*
 * The machine's PCI configuration space, as the boot reaches it:
 * configuration mechanism #1 (ports 0xCF8/0xCFC, conventional space only)
 * or ECAM (memory-mapped, the whole 4 KiB of each function) where the ACPI
 * MCFG gives segment 0 a range inside the boot's identity map; and the
 * boot's enumeration through it (drivers/pci.h), with a report line per
 * function.
 *
 * The accessors are safe from any CPU: mechanism #1's address-then-data
 * pair is taken under a lock; ECAM accesses are single loads and stores.
 */
#ifndef TEMPO_DRIVERS_PCI_CFG_H
#define TEMPO_DRIVERS_PCI_CFG_H

#include "drivers/acpi.h"
#include "drivers/pci.h"

/*
 * Choose the mechanism, enumerate segment 0 and print what was found:
 * "PCI: <mechanism>, buses 00-ff", one "PCI: <pci_describe()>" line per
 * function, and "PCI: N functions (N bridges)". Called once by the boot
 * CPU, after ACPI.
 */
void pci_boot_scan(const struct acpi_info *ai);

/* What pci_boot_scan() found (empty before it ran, or with no mechanism). */
const struct pci_enum *pci_boot_functions(void);

/* The mechanism pci_boot_scan() chose; NULL when there is none. */
const struct pci_cfg_ops *pci_boot_cfg(void);

#endif
