/* SPDX-License-Identifier: MIT */
/* Thin wrappers over x86 instructions (the ones guests use too: hv/lib/x86.h). */
#ifndef TEMPO_ARCH_X86_CPU_H
#define TEMPO_ARCH_X86_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/lib/x86.h"

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	asm volatile("cpuid"
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}

/* rdmsr that survives a #GP (MSR absent): returns false then. arch/x86/isr.S */
bool rdmsr_safe(uint32_t msr, uint64_t *value);
/* wrmsr that survives a #GP (a value this CPU refuses): returns false then. */
bool wrmsr_safe(uint32_t msr, uint64_t value);
/* xsetbv that survives a #GP (an XCR value this CPU refuses): returns false then. */
bool xsetbv_safe(uint32_t xcr, uint64_t value);

static inline uint64_t read_cr0(void)
{
	uint64_t v;

	asm volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	asm volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;

	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	asm volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
	uint64_t v;

	asm volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

/*
 * An IRET to the next instruction, on this stack: it ends any NMI blocking
 * left on the core by an NMI-caused VM exit. On hardware the next VM entry
 * ends it anyway (SDM Vol. 3C 26.6.1: with "virtual NMIs" 0, blocking by NMI
 * is loaded from the guest's interruptibility state); Bochs 2.7 keeps NMIs
 * blocked across entries until an IRET (../shared/EMULATORS.md), so every
 * kick after a core's first (hv/state/partition.h's mailbox) was never seen there
 * and its tests did not exercise the kick path. Costs one IRET per NMI
 * exit; a no-op for NMI blocking on hardware. (No red zone: -mno-red-zone.)
 */
static inline void nmi_unblock(void)
{
	uint64_t scratch;

	asm volatile("mov %%ss, %k0\n\t"
		     "pushq %0\n\t"		/* SS */
		     "leaq 8(%%rsp), %0\n\t"
		     "pushq %0\n\t"		/* RSP as it was */
		     "pushfq\n\t"
		     "mov %%cs, %k0\n\t"
		     "pushq %0\n\t"		/* CS */
		     "leaq 1f(%%rip), %0\n\t"
		     "pushq %0\n\t"		/* RIP */
		     "iretq\n"
		     "1:"
		     : "=&r"(scratch) : : "memory", "cc");
}

static inline __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt");
}

#endif
