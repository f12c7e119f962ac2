/* SPDX-License-Identifier: MIT */
/*
 * Device interrupts that exit (hv/state/devirq.c): on a core whose vCPUs do
 * not own the LAPIC (inject, emulated, pv-lazy, shared cores), each input
 * a partition was given reaches the core on a vector of Tempo's, one per
 * input and vCPU, from DEVIRQ_VECTOR_FIRST..LAST: the external-interrupt
 * exit (hv/time/timer_exit.c) finds in the core's table whose it is and
 * hands it to its owner (hv/dev/irqs.c), which raises the guest's own
 * vector in that vCPU's virtual LAPIC, or keeps it for its window. A
 * `direct` vCPU's inputs carry the guest's vector to its own core and
 * never exit, so they take no vector here.
 *
 * A guest's IPI on one of these vectors takes the virtual path
 * (hv/apic/ipi.c): a physical one would be taken for a device's.
 */
#ifndef TEMPO_HV_STATE_DEVIRQ_H
#define TEMPO_HV_STATE_DEVIRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/state/exit_ctx.h"

struct vcpu;
struct devirq_slot;

#define DEVIRQ_VECTOR_FIRST	0xc0
#define DEVIRQ_VECTOR_LAST	0xeb	/* below Tempo's own (arch/x86/trap.h) */
#define DEVIRQ_VECTORS		(DEVIRQ_VECTOR_LAST - DEVIRQ_VECTOR_FIRST + 1)

/*
 * The owner's answer to its interrupt, taken on the core's running vCPU
 * @running (maybe another partition's, on a shared core), before the
 * physical EOI: a level-triggered input is held masked there first.
 */
typedef void (*devirq_fn)(struct vcpu *running, const struct devirq_slot *s);

struct devirq_slot {
	devirq_fn fn;			/* NULL: free */
	void *owner;			/* the owner's state of the partition */
	struct vcpu *vcpu;		/* whose interrupt it is */
	uint32_t input;			/* which of the owner's inputs */
};

/* One core's vectors (allocated for the cores that need them). */
struct devirq_table {
	struct devirq_slot slot[DEVIRQ_VECTORS];
};

static inline bool devirq_vector(uint8_t vector)
{
	return vector >= DEVIRQ_VECTOR_FIRST && vector <= DEVIRQ_VECTOR_LAST;
}

/*
 * At build time: a free vector on CPU @cpu for (@fn, @owner, @v, @input)
 * that @usable accepts (NULL: any), or 0 when none of that core's is left.
 */
uint8_t devirq_alloc(uint32_t cpu, devirq_fn fn, void *owner, struct vcpu *v, uint32_t input,
		     bool (*usable)(uint8_t vector, void *ctx), void *ctx);

/*
 * The external-interrupt exit of @v with @vector (devirq_vector): its
 * owner's answer, then the EOI to the physical LAPIC. A vector nobody has
 * is counted (devirq_strays) and ended.
 */
enum exit_action devirq_take(struct vcpu *v, uint8_t vector);

/* Device vectors that came with no owner (a stale one after a reprogramming). */
extern volatile uint64_t devirq_strays;

#endif
