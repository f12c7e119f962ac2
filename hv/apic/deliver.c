// SPDX-License-Identifier: MIT
/*
 * Interrupts into the guest: for the modes without the LAPIC of their own,
 * the virtual LAPIC's before every entry (injected, or through the
 * virtual-APIC page); NMIs from the partition; and Tempo's own vectors an
 * IPI aimed at a LAPIC-owning vCPU.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "hv/apic/apic.h"
#include "hv/lib/lib.h"
#include "hv/state/partition.h"

/* Each vector waiting in @v's IPI bitmap, taken out and handed to @sink. */
static void pending_take(struct vcpu *v, void (*sink)(struct vcpu *v, uint8_t vector))
{
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t bits;

		/* a plain read first: a shared core scans on every entry, mostly empty */
		if (!__atomic_load_n(&v->apic.ipi_pending[i], __ATOMIC_RELAXED))
			continue;
		bits = __atomic_exchange_n(&v->apic.ipi_pending[i], 0, __ATOMIC_ACQUIRE);
		while (bits) {
			sink(v, (uint8_t)(i * 32 + __builtin_ctz(bits)));
			bits &= bits - 1;
		}
	}
}

/*
 * A sender that found the APIC on may post its vector just after the APIC
 * went off and its reset emptied the bitmaps: a globally disabled APIC
 * takes nothing (SDM Vol. 3A 11.4.3), so it is dropped here.
 */
static void raise_virtual(struct vcpu *v, uint8_t vector)
{
	if (v->apic.base.mode != APIC_MODE_DISABLED)
		vlapic_raise(&v->vt.vlapic, vector);
}

/* runs on @v's own core (exit_tail): the SELF IPI register does it */
static void raise_physical(struct vcpu *v, uint8_t vector)
{
	(void)v;
	wrmsr(X2APIC_SELF_IPI, vector);
}

/*
 * The virtual-APIC page (SDM Vol. 3C 29.1): the registers at their xAPIC
 * offsets, each 32 bits on a 16-byte stride. The CPU delivers from VIRR
 * and RVI, moves a vector to VISR and SVI, retires it on the guest's EOI,
 * and computes VPPR from VTPR and SVI; nothing else in the page changes
 * while the guest runs (reads and every other write still exit).
 */
#define VAPIC_TPR	(0x80 / 4)
#define VAPIC_ISR	(0x100 / 4)
#define VAPIC_IRR	(0x200 / 4)

/*
 * Both directions copy only what changed, so a timer event's exit pays for
 * one copy, not four. Out: only when hv changed the vLAPIC (dirty). In:
 * only when the guest interrupt status is not what the page last matched:
 * the CPU changes the page only by delivering (SVI rises to the vector,
 * RVI falls to the next) and by EOI virtualization (SVI falls), and with
 * no self-IPI virtualization and no posted interrupts nothing adds to
 * VIRR, so an unchanged RVI:SVI means an unchanged VIRR and VISR. With
 * posted interrupts (v->apic.pi_on) none of that holds: the CPU ORs the PIR
 * into VIRR, any word, raises RVI only if the vector is higher, and a guest
 * that nests its handlers can then end a run with the same RVI:SVI and
 * another VISR (an EOI lowers SVI, a posted vector delivered in between
 * sets a VISR bit below it, a higher one raises SVI back). So with them
 * every IRR and ISR word is read back.
 */
void apicv_sync_out(struct vcpu *v)
{
	struct vlapic *l = &v->vt.vlapic;
	volatile uint32_t *pg = v->apic.page;
	int rvi, svi;

	if (!l->dirty)
		return;
	rvi = vlapic_highest_irr(l);
	svi = vlapic_highest_isr(l);
	for (uint32_t d = l->dirty & 0xffff; d; d &= d - 1) {
		uint32_t w = (uint32_t)__builtin_ctz(d);

		if (w < 8)
			pg[VAPIC_IRR + 4 * w] = l->irr[w];
		else
			pg[VAPIC_ISR + 4 * (w - 8)] = l->isr[w - 8];
	}
	if (l->dirty & VLAPIC_DIRTY_TPR)
		pg[VAPIC_TPR] = l->tpr;
	v->apic.status = (uint16_t)(((uint32_t)(svi < 0 ? 0 : svi) << 8) |
				     (uint32_t)(rvi < 0 ? 0 : rvi));
	vmwrite(VMCS_GUEST_INTR_STATUS, v->apic.status);
	l->dirty = 0;
}

void apicv_sync_in(struct vcpu *v)
{
	struct vlapic *l = &v->vt.vlapic;
	const volatile uint32_t *pg = v->apic.page;
	uint16_t status = (uint16_t)vmread(VMCS_GUEST_INTR_STATUS), old = v->apic.status;
	uint32_t lo, hi;

	if (v->apic.pi_on) {
		for (uint32_t i = 0; i < 8; i++) {
			l->irr[i] = pg[VAPIC_IRR + 4 * i];
			l->isr[i] = pg[VAPIC_ISR + 4 * i];
		}
		vlapic_summarize(l);
		v->apic.status = status;
		return;
	}
	if (status == old)
		return;
	/*
	 * Every bit the CPU changed lies between the lowest and the highest of
	 * the old and new RVI and SVI: deliveries take VIRR bits from the old
	 * RVI down to above the new one into VISR, EOIs clear VISR bits above
	 * the new SVI. Only those words are read back.
	 */
	lo = MIN(MIN(status & 0xff, status >> 8), MIN(old & 0xff, old >> 8)) >> 5;
	hi = MAX(MAX(status & 0xff, status >> 8), MAX(old & 0xff, old >> 8)) >> 5;
	for (uint32_t i = lo; i <= hi; i++) {
		l->irr[i] = pg[VAPIC_IRR + 4 * i];
		l->isr[i] = pg[VAPIC_ISR + 4 * i];
	}
	vlapic_summarize(l);
	v->apic.status = status;
}

void apic_deliver(struct vcpu *v)
{
	uint32_t proc = v->arch.proc;
	bool merge;
	int vector;

	/*
	 * The IPI kick is read here: cleared before the bitmaps, so none is
	 * missed. A dedicated core's vCPU has bits there only for Tempo's own
	 * vectors (hv/apic/ipi.c), and then the kick bit is set.
	 */
	merge = v->pcpu->shared;
	if (__atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE) & MAILBOX_IPI) {
		__atomic_fetch_and(&v->pcpu->mailbox, ~MAILBOX_IPI, __ATOMIC_ACQ_REL);
		merge = true;
	}
	if (merge)
		pending_take(v, raise_virtual);
	/* posted while this core was in root mode (or before a notification came) */
	if (v->apic.pi_on && pi_pending(&v->apic.pi)) {
		uint32_t posted[8] = { 0 };

		pi_take(&v->apic.pi, posted);
		for (uint32_t i = 0; i < 8; i++)
			for (uint32_t bits = posted[i]; bits; bits &= bits - 1) {
				raise_virtual(v, (uint8_t)(i * 32 + __builtin_ctz(bits)));
				v->stats.pi_taken++;
			}
	}
	vector = vlapic_pending(&v->vt.vlapic);
	if (v->apic.apicv) {
		/*
		 * The CPU delivers the vector itself when the guest can take it
		 * (RVI above VPPR, IF = 1, no STI or MOV-SS shadow: SDM Vol. 3C
		 * 29.2), no injection and no window. One it can take now leaves
		 * HLT, as an injected one would; one it cannot yet keeps HLT
		 * exiting on, so a `sti; hlt` is never entered with a vector
		 * waiting (exit_hlt); with none, HLT does not exit at all.
		 */
		apicv_sync_out(v);
		proc &= ~PROC_HLT_EXITING;
		if (vector >= 0) {
			if ((vmread(VMCS_GUEST_RFLAGS) & (1u << 9)) &&
			    !(vmread(VMCS_GUEST_INTERRUPTIBILITY) & 3)) {
				if (vmread(VMCS_GUEST_ACTIVITY_STATE) == ACTIVITY_HLT)
					vmwrite(VMCS_GUEST_ACTIVITY_STATE, ACTIVITY_ACTIVE);
			} else {
				proc |= PROC_HLT_EXITING;
			}
		}
		if (v->apic.nmi_pending)
			proc |= PROC_INTR_WINDOW_EXITING | PROC_HLT_EXITING;
		else
			proc &= ~PROC_INTR_WINDOW_EXITING;
		vmx_proc_write(&v->arch, proc);
		return;
	}
	apic_inject(v, vector, false);
}

void apic_inject(struct vcpu *v, int vector, bool entry_free)
{
	uint32_t proc = v->arch.proc;

	if (vector >= 0 && (entry_free || !(vmread(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID))) {
		if ((vmread(VMCS_GUEST_RFLAGS) & (1u << 9)) &&
		    !(vmread(VMCS_GUEST_INTERRUPTIBILITY) & 3)) {
			vmwrite(VMCS_ENTRY_INTR_INFO,
				INTR_INFO_VALID | INTR_TYPE_EXT_INTR | (uint32_t)vector);
			vlapic_accept(&v->vt.vlapic, (uint8_t)vector);
			vcpu_trace(v, TRACE_INJECT, (uint64_t)vector, rdtsc());
			/* an interrupt ends HLT (SDM 26.6.3 allows injecting into it) */
			if (vmread(VMCS_GUEST_ACTIVITY_STATE) == ACTIVITY_HLT)
				vmwrite(VMCS_GUEST_ACTIVITY_STATE, ACTIVITY_ACTIVE);
			vector = vlapic_pending(&v->vt.vlapic);
		}
	}
	/*
	 * and HLT exiting, so a `sti; hlt` wakes on it (exit_hlt); the window
	 * also serves an NMI that waits for an STI shadow to end (deliver_nmi)
	 */
	if (vector >= 0 || v->apic.nmi_pending)
		proc |= PROC_INTR_WINDOW_EXITING | PROC_HLT_EXITING;
	else
		proc &= ~(PROC_INTR_WINDOW_EXITING | PROC_HLT_EXITING);
	vmx_proc_write(&v->arch, proc);
}

/*
 * A vCPU that owns its LAPIC (direct) with an IPI on one of Tempo's vectors
 * in its bitmap (hv/apic/ipi.c): its APIC is the guest's, so the vectors go
 * there, as the sender asked.
 * Clearing the kick bit keeps the next entry from exiting again at once.
 */
void deliver_pending_to_apic(struct vcpu *v)
{
	__atomic_fetch_and(&v->pcpu->mailbox, ~MAILBOX_IPI, __ATOMIC_ACQ_REL);
	pending_take(v, raise_physical);
}

/* Guest interruptibility (SDM Vol. 3C 25.4.2): blocking by STI, by MOV SS, by NMI */
#define INTERRUPTIBILITY_STI	(1u << 0)
#define INTERRUPTIBILITY_MOVSS	(1u << 1)
#define INTERRUPTIBILITY_NMI	(1u << 3)
#define NMI_VECTOR		2

/*
 * An NMI IPI from the partition (nmi_pending): injected now if the guest
 * can take one (no event on its way in, no NMI or MOV-SS blocking), else
 * at the NMI window (exit_nmi_window). With virtual NMIs the CPU tracks
 * the guest's NMI blocking until its IRET, as for a real NMI.
 */
void deliver_nmi(struct vcpu *v)
{
	uint32_t intr = (uint32_t)vmread(VMCS_GUEST_INTERRUPTIBILITY);
	uint32_t proc = v->arch.proc;

	if ((vmread(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID) ||
	    (intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOVSS | INTERRUPTIBILITY_NMI))) {
		/* NMIs that come while one is being handled latch as one (SDM 6.7.1) */
		if (intr & INTERRUPTIBILITY_NMI)
			__atomic_store_n(&v->apic.nmi_pending, 1, __ATOMIC_RELEASE);
		/*
		 * In an STI shadow some CPUs fail the entry of an NMI (SDM 26.3.1.5)
		 * and the NMI window may open inside it: the interrupt window
		 * (IF is 1 there) ends after the shadow's instruction instead.
		 */
		if (intr & INTERRUPTIBILITY_STI)
			vmx_proc_write(&v->arch, proc | PROC_INTR_WINDOW_EXITING);
		else if (vmx_ctl.pin & PIN_VIRTUAL_NMIS)
			vmx_proc_write(&v->arch, proc | PROC_NMI_WINDOW_EXITING);
		return;		/* the window, or without virtual NMIs the next exit */
	}
	vmwrite(VMCS_ENTRY_INTR_INFO, INTR_INFO_VALID | INTR_TYPE_NMI | NMI_VECTOR);
	/* one more waits: the window after this one's IRET (virtual NMIs) */
	if (__atomic_sub_fetch(&v->apic.nmi_pending, 1, __ATOMIC_ACQ_REL) && (vmx_ctl.pin & PIN_VIRTUAL_NMIS))
		vmx_proc_write(&v->arch, proc | PROC_NMI_WINDOW_EXITING);
	else if (proc & PROC_NMI_WINDOW_EXITING)
		vmx_proc_write(&v->arch, proc & ~PROC_NMI_WINDOW_EXITING);
	/* an NMI ends HLT (SDM 26.6.3), even with IF = 0: not halted for ever */
	if (vmread(VMCS_GUEST_ACTIVITY_STATE) == ACTIVITY_HLT)
		vmwrite(VMCS_GUEST_ACTIVITY_STATE, ACTIVITY_ACTIVE);
	__atomic_store_n(&v->halted_forever, false, __ATOMIC_RELEASE);
}

