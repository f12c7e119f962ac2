// SPDX-License-Identifier: MIT
/*
 * The guest's x2APIC registers: those checked in every mode (APIC base,
 * LDR, SVR, the LVTs but the timer's), the virtual LAPIC's that answer for
 * the APIC off the LAPIC-owning modes (MSR_VAPIC), and the move of the APIC
 * state between hardware and vLAPIC when the timer mode changes. The ICR
 * is hv/apic/ipi.c's; the timer's registers hv/time/timer_regs.c's.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/trap.h"
#include "hv/apic/apic.h"
#include "hv/core/lapic_rules.h"
#include "hv/lib/lib.h"
#include "hv/state/hooks.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"

/* ---- power-up ---- */

/*
 * The guest's APIC out of power-up: its vLAPIC and xAPIC registers (SDM
 * 11.4.7.1); its timer is the time room's (timer_reset). At build, each
 * restart, each INIT, and when the guest disables its APIC through
 * IA32_APIC_BASE.
 */
void apic_reset(struct vcpu *v)
{
	vlapic_init(&v->vt.vlapic);
	xapic_regs_init(&v->apic.xapic, (uint8_t)v->apic_id, v->apic.lvr);
}

/* A vCPU out of reset: its APIC as Tempo hands it over, x2APIC on (and the BSP flag). */
static void apic_vcpu_reset(struct vcpu *v)
{
	/*
	 * Read here, on the core that builds the partition: Tempo starts every
	 * CPU's APIC in x2APIC mode, and the cores of one machine have one
	 * LAPIC version.
	 */
	v->apic.lvr = (uint32_t)rdmsr(X2APIC_VERSION);
	v->apic.icr_last = 0;
	for (uint32_t i = 0; i < ARRAY_SIZE(v->apic.ipi_pending); i++)
		v->apic.ipi_pending[i] = 0;
	pi_init(&v->apic.pi, TRAP_POSTED_VECTOR, v->apic_id);
	apic_reset(v);
	apic_base_init(&v->apic.base, APIC_MODE_X2APIC, v->index == 0);
}

PART_HOOK(20, apic, .vcpu_reset = apic_vcpu_reset);

void apic_reset_live(struct vcpu *v)
{
	if (timer_mode(v->vt.mode)->owns_lapic) {
		x2apic_give_back();
		x2apic_eoi_all();	/* nothing left in service (power-up state) */
	}
	for (uint32_t i = 0; i < ARRAY_SIZE(v->apic.ipi_pending); i++)
		__atomic_store_n(&v->apic.ipi_pending[i], 0, __ATOMIC_RELEASE);
	if (v->apic.pi_on) {		/* and what was posted for the old state */
		uint32_t dropped[8] = { 0 };

		pi_take(&v->apic.pi, dropped);
	}
	apic_reset(v);
}

/* ---- registers checked in every mode ---- */

bool apic_base_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)msr;
	*value = apic_base_value(&v->apic.base);
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
bool apic_base_take(struct vcpu *v, uint64_t value, struct apic_base_effect *e)
{
	struct apic_base_caps caps = { (uint8_t)cpuid(0x80000008, 0).eax, true };
	struct apic_base_write w = apic_base_write(&v->apic.base, value, &caps);

	if (w.fault != APIC_BASE_OK ||
	    (w.base_moved && apic_page_is_memory(v->part, w.state.base)))
		return false;
	v->apic.base = w.state;
	*e = (struct apic_base_effect){ w.reset, w.mode_changed, w.base_moved };
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
	/*
	 * Owning the LAPIC, the guest reads its LVTs from it, and the CPU
	 * decides which it has (Bochs keeps a CMCI entry its LVR does not
	 * count). The vLAPIC has the LVTs the physical LVR counts.
	 */
	if (timer_mode(v->vt.mode)->owns_lapic)
		return wrmsr_safe(msr, filtered);
	if (!lapic_lvt_present(msr, v->apic.lvr))
		return false;
	*vlapic_lvt_shadow(&v->vt.vlapic, msr) = filtered;
	return true;
}

/* ---- the virtual LAPIC (modes that do not own the LAPIC) ---- */

/*
 * The guest's interrupt state is the virtual LAPIC's, so TPR, PPR, EOI,
 * ISR/TMR/IRR and the LVTs come here (the bitmap of those modes traps
 * them); the timer's registers go to hv/time/timer_regs.c.
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
	else if (lapic_is_lvt(msr) && lapic_lvt_present(msr, v->apic.lvr))
		*value = *vlapic_lvt_shadow((struct vlapic *)l, msr);
	else if (msr == X2APIC_SVR)
		*value = l->svr;
	else if (msr == X2APIC_ESR)
		*value = l->esr;
	else
		return false;	/* EOI and SELF_IPI are write-only: #GP */
	return true;
}

bool vapic_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	int eoi;

	switch (msr) {
	case X2APIC_TPR:
		if (value > 0xff)
			return false;
		vlapic_set_tpr(&v->vt.vlapic, (uint8_t)value);
		return true;
	case X2APIC_EOI:
		if (value)
			return false;	/* x2APIC EOI takes 0 only (SDM 11.12.1.2) */
		v->stats.eoi_exits++;
		eoi = vlapic_eoi(&v->vt.vlapic);
		/* a level-triggered device input held for this EOI (hv/dev/irqs.c) */
		if (eoi >= 0 && v->part->dev_eoi)
			v->part->dev_eoi(v, (uint8_t)eoi);
		return true;
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
