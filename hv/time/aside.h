/* SPDX-License-Identifier: MIT */
/*
 * The host tick's step-aside from the guest's deadline, in the exit stub
 * (arch/x86/vmx_entry.S, exit_aside): tick_exit_early's work in 23
 * instructions where that takes some 240. A guest deadline that falls in
 * the deferral exit waits for all of it, so the exit's length is the
 * guest's worst case and its share of the guest's interval is its chance
 * of a hit. Armed where tick_exit_early would run (a placed tick on a
 * dedicated core, nothing else on it, no kick waiting), for the tick's own
 * exit only (the next event is the tick), with host_timer_aside_plan's
 * window and steps, at every entry (tick_aside_arm). Planned once for each
 * placed time, at its first entry (the steps move it, and so does
 * host_timer_defer); the watchdog, whose due time bounds the steps, only
 * moves later. Every exit that reaches hv folds what the stub did first
 * (tick_aside_fold, hv/time/aside.c).
 */
#ifndef TEMPO_HV_TIME_ASIDE_H
#define TEMPO_HV_TIME_ASIDE_H

#include <stdint.h>

#include "arch/x86/vmx.h"
#include "hv/core/timer_modes.h"
#include "hv/state/partition.h"
#include "hv/time/time.h"

/*
 * A tick keeps this far from the guest's deadline: one margin in direct
 * mode; in inject mode the guest's interrupt reaches its handler two exits
 * after the deadline (the external interrupt, then the injection's VM
 * entry), so three (timer_mode()->tick_margin_mult).
 */
static inline uint64_t tick_margin(const struct vcpu *v)
{
	return timer_mode(v->vt.mode)->tick_margin_mult * host_tick_margin_tsc;
}

/* The stub's plan for a tick placed at @due and the guest's timer vector @vec. */
void tick_aside_plan(struct vcpu *v, uint64_t due, uint8_t vec);

/*
 * Armed for the tick's own exit where tick_exit_early would run, from the plan made once for
 * its placed time, when that exit is still to come (due > now: the window
 * is the placed time's); disarmed otherwise. Every entry passes here: the
 * rows themselves, not timer_mode(), as in vcpu_timer_arm.
 */
static inline void tick_aside_arm(struct vcpu *v, uint64_t now, uint64_t due)
{
	const struct timer_mode_desc *m = &timer_modes[v->vt.mode];
	struct pcpu *c = v->pcpu;
	uint8_t vec;

	if (!v->aside.enabled)
		return;
	vec = vtimer_vector(&v->vt);
	v->arch.aside->closed = 1;
	v->aside.armed = false;
	if (due != c->ht.fire_tick || due <= now || !m->places_ticks || !m->owns_lapic ||
	    !v->vt.in_hw || !c->ht.slack_tsc || v->apic.apicv || vec < 16)
		return;
	/* the plan, and the vector's IRR bit and class, once per placed time */
	if (v->aside.tick != due || v->aside.vec != vec)
		tick_aside_plan(v, due, vec);
	if (!v->aside.plan.steps)
		return;
	v->aside.armed = true;
	v->arch.aside->lo = v->aside.plan.lo0;
	/* armed, and lo set, before the stub (or hv_root_nmi) sees closed = 0 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	v->arch.aside->closed = 0;
}

#endif
