/* SPDX-License-Identifier: MIT */
/*
 * The machine for the config's device keys (hv/core/devassign.h), as
 * Linux shows it, for tempo-config check --machine and create --device:
 * the PCI functions of segment 0 from /sys/bus/pci/devices (each one's
 * config header and resource file), the IOAPICs from the MADT already
 * parsed, ECAM from /sys/firmware/acpi/tables/MCFG, the HPET from
 * .../tables/HPET, RAM from /sys/firmware/memmap; what Tempo keeps is then
 * devassign_reserved()'s, as at boot (hv/start/devmachine.c).
 */
#ifndef TEMPO_TOOLS_DEVMACHINE_H
#define TEMPO_TOOLS_DEVMACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/acpi.h"
#include "hv/core/devassign.h"

/* IOAPIC inputs taken when the MADT does not bound them (a PC's IOAPIC has 24). */
#define DEVMACHINE_IOAPIC_PINS	24

struct tool_pci_fn {
	struct dev_fn_info info;
	uint8_t interrupt_pin;		/* 0: none */
	int32_t irq;			/* Linux's IRQ of the function (its GSI on an IOAPIC PC), -1 */
};

/*
 * Read the machine under @sysroot (NULL: /) into *@m; @ai is its MADT.
 * @hpet_free: Tempo boots with tsc_calibrate=pit and does not keep the
 * HPET. Warnings (a file that could not be read) go to stdout.
 */
void devmachine_read(const char *sysroot, const struct acpi_info *ai, bool hpet_free,
		     struct dev_machine *m);

/* The function @bdf that devmachine_read() found, or NULL. */
const struct tool_pci_fn *devmachine_fn(uint16_t bdf);

/* "BB:DD.F" (an optional 0000: in front) into *@bdf; false if it is not one. */
bool devmachine_parse_bdf(const char *s, uint16_t *bdf);

#endif
