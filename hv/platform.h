/* SPDX-License-Identifier: MIT */
/* Facts about the machine that the boot CPU found and everyone reads. */
#ifndef TEMPO_HV_PLATFORM_H
#define TEMPO_HV_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

struct platform {
	uint64_t tsc_hz;
	uint32_t cpuid_max_basic;
	uint32_t cpu_count;	/* online CPUs */
	bool has_nx;		/* CPUID 0x80000001 EDX[20]: a guest may set EFER.NXE */
	/* the CPU clears IA32_TSC_DEADLINE when the timer fires (Bochs does not) */
	bool tsc_deadline_clears;
};

extern struct platform platform;

/*
 * test=exit_fault: a guest CPUID of this leaf makes its exit handler take
 * #UD, to show that a fault while handling one partition's exit stops that
 * partition (hv_fault) and no other.
 */
#define HV_TEST_FAULT_LEAF	0x400000ffu
extern bool hv_test_exit_fault;

#endif
