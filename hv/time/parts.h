/* SPDX-License-Identifier: MIT */
/*
 * The time room's parts of struct vcpu (hv/state/vcpu.h): types only, so
 * the state room can hold them. Written by hv/time/ on the vCPU's own core;
 * read elsewhere only where a comment says so.
 */
#ifndef TEMPO_HV_TIME_PARTS_H
#define TEMPO_HV_TIME_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/hypercall_abi.h"
#include "hv/core/timer.h"

/*
 * The host tick's step-aside from the guest's deadline (hv/time/aside.c):
 * the exit stub's part is arch's (struct vmx_tick_aside, vcpu_arch.aside);
 * this is hv's.
 */
#define ASIDE_STEPS	(1u << 0)
#define ASIDE_STUB	(1u << 1)

struct vcpu_aside {
	bool tick_exit;			/* this exit is a host tick (direct, inject) */
	/* IA32_TSC_DEADLINE as tick_exit_early took it at this exit (the exit's MSR store, else RDMSR) */
	bool deadline_valid;
	uint64_t deadline;
	/* the vCPU has the stub that can step (direct mode on a core of its own, fixed at VMCS setup) */
	bool enabled;
	/*
	 * What the stub was armed for at the last entry, and so has to fold
	 * (tick_aside_fold): its steps (ASIDE_STEPS), its own tick (ASIDE_STUB).
	 */
	uint8_t armed;
	/* this exit is the armed tick's: the stub judged the guest's deadline already */
	bool decided;
	/* a kick's NMI closed the stub since the last entry (hv_root_nmi): its exit comes early */
	bool kicked;
	uint64_t tick;		/* the placed time the plan was made for */
	struct tick_aside_plan plan;	/* and that plan (steps 0: none) */
	uint8_t vec;		/* and the guest's timer vector it was made for */
	/* the stub's own tick: its plan's words in the area are for this placed time and grid (ok: there is one) */
	bool stub_ok;
	uint64_t stub_due, stub_grid;
};

/* pv-lazy (hv/time/pv_lazy.c): the page the guest publishes its deadlines on. */
struct vcpu_pv {
	struct tempo_pv_timer *page;	/* NULL until registered */
	uint64_t seen;			/* the last `next` the hypervisor took */
};

#endif
