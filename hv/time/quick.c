// SPDX-License-Identifier: MIT
/*
 * The exits of time that finish first, before the dispatcher's generic
 * work, as KVM's "tscdeadline fastpath" does: each is the one exit a timer
 * event costs, and each instruction in it is an instruction of the guest's
 * latency. Each runs only on a dedicated core with no console duty (the
 * quick flags, fixed when the vCPU's mode is set) and only when nothing
 * else waits: no kick in the mailbox, no NMI or INIT for the vCPU, no
 * count-down timer running, no APIC virtualization (its page takes another
 * path). Anything else returns false before changing
 * anything, and the usual path takes the exit.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/vmx.h"
#include "hv/apic/apic.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/state/prof.h"
#include "hv/time/aside.h"
#include "hv/time/time.h"

void timer_quick_update(struct vcpu *v)
{
	const struct timer_mode_desc *m = timer_mode(v->vt.mode);
	bool alone = !v->pcpu->shared && !v->pcpu->console && !v->apic.apicv;

	v->quick = 0;
	if (m->places_ticks && m->owns_lapic)
		v->quick |= QUICK_TICK;
	if (alone && m->soft_deadline)
		v->quick |= QUICK_SOFT;
	/* off: its advance stays 0, and the expiry is an exit after the deadline */
	if ((v->quick & QUICK_SOFT) && v->part->cfg->timer_advance)
		v->quick |= QUICK_ADVANCE;
	if (alone && m->injects_fired)
		v->quick |= QUICK_INJECT;
}

/* Nothing else waits for this vCPU: no kick, no NMI or INIT, no count-down timer running. */
static inline bool quick_alone(const struct vcpu *v)
{
	return !__atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE) && !v->apic.nmi_pending &&
	       !v->apic.init_pending && v->vt.countdown.due == LAPIC_TIMER_IDLE;
}

/* The exit is finished: counted, and the next event armed (@guest: the guest's in software). */
static inline bool quick_done(struct vcpu *v, uint32_t reason, uint64_t guest)
{
	v->stats.exits_total++;
	v->stats.exits[reason]++;
	v->stats.fast_exits++;
	vcpu_timer_arm_quick(v, guest);
	return true;
}

/*
 * Exit 52 of a software-deadline mode: the guest's deadline is due, or
 * within its advance (hv/core/timer.h), and no host event is (a tick or the
 * watchdog take the usual path). A pv-lazy guest's page is read first: it
 * may have moved its deadline without a trap. A preemption-timer exit never
 * comes during event delivery (SDM Vol. 3C 26.5.1), so nothing is being
 * injected at this entry yet. Ready before the deadline, it waits for it:
 * the interrupt is never early.
 */
static bool soft_expiry(struct vcpu *v, uint64_t now)
{
	struct vtimer *t = &v->vt;
	uint64_t d, ready;

	if (v->pv.page)
		pv_sync(v);
	d = t->deadline;
	if (!d || timer_advance_arm(&v->adv, d) > now)
		return false;
	PROF(v, PROF_ROW);
	vtimer_expire_soft(t);
	PROF(v, PROF_DELIVER);
	apic_inject(v, vlapic_pending(&t->vlapic), true);
	if (v->pv.page)
		pv_publish_armed(v);
	ready = rdtsc();
	if (v->quick & QUICK_ADVANCE)
		timer_advance_learn(&v->adv, (int64_t)(d - ready));
	while (rdtsc() < d)
		cpu_relax();
	PROF(v, PROF_ARM);
	return true;
}

/*
 * Exit 52 for a host event (the tick, or the watchdog's allowance) on a
 * quick vCPU whose guest runs, or halts with interrupts on: the tick is
 * counted here and the next event armed. A guest halted with IF = 0 (maybe
 * for ever: check_halted_forever) takes the usual path. In inject mode a
 * fire of the guest's deadline pending in the physical IRR at the end is a
 * tick the guest felt (count_tick_hit).
 */
static bool host_event(struct vcpu *v, uint64_t now)
{
	uint64_t activity = vmread(VMCS_GUEST_ACTIVITY_STATE);

	if (v->halted_forever ||
	    (activity == ACTIVITY_HLT && !(vmread(VMCS_GUEST_RFLAGS) & (1u << 9)))) {
		/* test=exit_fault (hv/state/platform.h): a fault on the quick path */
		if (hv_test_exit_fault)
			asm volatile("ud2");
		return false;
	}
	if (!host_timer_run(&v->pcpu->ht, now))
		return true;	/* the watchdog's allowance: counted, nothing else due */
	v->stats.host_tick_exits++;
	v->stats.tick_busy += activity == ACTIVITY_ACTIVE;
	return true;
}

/*
 * Exit 52 of a quick vCPU of a software-deadline mode: the guest's
 * deadline (soft_expiry), a host event (host_event), or both in one exit.
 */
static __attribute__((noinline)) bool soft_exit(struct vcpu *v)
{
	uint64_t now = rdtsc();
	bool host = now >= host_timer_next(&v->pcpu->ht), fired;

	if (!quick_alone(v) || (host && !host_event(v, now)))
		return false;
	fired = soft_expiry(v, now);
	if (!host && !fired)
		return false;	/* neither: the usual path re-arms */
	if (!fired)
		apic_inject(v, vlapic_pending(&v->vt.vlapic), true);
	/* a deadline still ahead (the exit was the host's) is armed early too */
	return quick_done(v, EXIT_REASON_PREEMPTION_TIMER,
			  v->vt.deadline ? timer_advance_arm(&v->adv, v->vt.deadline) : TIMER_NO_EVENT);
}

/* Exit 52 of inject mode's quick vCPU: a host event. */
static __attribute__((noinline)) bool inject_tick(struct vcpu *v)
{
	uint64_t now = rdtsc();

	if (now < host_timer_next(&v->pcpu->ht) || !quick_alone(v) || !host_event(v, now))
		return false;
	apic_inject(v, vlapic_pending(&v->vt.vlapic), true);
	if (v->vt.in_hw && x2apic_irr_test(HV_TIMER_VECTOR))
		v->stats.tick_hits++;
	return quick_done(v, EXIT_REASON_PREEMPTION_TIMER, TIMER_NO_EVENT);
}

/*
 * Exit 1 of inject mode with the hypervisor's vector (acknowledged on
 * exit, SDM 27.2.2): the guest's deadline fired in the hardware. Not one
 * that came during event delivery (that event is delivered again first:
 * the usual path).
 */
static __attribute__((noinline)) bool inject_fire(struct vcpu *v)
{
	if ((uint8_t)vmread(VMCS_EXIT_INTR_INFO) != HV_TIMER_VECTOR || !quick_alone(v) ||
	    (vmread(VMCS_IDT_VECTORING_INFO) & INTR_INFO_VALID))
		return false;
	PROF(v, PROF_ROW);
	wrmsr(X2APIC_EOI, 0);
	vtimer_hw_fired(&v->vt);	/* traced as the injection (TRACE_INJECT) */
	PROF(v, PROF_DELIVER);
	apic_inject(v, vlapic_pending(&v->vt.vlapic), true);
	PROF(v, PROF_ARM);
	return quick_done(v, EXIT_REASON_EXTERNAL_INTR, TIMER_NO_EVENT);
}

/*
 * Each mode's handler is out of line, so that this dispatch keeps no frame
 * and ends in a jump (the modes' flags are exclusive: timer_quick_update):
 * a frame here was some 15 instructions of every quick exit, among them
 * direct mode's tick, whose whole exit a device interrupt to a direct guest
 * arriving in it waits for (tick_exit_early).
 */
bool time_exit_quick(struct vcpu *v, uint32_t reason)
{
	if (reason == EXIT_REASON_PREEMPTION_TIMER) {
		if (v->quick & QUICK_SOFT)
			return soft_exit(v);
		if (v->quick & QUICK_TICK)
			return tick_exit_early(v);
		if (v->quick & QUICK_INJECT)
			return inject_tick(v);
		return false;
	}
	return reason == EXIT_REASON_EXTERNAL_INTR && (v->quick & QUICK_INJECT) && inject_fire(v);
}
