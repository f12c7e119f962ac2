/* SPDX-License-Identifier: MIT */
/*
 * 32-bit x86 helpers for guests. Guests run with paging off, so a physical
 * address is also a pointer; phys_ptr() hides the integer-to-pointer step
 * from GCC, which otherwise warns about (or optimizes away) accesses near 0.
 */
#ifndef TEMPO_GUESTS_COMMON_X86_H
#define TEMPO_GUESTS_COMMON_X86_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/lib/x86.h"

#define MSR_IA32_APIC_BASE	0x1b
#define APIC_BASE_X2APIC_EN	(1u << 10)
#define APIC_BASE_GLOBAL_EN	(1u << 11)
#define MSR_X2APIC_ID		0x802
#define MSR_X2APIC_ICR		0x830

#define CPUID1_ECX_X2APIC	(1u << 21)
#define CPUID1_ECX_HYPERVISOR	(1u << 31)

#ifdef GUEST_HOST_TEST
/* Host unit tests: guest-physical 0..4 GiB is one host mapping. */
extern uint8_t *guest_test_phys;

static inline void *phys_ptr(uint32_t addr)
{
	return guest_test_phys + addr;
}
#else
static inline void *phys_ptr(uint32_t addr)
{
	void *p;

	asm("" : "=r"(p) : "0"(addr));
	return p;
}
#endif

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c,
			 uint32_t *d)
{
	asm volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline void __attribute__((noreturn)) halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt");
}

/* Spin for at least @ticks TSC ticks. */
static inline void tsc_delay(uint64_t ticks)
{
	uint64_t start = rdtsc();

	while (rdtsc() - start < ticks)
		cpu_relax();
}

#endif
