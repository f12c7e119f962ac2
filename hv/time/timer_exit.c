// SPDX-License-Identifier: MIT
/*
 * The exits of time: the preemption timer (host ticks, and the software
 * deadline of the soft_deadline modes), the hypervisor's timer vector
 * (inject), HLT and the interrupt window, and the halted-forever check.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/trap.h"
#include "hv/core/halt.h"
#include "hv/guest/insn.h"
#include "hv/state/devirq.h"
#include "hv/state/partition.h"
#include "hv/state/prof.h"
#include "hv/time/aside.h"
#include "hv/time/time.h"

/*
 * At a host tick: stop the partition once every vCPU is halted for ever.
 * A vCPU seen so stays so (nothing can wake it), so the flags other cores
 * set at their own ticks are never stale. Almost every tick finds the vCPU
 * active: one VMREAD, then back to the guest.
 */
static enum exit_action check_halted_forever(struct vcpu *v, struct exit_ctx *x,
					     uint32_t activity)
{
	struct partition *p = v->part;
	enum halt_view views[MAX_VCPUS_PER_PART];

	/*
	 * Only until something wakes it: a sibling's NMI or INIT does now
	 * (hv/apic/ipi.c), so the flag is cleared when it is not halted and an
	 * event on its way counts as live.
	 */
	if (activity != HALT_ACTIVITY_HLT || v->apic.nmi_pending || v->apic.init_pending ||
	    !halt_vcpu_forever(activity, vmread(VMCS_GUEST_RFLAGS),
			       (uint32_t)vmread(VMCS_ENTRY_INTR_INFO))) {
		if (v->halted_forever)
			__atomic_store_n(&v->halted_forever, false, __ATOMIC_RELEASE);
		return EXIT_RESUME;
	}
	__atomic_store_n(&v->halted_forever, true, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *t = p->vcpus[i];

		if (t->state == VCPU_RUNNING)
			views[i] = __atomic_load_n(&t->halted_forever, __ATOMIC_ACQUIRE) &&
						   !t->apic.nmi_pending && !t->apic.init_pending ?
					   HALT_FOREVER : HALT_LIVE;
		else if (t->state == VCPU_WAIT_SIPI)
			views[i] = __atomic_load_n(&t->sipi_pending, __ATOMIC_ACQUIRE) ?
					   HALT_LIVE : HALT_ASLEEP;
		else
			views[i] = HALT_GONE;
	}
	if (halt_partition_forever(views, p->vcpu_count))
		return exit_stop(x, "halted_forever", 0,
				 "every vCPU is halted with interrupts off and cannot wake");
	return EXIT_RESUME;
}

/*
 * A deadline of a mode whose deadline is in the hardware (direct,
 * inject) that falls in a host-tick exit waits for the VM entry. There
 * IA32_TSC_DEADLINE is the guest's (passed through), so one RDMSR here, at
 * the tick only, tells where its next fire is; host_timer_place puts the
 * next tick just after it, or phase-locked to it, within tick_slack_us.
 * Short exits read nothing.
 *
 * In inject mode the guest's interrupt reaches its handler two exits after
 * the deadline (the external interrupt, then the injection's VM entry), so
 * its tick keeps three margins away (timer_mode()->tick_margin_mult).
 */
/*
 * Direct mode only (places_ticks): measured in inject mode, placing ticks
 * cut the p99 but raised tick_hits (3 to 10 in 1000 fixed events;
 * docs/timer-modes.md), since its fire already costs an exit of its own.
 * Inject counts its hits.
 */
static bool tick_placed(const struct vcpu *v)
{
	return timer_mode(v->vt.mode)->places_ticks && v->vt.in_hw && v->pcpu->ht.slack_tsc;
}

/*
 * Did the guest's timer fire in this exit, before its deadline was read, and
 * will the guest take it at the entry? Its vector then waits in the physical
 * IRR (IF=0 in root mode) and the MSR is 0 (hardware) or the fired value
 * (Bochs). If the guest could take it now (IF=1, no STI or MOV-SS shadow,
 * its class above the processor priority: the physical APIC's, which is the
 * guest's in direct mode) it came in this exit, or at the instruction
 * boundary the exit took (the preemption timer's exit comes before an
 * external interrupt there, SDM Vol. 3C 26.2); host_timer_defer then lets
 * the guest go first. A guest that could not take it keeps the tick: it
 * would not take its interrupt sooner anyway, and a guest sitting with its
 * vector blocked does not make every tick an exit longer. Read only when
 * the deadline is not ahead and the tick may still move: one RDMSR of the
 * IRR, then one of the PPR and two VMREADs.
 */
#define INTERRUPTIBILITY_STI_MOVSS	3u	/* SDM Vol. 3C 25.4.2, bits 0 and 1 */

static bool tick_guest_fired(const struct vcpu *v, uint64_t now, uint64_t deadline)
{
	uint8_t vec;

	if (deadline > now || v->pcpu->ht.deferred_this || !timer_mode(v->vt.mode)->owns_lapic)
		return false;
	vec = vtimer_vector(&v->vt);
	return vec >= 16 && x2apic_irr_test(vec) &&
	       (vec >> 4) > (((uint32_t)rdmsr(X2APIC_PPR) >> 4) & 0xf) &&
	       (vmread(VMCS_GUEST_RFLAGS) & (1u << 9)) &&
	       !(vmread(VMCS_GUEST_INTERRUPTIBILITY) & INTERRUPTIBILITY_STI_MOVSS);
}

/* A placed tick's exit: let the guest's deadline (read at @now) come first? */
static bool tick_defer(struct vcpu *v, uint64_t now, uint64_t deadline)
{
	return host_timer_defer(&v->pcpu->ht, now, deadline, tick_guest_fired(v, now, deadline),
				tick_margin(v));
}

/*
 * At the end of a host-tick exit: is the timer's vector (the guest's LVT
 * vector if it owns the LAPIC, the hypervisor's in inject mode) pending in
 * the physical IRR (x2APIC IRR at 0x820 + vector / 32, SDM Vol. 3A
 * 11.12.1.2)? Then the guest's timer fired while this exit ran (IF=0 in
 * root mode) and waits for the entry: a tick the guest felt.
 */
static inline void tick_hit_test(struct vcpu *v, uint8_t vec, bool pending)
{
	v->aside.tick_exit = false;
	if (pending || (v->vt.in_hw && vec >= 16 && x2apic_irr_test(vec)))
		v->stats.tick_hits++;
}

void count_tick_hit(struct vcpu *v)
{
	tick_hit_test(v, timer_mode(v->vt.mode)->owns_lapic ? vtimer_vector(&v->vt) : HV_TIMER_VECTOR,
		      false);
}

/* Exit 52: compare the TSC with what is due (a clamped value fires early). */
static enum exit_action preemption_timer(struct vcpu *v, struct exit_ctx *x)
{
	struct host_timer *h = &v->pcpu->ht;
	uint64_t now = rdtsc(), deadline = 0;
	bool placed = tick_placed(v);
	enum exit_action a;

	if (placed && now >= h->fire_tick) {
		deadline = v->aside.deadline_valid ? v->aside.deadline :
						    rdmsr(MSR_IA32_TSC_DEADLINE);
		v->aside.deadline_valid = false;
		if (!v->aside.decided && tick_defer(v, now, deadline)) {
			v->aside.tick_exit = true;	/* this exit may delay the guest too */
			v->stats.tick_defer_exits++;
			return EXIT_RESUME;
		}
	}
	/* a host tick, or (soft_deadline modes) the guest's deadline: the tail fires it */
	if (host_timer_run(h, now)) {
		uint32_t activity = (uint32_t)vmread(VMCS_GUEST_ACTIVITY_STATE);

		v->stats.host_tick_exits++;
		v->stats.tick_busy += activity == ACTIVITY_ACTIVE;
		a = check_halted_forever(v, x, activity);
		if (a != EXIT_RESUME)
			return a;
		/* the guest's deadline is in the hardware: this tick may delay its interrupt */
		if (!timer_mode(v->vt.mode)->soft_deadline)
			v->aside.tick_exit = true;
		if (placed)
			host_timer_place(h, deadline, tick_margin(v));
	}
	return EXIT_RESUME;
}

/*
 * A tick whose exit finds the guest's deadline about to fire, or
 * just fired, moves past it (host_timer_defer) and must re-enter at once: a
 * random deadline of the guest that falls in this exit waits for all of it,
 * so the exit's length is the guest's worst case and its chance of a hit.
 * The same holds for an ordinary tick, and for a device's interrupt to a
 * direct guest, which takes no exit but waits in the physical IRR (IF = 0
 * in root mode) for whatever exit the core is in: on a dedicated core,
 * nearly always a tick's. So both are finished here, before any of the
 * generic work, on a dedicated core with nothing else to do (as
 * exit_fast): a preemption-timer exit never comes during event delivery
 * (SDM Vol. 3C 26.5.1: it is taken at an instruction boundary), so nothing
 * is to be reinjected; a kick is read by the next full exit, at the latest
 * the tick's own.
 */

/*
 * The ordinary tick of tick_exit_early, with the guest's @deadline read at
 * @now (>= the placed time) and @fired its vector waiting: what
 * preemption_timer and exit_tail do for a placed tick of a direct vCPU with
 * nothing else to do. A guest halted with interrupts off (maybe for ever:
 * check_halted_forever, which may stop the partition) is left to that
 * path, before anything changes.
 */
static bool tick_run_early(struct vcpu *v, uint64_t now, uint64_t deadline, bool fired,
			   uint64_t margin)
{
	struct host_timer *h = &v->pcpu->ht;
	uint32_t activity = (uint32_t)vmread(VMCS_GUEST_ACTIVITY_STATE);

	if (v->apic.nmi_pending || v->apic.init_pending ||
	    (activity == HALT_ACTIVITY_HLT &&
	     halt_vcpu_forever(activity, vmread(VMCS_GUEST_RFLAGS),
			       (uint32_t)vmread(VMCS_ENTRY_INTR_INFO))))
		return false;
	PROF(v, PROF_ROW);
	/* this exit may delay the guest's interrupt: a tick hit is counted at its end */
	v->aside.tick_exit = true;
	/* check_halted_forever's finding for a vCPU that is not */
	if (v->halted_forever)
		__atomic_store_n(&v->halted_forever, false, __ATOMIC_RELEASE);
	v->stats.exits_total++;
	v->stats.exits[EXIT_REASON_PREEMPTION_TIMER]++;
	v->stats.fast_exits++;
	if (host_timer_run(h, now)) {
		v->stats.host_tick_exits++;
		v->stats.tick_busy += activity == ACTIVITY_ACTIVE;
		host_timer_place(h, deadline, margin);
	}
	PROF(v, PROF_DELIVER);
	/* count_tick_hit, as exit_tail: the guest's vector (direct: in the hardware) */
	tick_hit_test(v, vtimer_vector(&v->vt), fired);
	PROF(v, PROF_ARM);
	/* direct, dedicated (the gate of tick_exit_early): only host events are due */
	vcpu_timer_arm_host(v);
	return true;
}

/*
 * Only a QUICK_TICK vCPU comes here (time_exit_quick): its mode places
 * ticks and owns the LAPIC (timer_quick_update), so of tick_placed only
 * the vCPU's and the core's tests are left, and the margin is its row's,
 * looked up once (the mode is valid: the row itself, not timer_mode()).
 */
bool tick_exit_early(struct vcpu *v)
{
	struct pcpu *c = v->pcpu;
	uint64_t now, deadline, margin;
	bool fired = false;

	if (!v->vt.in_hw || !c->ht.slack_tsc || c->console || c->shared || v->apic.apicv ||
	    __atomic_load_n(&c->mailbox, __ATOMIC_ACQUIRE))
		return false;
	now = rdtsc();
	if (now < c->ht.fire_tick)
		return false;	/* the watchdog's allowance: the usual path */
	/*
	 * The MSR as the exit stored it for the stub, not an RDMSR (in SMP
	 * Bochs each ends a trace, and the other CPUs take a turn): a fire
	 * since the exit leaves the fired deadline there, as Bochs' MSR does,
	 * where hardware's now reads 0; tick_guest_fired tests the IRR either
	 * way.
	 */
	deadline = v->aside.enabled ? vmx_exit_tsc_deadline(&v->arch) :
				      rdmsr(MSR_IA32_TSC_DEADLINE);
	margin = timer_modes[v->vt.mode].tick_margin_mult * host_tick_margin_tsc;
	/* decided: the stub judged the guest's deadline against this exit already */
	if (!v->aside.decided) {
		fired = tick_guest_fired(v, now, deadline);
		if (host_timer_defer(&c->ht, now, deadline, fired, margin)) {
			v->stats.tick_defer_exits++;
			v->stats.exits_total++;
			v->stats.exits[EXIT_REASON_PREEMPTION_TIMER]++;
			/*
			 * count_tick_hit without a second IRR read when the vector is
			 * known to wait (fired); one ahead may still fire before the
			 * entry. Direct mode (tick_placed): the guest's vector, in the
			 * hardware.
			 */
			tick_hit_test(v, vtimer_vector(&v->vt), fired);
			vcpu_timer_arm_host(v);
			return true;
		}
	}
	if (tick_run_early(v, now, deadline, fired, margin))
		return true;
	/* preemption_timer reads the MSR once */
	v->aside.deadline = deadline;
	v->aside.deadline_valid = true;
	return false;
}

/*
 * A fast row (the fast path of KVM's "tscdeadline fastpath" idea): the
 * software deadline's expiry on a dedicated core is finished without the
 * generic tail (no vectoring check: the exit never happens during event
 * delivery; kicks come as NMI exits, so the mailbox can wait). A placed
 * tick that only moves past the guest's deadline is finished earlier still,
 * by tick_exit_early.
 */
enum exit_action exit_preemption_timer(struct vcpu *v, struct exit_ctx *x)
{
	enum exit_action a;

	if (!x->fast)
		return preemption_timer(v, x);
	if (timer_mode(v->vt.mode)->soft_deadline && !v->pcpu->shared) {
		a = preemption_timer(v, x);
		if (a == EXIT_RESUME)
			v->stats.fast_exits++;
		return a;
	}
	/* a placed tick that could finish early did (tick_exit_early): this one could not */
	return EXIT_SLOW;
}

/*
 * inject/emulated: a physical interrupt, acknowledged on exit (SDM 27.2.2).
 * A device's (hv/state/devirq.h) is its owner's, and ended after it: a
 * level-triggered input is held masked before the EOI lets it fire again.
 */
enum exit_action exit_external_interrupt(struct vcpu *v, struct exit_ctx *x)
{
	uint8_t vector = (uint8_t)vmread(VMCS_EXIT_INTR_INFO);

	(void)x;
	if (devirq_vector(vector))
		return devirq_take(v, vector);
	wrmsr(X2APIC_EOI, 0);
	if (vector == HV_TIMER_VECTOR) {
		vcpu_trace(v, TRACE_HW_FIRE, 0, rdtsc());
		vtimer_hw_fired(&v->vt);
	} else if (vector == TRAP_POSTED_VECTOR) {
		/*
		 * A posted-interrupt notification that exited (posted=soft, or
		 * one for a vCPU no longer taking them): never a guest's vector
		 * (a guest's IPI on it takes the virtual path, hv/apic/ipi.c);
		 * the tail takes the PIR (deliver_virtual).
		 */
	} else if (v->apic.base.mode != APIC_MODE_DISABLED) {
		/*
		 * A guest's IPI sent before its APIC was disabled may arrive
		 * after: a disabled APIC takes none (SDM Vol. 3A 11.4.3).
		 */
		vlapic_raise(&v->vt.vlapic, vector);
	}
	return EXIT_RESUME;
}

enum exit_action exit_interrupt_window(struct vcpu *v, struct exit_ctx *x)
{
	(void)v;
	(void)x;
	return EXIT_RESUME;	/* the tail injects what is pending */
}

/*
 * HLT exits only while deliver_virtual holds a vector the guest could not
 * take yet (IF=0, an STI or MOV-SS shadow): the guest's `sti; hlt` must wake
 * on it. The interrupt-window exit alone is not enough: Bochs does not take
 * it once the guest is in HLT (an idle `sti; hlt` then slept until the next
 * exit, a host tick or another deadline, ~1 ms later). HLT completes here,
 * and its STI shadow with it (skip_instruction); the tail then injects the
 * vector if the guest can take it (the interrupt wakes HLT, SDM Vol. 3A
 * 6.3), else the guest halts as it asked. A single-stepped HLT gets its
 * #DB and does not halt (hv/core/single_step.h ss_hlt_halts): entering
 * HLT with TF = 1 fails on hardware unless the step is pending (Bochs lets
 * it through; attack hlt_single_step).
 */
enum exit_action exit_hlt(struct vcpu *v, struct exit_ctx *x)
{
	bool stepped;

	(void)x;
	stepped = skip_instruction();
	if (ss_hlt_halts(vmread(VMCS_GUEST_RFLAGS), stepped, vlapic_pending(&v->vt.vlapic) >= 0))
		vmwrite(VMCS_GUEST_ACTIVITY_STATE, ACTIVITY_HLT);
	return EXIT_RESUME;
}
