/* SPDX-License-Identifier: MIT */
/*
 * What arch/x86 calls in hv/: declared once here, with hv_ names, so the
 * arch side needs no other hv header for them.
 */
#ifndef TEMPO_HV_UPCALLS_H
#define TEMPO_HV_UPCALLS_H

#include <stdint.h>

/*
 * An exception in root mode that no fixup covers. If this core was handling
 * a partition's VM exit, that partition is stopped (PARTITION_STOP
 * reason=hv_fault) and the core goes on with its other work: the call does
 * not return. Otherwise it returns and the caller stops the machine.
 */
void hv_exit_fault(uint64_t vector, uint64_t error_code, uint64_t rip);

#endif
