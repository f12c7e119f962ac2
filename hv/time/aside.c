// SPDX-License-Identifier: MIT
/* The exit stub's tick step-aside, hv's half (hv/time/aside.h says what it is for). */
#include "hv/time/aside.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "hv/lib/lib.h"

void tick_aside_plan(struct vcpu *v, uint64_t due, uint8_t vec)
{
	struct vmx_tick_aside *s = v->arch.aside;
	const struct tick_aside_plan *p = &v->aside.plan;
	uint64_t margin = tick_margin(v);

	v->aside.tick = due;
	v->aside.vec = vec;
	/*
	 * A window narrower than the step itself is none: the stub counts a
	 * deadline in its own step as a hit before the window test, which such
	 * a deadline then passes (arch/x86/vmx_entry.S exit_aside).
	 */
	if (margin < EA_STEP_TICKS_MAX) {
		v->aside.plan.steps = 0;
		return;
	}
	if (!host_timer_aside_plan(&v->pcpu->ht, margin, &v->aside.plan))
		return;		/* steps 0: not armed */
	/*
	 * A timer unit (2^rate TSC ticks) too coarse for the window: a step to
	 * bias past D would round to 0, an exit at once that uses a step up
	 * and brings the tick no nearer D: this vCPU does not step aside.
	 */
	if (p->bias >> (vmx_ctl.preemption_timer_rate & 31) < 2) {
		v->aside.plan.steps = 0;
		return;
	}
	/*
	 * The rest of the stub's word is the margin's and the vector's, which
	 * change only with the config or the guest's LVT: written when the
	 * stub's copy differs, not at every placed time (this runs in the
	 * tick's exit).
	 */
	if (s->span != p->span || s->bias != p->bias) {
		s->bias = p->bias;
		s->span = p->span;
		/* the scaled stubs' x >> rate (rate 1-31; the plain stub, for rate 0, reads none) */
		s->vmul = 1ull << (32 - (vmx_ctl.preemption_timer_rate & 31));
	}
	if (s->irr_msr != X2APIC_IRR0 + vec / 32u || s->irr_mask != 1u << (vec % 32)) {
		s->irr_msr = X2APIC_IRR0 + vec / 32u;
		s->irr_mask = 1u << (vec % 32);
		s->vclass = vec & 0xf0u;
	}
	s->hits = 0;
}

/* The stub's own ticks in a row, at most, before hv takes one (and its figures are folded). */
#define STUB_TICKS_MAX	15u

/*
 * The stub's own tick, where the guest's deadline leaves it a chance
 * (tick_aside_arm): nothing pending for the vCPU, not halted for ever, and
 * a plan for the placed time. Its words (due, next, far, period, rate) are
 * written when that time or its grid moved, from host_timer_stub_plan (and
 * at every entry with a watchdog, whose reference moves each time); left
 * is reset each entry.
 */
bool tick_stub_ready(struct vcpu *v)
{
	struct host_timer *h = &v->pcpu->ht;
	struct vmx_stub_tick *s = v->arch.stub;
	uint32_t rate = vmx_ctl.preemption_timer_rate & 31;
	uint8_t vec = vtimer_vector(&v->vt);
	struct stub_tick_plan p;

	if (v->halted_forever || v->apic.nmi_pending || v->apic.init_pending)
		return false;
	if (v->aside.stub_due != h->fire_tick || v->aside.stub_grid != h->next_tick ||
	    h->watchdog_tsc) {
		v->aside.stub_due = h->fire_tick;
		v->aside.stub_grid = h->next_tick;
		/* its value fits the timer's 32 bits (the stub writes next - now, under a period) */
		v->aside.stub_ok = host_timer_stub_plan(h, &p) &&
				   p.period >> rate < UINT32_MAX - 1;
		if (v->aside.stub_ok) {
			s->due = p.due;
			s->next = p.next;
			s->far = p.far;
			s->period = p.period;
			s->rate = rate;
			s->round = (uint32_t)((1ull << rate) - 1);
		}
	}
	/* the guest's timer vector, for a deadline of 0 (tick_aside_arm: the LVT may change) */
	if (vec >= 16) {
		s->irr_msr = X2APIC_IRR0 + vec / 32u;
		s->irr_mask = 1u << (vec % 32);
	} else {
		s->irr_msr = 0;
	}
	s->left = STUB_TICKS_MAX;
	return v->aside.stub_ok;
}

void tick_aside_close(struct vcpu *v)
{
	v->arch.aside->closed = 1;
	v->arch.stub->open = 0;
}

void tick_aside_kick(struct vcpu *v)
{
	v->aside.kicked = true;
	tick_aside_close(v);
}

void tick_aside_disarm(struct vcpu *v)
{
	tick_aside_close(v);
	v->aside.armed = 0;
}

/* The stub's own ticks since the last entry, into hv's host timer and the vCPU's counts. */
static void stub_tick_fold(struct vcpu *v)
{
	struct vmx_stub_tick *s = v->arch.stub;
	uint32_t n = s->taken;

	if (!n)
		return;
	/* the steps' judgement (decided) was of an exit before these ticks */
	v->aside.decided = false;
	host_timer_stub_taken(&v->pcpu->ht, n, s->due, s->late_sum, s->late_max, s->last_now,
			      s->last_d);
	v->stats.exits_total += n;
	v->stats.exits[EXIT_REASON_PREEMPTION_TIMER] += n;
	v->stats.fast_exits += n;
	v->stats.host_tick_exits += n;
	v->stats.tick_busy += s->busy;
	s->taken = 0;
	s->busy = 0;
	s->late_sum = 0;
	s->late_max = 0;
}

static void tick_aside_steps_fold(struct vcpu *v, uint32_t reason);

void tick_aside_fold(struct vcpu *v, uint32_t reason)
{
	struct vmx_tick_aside *s = v->arch.aside;

	s->closed = 1;
	v->arch.stub->open = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* closed before lo and the counts are read */
	/*
	 * The steps first: a stub tick after them (it closes the steps) moves
	 * the tick on from where they left it.
	 */
	if (v->aside.armed & ASIDE_STEPS)
		tick_aside_steps_fold(v, reason);
	if (v->aside.armed & ASIDE_STUB)
		stub_tick_fold(v);
	v->aside.armed = 0;
}

static void tick_aside_steps_fold(struct vcpu *v, uint32_t reason)
{
	struct vmx_tick_aside *s = v->arch.aside;
	uint32_t taken;
	uint64_t now = rdtsc(), due;

	/* a kick's hv_root_nmi may have set closed meanwhile: it does not count */
	taken = host_timer_aside_steps_taken(&v->aside.plan, (uint64_t)s->closed << 32 | s->lo);
	if (!taken) {
		/*
		 * At the placed time an exit 52 the stub let through came there
		 * (the preemption timer is never early), so the guest's deadline
		 * is not near and hv does not defer; one that came two margins
		 * or more late, or early (a kick's, made at once), is hv's to
		 * judge by the TSC. Bochs takes the exit some 500 instructions
		 * late while the guest runs (465-605 measured here, a margin:
		 * the timer counts from the VM entry, after hv armed it), which
		 * the window allows for.
		 */
		due = v->aside.tick;
		v->aside.decided = reason == EXIT_REASON_PREEMPTION_TIMER && now >= due &&
				   now - due < 2 * tick_margin(v);
	} else {
		/*
		 * The exit the last step aimed (its length was the deadline's
		 * place in the window, not hv's to know), or one before it (the
		 * guest's own, or a kick's: that step's timer runs out at most
		 * its value from now): host_timer_aside_due. At the aimed one the
		 * stub judged the deadline, or its steps ran out (closed by the
		 * last one's carry): hv does not defer either way. A deferral
		 * there would be a whole exit more, and this exit, whose length
		 * a deadline near it waits for, is hv's already (a guest with a
		 * deadline in every window then took two long exits a tick:
		 * attack tick_aside_every_window, extra_ticks).
		 */
		bool aimed = reason == EXIT_REASON_PREEMPTION_TIMER && !v->aside.kicked;

		due = host_timer_aside_due(&v->aside.plan, v->aside.tick, taken, now, aimed,
					   s->ptv << (vmx_ctl.preemption_timer_rate & 31));
		v->aside.decided = aimed;
	}
	if (taken) {
		/* a tick stepped: it is due where the stub's last step put it */
		host_timer_aside_taken(&v->pcpu->ht, taken, due);
		v->stats.tick_defer_exits += taken;
		v->stats.exits_total += taken;
		v->stats.exits[EXIT_REASON_PREEMPTION_TIMER] += taken;
		v->stats.tick_hits += s->hits;
	}
	s->hits = 0;
}
