/* SPDX-License-Identifier: MIT */
/*
 * The host tick's step-aside from the guest's deadline, in the exit stub
 * (arch/x86/vmx_entry.S, exit_aside): tick_exit_early's work in 20
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

/* The stub's own tick: may it take the coming one (hv/time/aside.c)? Then its words are set. */
bool tick_stub_ready(struct vcpu *v);

/*
 * Armed for the tick's own exit where tick_exit_early would run (the next
 * event is the placed tick, still to come: due > now), closed otherwise:
 * the steps, from the plan made once for each placed time (a guest timer
 * vector of its own needed), and the stub's own tick where the guest's
 * deadline as the last exit stored it leaves it a chance (0, or a period
 * past the tick: a guest whose deadline is always near its ticks, as
 * rtbench's, pays two tests for it). Every entry passes here: the rows
 * themselves, not timer_mode(), as in vcpu_timer_arm.
 */
static inline __attribute__((always_inline)) void tick_aside_arm(struct vcpu *v, uint64_t now,
								   uint64_t due)
{
	const struct timer_mode_desc *m = &timer_modes[v->vt.mode];
	struct pcpu *c = v->pcpu;
	uint64_t d;
	uint8_t vec, armed = 0;

	if (!v->aside.enabled)
		return;
	v->arch.aside->closed = 1;
	v->arch.stub->open = 0;
	v->aside.armed = 0;
	v->aside.kicked = false;
	if (due != c->ht.fire_tick || due <= now || !m->places_ticks || !m->owns_lapic ||
	    !v->vt.in_hw || !c->ht.slack_tsc || v->apic.apicv)
		return;
	vec = vtimer_vector(&v->vt);
	if (vec >= 16) {
		/* the plan, and the vector's IRR bit and class, once per placed time */
		if (v->aside.tick != due || v->aside.vec != vec)
			tick_aside_plan(v, due, vec);
		if (v->aside.plan.steps) {
			armed = ASIDE_STEPS;
			v->arch.aside->lo = v->aside.plan.lo0;
		}
	}
	d = vmx_exit_tsc_deadline(&v->arch);
	if ((!d || (d > due && d - due >= c->ht.period_tsc)) && tick_stub_ready(v))
		armed |= ASIDE_STUB;
	if (!armed)
		return;
	v->aside.armed = armed;
	/* armed, and their words set, before the stub (or hv_root_nmi) sees them open */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (armed & ASIDE_STEPS)
		v->arch.aside->closed = 0;
	if (armed & ASIDE_STUB)
		v->arch.stub->open = 1;
}

#endif
