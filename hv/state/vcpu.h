/* SPDX-License-Identifier: MIT */
/*
 * A vCPU: who it is, where it runs, its life, and its parts, each in the
 * header of the room that writes it (hv/time/parts.h, hv/apic/parts.h,
 * hv/run/parts.h, hv/ops/parts.h; the VMX state is arch's, arch/x86/vmx.h;
 * the guest's timer and vLAPIC are hv/core/timer.h's struct vtimer).
 */
#ifndef TEMPO_HV_STATE_VCPU_H
#define TEMPO_HV_STATE_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vmx.h"
#include "hv/apic/parts.h"
#include "hv/core/guest_msrs.h"
#include "hv/core/timer.h"
#include "hv/ops/parts.h"
#include "hv/run/parts.h"
#include "hv/time/parts.h"

enum vcpu_state {
	VCPU_WAIT_SIPI,		/* an AP before its partition's INIT-SIPI-SIPI */
	VCPU_RUNNING,
	VCPU_STOPPED,
};

struct partition;
struct pcpu;

struct vcpu {
	/* VMX's own: guest registers, VMCS, VPID, CR shadows (arch/x86/vmx.h) */
	struct vcpu_arch arch;
	struct partition *part;
	struct pcpu *pcpu;
	uint32_t index;		/* within the partition; 0 is the boot vCPU */
	uint32_t apic_id;	/* the physical x2APIC id, shown to the guest as is */

	/* its life (hv/run/life.c; the SIPI fields also by its siblings' ICR writes, hv/apic/) */
	volatile enum vcpu_state state;
	volatile uint32_t sipi_vector;	/* set by the partition's emulated SIPI */
	volatile bool sipi_pending;
	/* its partition was restarted: reset the core's state at its next start */
	volatile bool restarted;
	uint32_t left_gen;	/* generation + 1 of the incarnation it last left; 0: none */

	/* time (hv/time/) */
	struct vtimer vt;	/* the guest's LAPIC timer and, off direct mode, its vLAPIC */
	uint8_t quick;		/* which of time's quick exits it may take (hv/time/quick.c) */
	struct timer_advance adv;	/* its software deadline armed this early (hv/core/timer.h) */
	struct vcpu_aside aside;
	struct vcpu_pv pv;
	/* seen in HLT with IF = 0 at a host tick (hv/core/halt.h); read by its siblings' cores */
	volatile bool halted_forever;
	volatile uint32_t mode_request;	/* the monitor's timer mode + 1; 0: none */
	volatile bool mode_busy;	/* that switch was refused: the console core says so */

	struct vcpu_apic apic;		/* hv/apic/ */
	struct vcpu_saved saved;	/* hv/run/ */
	struct guest_msrs msrs;		/* MTRRs, MISC_ENABLE: hv/exit/msr.c */
	struct vcpu_stats stats;	/* everyone counts, hv/ops/ reports */
};

static inline void vcpu_trace(struct vcpu *v, enum trace_event e, uint64_t value, uint64_t tsc)
{
	struct trace_entry *t = &v->stats.trace[v->stats.trace_next++ % TRACE_RING];

	t->tsc = tsc;
	t->value = value;
	t->event = e;
}

#endif
