/* SPDX-License-Identifier: MIT */
/* Exceptions into the guest, and the event an exit interrupted (hv/guest/inject.c). */
#ifndef TEMPO_HV_GUEST_INJECT_H
#define TEMPO_HV_GUEST_INJECT_H

#include <stdbool.h>
#include <stdint.h>

/* @vector into the guest at the next entry, with @error where it has one and CR0.PE allows. */
void inject_exception(uint32_t vector, bool has_error, uint32_t error);
/* An exit during event delivery: deliver that event again (SDM 27.2.4). */
void reinject_vectoring(void);

#endif
