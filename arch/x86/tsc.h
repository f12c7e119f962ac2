/* SPDX-License-Identifier: MIT */
/* TSC frequency: CPUID model figures cross-checked against a timer. */
#ifndef TEMPO_ARCH_X86_TSC_H
#define TEMPO_ARCH_X86_TSC_H

#include <stdbool.h>
#include <stdint.h>

#define PIT_HZ			1193182u
#define TSC_CALIBRATE_MS	50u
#define TSC_MISMATCH_PPM	10000u	/* 1% */

enum tsc_source {
	TSC_SRC_NONE = 0,
	TSC_SRC_CPUID_15,	/* crystal * ratio from CPUID leaf 0x15 */
	TSC_SRC_HPET,
	TSC_SRC_PIT,
};

struct tsc_report {
	uint64_t cpuid_hz;	/* 0 when CPUID gives no full figure */
	uint64_t measured_hz;	/* 0 when no timer could be used */
	enum tsc_source measured_by;
	uint64_t hz;		/* the figure in force */
	enum tsc_source source;
	bool mismatch;		/* CPUID and measurement differ by more than 1% */
	uint64_t mismatch_ppm;
};

/*
 * The policy, separate from the hardware so the host tests can drive it:
 * CPUID's figure when it agrees with the measurement to within 1%, the
 * measurement otherwise (emulators report model figures that are not their
 * clock), CPUID's alone when nothing could be measured.
 */
void tsc_pick(struct tsc_report *r);
const char *tsc_source_name(enum tsc_source s);

/* Hardware side (arch/x86/tsc.c). */
uint64_t tsc_cpuid_hz(void);
uint64_t tsc_calibrate_pit(void);
uint64_t tsc_calibrate_hpet(uint64_t hpet_phys);
/* Does the CPU clear IA32_TSC_DEADLINE when the timer fires? (x2APIC on, IF=0) */
bool tsc_deadline_clears_on_fire(void);

#endif
