// SPDX-License-Identifier: MIT
/*
 * The LAPIC's timer registers as the guest writes them: the LVT timer in
 * every mode (checked, filtered, then programmed for the mode:
 * timer_program_lvt), the software TSC deadline of the soft_deadline modes,
 * and off direct mode the count-down timer's (in software,
 * hv/core/lapic_timer.c, armed on the preemption timer).
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "hv/core/lapic_rules.h"
#include "hv/core/lapic_timer.h"
#include "hv/state/hooks.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/time/time.h"

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
	v->stats.deadline_write_exits++;
	vcpu_trace(v, TRACE_DEADLINE_WRITE, value, now);
	vtimer_write_deadline(&v->vt, value, now);
	pv_trapped(v);
	return true;
}

bool timer_reg_is(uint32_t msr)
{
	return msr == X2APIC_LVT_TIMER || msr == X2APIC_TIMER_ICR || msr == X2APIC_TIMER_CCR ||
	       msr == X2APIC_TIMER_DCR;
}

bool timer_reg_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	switch (msr) {
	case X2APIC_LVT_TIMER:
		*value = v->vt.lvt;
		return true;
	case X2APIC_TIMER_ICR:
		*value = vtimer_read_tmict(&v->vt);
		return true;
	case X2APIC_TIMER_CCR:
		*value = vtimer_read_tmcct(&v->vt, rdtsc());	/* counts at the TSC rate */
		return true;
	case X2APIC_TIMER_DCR:
		*value = vtimer_read_tdcr(&v->vt);
		return true;
	}
	return false;
}

bool timer_reg_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	switch (msr) {
	case X2APIC_LVT_TIMER:
		return lvt_timer_wrmsr(v, x, msr, value);
	case X2APIC_TIMER_ICR:
		if (value >> 32)
			return false;
		vtimer_check(&v->vt, rdtsc());
		vtimer_write_tmict(&v->vt, (uint32_t)value, rdtsc());
		return true;
	case X2APIC_TIMER_DCR:
		if (value & ~0xbull)	/* bits 0, 1, 3 (SDM figure 11-10) */
			return false;
		vtimer_write_tdcr(&v->vt, (uint32_t)value, rdtsc());
		return true;
	}
	return false;	/* the current count is read-only */
}

void timer_reset(struct vcpu *v)
{
	uint64_t min_period = platform.tsc_hz / 1000000 * LAPIC_TIMER_MIN_PERIOD_NS / 1000;

	lapic_timer_init(&v->vt.countdown, min_period);
}

/* A vCPU out of reset: its count-down timer's, and no pv-lazy page (registered again). */
static void timer_vcpu_reset(struct vcpu *v)
{
	timer_reset(v);
	timer_advance_init(&v->adv, platform.tsc_hz);
	v->pv.page = NULL;
	v->pv.seen = 0;
	v->halted_forever = false;
	v->aside.tick_exit = false;
	v->aside.deadline_valid = false;
	v->mode_request = 0;	/* a mode switched from the monitor is forgotten too */
	v->mode_busy = false;
}

PART_HOOK(30, timer, .vcpu_reset = timer_vcpu_reset);

void timer_reset_live(struct vcpu *v)
{
	vtimer_write_lvt(&v->vt, APIC_LVT_MASKED);
	vtimer_write_deadline(&v->vt, 0, rdtsc());
	if (!timer_mode_software(v->vt.mode))
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);	/* direct, inject: the hardware's */
}
