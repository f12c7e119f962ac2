/* SPDX-License-Identifier: MIT */
/*
 * The ops room's part of struct vcpu (hv/state/vcpu.h): types only. The
 * vCPU's counters, its snapshot ring and its trace ring: written by its own
 * core wherever the event happens (a counter is one increment there), read
 * by the report and the monitor (hv/ops/).
 */
#ifndef TEMPO_HV_OPS_PARTS_H
#define TEMPO_HV_OPS_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vmx_defs.h"
#include "hv/core/timer.h"

/* Counters copied on the guest's request, formatted later by the console core. */
struct vcpu_snapshot {
	uint64_t tsc, exits, tick_exits, timer_exits, deadline_write_exits, extint_exits;
	uint64_t eoi_exits, fast_exits, host_ticks, tick_late_max_ticks, tick_hits, tick_defer_exits;
	uint64_t posted_taken, tick_busy;
	/* an interrupt the guest could not take yet (IF = 0, a shadow) waits for these */
	uint64_t window_exits, hlt_exits;
	struct vtimer_stats timer;
	uint32_t mode;
};

#define VCPU_SNAPSHOTS 8

/* A ring of the vCPU's recent timer-state transitions, printed at its end. */
enum trace_event {
	TRACE_DEADLINE_WRITE = 1,	/* trapped IA32_TSC_DEADLINE write (value) */
	TRACE_PV_UPDATE,		/* pv-lazy deadline taken from the page (value) */
	TRACE_HW_FIRE,			/* inject: the hypervisor's vector arrived */
	TRACE_INJECT,			/* a vector injected (value = vector) */
	TRACE_LVT,			/* LVT timer written (value) */
	TRACE_SAVE,			/* deadline out of the hardware (value = MSR) */
	TRACE_RESTORE,			/* deadline back (value written) */
	TRACE_MODE,			/* timer mode switched (value = new mode) */
	TRACE_WINDOW_IN,		/* shared core: its window began (value = window) */
};

#define TRACE_RING 32

struct trace_entry {
	uint64_t tsc;
	uint64_t value;
	uint32_t event;
};

/* The exit path's profile (TEMPO_PROFILE builds, hv/ops/prof.h): its points, in order. */
enum prof_point {
	PROF_STUB,	/* the exit stub's first instructions (arch's stamp) */
	PROF_HV,	/* hv_exit_handler's first */
	PROF_ROW,	/* the row's handler is called */
	PROF_ROW_DONE,	/* and has returned */
	PROF_DELIVER,	/* virtual delivery begins (off the LAPIC-owning modes) */
	PROF_ARM,	/* the preemption timer's arming begins */
	PROF_DONE,	/* hv_exit_handler returns */
	PROF_ENTRY,	/* the entry's stamp, before the guest's registers load (arch's) */
	PROF_POINTS,
};

#define PROF_SEGMENTS	(PROF_POINTS - 1)

/* How an exit finished: the generic path, a fast row, or a quick exit of time (hv/time/quick.c). */
enum { PROF_FULL, PROF_FAST, PROF_QUICK, PROF_PATHS };

/*
 * One path's sums: exits taken, each segment's instructions, the longest
 * exit; for a preemption-timer exit also how late the stub began after the
 * time the timer was armed for (the CPU's share of a deadline's latency).
 */
struct prof_path {
	uint64_t exits;
	uint64_t sum[PROF_SEGMENTS];
	uint64_t max_total;
	uint64_t late_sum, late_max;
};

struct vcpu_prof {
	uint64_t t[PROF_POINTS];	/* this exit's stamps (0: not passed) */
	uint32_t reason;		/* its basic reason */
	uint8_t path;			/* PROF_FULL, PROF_FAST or PROF_QUICK */
	bool open;			/* stamped up to PROF_DONE, waiting for its entry stamp */
	uint64_t bookkeeping;		/* prof_exit's own ticks in this exit */
	uint64_t due;			/* what the preemption timer was last armed for */
	uint64_t due_armed;		/* and this exit's: its lateness is measured from it */
	struct prof_path paths[EXIT_REASON_COUNT][PROF_PATHS];
};

struct vcpu_stats {
	uint64_t exits[EXIT_REASON_COUNT];
	uint64_t exits_total;
	uint64_t host_tick_exits;	/* exit 52s that were host ticks */
	/*
	 * Host-tick exits at whose end the timer's vector was pending in the
	 * physical IRR: the guest's timer fired while the core was in root
	 * mode, and the exit delayed its interrupt.
	 */
	uint64_t tick_hits;
	uint64_t tick_defer_exits;	/* exit 52s that moved a tick past a guest deadline */
	/*
	 * Host-tick exits that found the guest running, not in HLT: a tick in
	 * its work, a wake-up's included, which tick_hits does not see once the
	 * interrupt was taken (an idle guest's ticks cost it nothing).
	 */
	uint64_t tick_busy;
	uint64_t deadline_write_exits;	/* trapped IA32_TSC_DEADLINE writes (emulated) */
	uint64_t eoi_exits;		/* virtual EOIs (inject, emulated) */
	uint64_t fast_exits;		/* on the fast path, a direct tick finished early too */
	uint64_t ipis_dropped;		/* fixed IPIs to a sibling not running yet */
	uint64_t pi_taken;	/* vectors hv took from the posted descriptor in root mode */
	uint64_t pv_updates;		/* pv-lazy deadlines taken from the page without a trap */
	struct vcpu_snapshot snaps[VCPU_SNAPSHOTS];
	volatile uint32_t snap_head;	/* written by the vCPU's core */
	uint32_t snap_tail;		/* read by the console core */
	struct trace_entry trace[TRACE_RING];
	uint32_t trace_next;
#ifdef TEMPO_PROFILE
	struct vcpu_prof prof;
#endif
};

#endif
