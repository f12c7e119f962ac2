/* SPDX-License-Identifier: MIT */
#ifndef TEMPO_ARCH_X86_SMP_H
#define TEMPO_ARCH_X86_SMP_H

#include <stdint.h>

#include "drivers/acpi.h"
#include "hv/lib/cpus.h"

#define SMP_MAX_CPUS	TEMPO_MAX_CPUS	/* smp_cpus: 32 bytes a CPU */

enum cpu_state {
	CPU_OFFLINE = 0,
	CPU_STARTING,
	CPU_ONLINE,		/* in long mode, VMX on, in hv_pcpu_loop */
	CPU_FAILED,
};

/* What arch keeps per physical CPU; index = hv's pcpus[] index. */
struct cpu_arch {
	uint32_t apic_id;
	volatile uint32_t state;	/* enum cpu_state */
	/*
	 * Where the CPU's stack starts (it grows down from here); above it, to
	 * the end of its pages, the CPU's VM-exit area (struct vmx_exit_area,
	 * EA_SIZE bytes), which HOST_RSP points at and nothing else touches.
	 */
	uint64_t stack_top;
	uint64_t vmxon_pa;
	void *local;		/* the GS base: hv's per-CPU block (hv_cpu_local) */
};

extern struct cpu_arch smp_cpus[SMP_MAX_CPUS];
extern uint32_t smp_cpu_count;

/*
 * Number the CPUs the MADT lists (enabled ones, boot CPU first as index 0)
 * into smp_cpus. Returns how many.
 */
uint32_t smp_enumerate(const struct acpi_info *ai);

/*
 * Enable VMX on the boot CPU, then start every AP with INIT-SIPI-SIPI
 * through the page at @trampoline_pa (below 1 MiB, 0 if there is none: the
 * boot CPU runs alone) and wait (bounded) for each to report in. A CPU that
 * does not answer is reported and left offline. Each CPU's GS base is
 * hv_cpu_local(its index). Returns the number online (0: VMX failed on the
 * boot CPU); smp_cpu_count may shrink to 1.
 */
uint32_t smp_boot(uint64_t trampoline_pa, uint64_t tsc_hz);

/* Busy-wait @ticks TSC ticks. */
void tsc_delay(uint64_t ticks);

#endif
