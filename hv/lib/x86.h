/* SPDX-License-Identifier: MIT */
/*
 * The x86 instructions every layer and the guests use as they are: port
 * I/O, the TSC, MSRs and the spin-wait hint. No state, no policy; arch/x86
 * adds what only the hypervisor may do (control registers, VMX, fault-safe
 * MSR access).
 */
#ifndef TEMPO_HV_LIB_X86_H
#define TEMPO_HV_LIB_X86_H

#include <stdint.h>

/* @count 8-byte stores of @value from @dst: one instruction, however long (a partition's RAM). */
static inline void rep_stosq(void *dst, uint64_t value, uint64_t count)
{
	asm volatile("rep stosq" : "+D"(dst), "+c"(count) : "a"(value) : "memory");
}

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

static inline void outl(uint16_t port, uint32_t v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;

	asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
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

#endif
