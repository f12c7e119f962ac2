// SPDX-License-Identifier: MIT
/*
 * Switching a vCPU's timer mode at run time, at one of its own exits (the
 * hypercall, or the monitor's request), only with nothing in service
 * (DESIGN.md): the deadline comes out of the hardware and goes back, or
 * into software, as the new mode wants, and the APIC state and interrupt
 * model follow.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/trap.h"
#include "hv/apic/apic.h"
#include "hv/core/hypercall_abi.h"
#include "hv/state/partition.h"
#include "hv/time/time.h"

/*
 * Nothing in service or pending in the physical APIC (no guest vector
 * left). A posted-interrupt notification pending there is not the guest's:
 * the CPU takes it after the entry, in any mode that takes posted
 * interrupts, and a vCPU that does never leaves them (hv/core/posted.h).
 */
static bool physical_apic_idle(const struct vcpu *v)
{
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t irr = rdmsr(X2APIC_IRR0 + i);

		if (v->apic.pi_on && i == TRAP_POSTED_VECTOR / 32)
			irr &= ~(1ull << (TRAP_POSTED_VECTOR % 32));
		if (rdmsr(X2APIC_ISR0 + i) || irr)
			return false;
	}
	return true;
}

/*
 * Only with nothing in service, physical or virtual (DESIGN.md). A deadline
 * in the hardware is taken out by the save protocol and put back, or kept in
 * software, by the new mode; the APIC state moves with it
 * (x2apic_move_state). @mode is valid for this core (decoder).
 */
int64_t vcpu_timer_mode_set(struct vcpu *v, uint32_t mode)
{
	struct vtimer *t = &v->vt;
	enum timer_mode old_mode;

	if (mode == t->mode)
		return TEMPO_HC_OK;
	/* the decoder and the monitor refuse it first; this is the last gate */
	if (v->apic.pi_on && timer_mode((enum timer_mode)mode)->owns_lapic)
		return TEMPO_HC_EINVAL;
	/*
	 * A partition's IOAPIC inputs carry its mode's delivery in the
	 * physical entries (the guest's vector to a direct vCPU, Tempo's to
	 * the others: hv/dev/irqs.c): it keeps the mode it was built with.
	 */
	if (v->part->cfg->dev.irq_count)
		return TEMPO_HC_EINVAL;
	if (vlapic_in_service(&t->vlapic) || !physical_apic_idle(v))
		return TEMPO_HC_EBUSY;
	old_mode = t->mode;
	/* a fire since the check above is found in the IRR (and taken, inject) */
	if (!timer_mode(t->mode)->soft_deadline)
		timer_save_hw(v);
	if (!vtimer_switch_mode(t, (enum timer_mode)mode, rdtsc())) {
		/* refused after the save: the deadline goes back where it was */
		if (!timer_mode(t->mode)->soft_deadline)
			wrmsr(MSR_IA32_TSC_DEADLINE, vtimer_restore(t));
		return TEMPO_HC_EBUSY;
	}
	vcpu_trace(v, TRACE_MODE, mode, rdtsc());
	x2apic_move_state(v, old_mode);
	apic_apply_model(v);
	timer_quick_update(v);
	timer_program_lvt(v);
	if (!timer_mode(t->mode)->soft_deadline)
		wrmsr(MSR_IA32_TSC_DEADLINE, vtimer_restore(t));	/* after the LVT */
	v->pv.page = NULL;	/* a pv-lazy page is registered again in that mode */
	return TEMPO_HC_OK;
}

/*
 * The bit is cleared before the requests are looked at: one the monitor
 * stores meanwhile sets it again. A shared core's bit is set again while
 * another of its vCPUs still has a request (it is taken in that one's window).
 */
bool vcpu_mode_request_take(struct vcpu *v)
{
	struct pcpu *c = v->pcpu;
	uint32_t want;
	bool others = false;

	__atomic_fetch_and(&c->mailbox, ~MAILBOX_MODE, __ATOMIC_ACQ_REL);
	want = __atomic_exchange_n(&v->mode_request, 0, __ATOMIC_ACQ_REL);
	for (uint32_t k = 0; c->shared && k < c->slot_count; k++)
		others |= __atomic_load_n(&c->slots[k]->mode_request, __ATOMIC_ACQUIRE) != 0;
	if (others)
		__atomic_fetch_or(&c->mailbox, MAILBOX_MODE, __ATOMIC_ACQ_REL);
	if (!want)
		return false;
	/* refused (an interrupt in service): the console core reports it, not this core */
	if (vcpu_timer_mode_set(v, want - 1) != TEMPO_HC_OK)
		__atomic_store_n(&v->mode_busy, true, __ATOMIC_RELEASE);
	return true;
}
