// SPDX-License-Identifier: MIT
/*
 * The root-mode life of every core: each dedicated core starts its vCPU
 * when its partition goes (the boot vCPU at once, the others at their
 * SIPI), a shared core runs its schedule (hv/run/switch.c), the others drain the
 * consoles and idle; kicks come as NMIs (hv_root_nmi).
 */
#include "hv/run/loop.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/smp.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx.h"
#include "hv/core/bzimage.h"
#include "hv/core/cr4_policy.h"
#include "hv/exit/exit.h"
#include "hv/state/partition.h"
#include "hv/lib/log.h"
#include "hv/state/platform.h"
#include "hv/ops/report.h"
#include "hv/upcalls.h"

struct pcpu *pcpus;
uint32_t pcpu_count;
volatile bool partitions_go;

void pcpus_init(uint32_t count)
{
	pcpus = hv_pages_alloc((uint64_t)count * sizeof(*pcpus), "per-CPU state");
	for (uint32_t i = 0; i < count; i++)
		pcpus[i] = (struct pcpu){ .self = &pcpus[i], .index = i,
					  .apic_id = smp_cpus[i].apic_id };
	pcpu_count = count;
}

void *hv_cpu_local(uint32_t index)
{
	return &pcpus[index];
}

/*
 * A kick (NMI) taken in root mode, after this core last read its mailbox or
 * armed the preemption timer, would wait for the guest's next exit, which a
 * guest that only takes fast-path exits, or none, may never give. Make the
 * next entry exit at once instead; the exit reads the mailbox. VMWRITE of
 * the current VMCS only, once one is loaded on this core.
 */
void hv_root_nmi(void)
{
	struct pcpu *c;

	if (!partitions_go)	/* no VMCS yet, and GS may not be this_pcpu() */
		return;
	c = this_pcpu();
	if (c->vmcs_loaded && __atomic_load_n(&c->mailbox, __ATOMIC_ACQUIRE)) {
		vmx_set_preemption_timer(0);
		/*
		 * that exit is the kick's: not one for the exit stub to step
		 * aside (a dedicated core's vCPU; a step already under way may
		 * still write its own value after this one: one step late)
		 */
		if (c->vcpu)
			tick_aside_close(c->vcpu);
	}
}

/* Where @v starts: the boot vCPU as its loader left it, an AP at its SIPI. */
static void vmx_setup_of(const struct vcpu *v, struct vmx_vcpu_setup *s)
{
	const struct partition *p = v->part;

	*s = (struct vmx_vcpu_setup){
		.cpu = v->pcpu->index,
		.eptp = p->eptp,
		.cr4_mask = cr4_guest_host_mask((xsave_plan.xcr0_allowed & XCR0_PKRU) != 0),
		.start = VMX_START_SIPI,
		.sipi_vector = v->sipi_vector,
	};
	if (v->index == 0 && p->linux_boot) {
		s->start = VMX_START_LONG64;
		s->rip = p->entry;
		s->cr3 = LINUX_PT_GPA;
		s->gdt_base = LINUX_GDT_GPA;
		s->gdt_limit = LINUX_GDT_SIZE - 1;
	} else if (v->index == 0) {
		s->start = VMX_START_PROTECTED;
		s->rip = p->entry;
	}
}

void vcpu_vmcs_setup(struct vcpu *v)
{
	struct vmx_vcpu_setup s;

	const struct timer_mode_desc *m = timer_mode(v->part->cfg->timer);

	vmx_setup_of(v, &s);
	/* the stub that can step ticks aside: direct mode on a core of its own (tick_aside_arm) */
	v->tick_aside = m->places_ticks && m->owns_lapic && !v->pcpu->shared && !v->pcpu->console;
	s.tick_aside = v->tick_aside;
	vmx_vmcs_setup(&v->arch, &s);
	v->pcpu->vmcs_loaded = true;
	if (v->restarted) {
		vmx_flush_vpid(v->arch.vpid);	/* the old instance's translations */
		v->restarted = false;
	}
	vcpu_timer_apply_mode(v);
	timer_program_lvt(v);
	/*
	 * direct/inject: the deadline lives in the hardware from the first
	 * entry on (vtimer_restore marks it so), or the first save would skip it
	 * and lose what the guest wrote in its first window.
	 */
	if (!timer_mode_software(v->vt.mode))
		wrmsr(MSR_IA32_TSC_DEADLINE, vtimer_restore(&v->vt));
}

void vcpu_enter(struct vcpu *v)
{
	v->pcpu->exit_vcpu = NULL;
	/*
	 * posted while it was out, the notification perhaps taken in a
	 * root-mode STI window (vcpu_leave's): ON stays set and no other
	 * notification would come
	 */
	if (v->pi_on && pi_pending(&v->pi))
		hv_deliver_virtual(v);
	if (v->apicv)
		apicv_sync_out(v);	/* the vLAPIC may have changed while it was out (INIT, restart) */
	vcpu_timer_arm(v);
	vmx_run(&v->arch);
}

static __attribute__((noreturn)) void start_vcpu(struct pcpu *c, struct vcpu *v)
{
	c->ran_guest = true;
	host_timer_init(&c->ht, rdtsc(), host_tick_tsc, host_watchdog_tsc);
	/* only a dedicated core places its ticks (shared: window ends come first) */
	if (!c->shared)
		c->ht.slack_tsc = host_tick_slack_tsc;
	if (v->restarted)
		vcpu_restart_cpu(v);
	vcpu_vmcs_setup(v);
	vcpu_timer_measure_rearm(v);
	vcpu_enter(v);
}

/*
 * A core with nothing to run sleeps instead of spinning: on a real machine
 * that saves power, in an emulator it lets the other CPUs run (Bochs skips a
 * halted CPU). One whose LAPIC is clean (no guest ever ran there) wakes on
 * its own TSC deadline every IDLE_POLL_US to poll SIPIs, the consoles and
 * the run's end; an NMI (a kick) wakes it sooner. One whose guest has left
 * may still hold that guest's vectors in its IRR, which would reach the
 * root-mode IDT as strays if interrupts were on: it sleeps with IF=0, woken
 * by NMIs only, when it has no console duty; otherwise it spins.
 */
#define IDLE_POLL_US	100

static void idle_wait(struct pcpu *c)
{
	if (!c->ran_guest) {
		wrmsr(X2APIC_LVT_TIMER, APIC_LVT_TIMER_TSC_DEADLINE | TRAP_IDLE_WAKE_VECTOR);
		wrmsr(MSR_IA32_TSC_DEADLINE, rdtsc() + platform.tsc_hz / (1000000 / IDLE_POLL_US));
		asm volatile("sti; hlt; cli" ::: "memory");
		/* disarmed, and a wake-up that raced the NMI taken now, not by a guest */
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
		asm volatile("sti; nop; cli" ::: "memory");
	} else if (!c->console && !c->vcpu && !c->shared) {
		asm volatile("hlt" ::: "memory");	/* IF=0: an NMI wakes it */
	} else {
		cpu_relax();
	}
}

void hv_pcpu_loop(void)
{
	struct pcpu *c = this_pcpu();

	for (;;) {
		struct vcpu *v = c->vcpu;

		/* cores wait here from boot; a shared one learns it only at go */
		if (partitions_go && c->shared)
			shared_core_loop(c);

		if (partitions_go && v) {
			/* its partition ended, or restarts, before this vCPU ran */
			if (vcpu_note_end(v))
				__atomic_fetch_and(&c->mailbox, ~MAILBOX_STOP_VCPU, __ATOMIC_ACQ_REL);
			if (__atomic_load_n(&v->part->state, __ATOMIC_ACQUIRE) != PART_RUNNING) {
				/* for good (or a failed rebuild); else the rebuild lets it go again */
				if (partition_final(v->part))
					c->vcpu = NULL;
			} else if (v->state == VCPU_RUNNING) {
				start_vcpu(c, v);
			} else if (v->state == VCPU_WAIT_SIPI && vcpu_sipi_poll(v)) {
				v->state = VCPU_RUNNING;
				/* consumed: a later INIT waits for a SIPI of its own */
				__atomic_store_n(&v->sipi_pending, false, __ATOMIC_RELEASE);
				start_vcpu(c, v);
			}
		}
		if (c->console)
			console_drain_all(false);
		if (partitions_go)
			partition_restart_poll();
		if (partitions_go && (c->console || !c->vcpu))
			end_run_if_done();
		idle_wait(c);
	}
}
