/* SPDX-License-Identifier: MIT */
/*
 * The exit path's instruction profile (make bench-profile): a build with
 * TEMPO_PROFILE stamps the TSC at fixed points of every VM exit that
 * reaches hv (in Bochs one tick per instruction, so a difference is an
 * instruction count). The points are enum prof_point (hv/ops/parts.h); the
 * stub's and the entry's stamps are arch's (its exit area); hv/ops/prof.c
 * sums and reports them. These only write the vCPU's own record, so every
 * room may stamp. In every other build they are nothing.
 */
#ifndef TEMPO_HV_STATE_PROF_H
#define TEMPO_HV_STATE_PROF_H

#include <stdint.h>

#ifdef TEMPO_PROFILE
static inline uint64_t rdtsc_profile(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

#define PROF(v, point)		((v)->stats.prof.t[(point)] = rdtsc_profile())
/* What this exit is: its basic reason, and the path it finished on (PROF_FULL, _FAST, _QUICK). */
#define PROF_KIND(v, r, f)	((v)->stats.prof.reason = (r), (v)->stats.prof.path = (f))
/* The preemption timer is armed for @due: the next exit's lateness is measured from it. */
#define PROF_DUE(v, due)	((v)->stats.prof.due = (due))
#else
#define PROF(v, point)		do { } while (0)
#define PROF_KIND(v, r, f)	do { } while (0)
#define PROF_DUE(v, due)	do { } while (0)
#endif

#endif
