// SPDX-License-Identifier: MIT
/* The exit stub's tick step-aside, hv's half (hv/time/aside.h says what it is for). */
#include "hv/time/aside.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"

void tick_aside_plan(struct vcpu *v, uint64_t due, uint8_t vec)
{
	struct vmx_tick_aside *s = v->arch.aside;
	const struct tick_aside_plan *p = &v->aside.plan;
	uint64_t margin = tick_margin(v);

	v->aside.tick = due;
	v->aside.vec = vec;
	if (!host_timer_aside_plan(&v->pcpu->ht, margin, &v->aside.plan))
		return;		/* steps 0: not armed */
	/*
	 * The rest of the stub's word is the margin's and the vector's, which
	 * change only with the config or the guest's LVT: written when the
	 * stub's copy differs, not at every placed time (this runs in the
	 * tick's exit).
	 */
	if (s->step != p->step || s->span != p->span || s->bias != (uint32_t)margin) {
		s->bias = (uint32_t)margin;	/* TICK_ASIDE_BEFORE */
		s->span = p->span;
		s->step = p->step;
		s->ptv = ptimer_value(0, p->step, vmx_ctl.preemption_timer_rate);
	}
	if (s->irr_msr != X2APIC_IRR0 + vec / 32u || s->irr_mask != 1u << (vec % 32)) {
		s->irr_msr = X2APIC_IRR0 + vec / 32u;
		s->irr_mask = 1u << (vec % 32);
		s->vclass = vec & 0xf0u;
	}
	s->irr_seen = 0;
}

void tick_aside_close(struct vcpu *v)
{
	v->arch.aside->closed = 1;
}

void tick_aside_disarm(struct vcpu *v)
{
	tick_aside_close(v);
	v->aside.armed = false;
}

void tick_aside_fold(struct vcpu *v, uint32_t reason)
{
	struct vmx_tick_aside *s = v->arch.aside;
	uint32_t taken;
	uint64_t now = rdtsc(), due;

	s->closed = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* closed before lo is read */
	/* a kick's hv_root_nmi may have set closed meanwhile: it does not count */
	taken = host_timer_aside_steps_taken(&v->aside.plan, (uint64_t)s->closed << 32 | s->lo);
	v->aside.armed = false;
	/*
	 * Where the stub aimed the exit it judged last: the placed time plus a
	 * step for each it took. An exit 52 it let through came there (the
	 * preemption timer is never early), so the guest's deadline is not
	 * near and hv does not defer; one that came two margins or more late,
	 * or early (a kick's, made at once), is hv's to judge by the TSC.
	 * Bochs takes the exit some 500 instructions late while the guest runs
	 * (465-605 measured here, a margin: the timer counts from the VM
	 * entry, after hv armed it), which the window allows for.
	 */
	due = v->aside.tick + (uint64_t)taken * s->step;
	v->aside.decided = reason == EXIT_REASON_PREEMPTION_TIMER && now >= due &&
			   now - due < 2 * tick_margin(v);
	if (taken) {
		/* a tick stepped: it is due where the stub aimed its last step */
		host_timer_aside_taken(&v->pcpu->ht, taken, due);
		v->stats.tick_defer_exits += taken;
		v->stats.exits_total += taken;
		v->stats.exits[EXIT_REASON_PREEMPTION_TIMER] += taken;
		if (s->irr_seen & s->irr_mask)
			v->stats.tick_hits++;
	}
	s->irr_seen = 0;
}
