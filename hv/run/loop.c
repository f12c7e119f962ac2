// SPDX-License-Identifier: MIT
/*
 * The root-mode life of every core: each dedicated core starts its vCPU
 * when its partition goes (the boot vCPU at once, the others at their
 * SIPI), a shared core runs its schedule (hv/run/switch.c), the others
 * serve the operator's console and idle; kicks come as NMIs (hv_root_nmi).
 * A vCPU that leaves its core comes back here, on a fresh stack (arch's
 * exit stub enters hv_pcpu_loop when the exit answers NULL).
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx.h"
#include "hv/lib/fmt.h"
#include "hv/ops/console.h"
#include "hv/ops/monitor.h"
#include "hv/ops/report.h"
#include "hv/run/run.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/time/time.h"
#include "hv/upcalls.h"

/*
 * A kick (NMI) taken in root mode, after this core last read its mailbox or
 * armed the preemption timer, would wait for the guest's next exit, which a
 * guest that only takes fast-path exits, or none, may never give. Make the
 * next entry exit at once instead; the exit reads the mailbox. On a shared
 * core the kick is the window's vCPU's own flag (hv/apic/parts.h): one for
 * a vCPU out of its window leaves the neighbour's entry alone. VMWRITE of
 * the current VMCS only, once one is loaded on this core: between a
 * switch_in's window_vcpu store and its VMPTRLD that is the previous
 * vCPU's, whose next entry writes its own value again.
 */
void hv_root_nmi(void)
{
	struct pcpu *c;
	struct vcpu *w;

	if (!partitions_go)	/* no VMCS yet, and GS may not be this_pcpu() */
		return;
	c = this_pcpu();
	/* only this core writes its window_vcpu: it cannot change under us */
	w = c->shared ? c->window_vcpu : NULL;
	if (c->vmcs_loaded && (__atomic_load_n(&c->mailbox, __ATOMIC_ACQUIRE) ||
			       (w && __atomic_load_n(&w->apic.kicked, __ATOMIC_ACQUIRE)))) {
		vmx_set_preemption_timer(0);
		/*
		 * that exit is the kick's: not one for the exit stub to step
		 * aside (a dedicated core's vCPU; a step already under way may
		 * still write its own value after this one: one step late)
		 */
		if (c->vcpu)
			tick_aside_kick(c->vcpu);
	}
}

/* @v's first entry on this core, or its first after a restart or an INIT (returns if it failed). */
static void start_vcpu(struct pcpu *c, struct vcpu *v)
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
		/*
		 * IF=0: an NMI wakes it. One that came between the loop's look at
		 * its partition and here is sent again (partition_restart_poll)
		 * while the core has not taken its vCPU back.
		 */
		asm volatile("hlt" ::: "memory");
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

		/*
		 * Its partition, ended, was started again from the monitor: the
		 * core takes its vCPU back and waits for the rebuild as in a
		 * restart. Only this core writes c->vcpu, so it cannot lose it to
		 * its own clearing below.
		 */
		if (partitions_go && !v && c->home && !partition_final(c->home->part))
			c->vcpu = v = c->home;
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
			operator_service();
		if (partitions_go)
			partition_restart_poll();
		if (partitions_go && (c->console || !c->vcpu))
			end_run_if_done();
		idle_wait(c);
	}
}

/*
 * An exception in root mode while this core handled a partition's exit:
 * that partition is stopped (hv_fault) and the core goes on with its
 * loop. What it held is not waited for: the console lock is released (its
 * drain may have been cut short), and the other vCPUs are kicked first, in
 * case the fault came inside a stop that had not kicked yet.
 */
void hv_exit_fault(uint64_t vector, uint64_t error_code, uint64_t rip)
{
	struct pcpu *c;
	struct vcpu *v;
	char detail[96];

	/* before partitions run there is no exit, and GS may not be this_pcpu() yet */
	if (!partitions_go || hv_stopping)
		return;
	c = this_pcpu();
	v = c->exit_vcpu;
	/* a fault while stopping it is the hypervisor's own: not again */
	if (!v)
		return;
	c->exit_vcpu = NULL;
	console_release(c->index);
	kick_partition(v->part, v);
	fmt_snprintf(detail, sizeof(detail), "exception %lu (error 0x%lx) at hypervisor rip 0x%lx",
		     vector, error_code, rip);
	partition_stop(v, "hv_fault", vector, detail);
	vcpu_leave(v);
	hv_pcpu_loop();
}
