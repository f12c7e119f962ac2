// SPDX-License-Identifier: MIT
/*
 * Interrupts inside a partition: the ICR (x2APIC MSR or xAPIC page), its
 * destination check (hv/core/icr.c) and delivery to each target, and the
 * fixed interrupts a channel's doorbell sends (vcpu_send_fixed).
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "hv/apic/apic.h"
#include "hv/core/icr.h"
#include "hv/state/devirq.h"
#include "hv/state/partition.h"

bool icr_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)msr;
	/*
	 * The physical ICR holds the last IPI this core sent, which on a
	 * shared core may be another partition's (or a kick): each
	 * vCPU reads what it wrote (SDM 11.12.9, delivery status 0).
	 */
	*value = v->apic.icr_last;
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
 * there (hv/apic/deliver.c).
 */
static bool ipi_needs_virtual_path(uint8_t vector)
{
	/*
	 * and the devices' vectors: an exit would take it for a device's
	 * (hv/state/devirq.h); and 16-31, legal in an IPI (SDM Vol. 3A
	 * 11.5.2), which a core's root-mode interrupt window would take
	 * through hv's exception entries
	 */
	return vector < 32 || (vector >= TRAP_HV_VECTOR_FIRST && vector <= TRAP_HV_VECTOR_LAST) ||
	       devirq_vector(vector);
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
	/*
	 * A globally disabled APIC (IA32_APIC_BASE.EN = 0) is as if the CPU
	 * had none (SDM Vol. 3A 11.4.3): no IPI, doorbell or device interrupt
	 * reaches it.
	 */
	if (t->apic.base.mode == APIC_MODE_DISABLED)
		return false;
	/*
	 * A vCPU's fixed IPI to itself, off the modes that own the LAPIC: its
	 * vLAPIC's IRR at once, as the SELF IPI register does. The physical
	 * APIC's round trip would leave it pending behind the guest's back
	 * (an IRR read, a CLI/STI pair) and bring it in an exit later.
	 * This runs on the sender's own core, which owns its vLAPIC.
	 */
	if (t == from && !timer_mode(t->vt.mode)->owns_lapic) {
		vlapic_raise(&t->vt.vlapic, vector);
		return true;
	}
	if (t->pcpu->shared || ipi_needs_virtual_path(vector)) {
		/*
		 * A shared core's physical APIC does not know whose window it
		 * is, and a vector of Tempo's own would be taken for Tempo's
		 * event there: the vector waits in the vCPU's own bitmap,
		 * merged into its vLAPIC before it next enters
		 * (deliver_virtual).
		 */
		__atomic_fetch_or(&t->apic.ipi_pending[vector / 32], 1u << (vector % 32),
				  __ATOMIC_SEQ_CST);
		/*
		 * A shared core merges the bitmap at every entry of its vCPU:
		 * only a target in its own window is kicked (NMI), so a
		 * neighbour's window is never interrupted for it; the vCPU's
		 * own kicked flag (hv/apic/parts.h), not the core's mailbox,
		 * makes an entry whose merge came before the bit exit at once.
		 * A dedicated core reads the bitmap when the mailbox says so.
		 */
		if (t->pcpu->shared) {
			__atomic_store_n(&t->apic.kicked, 1, __ATOMIC_SEQ_CST);
			if (t != from &&
			    __atomic_load_n(&t->pcpu->window_vcpu, __ATOMIC_SEQ_CST) == t)
				x2apic_send_nmi(t->pcpu->apic_id);
			return true;
		}
		__atomic_fetch_or(&t->pcpu->mailbox, MAILBOX_IPI, __ATOMIC_RELEASE);
		if (t != from)
			x2apic_send_nmi(t->pcpu->apic_id);
	} else if (__atomic_load_n(&t->apic.pi_on, __ATOMIC_SEQ_CST)) {
		/*
		 * Posted (hv/core/posted.h): the vector waits in the target's
		 * descriptor and one notification, if none is on its way yet,
		 * makes its core take it with no exit; in root mode the
		 * target's next entry takes it (deliver_virtual): a vCPU's
		 * self-IPI needs no notification, its exit's tail takes it.
		 */
		if (pi_post(&t->apic.pi, vector) && t != from)
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
		/* as for a fixed IPI (vcpu_send_fixed): the flag, then the window */
		__atomic_store_n(&t->apic.kicked, 1, __ATOMIC_SEQ_CST);
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
	uint32_t n = __atomic_load_n(&t->apic.nmi_pending, __ATOMIC_ACQUIRE);

	if (t->state != VCPU_RUNNING)
		return;		/* held off while waiting for SIPI (SDM 9.4.4) */
	while (n < 2 && !__atomic_compare_exchange_n(&t->apic.nmi_pending, &n, n + 1, false,
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
			    p->vcpus[i]->apic.base.mode != APIC_MODE_DISABLED)
				able |= 1ull << i;
		targets = icr_pick_one(targets, able);
	}
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *t = p->vcpus[i];

		if (!(targets & (1ull << i)))
			continue;
		/* a globally disabled APIC takes no fixed interrupt or NMI (SDM 11.4.3) */
		if (t->apic.base.mode == APIC_MODE_DISABLED &&
		    (r->verdict == ICR_SEND || r->verdict == ICR_NMI))
			continue;
		switch (r->verdict) {
		case ICR_SEND:
			if (!vcpu_send_fixed(v, t, r->vector))
				v->stats.ipis_dropped++;
			break;
		case ICR_SIPI:
			/*
			 * Only a vCPU waiting for SIPI starts, as on hardware. One
			 * an INIT has reached but that has not reset yet takes the
			 * SIPI at its reset (vcpu_init_reset); if the reset ended
			 * meanwhile, it may have missed it: then as usual.
			 */
			if (__atomic_load_n(&t->apic.init_pending, __ATOMIC_SEQ_CST)) {
				__atomic_store_n(&t->apic.sipi_after_init, 0x100u | r->vector,
						 __ATOMIC_SEQ_CST);
				if (__atomic_load_n(&t->apic.init_pending, __ATOMIC_SEQ_CST))
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
			vcpu_send_event(v, t, &t->apic.init_pending);
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
	v->apic.icr_last = value & ~(1ull << 12);
	icr_send(v, x, value);
	return true;
}

/* ICR_LOW written in xAPIC mode: the same checks and delivery as the x2APIC ICR. */
void apic_xapic_send_ipi(struct vcpu *v, struct exit_ctx *x, uint32_t low)
{
	struct partition *p = v->part;
	struct icr_xapic_dest dests[MAX_VCPUS_PER_PART];
	struct icr_route r;

	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		const struct vcpu *t = p->vcpus[i];

		dests[i] = icr_xapic_dest_of(&t->apic.xapic, t->apic.base.mode, t->apic_id);
	}
	r = icr_route_xapic(dests, p->vcpu_count, v->index, low, v->apic.xapic.icr_high);
	v->apic.icr_last = (uint64_t)v->apic.xapic.icr_high << 32 | low;
	icr_deliver(v, x, v->apic.icr_last, &r);
}
