/* SPDX-License-Identifier: MIT */
#ifndef TEMPO_ARCH_X86_SMP_H
#define TEMPO_ARCH_X86_SMP_H

#include <stdint.h>

#include "drivers/acpi.h"
#include "hv/core/memplan.h"

/*
 * Number the CPUs the MADT lists (enabled ones, boot CPU first as index 0),
 * start every AP with INIT-SIPI-SIPI through a trampoline page below 1 MiB
 * taken from @mp, and wait (bounded) for each to report in. A CPU that does
 * not answer is reported and left offline. Returns the number online.
 */
uint32_t smp_boot(const struct acpi_info *ai, struct memplan *mp, uint64_t tsc_hz);

/* Busy-wait @ticks TSC ticks. */
void tsc_delay(uint64_t ticks);

#endif
