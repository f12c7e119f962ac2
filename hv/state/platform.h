/* SPDX-License-Identifier: MIT */
/* Facts about the machine that the boot CPU found and everyone reads. */
#ifndef TEMPO_HV_PLATFORM_H
#define TEMPO_HV_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/guest_boot.h"
#include "hv/core/spec.h"
#include "hv/core/xcr0.h"

struct platform {
	uint64_t tsc_hz;
	uint32_t cpuid_max_basic;
	uint32_t cpu_count;	/* online CPUs */
	bool has_nx;		/* CPUID 0x80000001 EDX[20]: a guest may set EFER.NXE */
	uint8_t maxphyaddr;	/* CPUID 0x80000008 EAX[7:0], 36 without the leaf */
	/* the CPU clears IA32_TSC_DEADLINE when the timer fires (Bochs does not) */
	bool tsc_deadline_clears;
	/* the MADT's ISA interrupt source overrides, for the MADT of a Linux partition with irqs = */
	uint32_t isa_override_count;
	struct guest_irq_override isa_overrides[GUEST_IRQ_OVERRIDES_MAX];
};

extern struct platform platform;

/* The speculation mitigations this CPU needs (hv/core/spec.c, decided at boot). */
extern struct spec_plan spec_plan;

/* The XCR0 bits guests may set and the area that holds them, from CPUID 0xD at boot (xsave_plan_boot, hv/guest/fpu.c). */
extern struct xsave_plan xsave_plan;

/*
 * test=exit_fault: a guest CPUID of this leaf makes its exit handler take
 * #UD, to show that a fault while handling one partition's exit stops that
 * partition (hv_fault) and no other; so does a host tick's exit of an
 * inject or soft-deadline vCPU on a core of its own halted with interrupts
 * off (hv/time/quick.c, host_event: a branch no running guest takes), for
 * the quick path, which finishes exits before the dispatcher marks one.
 */
#define HV_TEST_FAULT_LEAF	0x400000ffu
extern bool hv_test_exit_fault;

#endif
