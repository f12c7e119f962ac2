// SPDX-License-Identifier: MIT
/*
 * The guest's x2APIC: the checked registers of every mode (APIC base, LDR,
 * SVR, the LVTs, the ICR and its IPI routing), the virtual LAPIC that
 * answers for the APIC off the LAPIC-owning modes (MSR_VAPIC), the software
 * TSC deadline (MSR_SOFT_DEADLINE), and the move of the APIC state between
 * hardware and vLAPIC when the timer mode changes.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/trap.h"
#include "hv/core/icr.h"
#include "hv/core/lapic_rules.h"
#include "hv/dev/channel.h"
#include "hv/core/lapic_timer.h"
#include "hv/exit/exit.h"
#include "hv/guest/mmio.h"
#include "hv/lib/lib.h"
#include "hv/state/pages.h"
#include "hv/state/platform.h"

/* ---- registers checked in every mode ---- */

/*
 * The guest's APIC out of power-up: its vLAPIC, count-down timer and xAPIC
 * registers, its LVT timer masked and deadline disarmed (SDM 11.4.7.1);
 * with the LAPIC its own (direct), the physical one as Tempo sets it for
 * a guest. At build, each restart, and when the guest disables its APIC
 * through IA32_APIC_BASE.
 */
void vcpu_apic_reset(struct vcpu *v)
{
	uint64_t min_period = platform.tsc_hz / 1000000 * LAPIC_TIMER_MIN_PERIOD_NS / 1000;

	vlapic_init(&v->vt.vlapic);
	lapic_timer_init(&v->vt.countdown, min_period);
	xapic_regs_init(&v->xapic, (uint8_t)v->apic_id);
}

/* The same, while the vCPU runs (an APIC disabled through IA32_APIC_BASE). */
static void vcpu_apic_reset_live(struct vcpu *v)
{
	uint64_t now = rdtsc();

	/* the timer first: masked and disarmed, nothing due fires into the new state */
	vtimer_write_lvt(&v->vt, APIC_LVT_MASKED);
	vtimer_write_deadline(&v->vt, 0, now);
	if (!timer_mode_software(v->vt.mode))
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);	/* direct, inject: the hardware's */
	if (timer_mode(v->vt.mode)->owns_lapic) {
		x2apic_give_back();
		x2apic_eoi_all();	/* nothing left in service (power-up state) */
	}
	for (uint32_t i = 0; i < ARRAY_SIZE(v->ipi_pending); i++)
		__atomic_store_n(&v->ipi_pending[i], 0, __ATOMIC_RELEASE);
	if (v->pi_on) {		/* and what was posted for the old state */
		uint32_t dropped[8] = { 0 };

		pi_take(&v->pi, dropped);
	}
	vcpu_apic_reset(v);
	timer_program_lvt(v);
}

bool apic_base_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)msr;
	*value = apic_base_value(&v->apic_base);
	return true;
}

/* A page of the partition's RAM or channels, which the APIC page may not cover here. */
static bool apic_page_is_memory(const struct partition *p, uint64_t base)
{
	if (gpa_to_hva(p, base, PAGE_SIZE))
		return true;
	for (uint32_t i = 0; i < p->channel_count; i++) {
		const struct channel_config *cc = channels[p->channel_of[i]].cfg;
		uint64_t gpa = cc->peers[p->channel_self[i]].gpa;

		if (base >= gpa && base - gpa < cc->size)
			return true;
	}
	return false;
}

/*
 * SDM Vol. 3A 11.4.4, 11.12.5: the state machine of hv/core/apic_base.c
 * (illegal transitions and reserved bits are #GP). A base moved onto the
 * partition's RAM or a channel is refused too (#GP): the page is emulated
 * where nothing is mapped, and Tempo never unmaps memory for it.
 */
bool apic_base_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	struct apic_base_caps caps = { (uint8_t)cpuid(0x80000008, 0).eax, true };
	struct apic_base_write w = apic_base_write(&v->apic_base, value, &caps);

	(void)x;
	(void)msr;
	if (w.fault != APIC_BASE_OK ||
	    (w.base_moved && apic_page_is_memory(v->part, w.state.base)))
		return false;
	v->apic_base = w.state;
	if (w.reset)
		vcpu_apic_reset_live(v);
	if (w.mode_changed)
		vcpu_timer_apply_mode(v);	/* the MSR bitmap of its APIC mode */
	return true;
}

bool ldr_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)msr;
	/*
	 * Read-only in x2APIC mode and defined by the id (SDM 11.12.10.2):
	 * cluster in 31:16, one bit in 15:0. Some CPUs (Bochs) read 0,
	 * and Linux's cluster mode then sends its IPIs to logical 0.
	 */
	*value = x2apic_logical_id(v->apic_id);
	return true;
}

/* SVR: the APIC cannot be software-disabled (bit 8 forced); 31:13, 11:10 reserved */
#define SVR_WRITABLE	0x13ffull

static bool svr_write_ok(uint64_t value)
{
	return !(value & ~SVR_WRITABLE);
}

bool svr_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	(void)v;
	(void)x;
	if (!svr_write_ok(value))
		return false;
	/* bit 12 (EOI-broadcast suppression) is refused by CPUs without it */
	return wrmsr_safe(msr, (value | APIC_SVR_ENABLE) & 0x11ff);
}

/* The vLAPIC's shadow of an LVT entry other than the timer (lapic_is_lvt). */
static uint32_t *vlapic_lvt_shadow(struct vlapic *l, uint32_t msr)
{
	return &l->lvt[msr == X2APIC_LVT_CMCI ? 0 : msr - X2APIC_LVT_THERMAL + 1];
}

/*
 * CMCI, thermal, PMC, LINT0/1, error: the physical entry if the guest owns
 * the LAPIC, else the vLAPIC's.
 */
bool lvt_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	uint32_t filtered;

	(void)x;
	if (!lapic_lvt_write_ok(msr, value))
		return false;
	filtered = lapic_lvt_filter(msr, (uint32_t)value);
	if (timer_mode(v->vt.mode)->owns_lapic)
		return wrmsr_safe(msr, filtered);
	*vlapic_lvt_shadow(&v->vt.vlapic, msr) = filtered;
	return true;
}

bool lvt_timer_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	(void)x;
	if (!lapic_lvt_write_ok(msr, value))
		return false;
	/* an expiry before this write is judged by the old LVT (software deadline or count-down) */
	if (!timer_mode(v->vt.mode)->owns_lapic)
		vtimer_check(&v->vt, rdtsc());
	vtimer_write_lvt(&v->vt, lapic_lvt_filter(msr, (uint32_t)value));
	vcpu_trace(v, TRACE_LVT, v->vt.lvt, rdtsc());
	timer_program_lvt(v);
	return true;
}

/* ---- the ICR ---- */

bool icr_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)msr;
	/*
	 * The physical ICR holds the last IPI this core sent, which on a
	 * shared core may be another partition's (or a kick): each
	 * vCPU reads what it wrote (SDM 11.12.9, delivery status 0).
	 */
	*value = v->icr_last;
	return true;
}

/*
 * A fixed IPI whose vector is one of Tempo's own (the host timer, the idle
 * wake-up, the APIC's spurious vector: arch/x86/trap.h) never goes straight
 * to a physical APIC. On a core whose guest takes its interrupts through
 * Tempo it would read as Tempo's event (a 0xee as a fire of the guest's
 * deadline), and an in-service spurious vector is one that Bochs 2.7 never
 * clears on EOI, blocking the host timer's priority class for good (seen:
 * guest-fuzz seed 8001, inject). The target's mode is not asked: it may
 * change under us (a direct target switching to inject between the read and
 * the IPI's arrival). The bitmap is read at the target's next entry, which
 * raises the vector in its vLAPIC or, if it owns its LAPIC by then, sends it
 * there (hv/apic/inject.c).
 */
static bool ipi_needs_virtual_path(uint8_t vector)
{
	return vector >= TRAP_HV_VECTOR_FIRST && vector <= TRAP_HV_VECTOR_LAST;
}

/*
 * A fixed interrupt on @vector for @t, from a vCPU of its own partition or
 * from a channel's doorbell (hv/dev/channel.c); @from is the sending vCPU. False
 * if @t cannot take it now (dropped: the caller counts it).
 */
bool vcpu_send_fixed(struct vcpu *from, struct vcpu *t, uint8_t vector)
{
	/*
	 * An AP waiting for SIPI ignores fixed interrupts (SDM 9.4.4); its
	 * core idles in root mode, which must never see a guest's vector.
	 */
	if (t->state != VCPU_RUNNING)
		return false;
	if (t->pcpu->shared || ipi_needs_virtual_path(vector)) {
		/*
		 * A shared core's physical APIC does not know whose window it
		 * is, and a vector of Tempo's own would be taken for Tempo's
		 * event there: the vector waits in the vCPU's own bitmap,
		 * merged into its vLAPIC before it next enters
		 * (deliver_virtual).
		 */
		__atomic_fetch_or(&t->ipi_pending[vector / 32], 1u << (vector % 32),
				  __ATOMIC_SEQ_CST);
		/*
		 * A shared core merges the bitmap at every entry of its vCPU:
		 * only a target in its own window is kicked (NMI), so a
		 * neighbour's window is never interrupted for it. A dedicated
		 * core reads the bitmap when the mailbox says so.
		 */
		if (t->pcpu->shared) {
			if (t != from &&
			    __atomic_load_n(&t->pcpu->window_vcpu, __ATOMIC_SEQ_CST) == t)
				x2apic_send_nmi(t->pcpu->apic_id);
			return true;
		}
		__atomic_fetch_or(&t->pcpu->mailbox, MAILBOX_IPI, __ATOMIC_RELEASE);
		if (t != from)
			x2apic_send_nmi(t->pcpu->apic_id);
	} else if (__atomic_load_n(&t->pi_on, __ATOMIC_SEQ_CST)) {
		/*
		 * Posted (hv/core/posted.h): the vector waits in the target's
		 * descriptor and one notification, if none is on its way yet,
		 * makes its core take it with no exit; in root mode the
		 * target's next entry takes it (deliver_virtual): a vCPU's
		 * self-IPI needs no notification, its exit's tail takes it.
		 */
		if (pi_post(&t->pi, vector) && t != from)
			x2apic_send(t->apic_id, ICR_DELIVERY_FIXED | TRAP_POSTED_VECTOR |
						ICR_LEVEL_ASSERT);
	} else {
		x2apic_send(t->apic_id, ICR_DELIVERY_FIXED | vector | ICR_LEVEL_ASSERT);
	}
	return true;
}

/*
 * An NMI or INIT for @t (*@flag set, if any): taken at @t's next exit (hv/exit/exit.c,
 * exit_tail), which a kick makes now; a shared core's vCPU out of its
 * window takes it in its next window.
 */
static void vcpu_send_event(struct vcpu *from, struct vcpu *t, volatile uint32_t *flag)
{
	if (t->state != VCPU_RUNNING)
		return;		/* waiting for SIPI: INIT and NMI are held off (SDM 9.4.4) */
	if (flag)
		__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	if (t == from)
		return;		/* this exit's tail takes it */
	if (t->pcpu->shared) {
		if (__atomic_load_n(&t->pcpu->window_vcpu, __ATOMIC_SEQ_CST) == t)
			x2apic_send_nmi(t->pcpu->apic_id);
		return;
	}
	__atomic_fetch_or(&t->pcpu->mailbox, MAILBOX_EVENT, __ATOMIC_RELEASE);
	x2apic_send_nmi(t->pcpu->apic_id);
}

/*
 * NMIs are counted, at most two: two that arrive together are one taken
 * and one latched on hardware. Once the guest is in its NMI handler,
 * deliver_nmi folds what waits into the one latch (SDM 6.7.1).
 */
static void vcpu_send_nmi(struct vcpu *from, struct vcpu *t)
{
	uint32_t n = __atomic_load_n(&t->nmi_pending, __ATOMIC_ACQUIRE);

	if (t->state != VCPU_RUNNING)
		return;		/* held off while waiting for SIPI (SDM 9.4.4) */
	while (n < 2 && !__atomic_compare_exchange_n(&t->nmi_pending, &n, n + 1, false,
						     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	vcpu_send_event(from, t, NULL);
}

/* The IPI @r (from @v's ICR write of @value): each target, or the stop. */
static enum exit_action icr_deliver(struct vcpu *v, struct exit_ctx *x, uint64_t value,
				    const struct icr_route *r)
{
	struct partition *p = v->part;

	uint64_t targets = r->targets;

	if (r->verdict == ICR_DENY)
		return exit_stop(x, "icr_denied", value, r->why);
	if (r->one) {
		uint64_t able = 0;

		for (uint32_t i = 0; i < p->vcpu_count; i++)
			if (p->vcpus[i]->state == VCPU_RUNNING &&
			    p->vcpus[i]->apic_base.mode != APIC_MODE_DISABLED)
				able |= 1ull << i;
		targets = icr_pick_one(targets, able);
	}
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *t = p->vcpus[i];

		if (!(targets & (1ull << i)))
			continue;
		/* a globally disabled APIC takes no fixed interrupt or NMI (SDM 11.4.3) */
		if (t->apic_base.mode == APIC_MODE_DISABLED &&
		    (r->verdict == ICR_SEND || r->verdict == ICR_NMI))
			continue;
		switch (r->verdict) {
		case ICR_SEND:
			if (!vcpu_send_fixed(v, t, r->vector))
				v->ipis_dropped++;
			break;
		case ICR_SIPI:
			/*
			 * Only a vCPU waiting for SIPI starts, as on hardware. One
			 * an INIT has reached but that has not reset yet takes the
			 * SIPI at its reset (vcpu_init_reset); if the reset ended
			 * meanwhile, it may have missed it: then as usual.
			 */
			if (__atomic_load_n(&t->init_pending, __ATOMIC_SEQ_CST)) {
				__atomic_store_n(&t->sipi_after_init, 0x100u | r->vector,
						 __ATOMIC_SEQ_CST);
				if (__atomic_load_n(&t->init_pending, __ATOMIC_SEQ_CST))
					break;
			}
			if (t->state == VCPU_WAIT_SIPI && !t->sipi_pending) {
				t->sipi_vector = r->vector;
				__atomic_store_n(&t->sipi_pending, true, __ATOMIC_RELEASE);
				/*
				 * A dedicated core polls for it; one whose vCPU has
				 * never run idles on its deadline timer (idle_wait):
				 * the NMI wakes it at once. A shared core finds it at
				 * its window, and another's window is not disturbed.
				 */
				if (t != v && !t->pcpu->shared)
					x2apic_send_nmi(t->pcpu->apic_id);
			}
			break;
		case ICR_INIT:
			vcpu_send_event(v, t, &t->init_pending);
			break;
		case ICR_NMI:
			vcpu_send_nmi(v, t);
			break;
		default:
			break;
		}
	}
	return EXIT_RESUME;
}

static enum exit_action icr_send(struct vcpu *v, struct exit_ctx *x, uint64_t value)
{
	struct partition *p = v->part;
	uint32_t ids[MAX_VCPUS_PER_PART];
	struct icr_route r;

	for (uint32_t i = 0; i < p->vcpu_count; i++)
		ids[i] = p->vcpus[i]->apic_id;
	r = icr_route(ids, p->vcpu_count, v->index, value);
	return icr_deliver(v, x, value, &r);
}

/* A reserved bit is #GP; a denied destination stops the partition (x). */
bool icr_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	(void)msr;
	if (value & ICR_X2APIC_RESERVED)
		return false;
	v->icr_last = value & ~(1ull << 12);
	icr_send(v, x, value);
	return true;
}

/* ---- the xAPIC register page (hv/core/xapic.h), trapped where nothing is mapped ---- */

/* ICR_LOW written in xAPIC mode: the same checks and delivery as the x2APIC ICR. */
static void xapic_send_ipi(struct vcpu *v, struct exit_ctx *x, uint32_t low)
{
	struct partition *p = v->part;
	struct icr_xapic_dest dests[MAX_VCPUS_PER_PART];
	struct icr_route r;

	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		const struct vcpu *t = p->vcpus[i];

		dests[i] = icr_xapic_dest_of(&t->xapic, t->apic_base.mode, t->apic_id);
	}
	r = icr_route_xapic(dests, p->vcpu_count, v->index, low, v->xapic.icr_high);
	v->icr_last = (uint64_t)v->xapic.icr_high << 32 | low;
	icr_deliver(v, x, v->icr_last, &r);
}

static uint64_t xapic_page_read(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size)
{
	struct xapic_op op;
	uint64_t value = 0;

	(void)ctx;
	if (!apic_base_page_decoded(&v->apic_base))
		return apic_base_undecoded_read(size);
	op = xapic_access(&v->xapic, (uint32_t)(gpa & (PAGE_SIZE - 1)), size, false, 0);
	if (op.kind == XAPIC_OP_DONE)
		return op.value;
	if (op.kind == XAPIC_OP_MSR_READ && msr_read(v, op.msr, &value))
		return xapic_read_finish(&op, value);
	return 0;
}

static void xapic_page_write(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size,
			     uint64_t value)
{
	struct exit_ctx *x = ctx;
	struct xapic_op op;

	if (!apic_base_page_decoded(&v->apic_base))
		return;		/* the write goes nowhere, as on a bus with no APIC there */
	op = xapic_access(&v->xapic, (uint32_t)(gpa & (PAGE_SIZE - 1)), size, true, value);
	if (op.kind == XAPIC_OP_MSR_WRITE)
		msr_write(v, x, op.msr, op.value);	/* a refused value is dropped: no #GP on MMIO */
	else if (op.kind == XAPIC_OP_SEND_IPI)
		xapic_send_ipi(v, x, (uint32_t)op.value);
}

bool xapic_mmio(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, enum exit_action *a)
{
	struct mmio_device dev = { xapic_page_read, xapic_page_write, x };

	if ((gpa & ~(uint64_t)(PAGE_SIZE - 1)) != v->apic_base.base)
		return false;
	*a = mmio_emulate(v, x, gpa, &dev);
	if (*a == EXIT_RESUME && x->stop_reason)
		*a = EXIT_STOP;		/* an IPI aimed outside the partition */
	return true;
}

/* ---- the virtual LAPIC (modes that do not own the LAPIC) ---- */

/*
 * The guest's interrupt state is the virtual LAPIC's, so TPR, PPR, EOI,
 * ISR/TMR/IRR and the LVT timer's reads come here (the bitmap of those
 * modes traps them).
 */
bool vapic_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	const struct vlapic *l = &v->vt.vlapic;

	if (msr >= X2APIC_ISR0 && msr < X2APIC_ISR0 + 8)
		*value = l->isr[msr - X2APIC_ISR0];
	else if (msr >= X2APIC_TMR0 && msr < X2APIC_TMR0 + 8)
		*value = 0;	/* edge-triggered only */
	else if (msr >= X2APIC_IRR0 && msr < X2APIC_IRR0 + 8)
		*value = l->irr[msr - X2APIC_IRR0];
	else if (msr == X2APIC_TPR)
		*value = l->tpr;
	else if (msr == X2APIC_PPR)
		*value = vlapic_ppr(l);
	else if (msr == X2APIC_LVT_TIMER)
		*value = v->vt.lvt;
	else if (lapic_is_lvt(msr))
		*value = *vlapic_lvt_shadow((struct vlapic *)l, msr);
	else if (msr == X2APIC_SVR)
		*value = l->svr;
	else if (msr == X2APIC_ESR)
		*value = l->esr;
	else if (msr == X2APIC_TIMER_ICR)
		*value = vtimer_read_tmict(&v->vt);
	else if (msr == X2APIC_TIMER_CCR)
		*value = vtimer_read_tmcct(&v->vt, rdtsc());	/* counts at the TSC rate */
	else if (msr == X2APIC_TIMER_DCR)
		*value = vtimer_read_tdcr(&v->vt);
	else
		return false;	/* EOI and SELF_IPI are write-only: #GP */
	return true;
}

bool vapic_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	switch (msr) {
	case X2APIC_TPR:
		if (value > 0xff)
			return false;
		vlapic_set_tpr(&v->vt.vlapic, (uint8_t)value);
		return true;
	case X2APIC_EOI:
		if (value)
			return false;	/* x2APIC EOI takes 0 only (SDM 11.12.1.2) */
		v->eoi_exits++;
		vlapic_eoi(&v->vt.vlapic);
		return true;
	case X2APIC_LVT_TIMER:
		return lvt_timer_wrmsr(v, x, msr, value);
	case X2APIC_LVT_CMCI:
	case X2APIC_LVT_THERMAL:
	case X2APIC_LVT_PMC:
	case X2APIC_LVT_LINT0:
	case X2APIC_LVT_LINT1:
	case X2APIC_LVT_ERROR:
		return lvt_wrmsr(v, x, msr, value);
	case X2APIC_SVR:
		if (!svr_write_ok(value))
			return false;
		v->vt.vlapic.svr = (uint32_t)(value | APIC_SVR_ENABLE);
		return true;
	case X2APIC_ESR:
		/* x2APIC: a write of 0 latches the errors, anything else #GP (11.12.1.2) */
		return value == 0;
	case X2APIC_TIMER_ICR:
		if (value >> 32)
			return false;
		/* the count-down timer in software (hv/core/lapic_timer.c), armed on the preemption timer */
		vtimer_check(&v->vt, rdtsc());
		vtimer_write_tmict(&v->vt, (uint32_t)value, rdtsc());
		return true;
	case X2APIC_TIMER_DCR:
		if (value & ~0xbull)	/* bits 0, 1, 3 (SDM figure 11-10) */
			return false;
		vtimer_write_tdcr(&v->vt, (uint32_t)value, rdtsc());
		return true;
	case X2APIC_SELF_IPI:
		/*
		 * Into this vCPU's own vLAPIC: on a shared core the physical
		 * APIC would deliver it to whoever has the next window.
		 */
		if (value & ~0xffull)
			return false;
		vlapic_raise(&v->vt.vlapic, (uint8_t)value);
		return true;
	}
	return false;	/* read-only registers */
}

/* ---- the software TSC deadline (soft_deadline modes) ---- */

bool soft_deadline_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)msr;
	*value = vtimer_read_deadline(&v->vt);
	return true;
}

bool soft_deadline_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	uint64_t now = rdtsc();

	(void)x;
	(void)msr;
	v->deadline_write_exits++;
	vcpu_trace(v, TRACE_DEADLINE_WRITE, value, now);
	vtimer_write_deadline(&v->vt, value, now);
	pv_trapped(v);
	return true;
}

/* ---- a timer-mode change ---- */

/*
 * The guest's TPR lives in the physical APIC when the guest owns the LAPIC
 * and in the vLAPIC otherwise: it moves with the mode, and the physical one
 * is 0 in the other modes, or it would block the hypervisor's own vector
 * (SDM 11.8.3.1). The physical count-down timer stops too: there it is
 * never the guest's (timer_program_lvt puts the LVT in TSC-deadline mode,
 * which also disarms it, SDM 11.5.4.1).
 */
static const uint32_t shadowed_lvts[VLAPIC_LVT_SHADOWS] = {
	X2APIC_LVT_CMCI, X2APIC_LVT_THERMAL, X2APIC_LVT_PMC,
	X2APIC_LVT_LINT0, X2APIC_LVT_LINT1, X2APIC_LVT_ERROR,
};

/*
 * The same for the registers the vLAPIC only shadows (SVR, the other LVTs):
 * what the guest wrote in one mode reads back in the other. Values going to
 * the hardware were checked and filtered when written; wrmsr_safe all the
 * same, since a CPU may lack an LVT (CMCI, thermal).
 */
/*
 * The hardware is Tempo's again: TPR 0, the count-down timer stopped, every
 * LVT the guest may have programmed masked, and Tempo's spurious vector (a
 * guest's SVR vector of 0xee would make every spurious interrupt a timer
 * fire). Also for a restarted partition's core, whatever its old mode was.
 */
void x2apic_give_back(void)
{
	wrmsr(X2APIC_TPR, 0);
	wrmsr(X2APIC_TIMER_ICR, 0);
	for (int i = 0; i < VLAPIC_LVT_SHADOWS; i++)
		wrmsr_safe(shadowed_lvts[i], APIC_LVT_MASKED);
	wrmsr(X2APIC_SVR, APIC_SVR_ENABLE | TRAP_SPURIOUS_VECTOR);
}

void x2apic_move_state(struct vcpu *v, enum timer_mode old_mode)
{
	struct vlapic *l = &v->vt.vlapic;
	uint64_t value;

	if (timer_mode(old_mode)->owns_lapic) {
		vlapic_set_tpr(l, (uint8_t)rdmsr(X2APIC_TPR));
		l->svr = (uint32_t)rdmsr(X2APIC_SVR);
		for (int i = 0; i < VLAPIC_LVT_SHADOWS; i++)
			if (rdmsr_safe(shadowed_lvts[i], &value))
				l->lvt[i] = (uint32_t)value;
		x2apic_give_back();
	} else if (timer_mode(v->vt.mode)->owns_lapic) {
		wrmsr(X2APIC_TPR, l->tpr);
		wrmsr_safe(X2APIC_SVR, l->svr & 0x11ff);
		for (int i = 0; i < VLAPIC_LVT_SHADOWS; i++)
			wrmsr_safe(shadowed_lvts[i], l->lvt[i]);
	}
}
