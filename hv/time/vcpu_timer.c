// SPDX-License-Identifier: MIT
/*
 * A vCPU's timer mode on the hardware: hv decides from the mode's row
 * (hv/core/timer_modes.h) and the core's events (hv/core/timer.c), arch
 * loads the values (vmx_set_interrupt_model, vmx_set_preemption_timer).
 */
#include "hv/time/vcpu_timer.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx.h"
#include "hv/core/msr_policy.h"
#include "hv/exit/exit.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/upcalls.h"

uint64_t host_tick_tsc;
uint64_t host_watchdog_tsc;
uint64_t host_tick_slack_tsc;
bool posted_enabled;
bool posted_soft;
uint64_t host_tick_margin_tsc;
uint64_t rearm_cost_ticks;	/* see vcpu_timer_measure_rearm() */

static uint64_t msr_bitmaps[TIMER_MODE_COUNT];
/* the same with the x2APIC EOI write let through, virtualized (vmx_ctl.has_apicv) */
static uint64_t msr_bitmaps_apicv[TIMER_MODE_COUNT];
/* the same, for a guest whose APIC is not in x2APIC mode: 0x800-0x8ff all #GP (hv/exit/msr.c) */
static uint64_t msr_bitmaps_no_x2apic[TIMER_MODE_COUNT];

/* arch/x86/isr.S routes this vector to hv_timer_vector_handler */
_Static_assert(HV_TIMER_VECTOR == TRAP_HV_TIMER_VECTOR, "the IDT gate of the inject vector");

void vcpu_timer_boot(void)
{
	for (int m = 0; m < TIMER_MODE_COUNT; m++) {
		uint8_t *bm = hv_pages_alloc(PAGE_SIZE, "MSR bitmap");

		msr_bitmap_build_mode(bm, &timer_modes[m]);
		msr_bitmaps[m] = (uint64_t)bm;
		bm = hv_pages_alloc(PAGE_SIZE, "MSR bitmap");
		msr_bitmap_build_mode(bm, &timer_modes[m]);
		msr_bitmap_trap(bm, X2APIC_MSR_FIRST, X2APIC_MSR_LAST);
		msr_bitmaps_no_x2apic[m] = (uint64_t)bm;
		if (!vmx_ctl.has_apicv || timer_modes[m].owns_lapic)
			continue;
		bm = hv_pages_alloc(PAGE_SIZE, "MSR bitmap");
		msr_bitmap_build_mode(bm, &timer_modes[m]);
		/* the write half of the low range starts at byte 2048 (SDM Vol. 3C 25.6.9) */
		bm[2048 + X2APIC_EOI / 8] &= (uint8_t)~(1u << (X2APIC_EOI % 8));
		msr_bitmaps_apicv[m] = (uint64_t)bm;
	}
}

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
 * away a fire of another's (review of stop 27).
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
	if (!v->pcpu->shared && (!irr || !apic_holds_only(HV_TIMER_VECTOR, v->pi_on)))
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

/*
 * The exit stub's tick step-aside (hv/time/timer_exit.c): armed for the tick's
 * own exit where tick_defer_early would run, from the plan made once for
 * its placed time, when that exit is still to come (due > now: the window
 * is the placed time's); disarmed otherwise. Every entry passes here: the
 * rows themselves, not timer_mode(), as in vcpu_timer_arm.
 */
static inline void tick_aside_arm(struct vcpu *v, uint64_t now, uint64_t due)
{
	const struct timer_mode_desc *m = &timer_modes[v->vt.mode];
	struct pcpu *c = v->pcpu;
	uint8_t vec;

	if (!v->tick_aside)
		return;
	vec = vtimer_vector(&v->vt);
	v->arch.aside->closed = 1;
	v->aside_armed = false;
	if (due != c->ht.fire_tick || due <= now || !m->places_ticks || !m->owns_lapic ||
	    !v->vt.in_hw || !c->ht.slack_tsc || v->apicv || vec < 16)
		return;
	/* the plan, and the vector's IRR bit and class, once per placed time */
	if (v->aside_tick != due || v->aside_vec != vec)
		tick_aside_plan(v, due, vec);
	if (!v->aside_plan.steps)
		return;
	v->aside_armed = true;
	v->arch.aside->lo = v->aside_plan.lo0;
	/* armed, and lo set, before the stub (or hv_root_nmi) sees closed = 0 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	v->arch.aside->closed = 0;
}

/*
 * The preemption timer for @due, read against @now; then, if @v was kicked
 * since the mailbox was last read (after the VMWRITE: a kick NMI before it
 * would have its 0 overwritten), 0: exit at once. A stop counts only for a
 * vCPU whose partition is stopping (a shared core runs others too); an IPI
 * for this core's vCPUs always. The step-aside is armed first: an exit
 * made at once is the kick's, and both this test and hv_root_nmi, after
 * it, disarm it.
 */
static inline __attribute__((always_inline)) void timer_arm_due(struct vcpu *v, uint64_t now,
								  uint64_t due)
{
	tick_aside_arm(v, now, due);
	vmx_set_preemption_timer(ptimer_value(now, due, vmx_ctl.preemption_timer_rate));
	uint32_t mail = __atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE);

	if (__builtin_expect(mail != 0, 0) &&
	    ((mail & (MAILBOX_IPI | MAILBOX_EVENT)) ||
	     ((mail & MAILBOX_STOP_VCPU) && v->part->state != PART_RUNNING))) {
		vmx_set_preemption_timer(0);
		tick_aside_disarm(v);
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

		if (guest < due)
			due = guest;
	}
	if (c->shared && sched_window_end(&c->sched) < due)
		due = sched_window_end(&c->sched);
	timer_arm_due(v, now, due);
}

void vcpu_timer_arm_host(struct vcpu *v)
{
	uint64_t now = rdtsc();

	timer_arm_due(v, now, host_due(v->pcpu, now));
}

/*
 * Whether @v takes posted interrupts whenever its mode has virtual-interrupt
 * delivery (hv/core/posted.h pi_usable): fixed for its partition's life.
 * The descriptor must also pass the VM-entry checks with the controls
 * vmx_set_interrupt_model will set (64-byte aligned, below MAXPHYADDR); one
 * that does not leaves this vCPU on the interrupt path.
 */
bool vcpu_takes_posted(const struct vcpu *v)
{
	if (!pi_usable(posted_enabled, v->vapic != NULL, v->pcpu->shared,
		       timer_mode(v->part->cfg->timer)->owns_lapic))
		return false;
	return posted_soft ||
	       pi_controls_ok(vmx_ctl.pin | PIN_EXTINT_EXITING | PIN_POSTED_INTR,
			      vmx_ctl.exit | EXIT_ACK_INTR_ON_EXIT,
			      vmx_ctl.proc2 | PROC2_VIRT_INTR_DELIVERY, TRAP_POSTED_VECTOR,
			      (uint64_t)(uintptr_t)&v->pi, platform.maxphyaddr);
}

/*
 * A guest that owns the LAPIC (direct) takes its interrupts in its IDT with
 * no exit; otherwise every physical interrupt exits, acknowledged, and is
 * delivered through the virtual LAPIC, and CR8 (the TPR) is virtual too.
 */
void vcpu_timer_apply_mode(struct vcpu *v)
{
	bool virtual_intr = !timer_mode(v->vt.mode)->owns_lapic;
	bool x2apic = v->apic_base.mode == APIC_MODE_X2APIC;

	/*
	 * Shared cores too: each vCPU has its own VMCS and virtual-APIC page,
	 * and what another core sends it waits in its IPI bitmap, merged into
	 * the vLAPIC (and so the page) before it enters.
	 */
	v->apicv = virtual_intr && v->vapic;
	/* set before senders may see the VMCS's: a post now is taken before entry */
	__atomic_store_n(&v->pi_on, vcpu_takes_posted(v) && v->apicv, __ATOMIC_SEQ_CST);
	vmx_set_interrupt_model(virtual_intr,
				!x2apic ? msr_bitmaps_no_x2apic[v->vt.mode] :
				v->apicv ? msr_bitmaps_apicv[v->vt.mode] : msr_bitmaps[v->vt.mode],
				v->apicv ? (uint64_t)(uintptr_t)v->vapic : 0, x2apic,
				v->pi_on && !posted_soft ? (uint64_t)(uintptr_t)&v->pi : 0,
				TRAP_POSTED_VECTOR);
	if (v->apicv) {
		v->vt.vlapic.dirty = VLAPIC_DIRTY_ALL;	/* a new VMCS, or back from direct: all of it */
		apicv_sync_out(v);
	}
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
