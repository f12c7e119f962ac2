/* SPDX-License-Identifier: MIT */
/* The exit path's profile summed and reported (hv/ops/prof.c; TEMPO_PROFILE builds, hv/state/prof.h). */
#ifndef TEMPO_HV_OPS_PROF_H
#define TEMPO_HV_OPS_PROF_H

#include "hv/state/prof.h"

struct vcpu;

#ifdef TEMPO_PROFILE
/*
 * The first thing of every exit that reaches hv: the previous exit of @v
 * is closed (its entry stamp is arch's) and summed, this one opened.
 */
void prof_exit(struct vcpu *v);
/* One BENCH_PATH line per vCPU, exit reason and path, at the end of the run. */
void prof_report(void);
#else
static inline void prof_exit(struct vcpu *v)
{
	(void)v;
}

static inline void prof_report(void)
{
}
#endif

#endif
