// SPDX-License-Identifier: MIT
/*
 * A vCPU's life on its core beyond running: leaving it for good (its
 * partition ended) or until its partition's restart, an INIT and the SIPI
 * after it, and the restart itself, done in root mode by one core once
 * every vCPU has left.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/smp.h"
#include "hv/build/build.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/ops/console.h"
#include "hv/run/run.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/time/time.h"

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
 * As hardware does at INIT (SDM 9.1, 9.4.4): the vCPU out of reset, waiting
 * for SIPI, while its partition runs on. A SIPI its sibling sent after the
 * INIT, before this core took it, is kept. The next start reloads the
 * core's state and a fresh VMCS (restarted), as after a partition restart.
 */
void vcpu_init_reset(struct vcpu *v)
{
	struct pcpu *c = v->pcpu;
	struct apic_base_state base = v->apic.base;
	uint8_t xapic_id = v->apic.xapic.id;

	c->exit_vcpu = NULL;
	apic_quiesce();
	if (c->shared)
		asm volatile("sti; nop; nop; cli" ::: "memory");	/* as vcpu_leave */
	vcpu_reset(v);
	/* INIT keeps IA32_APIC_BASE and the xAPIC id (SDM 11.4.7.3) */
	v->apic.base = base;
	v->apic.xapic.id = xapic_id;
	if (v->apic.xapic_region)	/* and the page stays there */
		mmio_region_set(v->part, v->apic.xapic_region - 1, base.base, PAGE_SIZE);
	v->restarted = true;
	__atomic_store_n(&v->state, VCPU_WAIT_SIPI, __ATOMIC_SEQ_CST);
	vcpu_sipi_poll(v);
}

bool vcpu_sipi_poll(struct vcpu *v)
{
	uint32_t sipi;

	/* INIT and NMI mean nothing to a vCPU waiting for SIPI (SDM 9.4.4) */
	if (__atomic_load_n(&v->apic.init_pending, __ATOMIC_ACQUIRE))
		__atomic_store_n(&v->apic.init_pending, 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&v->apic.nmi_pending, __ATOMIC_ACQUIRE))
		__atomic_store_n(&v->apic.nmi_pending, 0, __ATOMIC_RELEASE);
	/* a SIPI parked for a reset that has ended is this vCPU's SIPI */
	sipi = __atomic_exchange_n(&v->apic.sipi_after_init, 0, __ATOMIC_SEQ_CST);
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
	/* a dedicated core keeps a restarting vCPU: its loop starts it again */
	if (!c->shared && partition_final(p))
		c->vcpu = NULL;
	__atomic_fetch_and(&c->mailbox, ~MAILBOX_STOP_VCPU, __ATOMIC_ACQ_REL);
	/* its incarnation cannot end before this vCPU has left: the generation is current */
	v->left_gen = (uint32_t)(__atomic_load_n(&p->run, __ATOMIC_ACQUIRE) >> 32) + 1;
	__atomic_fetch_add(&p->vcpus_done, 1, __ATOMIC_ACQ_REL);
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

#define MIB2	(2ull << 20)

/*
 * A restarting partition's RAM, zeroed in pieces with the consoles drained
 * between them: other partitions' lines keep flowing.
 */
static void partition_zero(struct partition *p)
{
	uint8_t *mem = (uint8_t *)(uintptr_t)p->mem_hpa;

	log_info("Partition '%s': restarting: %lu MiB zeroed, image reloaded\n", p->cfg->name,
		 p->mem_size >> 20);
	for (uint64_t off = 0; off < p->mem_size; off += MIB2) {	/* mem_size: 2 MiB multiple */
		rep_stosq(mem + off, 0, MIB2 / 8);
		console_drain_all(false);
	}
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

		/*
		 * Started again from the monitor (restarting, or already
		 * rebuilt): a home core still halted without its vCPU missed
		 * its kick, which came just before its HLT: kick it again. It
		 * takes the vCPU back within a loop.
		 */
		if (!partition_final(p))
			for (uint32_t k = 0; k < p->vcpu_count; k++) {
				struct pcpu *h = p->vcpus[k]->pcpu;

				if (!h->shared && h != c && h->home == p->vcpus[k] &&
				    !__atomic_load_n(&h->vcpu, __ATOMIC_ACQUIRE))
					x2apic_send_nmi(h->apic_id);
			}

		if (!rebuild_due(p) || !may_rebuild(c, p) ||
		    __atomic_exchange_n(&p->rebuilding, 1, __ATOMIC_ACQ_REL))
			continue;
		/* another core may have rebuilt it between the check and the claim */
		if (!rebuild_due(p)) {
			__atomic_store_n(&p->rebuilding, 0, __ATOMIC_RELEASE);
			continue;
		}
		partition_zero(p);
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
