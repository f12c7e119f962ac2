// SPDX-License-Identifier: MIT
#include "guests/common/tempo.h"

#include "guests/common/x86.h"

/* The ABI struct is shared with the 64-bit hypervisor: same layout in i386. */
_Static_assert(sizeof(struct tempo_partition_info) == 72, "partition info size");
_Static_assert(__builtin_offsetof(struct tempo_partition_info, memory_bytes) == 48,
	       "partition info layout");
_Static_assert(__builtin_offsetof(struct tempo_partition_info, channel_count) == 64,
	       "partition info layout");
_Static_assert(sizeof(struct tempo_channel_info) == 320, "channel info size");
_Static_assert(__builtin_offsetof(struct tempo_channel_info, access) == 48 &&
	       __builtin_offsetof(struct tempo_channel_info, peers) == 64, "channel info layout");

void tempo_detect(struct tempo_cpuid *t)
{
	uint32_t a, b, c, d;

	t->present = false;
	t->max_leaf = 0;
	t->tsc_khz = 0;
	t->bus_khz = 0;
	cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & CPUID1_ECX_HYPERVISOR))
		return;
	cpuid(TEMPO_CPUID_BASE, 0, &a, &b, &c, &d);
	if (b != TEMPO_CPUID_SIG_EBX || c != TEMPO_CPUID_SIG_ECX || d != TEMPO_CPUID_SIG_EDX)
		return;
	t->present = true;
	t->max_leaf = a;
	if (a >= TEMPO_CPUID_TIMING) {
		cpuid(TEMPO_CPUID_TIMING, 0, &a, &b, &c, &d);
		t->tsc_khz = a;
		t->bus_khz = b;
	}
}
