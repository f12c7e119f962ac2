// SPDX-License-Identifier: MIT
/*
 * tempo-stats: ask Tempo to print this vCPU's exit and timer counters (a
 * VCPU_STATS line on the hypervisor console) through CPUID 0x40000011, which
 * works from user space. The Linux test guest's /init runs it before and
 * after cyclictest so the benchmark can difference the two lines. Exits 0
 * when the snapshot was taken, 1 under another hypervisor or none, 2 when
 * Tempo's snapshot ring was full. Static, no libc: built with
 *   gcc -static -nostdlib -O2 -o tempo-stats tempo_stats.c
 */
#include <stdint.h>

#include "hv/core/hypercall_abi.h"

static void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	asm volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static __attribute__((noreturn)) void sys_exit(long code)
{
	asm volatile("syscall" : : "a"(60), "D"(code) : "rcx", "r11", "memory");
	__builtin_unreachable();
}

static int run(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (!(c & (1u << 31)))
		return 1;
	cpuid(TEMPO_CPUID_BASE, &a, &b, &c, &d);
	if (b != TEMPO_CPUID_SIG_EBX || c != TEMPO_CPUID_SIG_ECX || d != TEMPO_CPUID_SIG_EDX ||
	    a < TEMPO_CPUID_STATS)
		return 1;
	cpuid(TEMPO_CPUID_STATS, &a, &b, &c, &d);
	return a == 1 ? 0 : 2;
}

void _start(void);
void _start(void)
{
	sys_exit(run());
}
