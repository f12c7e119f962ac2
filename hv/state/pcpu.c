// SPDX-License-Identifier: MIT
/* The per-CPU blocks, numbered as arch numbered the CPUs. */
#include "hv/state/pcpu.h"

#include "arch/x86/smp.h"
#include "hv/upcalls.h"

struct pcpu *pcpus;
uint32_t pcpu_count;
volatile bool partitions_go;

void pcpus_init(uint32_t count)
{
	pcpus = hv_pages_alloc((uint64_t)count * sizeof(*pcpus), "per-CPU state");
	for (uint32_t i = 0; i < count; i++)
		pcpus[i] = (struct pcpu){ .self = &pcpus[i], .index = i,
					  .apic_id = smp_cpus[i].apic_id };
	pcpu_count = count;
}

void *hv_cpu_local(uint32_t index)
{
	return &pcpus[index];
}
