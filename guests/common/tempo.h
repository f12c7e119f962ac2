/* SPDX-License-Identifier: MIT */
/* Detecting Tempo and calling it (hv/core/hypercall_abi.h has the ABI). */
#ifndef TEMPO_GUESTS_COMMON_TEMPO_H
#define TEMPO_GUESTS_COMMON_TEMPO_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/hypercall_abi.h"

struct tempo_cpuid {
	bool present;
	uint32_t max_leaf;	/* CPUID 0x40000000 EAX */
	uint32_t tsc_khz;	/* CPUID 0x40000010 EAX; 0 when not given */
	uint32_t bus_khz;	/* CPUID 0x40000010 EBX; 0 when not given */
};

/* CPUID.1:ECX[31] and the "Tempo-RT-HV " signature at 0x40000000. */
void tempo_detect(struct tempo_cpuid *t);

/* VMCALL: only valid under Tempo (it is #UD bare metal). */
static inline int32_t tempo_hypercall(uint32_t nr, uint32_t a1, uint32_t a2, uint32_t a3)
{
	uint32_t ret;

	asm volatile("vmcall" : "=a"(ret) : "a"(nr), "D"(a1), "S"(a2), "d"(a3) : "memory");
	return (int32_t)ret;
}

#endif
