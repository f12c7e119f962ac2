/* SPDX-License-Identifier: MIT */
/* What each guest program defines for the common code. */
#ifndef TEMPO_GUESTS_COMMON_GUEST_H
#define TEMPO_GUESTS_COMMON_GUEST_H

#include <stdint.h>

/* Prefix of the lines the common code prints ("hello"). */
extern const char guest_name[];

/* Called by the BSP entry code with the loader's EAX and EBX. */
void guest_main(uint32_t magic, uint32_t info);

/* Report @why and end the run as a failure; called from exception handlers too. */
void __attribute__((noreturn)) guest_panic(const char *why);

#endif
