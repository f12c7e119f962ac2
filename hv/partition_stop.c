// SPDX-License-Identifier: MIT
/*
 * The end of a partition: stopped by the hypervisor with a PARTITION_STOP
 * report, shut down or powered off by the guest, or lost to a hypervisor
 * fault in its exit handler. Its vCPUs leave their cores for good.
 */
#include "hv/partition.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "hv/lib/fmt.h"
#include "hv/lib/log.h"
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

void partition_stop(struct vcpu *v, const char *reason, uint64_t qual, const char *detail)
{
	struct partition *p = v->part;
	uint32_t expected = PART_RUNNING;

	if (__atomic_compare_exchange_n(&p->state, &expected, PART_STOPPED, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		fmt_snprintf(p->end_report, sizeof(p->end_report),
			     "PARTITION_STOP name=%s reason=%s rip=0x%lx qual=0x%lx vcpu=%u cpu=%u "
			     "detail=\"%s\"\n", p->cfg->name, reason, vmread(VMCS_GUEST_RIP), qual,
			     v->index, v->pcpu->index, detail);
		report_end(p);
		kick_partition(p, v);
	}
	vcpu_leave(v);
}

static __attribute__((noreturn)) void end_by_request(struct vcpu *v, int64_t code,
						      const char *how)
{
	struct partition *p = v->part;
	uint32_t expected = PART_RUNNING;

	if (__atomic_compare_exchange_n(&p->state, &expected, PART_SHUTDOWN, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		p->exit_code = code;
		fmt_snprintf(p->end_report, sizeof(p->end_report),
			     "Partition '%s' %s (exit code %ld)\n", p->cfg->name, how, code);
		report_end(p);
		kick_partition(p, v);
	}
	vcpu_leave(v);
}

void partition_shutdown(struct vcpu *v, int64_t code)
{
	end_by_request(v, code, "shut down");
}

void partition_poweroff(struct vcpu *v)
{
	end_by_request(v, 0, "powered off (ACPI S5)");
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

void vcpu_leave(struct vcpu *v)
{
	struct partition *p = v->part;
	struct pcpu *c = v->pcpu;

	c->exit_vcpu = NULL;
	apic_quiesce();
	/*
	 * A shared core: an inject-mode deadline that fired before the
	 * disarm sits in the IRR as the hypervisor's vector; take it here,
	 * or the next vCPU's entry would credit it to that vCPU.
	 */
	if (c->shared)
		asm volatile("sti; nop; nop; cli" ::: "memory");
	v->state = VCPU_STOPPED;
	if (!c->shared)
		c->vcpu = NULL;
	__atomic_fetch_and(&c->mailbox, ~MAILBOX_STOP_VCPU, __ATOMIC_ACQ_REL);
	__atomic_fetch_add(&p->vcpus_done, 1, __ATOMIC_ACQ_REL);
	hv_pcpu_loop();
}

void hv_entry_failed(struct vcpu *v, uint32_t error, const char *name)
{
	log_err("VMX: VM entry of partition '%s' vCPU %u failed: VM-instruction error %u (%s)\n",
		v->part->cfg->name, v->index, error, name);
	partition_stop(v, "vm_entry_failed", error, name);
}
