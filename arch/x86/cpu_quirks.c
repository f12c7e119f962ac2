// SPDX-License-Identifier: MIT
#include "arch/x86/cpu_quirks.h"

/* family/model/stepping signatures, reserved bits clear */
static const uint32_t broken_preemption_timer[] = {
	0x000206e6,	/* Xeon 7500, D0 (BA86) */
	0x00020652,	/* Xeon L3406; i7-600/i5-500/i5-400/i3-300 mobile, C2 (AAX65, AAT59, AAU65) */
	0x00020655,	/* i5-600, i3-500 desktop, Pentium G6950, K0 (AAU65) */
	0x000106e5,	/* Xeon 3400, i7-800, i5-700, B1 (AAO95, AAN92, AAP86) */
	0x000106a0,	/* Xeon 3500, C0 (AAM126) */
	0x000106a1,	/* Xeon 3500, C1 (AAM126) */
	0x000106a4,	/* i7-900 desktop, C0 (AAJ124) */
	0x000106a5,	/* Xeon 3500/5500, i7-900, D0 (AAM126, AAK139, AAJ124) */
	0x000306a8,	/* Xeon E3-1220 v2 */
};

bool cpu_preemption_timer_broken(uint32_t cpuid1_eax)
{
	uint32_t sig = cpuid1_eax & ~((3u << 14) | (0xfu << 28));

	for (unsigned int i = 0; i < sizeof(broken_preemption_timer) / sizeof(uint32_t); i++)
		if (sig == broken_preemption_timer[i])
			return true;
	return false;
}
