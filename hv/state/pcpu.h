/* SPDX-License-Identifier: MIT */
/*
 * The physical CPUs as hv sees them: what each runs, its mailbox, its own
 * timer events and, on a shared core, its schedule. Its stack and VMXON
 * region are arch's: smp_cpus[index] (arch/x86/smp.h).
 */
#ifndef TEMPO_HV_STATE_PCPU_H
#define TEMPO_HV_STATE_PCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/sched.h"
#include "hv/core/timer.h"

struct partition;
struct vcpu;

/* Mailbox bits: why another CPU kicked this one (NMIs coalesce). */
#define MAILBOX_STOP_VCPU	(1u << 0)
#define MAILBOX_SIPI		(1u << 1)
#define MAILBOX_IPI		(1u << 2)	/* a vCPU's ipi_pending grew (hv/apic/ipi.c) */
#define MAILBOX_MODE		(1u << 3)	/* a vCPU's mode_request is set (hv/ops/monitor.c) */
#define MAILBOX_EVENT		(1u << 4)	/* a vCPU's nmi_pending or init_pending is set */

struct devirq_table;

struct pcpu {
	struct pcpu *self;	/* first: this_pcpu() reads it through GS */
	uint32_t index;		/* MADT order */
	uint32_t apic_id;
	struct vcpu *vcpu;	/* the vCPU this core runs (dedicated cores) */
	/* a dedicated core's vCPU for good: taken back when its ended partition starts again */
	struct vcpu *home;
	/* the vCPU this core runs, from its entry until it leaves (a root-mode fault stops it); or NULL */
	struct vcpu *exit_vcpu;
	/* a shared core: the vCPU whose window it is running, from switch_in on; NULL between */
	struct vcpu *window_vcpu;
	bool vmcs_loaded;	/* a VMCS is current on this core (hv_root_nmi) */
	volatile uint32_t mailbox;
	volatile uint64_t nmis;
	bool console;		/* drains the partitions' console buffers */
	bool ran_guest;		/* its LAPIC has held a guest's state (idle_wait) */
	/* this core took the inject vector in timer_save_hw's STI window (hv/time/vcpu_timer.c) */
	volatile bool hv_timer_seen;
	struct host_timer ht;	/* this core's own events, on the preemption timer */
	/* a shared core: several vCPUs in a cyclic schedule ([schedule N]) */
	bool shared;
	bool sched_started;
	uint32_t slot_count;
	struct vcpu *slots[SCHED_MAX_WINDOWS];
	struct cyclic_sched sched;
	uint64_t window_len_tsc[SCHED_MAX_WINDOWS];
	int32_t window_slot[SCHED_MAX_WINDOWS];
	uint32_t window_count;
	struct partition *last_part;	/* whose vCPU ran here last: IBPB on a change */
	struct devirq_table *devirq;	/* its device vectors' owners (hv/state/devirq.h); NULL: none */
};

extern struct pcpu *pcpus;	/* pcpu_count of them, from the pool at boot (pcpus_init) */
extern uint32_t pcpu_count;
/* the partitions are built and every core may start its vCPUs */
extern volatile bool partitions_go;

static inline struct pcpu *this_pcpu(void)
{
	struct pcpu *p;

	asm volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

/* Number hv's cores after arch's (smp_enumerate): pcpus[0..count). */
void pcpus_init(uint32_t count);

#endif
