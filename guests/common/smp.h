/* SPDX-License-Identifier: MIT */
/*
 * Starting application processors with INIT-SIPI-SIPI through the x2APIC.
 * Each AP runs the trampoline, gets its own stack, loads the IDT, turns its
 * x2APIC on, calls the guest's function with its APIC id, then halts.
 */
#ifndef TEMPO_GUESTS_COMMON_SMP_H
#define TEMPO_GUESTS_COMMON_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "guests/common/layout.h"

typedef void (*smp_ap_fn)(uint32_t apic_id);

struct smp_timing {
	uint64_t init_wait_tsc;	/* after INIT (the SDM asks for 10 ms) */
	uint64_t sipi_wait_tsc;	/* after each SIPI (the SDM asks for 200 us) */
};

/*
 * Puts this CPU's local APIC in x2APIC mode if it is not already (MSR 0x1B).
 * Returns false when the CPU has no x2APIC or its APIC is disabled.
 */
bool x2apic_enable(void);
/* This CPU's x2APIC id (MSR 0x802); x2APIC mode must be on. */
uint32_t x2apic_id(void);

/*
 * Sends INIT, then two SIPIs, to every id in @ids except @self (at most
 * SMP_MAX_CPUS - 1 of them), all in parallel. Returns how many APs it sent
 * them to; each will call @fn once it runs.
 */
unsigned int smp_start_aps(const uint32_t *ids, unsigned int count, uint32_t self, smp_ap_fn fn,
			   const struct smp_timing *t);

#endif
