/* SPDX-License-Identifier: MIT */
/* CPUs whose errata Tempo must know about. Pure: unit-tested on the host. */
#ifndef TEMPO_ARCH_X86_CPU_QUIRKS_H
#define TEMPO_ARCH_X86_CPU_QUIRKS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The VMX-preemption timer does not count at the rate IA32_VMX_MISC gives on
 * these CPUs (errata BA86, AAX65, AAT59, AAU65, AAO95, AAN92, AAP86, AAM126,
 * AAJ124, AAK139 and the Xeon E3-1220 v2; the same list KVM and VirtualBox
 * keep). Tempo's host ticks, watchdog and emulated deadlines ride on it, so
 * such a CPU is refused. @cpuid1_eax is CPUID.1:EAX; its reserved bits
 * (15:14, 31:28) are ignored.
 */
bool cpu_preemption_timer_broken(uint32_t cpuid1_eax);

#endif
