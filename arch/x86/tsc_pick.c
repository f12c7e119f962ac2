// SPDX-License-Identifier: MIT
#include "arch/x86/tsc.h"

const char *tsc_source_name(enum tsc_source s)
{
	switch (s) {
	case TSC_SRC_CPUID_15:
		return "cpuid-0x15";
	case TSC_SRC_HPET:
		return "hpet";
	case TSC_SRC_PIT:
		return "pit";
	case TSC_SRC_NONE:
		break;
	}
	return "none";
}

void tsc_pick(struct tsc_report *r)
{
	r->mismatch = false;
	r->mismatch_ppm = 0;
	if (r->measured_hz && r->cpuid_hz) {
		uint64_t diff = r->cpuid_hz > r->measured_hz ? r->cpuid_hz - r->measured_hz
							      : r->measured_hz - r->cpuid_hz;

		/* diff / measured in ppm, saturating instead of overflowing */
		r->mismatch_ppm = diff > ~0ull / 1000000 ? ~0ull : diff * 1000000 / r->measured_hz;
		if (r->mismatch_ppm > TSC_MISMATCH_PPM) {
			r->mismatch = true;
			r->hz = r->measured_hz;
			r->source = r->measured_by;
		} else {
			r->hz = r->cpuid_hz;
			r->source = TSC_SRC_CPUID_15;
		}
	} else if (r->measured_hz) {
		r->hz = r->measured_hz;
		r->source = r->measured_by;
	} else if (r->cpuid_hz) {
		r->hz = r->cpuid_hz;
		r->source = TSC_SRC_CPUID_15;
	} else {
		r->hz = 0;
		r->source = TSC_SRC_NONE;
	}
}
