// SPDX-License-Identifier: MIT
/* Device interrupts that exit: each core's vectors and their owners (hv/state/devirq.h). */
#include "hv/state/devirq.h"

#include <stddef.h>

#include "arch/x86/apic.h"
#include "hv/lib/x86.h"
#include "hv/state/pages.h"
#include "hv/state/pcpu.h"
#include "hv/upcalls.h"

volatile uint64_t devirq_strays;

uint8_t devirq_alloc(uint32_t cpu, devirq_fn fn, void *owner, struct vcpu *v, uint32_t input,
		     bool (*usable)(uint8_t vector, void *ctx), void *ctx)
{
	struct pcpu *c;

	if (cpu >= pcpu_count)
		return 0;
	c = &pcpus[cpu];
	if (!c->devirq)
		c->devirq = hv_pages_alloc(sizeof(*c->devirq), "device vectors");
	for (uint32_t i = 0; i < DEVIRQ_VECTORS; i++) {
		struct devirq_slot *s = &c->devirq->slot[i];

		if (s->fn || (usable && !usable((uint8_t)(DEVIRQ_VECTOR_FIRST + i), ctx)))
			continue;
		*s = (struct devirq_slot){ fn, owner, v, input };
		return (uint8_t)(DEVIRQ_VECTOR_FIRST + i);
	}
	return 0;
}

enum exit_action devirq_take(struct vcpu *v, uint8_t vector)
{
	struct devirq_table *t = this_pcpu()->devirq;
	const struct devirq_slot *s = t ? &t->slot[vector - DEVIRQ_VECTOR_FIRST] : NULL;

	if (s && s->fn)
		s->fn(v, s);
	else
		__atomic_fetch_add(&devirq_strays, 1, __ATOMIC_RELAXED);
	wrmsr(X2APIC_EOI, 0);
	return EXIT_RESUME;
}

/*
 * A device vector can be pending when a core opens a root-mode interrupt
 * window (a shared core's switch-out, a restart's vcpu_leave): the input
 * fired after the last exit. Ended there as a stray, an edge input's
 * interrupt would be lost for good, so it goes to its owner as at an exit.
 * The vCPU "running" is the one whose window the core is in (shared) or
 * its only one: a target in its own window takes the vector in its virtual
 * LAPIC, any other keeps it for its next window.
 */
bool hv_root_irq(uint8_t vector)
{
	struct pcpu *c;

	if (!devirq_vector(vector) || !partitions_go)
		return false;	/* before partitions_go, GS may not be this_pcpu() */
	c = this_pcpu();
	if (!c->devirq)
		return false;
	devirq_take(c->shared ? c->window_vcpu : c->vcpu, vector);
	return true;
}
