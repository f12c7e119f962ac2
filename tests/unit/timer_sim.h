/* SPDX-License-Identifier: MIT */
/*
 * A simulated core for the timer state machine (hv/core/timer.c): a TSC, a
 * physical LAPIC (TSC_DEADLINE MSR, LVT timer, IRR/ISR/TPR), the
 * VMX-preemption timer, the hypervisor's exit and entry paths as the real
 * code drives the state machine, and a random guest. An independent reference
 * model checks every guest timer interrupt and every host tick as it happens.
 */
#ifndef TEMPO_TESTS_TIMER_SIM_H
#define TEMPO_TESTS_TIMER_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/timer.h"

/* Simulated costs, in TSC ticks. An exit round trip costs at most SIM_EXIT_COST. */
#define SIM_EXIT_LAT	60	/* VM exit to the handler's first RDTSC */
#define SIM_HANDLER_MAX	50	/* handler work after it */
#define SIM_ENTRY_LAT	60	/* arming the preemption timer to the guest running */
#define SIM_POLL	10	/* root-mode polling granularity in a long stay */
#define SIM_EXIT_COST	200
#define SIM_FIRE_LAT	12	/* hardware: TSC reaching the target to the fire */

/* Adversarial guests (sim_params.scenario). */
#define SIM_NEVER_EOI		(1u << 0)
#define SIM_TPR15		(1u << 1)
#define SIM_LVT_MASKED		(1u << 2)
#define SIM_DEADLINE_0		(1u << 3)
#define SIM_DEADLINE_MAX	(1u << 4)
#define SIM_TIGHT_EXITS		(1u << 5)
#define SIM_CLI_SPIN		(1u << 6)
#define SIM_LONG_SPIN		(1u << 7)	/* runs of 2^32+ ticks with no exit */

struct sim_params {
	uint64_t seed;
	uint64_t events;	/* stop after this many */
	uint32_t rate;		/* preemption timer rate, IA32_VMX_MISC[4:0] */
	uint64_t period;	/* host tick period; 0 = tickless */
	uint64_t watchdog;	/* 0 = off */
	enum timer_mode mode;	/* at start */
	bool switch_modes;	/* random mode switches (when allowed) */
	bool bochs_msr;		/* the MSR keeps a fired deadline (Bochs) */
	uint32_t scenario;	/* SIM_* flags */
	/*
	 * tick_slack: in direct and inject mode the tick exit reads
	 * the guest's deadline and places the next tick (host_timer_place) or
	 * defers this one past it (host_timer_defer), by at most @slack past
	 * its grid time, @margin past the deadline. 0 = ticks on the grid.
	 */
	uint64_t slack, margin;
};

struct sim_result {
	bool ok;
	char msg[1024];		/* the first broken invariant, with seed and event index */
	uint64_t events;
	uint64_t tsc_span;
	uint64_t exits, exits_ptimer, exits_ptimer_idle, long_stays;
	uint64_t switches, switches_refused, switches_skipped;
	uint64_t writes, fires, drops, delivered;
	uint64_t coalesced;	/* second fires into a pending bit (the save's race) */
	uint64_t save_fired;	/* saves that found D <= before */
	uint64_t save_race;	/* saves that found before < D <= now */
	uint64_t save_cancelled;	/* hardware: D <= before, armed: WRMSR 0 cancels it */
	uint64_t save_drained;	/* inject: the fire taken in root mode right after the save */
	uint64_t from_pending;	/* vtimer stats: expired while out */
	uint64_t host_ticks, host_late_max, host_bound, watchdog_fired;
	uint64_t fire_late_max;	/* fire - max(deadline, write) */
	/* ticks deferred at their exit, ticks placed off the grid */
	uint64_t tick_defers, ticks_placed;
};

bool sim_run(const struct sim_params *p, struct sim_result *r);

#endif
