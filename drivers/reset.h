/* SPDX-License-Identifier: MIT */
/*
 * Resetting the machine after a stop, so a server comes back to its boot
 * loader instead of waiting for someone at the rack. The ways are tried in
 * the order Linux's reboot=acpi,pci,kbd would: the FADT's reset register,
 * the chipset's reset control register at port 0xCF9, the keyboard
 * controller's reset line; a triple fault is the last resort.
 */
#ifndef TEMPO_DRIVERS_RESET_H
#define TEMPO_DRIVERS_RESET_H

#include <stdint.h>

#include "drivers/acpi.h"

/* The FADT's reset register, from acpi_parse (NULL or not called: none). */
void reset_set_fadt_register(const struct acpi_reset_reg *reg);

/* The TSC rate for the delay (0 or not called: port 0x80 writes, about 1 us each). */
void reset_set_tsc_hz(uint64_t tsc_hz);

/*
 * Wait @delay_s seconds, leave VMX operation and reset the machine. Each
 * way is given 100 ms before the next is tried. Interrupts must be off;
 * the caller has flushed what it printed.
 */
__attribute__((noreturn)) void machine_reset_after(uint32_t delay_s);

#endif
