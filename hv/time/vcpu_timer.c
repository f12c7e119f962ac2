// SPDX-License-Identifier: MIT
/*
 * A vCPU's timer mode on the hardware: hv decides from the mode's row
 * (hv/core/timer_modes.h) and the core's events (hv/core/timer.c), arch
 * loads the values (vmx_set_preemption_timer).
 */
#include "hv/time/time.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx.h"
#include "hv/apic/apic.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/state/prof.h"
#include "hv/time/aside.h"

uint64_t host_tick_tsc;
uint64_t host_watchdog_tsc;
uint64_t host_tick_slack_tsc;
uint64_t host_tick_margin_tsc;
uint64_t rearm_cost_ticks;	/* see vcpu_timer_measure_rearm() */

/* arch/x86/isr.S routes this vector to hv_timer_vector_handler */
_Static_assert(HV_TIMER_VECTOR == TRAP_HV_TIMER_VECTOR, "the IDT gate of the inject vector");

/*
 * direct: the guest's LVT as it wrote it (filtered). inject: the hypervisor's
 * vector in TSC-deadline mode, with the guest's mask, so a masked timer costs
 * no exit; masked too while the guest's LVT is in one-shot or periodic mode,
 * whose count-down timer off direct mode is the vLAPIC's (it never counts),
 * so that the deadline it may still write cannot fire (SDM 11.5.4.1: the
 * MSR is ignored outside TSC-deadline mode). The physical count-down timer
 * is never started off direct mode. emulated: masked; the deadline lives on
 * the preemption timer.
 */
void timer_program_lvt(struct vcpu *v)
{
	const struct timer_mode_desc *m = timer_mode(v->vt.mode);
	uint32_t lvt = v->vt.lvt;

	if (m->injects_fired) {
		if ((lvt & APIC_LVT_TIMER_MODE_MASK) != APIC_LVT_TIMER_TSC_DEADLINE)
			lvt |= APIC_LVT_MASKED;
		lvt = (lvt & APIC_LVT_MASKED) | APIC_LVT_TIMER_TSC_DEADLINE | HV_TIMER_VECTOR;
	} else if (!m->owns_lapic) {
		lvt = APIC_LVT_MASKED | HV_TIMER_VECTOR;
	}
	wrmsr(X2APIC_LVT_TIMER, lvt);
}

/*
 * Leaving the core for the rest of the frame (DESIGN.md): the deadline comes
 * out of the hardware by the read / write-0 / IRR protocol. In inject
 * mode a fire that raced the save may sit in the physical IRR: a short STI
 * window takes it (this core runs no direct-mode guest, so its APIC holds no
 * guest state) and credits it to this vCPU, not to the next one. Per core
 * (pcpu.hv_timer_seen): every core has the vector's gate and opens such
 * windows, and one flag for all let a partition on one core add or take
 * away a fire of another's.
 */

/*
 * The physical APIC holds nothing in service and nothing pending but
 * @vector, and with @posted the posted-interrupt notification (taken in
 * the STI window by an EOI alone; the PIR stays for deliver_virtual).
 */
static bool apic_holds_only(uint8_t vector, bool posted)
{
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t mine = i == vector / 32u ? 1ull << (vector % 32) : 0;

		if (posted && i == TRAP_POSTED_VECTOR / 32u)
			mine |= 1ull << (TRAP_POSTED_VECTOR % 32);

		if (rdmsr(X2APIC_ISR0 + i) || (rdmsr(X2APIC_IRR0 + i) & ~mine))
			return false;
	}
	return true;
}

/*
 * direct/inject, leaving the guest for a long stay (DESIGN.md; vtimer_save
 * in hv/core/timer.c says what each finding means): read the TSC and D, write 0,
 * read the TSC, then the physical IRR bit of the timer's vector, IF=0
 * throughout. Hardware clears the MSR when the timer fires (SDM Vol. 3A
 * 11.5.4.1), so a fire just before the RDMSR reads 0 and leaves its vector
 * in the IRR. Inject mode: that vector is ours (0xee) and the fire this
 * vCPU's: a short STI window takes it (hv_timer_vector_handler) and it is
 * credited here, not to the next vCPU on a shared core nor, after a mode
 * switch, delivered to a direct-mode guest as vector 0xee. On a dedicated
 * core the window opens only while the physical APIC holds nothing else
 * (guest IPIs land there, and root mode has no handler for them); else the
 * vector stays, vtimer_switch_mode refuses (hw_firing) and the next entry
 * exits for it.
 */
void timer_save_hw(struct vcpu *v)
{
	struct vtimer *t = &v->vt;
	uint8_t vec = timer_mode(t->mode)->owns_lapic ? vtimer_vector(t) : HV_TIMER_VECTOR;
	uint64_t before = rdtsc(), d = rdmsr(MSR_IA32_TSC_DEADLINE), now;
	bool irr;

	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	now = rdtsc();
	irr = x2apic_irr_test(vec);
	vtimer_save(t, d, before, now, irr, platform.tsc_deadline_clears);
	vcpu_trace(v, TRACE_SAVE, d, before);
	if (!timer_mode(t->mode)->injects_fired)
		return;
	if (!v->pcpu->shared && (!irr || !apic_holds_only(HV_TIMER_VECTOR, v->apic.pi_on)))
		return;
	v->pcpu->hv_timer_seen = false;
	asm volatile("sti; nop; nop; cli" ::: "memory");
	if (v->pcpu->hv_timer_seen)
		vtimer_hw_fired(t);
}

void hv_timer_vector_handler(void)
{
	this_pcpu()->hv_timer_seen = true;
	wrmsr(X2APIC_EOI, 0);
}

void deliver_virtual(struct vcpu *v)
{
	if (v->pv.page)
		pv_sync(v);
	/*
	 * A fired hardware deadline arrives as an interrupt (inject): nothing
	 * to check, unless the count-down timer runs (in software in every
	 * mode but direct).
	 */
	if (!timer_mode(v->vt.mode)->injects_fired || v->vt.countdown.due != LAPIC_TIMER_IDLE)
		vtimer_check(&v->vt, rdtsc());
	if (v->pv.page)
		pv_publish_armed(v);
	apic_deliver(v);
}

/*
 * The preemption timer for @due, read against @now; then, if @v was kicked
 * since the mailbox (and, @shared, its own kicked flag) was last read
 * (after the VMWRITE: a kick NMI before it would have its 0 overwritten),
 * 0: exit at once. A stop counts only for a vCPU whose partition is
 * stopping (a shared core runs others too); an IPI for this core's vCPUs
 * always. The step-aside is armed first: an exit made at once is the
 * kick's, and both this test and hv_root_nmi, after it, disarm it.
 */
static inline __attribute__((always_inline)) void timer_arm_due(struct vcpu *v, uint64_t now,
								  uint64_t due, bool shared)
{
	tick_aside_arm(v, now, due);
	/*
	 * The timer counts from the VM entry (SDM Vol. 3C 26.5.1): the later
	 * its value is taken, the less the exit comes after @due. A step-aside
	 * plan is a few hundred instructions: read the TSC again after it.
	 */
	if (v->aside.enabled)
		now = rdtsc();
	PROF_DUE(v, due);
	vmx_set_preemption_timer(ptimer_value(now, due, vmx_ctl.preemption_timer_rate));
	uint32_t mail = __atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE);

	/*
	 * A shared core's vCPU is kicked through its own flag (hv/apic/parts.h);
	 * @shared is false where only a dedicated core's vCPU comes (the quick
	 * and host-event paths), which then pay nothing for it.
	 */
	if ((__builtin_expect(mail != 0, 0) &&
	     ((mail & (MAILBOX_IPI | MAILBOX_EVENT)) ||
	      ((mail & MAILBOX_STOP_VCPU) && v->part->state != PART_RUNNING))) ||
	    (shared && __builtin_expect(__atomic_load_n(&v->apic.kicked, __ATOMIC_ACQUIRE), 0))) {
		vmx_set_preemption_timer(0);
		tick_aside_disarm(v);
	} else if (__builtin_expect(mail != 0, 0) && v->aside.enabled) {
		/* anything else in the mailbox (a mode request): hv's next tick reads it, not the stub */
		v->arch.stub->open = 0;
	}
}

/* The host's next event; the watchdog counts from the vCPU's latest exit: this one. */
static inline uint64_t host_due(struct pcpu *c, uint64_t now)
{
	if (c->ht.watchdog_tsc)
		c->ht.last_exit = now;
	return host_timer_next(&c->ht);
}

/*
 * One VMWRITE per entry, from the absolute due time: a value saved at exit
 * would go stale by the time spent in root mode, and a guest that exits
 * often would never be preempted (DESIGN.md).
 */
void vcpu_timer_arm(struct vcpu *v)
{
	struct pcpu *c = v->pcpu;
	uint64_t now = rdtsc(), due = host_due(c, now);

	/*
	 * The row itself, not timer_mode(): this runs on every entry, and the
	 * mode is valid. The software deadline, and off direct mode a running
	 * count-down timer (one-shot or periodic, hv/core/lapic_timer.c).
	 */
	if (timer_modes[v->vt.mode].soft_deadline ||
	    (!timer_modes[v->vt.mode].owns_lapic && v->vt.countdown.due != LAPIC_TIMER_IDLE)) {
		uint64_t guest = vtimer_next(&v->vt);

		/* a quick expiry takes it early, and waits for it (hv/time/quick.c) */
		if ((v->quick & QUICK_SOFT) && v->vt.deadline && guest == v->vt.deadline)
			guest = timer_advance_arm(&v->adv, guest);
		if (guest < due)
			due = guest;
	}
	if (c->shared && sched_window_end(&c->sched) < due)
		due = sched_window_end(&c->sched);
	timer_arm_due(v, now, due, c->shared);
}

void vcpu_timer_arm_quick(struct vcpu *v, uint64_t guest)
{
	uint64_t now = rdtsc(), due = host_due(v->pcpu, now);

	if (guest < due)
		due = guest;
	timer_arm_due(v, now, due, false);
}

void vcpu_timer_arm_host(struct vcpu *v)
{
	uint64_t now = rdtsc();

	timer_arm_due(v, now, host_due(v->pcpu, now), false);
}

/*
 * What the timer adds to a short exit: the preemption-timer re-arm (an RDTSC,
 * the arithmetic, one VMWRITE, and the tick step-aside's copy). Timed with
 * the TSC around the real code; in Bochs a tick is an instruction, so this
 * is an instruction count. The step-aside is planned once for each placed
 * tick (tick_aside_arm), at the first entry after the tick's own exit: the
 * call before the timed one makes that plan, so the figure is a short
 * exit's between ticks.
 */
void vcpu_timer_measure_rearm(struct vcpu *v)
{
	uint64_t t0, t1, t2, t3, base, cost;

	vcpu_timer_arm(v);
	t0 = rdtsc();
	t1 = rdtsc();
	vcpu_timer_arm(v);
	t2 = rdtsc();
	t3 = rdtsc();
	base = t3 - t2;
	cost = t2 - t1 > base ? t2 - t1 - base : 0;
	(void)t0;
	if (cost > rearm_cost_ticks)
		rearm_cost_ticks = cost;
}
