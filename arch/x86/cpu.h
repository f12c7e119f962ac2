/* SPDX-License-Identifier: MIT */
/* Thin wrappers over x86 instructions. */
#ifndef TEMPO_ARCH_X86_CPU_H
#define TEMPO_ARCH_X86_CPU_H

#include <stdbool.h>
#include <stdint.h>

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

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

/* rdmsr that survives a #GP (MSR absent): returns false then. arch/x86/isr.S */
bool rdmsr_safe(uint32_t msr, uint64_t *value);
/* wrmsr that survives a #GP (a value this CPU refuses): returns false then. */
bool wrmsr_safe(uint32_t msr, uint64_t value);
/* xsetbv that survives a #GP (an XCR value this CPU refuses): returns false then. */
bool xsetbv_safe(uint32_t xcr, uint64_t value);

static inline void outb(uint16_t port, uint8_t v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	asm volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
}

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

static inline uint64_t read_cr4(void)
{
	uint64_t v;

	asm volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt");
}

#endif
