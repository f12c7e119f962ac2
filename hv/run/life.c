// SPDX-License-Identifier: MIT
/*
 * The end of a partition: stopped by the hypervisor with a PARTITION_STOP
 * report, shut down or powered off by the guest, or lost to a hypervisor
 * fault in its exit handler. Its vCPUs leave their cores for good.
 */
#include "hv/state/partition.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "hv/core/restart.h"
#include "hv/lib/fmt.h"
#include "hv/lib/log.h"
#include "hv/state/platform.h"
#include "hv/upcalls.h"

/* Ask every other vCPU of @p to leave: mailbox first, then the NMI. */
void kick_partition(struct partition *p, struct vcpu *self)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *t = p->vcpus[i];

		if (t == self)
			continue;
		__atomic_fetch_or(&t->pcpu->mailbox, MAILBOX_STOP_VCPU, __ATOMIC_ACQ_REL);
		x2apic_send_nmi(t->pcpu->apic_id);
	}
}

/*
 * The end of a partition is reported by the console core, after the
 * partition's last console lines: the stopping core only formats the line
 * and never waits for the UART (on a shared core that would eat the other
 * vCPUs' windows). With no console core, the stopping core prints it.
 */
static void report_end(struct partition *p)
{
	__atomic_store_n(&p->end_report_pending, true, __ATOMIC_RELEASE);
	if (this_pcpu()->console && !this_pcpu()->faulted)
		console_drain_all(true);
}

/* One more restart of @p, and its PARTITION_RESTART line as its end report. */
static void restart_report(struct partition *p, const char *reason)
{
	const struct partition_config *pc = p->cfg;

	p->restarts++;
	fmt_snprintf(p->end_report, sizeof(p->end_report),
		     "PARTITION_RESTART name=%s reason=%s count=%u limit=%u window_s=%u\n",
		     pc->name, reason, p->restarts, pc->restart_limit, pc->restart_window_s);
}

/*
 * Move @p from running to its end (@final: STOPPED or SHUTDOWN) or to a
 * restart. One caller wins; it formats the report. Returns false if @p had
 * already left PART_RUNNING (another vCPU or the monitor was first).
 */
static bool end_partition(struct partition *p, enum restart_end kind, uint32_t final,
			  const char *reason, const char *report)
{
	uint64_t now = rdtsc();
	struct restart_verdict v = restart_decide(p->cfg, &p->window, kind, now, platform.tsc_hz);
	uint32_t expected = PART_RUNNING;
	uint32_t to = v.restart ? PART_RESTARTING : final;
	const struct partition_config *pc = p->cfg;

	if (!__atomic_compare_exchange_n(&p->state, &expected, to, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return false;
	if (v.restart) {
		restart_commit(&p->window, v, now);
		restart_report(p, reason);
	} else if (pc->restart != RESTART_NEVER && kind != RESTART_END_REQUEST) {
		char within[24] = "in this run";

		if (pc->restart_window_s)
			fmt_snprintf(within, sizeof(within), "within %u s", pc->restart_window_s);
		fmt_snprintf(p->end_report, sizeof(p->end_report),
			     "Partition '%s': restart limit reached (%u restarts %s), not "
			     "restarted\n%s", pc->name, p->window.count, within, report);
	} else {
		fmt_snprintf(p->end_report, sizeof(p->end_report), "%s", report);
	}
	report_end(p);
	return true;
}

/* A PARTITION_STOP line for @p as a vCPU of it (@v) or the monitor (@v NULL) saw it. */
static void stop_line(char *buf, size_t len, struct partition *p, struct vcpu *v,
		      const char *reason, uint64_t qual, const char *detail)
{
	fmt_snprintf(buf, len, "PARTITION_STOP name=%s reason=%s rip=0x%lx qual=0x%lx vcpu=%u "
		     "cpu=%u detail=\"%s\"\n", p->cfg->name, reason, v ? vmread(VMCS_GUEST_RIP) : 0,
		     qual, v ? v->index : 0, v ? v->pcpu->index : this_pcpu()->index, detail);
}

void partition_stop(struct vcpu *v, const char *reason, uint64_t qual, const char *detail)
{
	struct partition *p = v->part;
	char line[320];

	stop_line(line, sizeof(line), p, v, reason, qual, detail);
	if (end_partition(p, RESTART_END_FAILURE, PART_STOPPED, reason, line))
		kick_partition(p, v);
	vcpu_leave(v);
}

void partition_reset(struct vcpu *v, const char *how)
{
	struct partition *p = v->part;
	char line[320], detail[96];

	fmt_snprintf(detail, sizeof(detail), "the guest asked for a reset (%s)", how);
	stop_line(line, sizeof(line), p, v, "reset", 0, detail);
	if (end_partition(p, RESTART_END_RESET, PART_STOPPED, "reset", line))
		kick_partition(p, v);
	vcpu_leave(v);
}

bool partition_stop_request(struct partition *p, bool restart)
{
	uint32_t expected = PART_RUNNING;
	char line[320];

	if (restart) {
		/* the operator's restart: always, and outside the limit's count */
		if (!__atomic_compare_exchange_n(&p->state, &expected, PART_RESTARTING, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return false;
		restart_report(p, "monitor");
	} else {
		if (!__atomic_compare_exchange_n(&p->state, &expected, PART_STOPPED, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return false;
		stop_line(line, sizeof(line), p, NULL, "monitor", 0, "stopped from the monitor");
		fmt_snprintf(p->end_report, sizeof(p->end_report), "%s", line);
	}
	__atomic_store_n(&p->end_report_pending, true, __ATOMIC_RELEASE);
	kick_partition(p, NULL);
	return true;
}

static __attribute__((noreturn)) void end_by_request(struct vcpu *v, int64_t code,
						      const char *how, const char *reason)
{
	struct partition *p = v->part;
	char line[160];

	fmt_snprintf(line, sizeof(line), "Partition '%s' %s (exit code %ld)\n", p->cfg->name,
		     how, code);
	if (end_partition(p, RESTART_END_REQUEST, PART_SHUTDOWN, reason, line)) {
		p->exit_code = code;
		kick_partition(p, v);
	}
	vcpu_leave(v);
}

void partition_shutdown(struct vcpu *v, int64_t code)
{
	end_by_request(v, code, "shut down", "shutdown");
}

void partition_poweroff(struct vcpu *v)
{
	end_by_request(v, 0, "powered off (ACPI S5)", "poweroff");
}

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
	/*
	 * What this core held when it faulted is not to be waited for: the
	 * console lock is released (its drain may have been cut short), the
	 * report is left to the console core, and the other vCPUs are kicked
	 * first, in case the fault was inside a stop that had not kicked yet.
	 */
	c->faulted = true;
	console_release(c->index);
	kick_partition(v->part, v);
	fmt_snprintf(detail, sizeof(detail), "exception %lu (error 0x%lx) at hypervisor rip 0x%lx",
		     vector, error_code, rip);
	partition_stop(v, "hv_fault", vector, detail);
}

/*
 * A vCPU leaves its core for good: nothing of its LAPIC timer may go on
 * firing there (a direct-mode guest may have left the count-down timer
 * periodic, or a deadline armed) and its TPR must not block the
 * hypervisor's vectors. The LVT first: masked TSC-deadline mode disarms the
 * count-down timer (SDM 11.5.4.1). What is left in the IRR stays there (IF
 * is 0) or is acknowledged as a stray.
 */
static void apic_quiesce(void)
{
	wrmsr(X2APIC_LVT_TIMER, APIC_LVT_MASKED | APIC_LVT_TIMER_TSC_DEADLINE | HV_TIMER_VECTOR);
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	wrmsr(X2APIC_TPR, 0);
}

/*
 * State and generation in one load: a rebuild publishes PART_RUNNING with
 * the new generation in one store, so a stop seen here is the stop of the
 * generation it came with, and a vCPU that left that one is not counted
 * twice.
 */
bool vcpu_note_end(struct vcpu *v)
{
	struct partition *p = v->part;
	uint64_t run = __atomic_load_n(&p->run, __ATOMIC_ACQUIRE);
	uint32_t gen = (uint32_t)(run >> 32);

	if ((uint32_t)run == PART_RUNNING || v->left_gen == gen + 1)
		return false;
	v->state = VCPU_STOPPED;
	v->left_gen = gen + 1;
	__atomic_fetch_add(&p->vcpus_done, 1, __ATOMIC_ACQ_REL);
	return true;
}

/*
 * As hardware does at INIT (SDM 9.1, 9.4.4): the vCPU out of reset, waiting
 * for SIPI, while its partition runs on. A SIPI its sibling sent after the
 * INIT, before this core took it, is kept. The next start reloads the
 * core's state and a fresh VMCS (restarted), as after a partition restart.
 */
void vcpu_init_reset(struct vcpu *v)
{
	struct pcpu *c = v->pcpu;
	struct apic_base_state base = v->apic_base;
	uint8_t xapic_id = v->xapic.id;

	c->exit_vcpu = NULL;
	apic_quiesce();
	if (c->shared)
		asm volatile("sti; nop; nop; cli" ::: "memory");	/* as vcpu_leave */
	vcpu_reset(v);
	/* INIT keeps IA32_APIC_BASE and the xAPIC id (SDM 11.4.7.3) */
	v->apic_base = base;
	v->xapic.id = xapic_id;
	v->restarted = true;
	__atomic_store_n(&v->state, VCPU_WAIT_SIPI, __ATOMIC_SEQ_CST);
	vcpu_sipi_poll(v);
	hv_pcpu_loop();
}

bool vcpu_sipi_poll(struct vcpu *v)
{
	uint32_t sipi;

	/* INIT and NMI mean nothing to a vCPU waiting for SIPI (SDM 9.4.4) */
	if (__atomic_load_n(&v->init_pending, __ATOMIC_ACQUIRE))
		__atomic_store_n(&v->init_pending, 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&v->nmi_pending, __ATOMIC_ACQUIRE))
		__atomic_store_n(&v->nmi_pending, 0, __ATOMIC_RELEASE);
	/* a SIPI parked for a reset that has ended is this vCPU's SIPI */
	sipi = __atomic_exchange_n(&v->sipi_after_init, 0, __ATOMIC_SEQ_CST);
	if (sipi && !__atomic_load_n(&v->sipi_pending, __ATOMIC_ACQUIRE)) {
		v->sipi_vector = sipi & 0xff;
		__atomic_store_n(&v->sipi_pending, true, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&v->sipi_pending, __ATOMIC_ACQUIRE);
}

void vcpu_leave(struct vcpu *v)
{
	struct partition *p = v->part;
	struct pcpu *c = v->pcpu;

	c->exit_vcpu = NULL;
	apic_quiesce();
	/*
	 * A shared core: an inject-mode deadline that fired before the
	 * disarm sits in the IRR as the hypervisor's vector; take it here,
	 * or the next vCPU's entry would credit it to that vCPU. A restart
	 * alike: nothing of the old instance's IRR reaches the new one.
	 */
	if (c->shared || !partition_final(p))
		asm volatile("sti; nop; nop; cli" ::: "memory");
	v->state = VCPU_STOPPED;
	/* a dedicated core keeps a restarting vCPU: it starts it again (hv_pcpu_loop) */
	if (!c->shared && partition_final(p))
		c->vcpu = NULL;
	__atomic_fetch_and(&c->mailbox, ~MAILBOX_STOP_VCPU, __ATOMIC_ACQ_REL);
	/* its incarnation cannot end before this vCPU has left: the generation is current */
	v->left_gen = (uint32_t)(__atomic_load_n(&p->run, __ATOMIC_ACQUIRE) >> 32) + 1;
	__atomic_fetch_add(&p->vcpus_done, 1, __ATOMIC_ACQ_REL);
	hv_pcpu_loop();
}

void hv_entry_failed(struct vcpu *v, uint32_t error, const char *name)
{
	log_err("VMX: VM entry of partition '%s' vCPU %u failed: VM-instruction error %u (%s)\n",
		v->part->cfg->name, v->index, error, name);
	partition_stop(v, "vm_entry_failed", error, name);
}

static bool rebuild_due(struct partition *p)
{
	return __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) == PART_RESTARTING &&
	       __atomic_load_n(&p->vcpus_done, __ATOMIC_ACQUIRE) == p->vcpu_count &&
	       !__atomic_load_n(&p->end_report_pending, __ATOMIC_ACQUIRE);
}

/*
 * Who may rebuild @p: a core that runs no partition, or one of @p's own
 * dedicated cores; no other partition's core, whose guest the rebuild would
 * hold up. A partition that has neither (only shared cores, and every core
 * busy) is rebuilt by one of its shared cores, at the cost of that core's
 * other windows while it lasts (docs/operating.md).
 */
static bool may_rebuild(const struct pcpu *c, const struct partition *p)
{
	bool own_dedicated = false, free_core = false;

	if (!c->shared)
		return !c->vcpu || c->vcpu->part == p;
	for (uint32_t i = 0; i < p->vcpu_count; i++)
		own_dedicated |= !p->vcpus[i]->pcpu->shared;
	for (uint32_t i = 0; i < pcpu_count; i++)
		free_core |= !pcpus[i].shared && !pcpus[i].vcpu && smp_cpus[i].state == CPU_ONLINE;
	for (uint32_t k = 0; !own_dedicated && !free_core && k < c->slot_count; k++)
		if (c->slots[k]->part == p)
			return true;
	return false;
}

/*
 * A restart, in root mode outside any guest's exit: once every vCPU of the
 * partition has left and its end is reported, one core claims it, rebuilds
 * it (hv/build/build.c) and lets its vCPUs go again on the same CPUs. A rebuild
 * that fails (it cannot, from the same pristine modules, unless memory was
 * corrupted) stops the partition for good.
 */
void partition_restart_poll(void)
{
	struct pcpu *c = this_pcpu();

	for (uint32_t i = 0; i < partition_count; i++) {
		struct partition *p = &partitions[i];
		char err[160];

		if (!rebuild_due(p) || !may_rebuild(c, p) ||
		    __atomic_exchange_n(&p->rebuilding, 1, __ATOMIC_ACQ_REL))
			continue;
		/* another core may have rebuilt it between the check and the claim */
		if (!rebuild_due(p)) {
			__atomic_store_n(&p->rebuilding, 0, __ATOMIC_RELEASE);
			continue;
		}
		if (partition_rebuild(p, err, sizeof(err))) {
			log_err("Partition '%s': restart failed: %s\n", p->cfg->name, err);
			fmt_snprintf(p->end_report, sizeof(p->end_report),
				     "PARTITION_STOP name=%s reason=restart_failed rip=0x0 qual=0x0 "
				     "vcpu=0 cpu=%u detail=\"%s\"\n", p->cfg->name,
				     this_pcpu()->index, err);
			__atomic_store_n(&p->end_report_pending, true, __ATOMIC_RELEASE);
			__atomic_store_n(&p->state, PART_STOPPED, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&p->vcpus_done, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&p->run, (uint64_t)(p->generation + 1) << 32 | PART_RUNNING,
					 __ATOMIC_RELEASE);
		}
		__atomic_store_n(&p->rebuilding, 0, __ATOMIC_RELEASE);
	}
}
