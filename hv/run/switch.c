// SPDX-License-Identifier: MIT
/*
 * Shared cores ([schedule N]): several vCPUs in a cyclic schedule. At a
 * window's end the running vCPU's state that the VMCS does not switch comes
 * out of the core (MSRs, CR2, debug registers, FPU, SPEC_CTRL, an inject
 * deadline) and the next one's goes in (docs/containment.md).
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/spec_ctl.h"
#include "arch/x86/vmx.h"
#include "hv/guest/fpu.h"
#include "hv/ops/monitor.h"
#include "hv/ops/report.h"
#include "hv/run/run.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/time/time.h"

static const uint32_t switched_msrs[6] = {
	0xc0000081, 0xc0000082, 0xc0000083, 0xc0000084,	/* STAR, LSTAR, CSTAR, FMASK */
	0xc0000102, 0xc0000103,				/* KERNEL_GS_BASE, TSC_AUX */
};

/* DR0-3 and DR6 are the guest's but not the VMCS's (vcpu_saved_restore loads them back). */
static void debug_regs_save(struct vcpu *v)
{
	asm volatile("mov %%dr0, %0" : "=r"(v->saved.dr[0]));
	asm volatile("mov %%dr1, %0" : "=r"(v->saved.dr[1]));
	asm volatile("mov %%dr2, %0" : "=r"(v->saved.dr[2]));
	asm volatile("mov %%dr3, %0" : "=r"(v->saved.dr[3]));
	asm volatile("mov %%dr6, %0" : "=r"(v->saved.dr6));
}

static void switch_out(struct vcpu *v)
{
	struct vtimer *t = &v->vt;
	uint64_t cr2;

	for (int i = 0; i < 6; i++)
		v->saved.msrs[i] = rdmsr(switched_msrs[i]);
	asm volatile("mov %%cr2, %0" : "=r"(cr2));
	v->saved.cr2 = cr2;
	debug_regs_save(v);
	fpu_switch_out(v);
	if (spec_plan.spec_ctrl)
		v->saved.spec_ctrl = rdmsr(MSR_IA32_SPEC_CTRL);
	if (!timer_mode(t->mode)->soft_deadline)	/* the deadline is in the hardware */
		timer_save_hw(v);
}

/* @v's window: its state into the core and into the guest (returns only if the entry failed). */
static void switch_in(struct pcpu *c, struct vcpu *v)
{
	c->exit_vcpu = v;	/* a fault restoring its state stops its partition */
	/* before its IPI bitmap is read below: a sender sees it here, or we see its bit */
	__atomic_store_n(&c->window_vcpu, v, __ATOMIC_SEQ_CST);
	/*
	 * Kicked while it was out (hv/apic/parts.h): its IPIs are merged
	 * below, so the flag is cleared first (a later kick sets it again),
	 * and set back for an NMI or INIT, which only exit_tail takes: its
	 * first entry then exits at once.
	 */
	if (__atomic_load_n(&v->apic.kicked, __ATOMIC_RELAXED)) {
		__atomic_store_n(&v->apic.kicked, 0, __ATOMIC_SEQ_CST);
		if (v->apic.init_pending | v->apic.nmi_pending)
			__atomic_store_n(&v->apic.kicked, 1, __ATOMIC_RELAXED);
	}
	if (!v->arch.vmcs_ready) {
		vcpu_vmcs_setup(v);	/* its first window, or its first since a restart */
	} else {
		vmx_load(&v->arch);
		timer_program_lvt(v);
		if (!timer_mode(v->vt.mode)->soft_deadline) {
			uint64_t d = vtimer_restore(&v->vt);

			wrmsr(MSR_IA32_TSC_DEADLINE, d);	/* after the LVT */
			vcpu_trace(v, TRACE_RESTORE, d, rdtsc());
		}
	}
	/*
	 * Also on its first window (zeros, the reset values): the previous
	 * vCPU's LSTAR, KERNEL_GS_BASE, TSC_AUX and CR2 are another
	 * partition's, and RDMSR of them does not exit.
	 */
	vcpu_saved_restore(v);
	vcpu_trace(v, TRACE_WINDOW_IN, c->sched.cur, rdtsc());
	fpu_switch_in(v);
	if (spec_plan.spec_ctrl)
		wrmsr(MSR_IA32_SPEC_CTRL, v->saved.spec_ctrl);
	/*
	 * Another partition ran here last: its branch-predictor entries must
	 * not steer this one's indirect branches (IBPB, Intel "Speculative
	 * Execution Side Channel Mitigations" 2.4.2).
	 */
	if (c->last_part && c->last_part != v->part && spec_plan.pred_cmd)
		spec_ibpb();
	c->last_part = v->part;
	if (!timer_mode(v->vt.mode)->owns_lapic)
		deliver_virtual(v);
	vcpu_enter(v);
}

static bool slot_runnable(struct vcpu *v)
{
	if (!v || vcpu_note_end(v) || v->state == VCPU_STOPPED ||
	    __atomic_load_n(&v->part->state, __ATOMIC_ACQUIRE) != PART_RUNNING)
		return false;
	if (v->state == VCPU_WAIT_SIPI && vcpu_sipi_poll(v)) {
		v->state = VCPU_RUNNING;
		__atomic_store_n(&v->sipi_pending, false, __ATOMIC_RELEASE);
	}
	return v->state == VCPU_RUNNING;
}

void shared_core_loop(struct pcpu *c)
{
	c->exit_vcpu = NULL;	/* switched out: a fault here is no partition's */
	__atomic_store_n(&c->window_vcpu, NULL, __ATOMIC_RELEASE);
	if (!c->sched_started) {
		uint64_t now = rdtsc();

		host_timer_init(&c->ht, now, host_tick_tsc, host_watchdog_tsc);
		sched_init(&c->sched, c->window_slot, c->window_len_tsc, c->window_count, now);
		c->sched_started = true;
	}
	for (;;) {
		int32_t slot;

		sched_advance(&c->sched, rdtsc());
		slot = sched_slot(&c->sched);
		if (slot >= 0 && slot_runnable(c->slots[slot]))
			switch_in(c, c->slots[slot]);
		if (host_timer_next(&c->ht) <= rdtsc())
			host_timer_run(&c->ht, rdtsc());
		for (uint32_t k = 0; k < c->slot_count; k++)
			slot_runnable(c->slots[k]);	/* notice stopped partitions */
		if (c->console)
			operator_service();
		if (partitions_go)
			partition_restart_poll();
		if (partitions_go)
			end_run_if_done();
		cpu_relax();
	}
}

struct vcpu *vcpu_switch_window(struct vcpu *v)
{
	struct pcpu *c = v->pcpu;
	int32_t slot;

	sched_advance(&c->sched, rdtsc());
	slot = sched_slot(&c->sched);
	if (slot >= 0 && c->slots[slot] == v) {
		/* the next window is ours too: carry on without a switch */
		if (!timer_mode(v->vt.mode)->owns_lapic)
			deliver_virtual(v);
		vcpu_entry_prepare(v);
		return v;
	}
	switch_out(v);
	return NULL;
}
