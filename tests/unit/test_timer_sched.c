// SPDX-License-Identifier: MIT
/*
 * Time partitioning on a shared core: the cyclic schedule (hv/core/sched.c) and
 * the timer state machine (hv/core/timer.c) driven together, as hv/run/switch.c
 * (switch_out, switch_in, shared_core_loop, vcpu_switch_window), hv/exit/exit.c (the
 * exit tail), hv/time/vcpu_timer.c (deliver_virtual, hv/apic/deliver.c), hv/time/vcpu_timer.c (the preemption
 * timer's arming) and hv/time/timer_exit.c (the external-interrupt and
 * preemption-timer exits) drive them, on a simulated core: one TSC, one
 * physical TSC_DEADLINE MSR and LVT timer shared by whoever runs, the
 * hypervisor's vector in the physical IRR, and the VMX-preemption timer with
 * its rounding.
 *
 * 2-3 vCPUs (inject, emulated, pv-lazy; pv-lazy is emulated at this level)
 * under a random cyclic schedule with idle windows and a host tick. Each
 * guest, only while it runs, arms, rewrites and disarms its deadline, masks
 * and unmasks its LVT, toggles IF and EOIs. A reference model per vCPU says
 * which deadlines expired unmasked; every timer interrupt injected is checked
 * against it as it happens (none early, none twice), and after a drain with
 * no new deadlines none may be left undelivered (none lost). Every window
 * start and every host tick must come within one exit round trip plus the
 * preemption timer's rounding of when it was planned.
 *
 * Seeded: the seed is printed; TIMER_SCHED_SEED=n runs that seed alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/sched.h"
#include "hv/core/timer.h"
#include "hv/core/vlapic.h"

#define LVT_MASK	(1u << 16)
#define NEVER		UINT64_MAX

/* Simulated costs in TSC ticks. */
#define EXIT_LAT	60	/* VM exit to the handler's first RDTSC */
#define HANDLER_MAX	50	/* handler work */
#define SAVE_RACE	20	/* RDTSC .. RDMSR .. WRMSR 0 in switch_out */
#define SWITCH_COST	40	/* the rest of switch_out / switch_in */
#define ENTRY_LAT	60	/* arming the preemption timer to the guest running */
#define POLL		10	/* sched_loop's polling granularity */
/*
 * One exit round trip, switch included: from arming the preemption timer
 * (its load comes ENTRY_LAT later) through the exit, the handler, a switch
 * and the next entry. Starts and ticks may be this late, plus the timer's
 * rounding 2^(rate+1).
 */
#define EXIT_COST	(ENTRY_LAT + EXIT_LAT + HANDLER_MAX + SAVE_RACE + 10 + \
			 2 * SWITCH_COST + ENTRY_LAT)

#define TICK_EXTRA	(ENTRY_LAT + EXIT_LAT + HANDLER_MAX)

enum exit_reason { X_PTIMER, X_EXTINT, X_WRMSR_DL, X_LVT, X_EOI, X_WINDOW, X_CPUID };

struct gvcpu {
	struct vtimer vt;
	bool started;		/* vmcs_ready */
	bool gif;		/* guest RFLAGS.IF */
	bool intr_window;	/* interrupt-window exiting armed */
	uint8_t vec;
	uint64_t next_action;
	/* reference model */
	uint64_t ref_dl;	/* the guest's armed deadline, 0 = none */
	bool ref_masked;
	uint64_t req_pend;	/* expired unmasked, must be delivered */
	uint64_t opt_avail;	/* may be delivered or not (coalescing, LVT-write race) */
	uint64_t req_total, delivered;
};

struct core {
	uint64_t seed, rng, events, max_events;
	uint64_t tsc;
	uint32_t rate;
	bool bochs;		/* the MSR keeps a fired deadline */
	/* physical LAPIC */
	uint64_t pdl;
	bool parmed, plvt_masked, pirr;
	/* VMX */
	int running;		/* vCPU in non-root mode, or -1 */
	uint64_t pt_exp;
	struct host_timer ht;
	struct cyclic_sched cs;
	uint64_t win_planned;	/* planned start of a window not yet entered */
	uint64_t start0;	/* the first frame's start */
	int hw_owner;		/* inject vCPU whose deadline is in the MSR, or -1 */
	int nv;
	struct gvcpu v[3];
	uint64_t gap, dl_range;
	bool drain;
	/* stats */
	uint64_t exits, switches, starts_late_max, deliveries, races, drained, bound;
	uint64_t max_exit_overrun;
	char msg[512];
	bool failed;
};

static struct core C;

static uint64_t rnd64(void)
{
	C.rng ^= C.rng << 13;
	C.rng ^= C.rng >> 7;
	C.rng ^= C.rng << 17;
	return C.rng;
}

static uint64_t rnd(uint64_t lo, uint64_t hi)
{
	return lo + rnd64() % (hi - lo + 1);
}

static bool chance(unsigned pct)
{
	return rnd64() % 100 < pct;
}

__attribute__((format(printf, 1, 2)))
static void sim_fail(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (C.failed)
		return;
	C.failed = true;
	n = snprintf(C.msg, sizeof(C.msg), "seed %llu event %llu tsc %llu: ",
		     (unsigned long long)C.seed, (unsigned long long)C.events,
		     (unsigned long long)C.tsc);
	va_start(ap, fmt);
	vsnprintf(C.msg + n, sizeof(C.msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* ---- the hardware ---- */

static void hw_fire(void)
{
	/* none early: a guest deadline fires no earlier than the guest asked */
	if (C.hw_owner >= 0 && C.pdl != 1 && C.v[C.hw_owner].ref_dl &&
	    C.tsc < C.v[C.hw_owner].ref_dl) {
		C.failed = true;
		snprintf(C.msg, sizeof(C.msg), "seed %llu tsc %llu: vCPU %d's hardware deadline "
			 "fired early (MSR %llu, the guest's deadline %llu)",
			 (unsigned long long)C.seed, (unsigned long long)C.tsc, C.hw_owner,
			 (unsigned long long)C.pdl, (unsigned long long)C.v[C.hw_owner].ref_dl);
	}
	C.parmed = false;
	if (!C.bochs)
		C.pdl = 0;
	if (!C.plvt_masked)
		C.pirr = true;
}

/* Time passes; the physical deadline fires when the TSC reaches it. */
static void advance(uint64_t dt)
{
	C.tsc += dt;
	if (C.parmed && C.pdl <= C.tsc)
		hw_fire();
}

static void wr_deadline(uint64_t value)
{
	C.pdl = value;
	C.parmed = value != 0;
	advance(0);
}

static uint64_t rd_deadline(void)
{
	return C.pdl;	/* 0 once fired, except in Bochs */
}

static uint64_t pt_expiry(uint64_t load, uint32_t value, uint32_t rate)
{
	unsigned __int128 e;

	if (!value)
		return load;
	e = ((unsigned __int128)(load >> rate) + 1) << rate;
	e += (unsigned __int128)(value - 1) << rate;
	return e > UINT64_MAX ? UINT64_MAX : (uint64_t)e;
}

/* ---- the reference model ---- */

static void ref_expire(struct gvcpu *g, bool optional)
{
	g->ref_dl = 0;
	if (g->ref_masked)
		return;
	/* a second expiry before the first is taken may coalesce with it */
	if (optional || g->req_pend || g->opt_avail) {
		g->opt_avail++;
	} else {
		g->req_pend++;
		g->req_total++;
	}
}

/* Everything the reference says expired by @t. */
static void ref_advance(struct gvcpu *g, uint64_t t)
{
	if (g->ref_dl && g->ref_dl <= t)
		ref_expire(g, false);
}

static void ref_write(struct gvcpu *g, uint64_t value, uint64_t t)
{
	ref_advance(g, t);
	g->ref_dl = value;
	ref_advance(g, t);	/* one in the past fires at once */
}

static void ref_delivered(struct gvcpu *g, int i)
{
	ref_advance(g, C.tsc);
	g->delivered++;
	C.deliveries++;
	if (g->req_pend) {
		g->req_pend--;
	} else if (g->opt_avail) {
		g->opt_avail--;
	} else {
		sim_fail("vCPU %d: timer interrupt injected with no deadline expired (early or twice); "
		     "delivered %llu, expected %llu", i, (unsigned long long)g->delivered,
		     (unsigned long long)g->req_total);
	}
}

/* ---- the hypervisor (hv/exit/exit.c, hv/apic/deliver.c, hv/run/switch.c, hv/time/vcpu_timer.c) ---- */

static bool irr_has(const struct vlapic *l, uint8_t vec)
{
	return l->irr[vec / 32] & (1u << (vec % 32));
}

static void deliver_virtual(int i)
{
	struct gvcpu *g = &C.v[i];
	int vector;

	if (g->vt.mode != TIMER_INJECT)
		vtimer_check(&g->vt, C.tsc);
	vector = vlapic_pending(&g->vt.vlapic);
	if (vector >= 0 && g->gif) {
		if (vector != g->vec)
			sim_fail("vCPU %d: vector %d injected, the guest uses %u", i, vector, g->vec);
		vlapic_accept(&g->vt.vlapic, (uint8_t)vector);
		ref_delivered(g, i);
		vector = vlapic_pending(&g->vt.vlapic);
	}
	g->intr_window = vector >= 0;
}

static void program_lvt(int i)
{
	struct gvcpu *g = &C.v[i];

	C.plvt_masked = g->vt.mode == TIMER_INJECT ? vtimer_lvt_masked(&g->vt) : true;
}

/* vcpu_timer_arm + VM entry */
static void vm_entry(int i)
{
	struct gvcpu *g = &C.v[i];
	uint64_t due = host_timer_next(&C.ht);
	uint32_t value;

	if (g->vt.mode != TIMER_INJECT && vtimer_next(&g->vt) < due)
		due = vtimer_next(&g->vt);
	if (sched_window_end(&C.cs) < due)
		due = sched_window_end(&C.cs);
	value = ptimer_value(C.tsc, due, C.rate);
	/* Nothing the reference counts as expired may be missing when the
	 * tail has checked and injected (deliver_virtual ran at this TSC). */
	ref_advance(g, C.tsc);
	if (g->req_pend && !C.pirr && !irr_has(&g->vt.vlapic, g->vec) &&
	    !(g->vt.mode == TIMER_INJECT && C.parmed && C.pdl <= C.tsc))
		sim_fail("vCPU %d: %llu expired timer interrupt(s) lost (nothing pending anywhere)", i,
		     (unsigned long long)g->req_pend);
	if (!C.pirr && !irr_has(&g->vt.vlapic, g->vec))
		g->opt_avail = 0;	/* nothing in flight: what may have coalesced did */
	advance(ENTRY_LAT);
	C.pt_exp = pt_expiry(C.tsc, value, C.rate);
	C.running = i;
	if (C.win_planned != NEVER) {
		uint64_t late = C.tsc - C.win_planned;

		if (late > C.starts_late_max)
			C.starts_late_max = late;
		if (late > C.bound)
			sim_fail("window of vCPU %d entered %llu ticks after its planned start (bound %llu)",
			     i, (unsigned long long)late, (unsigned long long)C.bound);
		C.win_planned = NEVER;
	}
	if (g->next_action <= C.tsc)
		g->next_action = C.tsc + rnd(1, C.gap);
}

static void switch_out(int i)
{
	struct gvcpu *g = &C.v[i];

	advance(rnd(0, SWITCH_COST));
	if (g->vt.mode == TIMER_INJECT) {
		uint64_t before = C.tsc, d, now;

		advance(rnd(0, SAVE_RACE / 2));
		d = rd_deadline();
		advance(rnd(0, SAVE_RACE / 2));
		wr_deadline(0);
		C.hw_owner = -1;
		advance(rnd(0, 10));
		now = C.tsc;
		if (d && d > before && d <= now)
			C.races++;
		vtimer_save(&g->vt, d, before, now, C.pirr, !C.bochs);
		if (C.pirr) {	/* sti; nop; nop; cli */
			C.pirr = false;
			C.drained++;
			vtimer_hw_fired(&g->vt);
		}
	}
}

static void switch_in(int i)
{
	struct gvcpu *g = &C.v[i];

	advance(rnd(0, SWITCH_COST));
	if (!g->started) {
		g->started = true;	/* vcpu_vmcs_setup: timer_program_lvt, then the restore */
		program_lvt(i);
#ifndef TTS_REAL_FIRST_ENTRY
		/* as vcpu_vmcs_setup does; TTS_REAL_FIRST_ENTRY: as before it restored */
		if (g->vt.mode == TIMER_INJECT)
			wr_deadline(vtimer_restore(&g->vt));
#endif
		if (g->vt.mode == TIMER_INJECT)
			C.hw_owner = i;
	} else {
		program_lvt(i);
		if (g->vt.mode == TIMER_INJECT) {
			C.hw_owner = i;
			wr_deadline(vtimer_restore(&g->vt));	/* after the LVT */
		}
	}
	deliver_virtual(i);
	vm_entry(i);
}

static void note_window(void)
{
	/* the grid, independently: (t - start) mod frame */
	uint64_t off = (C.tsc - C.start0) % C.cs.frame_tsc, acc = 0;
	uint32_t k;

	for (k = 0; k < C.cs.count && off >= acc + C.cs.w[k].length_tsc; k++)
		acc += C.cs.w[k].length_tsc;
	if (k != C.cs.cur || C.tsc - off + acc != C.cs.cur_start)
		sim_fail("schedule off its grid: window %u planned at %llu, the reference says "
			 "window %u at %llu", C.cs.cur, (unsigned long long)C.cs.cur_start, k,
			 (unsigned long long)(C.tsc - off + acc));
	C.win_planned = C.cs.cur_start;
	C.switches++;
}

/* Root mode on the shared core until some vCPU is entered (shared_core_loop). */
static void sched_loop(void)
{
	for (;;) {
		int32_t slot;

		if (sched_advance(&C.cs, C.tsc))
			note_window();
		slot = sched_slot(&C.cs);
		if (slot >= 0) {
			switch_in(slot);
			return;
		}
		C.win_planned = NEVER;	/* an idle window starts when noticed */
		if (host_timer_next(&C.ht) <= C.tsc)
			host_timer_run(&C.ht, C.tsc);
		advance(POLL);
	}
}

/* An exit at or past the window's end (vcpu_switch_window). */
static void sched_switch(int i)
{
	if (sched_advance(&C.cs, C.tsc))
		note_window();
	if (sched_slot(&C.cs) == i) {
		C.win_planned = NEVER;
		deliver_virtual(i);
		vm_entry(i);
		return;
	}
	switch_out(i);
	sched_loop();
}

static void vm_exit(int i, enum exit_reason why, uint64_t value)
{
	struct gvcpu *g = &C.v[i];
	uint64_t t0 = C.tsc, now;

	C.exits++;
	C.events++;
	C.running = -1;
	if (t0 > sched_window_end(&C.cs) && t0 - sched_window_end(&C.cs) > C.max_exit_overrun)
		C.max_exit_overrun = t0 - sched_window_end(&C.cs);
	if (why == X_EXTINT)
		C.pirr = false;	/* acknowledged on exit */
	advance(EXIT_LAT);
	now = C.tsc;
	switch (why) {
	case X_PTIMER:
		host_timer_run(&C.ht, now);
		break;
	case X_EXTINT:
		vtimer_hw_fired(&g->vt);
		break;
	case X_WRMSR_DL:
		ref_write(g, value, now);
		vtimer_write_deadline(&g->vt, value, now);
		break;
	case X_LVT:
		/* an expiry between the WRMSR and now may be judged by either LVT */
		ref_advance(g, t0);
		if (g->ref_dl && g->ref_dl <= now)
			ref_expire(g, true);
		g->ref_masked = value & LVT_MASK;
		if (timer_mode_software(g->vt.mode))
			vtimer_check(&g->vt, now);
		vtimer_write_lvt(&g->vt, (uint32_t)value);
		program_lvt(i);
		break;
	case X_EOI:
		vlapic_eoi(&g->vt.vlapic);
		break;
	case X_WINDOW:
	case X_CPUID:
		break;
	}
	advance(rnd(0, HANDLER_MAX));
	if (C.tsc >= sched_window_end(&C.cs)) {
		sched_switch(i);
		return;
	}
	deliver_virtual(i);
	vm_entry(i);
}

/* ---- the guest ---- */

/* One guest action at C.tsc; true if it exited (the exit is handled). */
static bool guest_action(int i)
{
	struct gvcpu *g = &C.v[i];
	unsigned r = (unsigned)rnd(0, 99);

	C.events++;
	g->next_action = C.tsc + rnd(1, C.gap);
	if (C.drain) {
		if (vlapic_in_service(&g->vt.vlapic)) {
			vm_exit(i, X_EOI, 0);
			return true;
		}
		if (!g->gif) {
			g->gif = true;
			if (g->intr_window) {
				vm_exit(i, X_WINDOW, 0);
				return true;
			}
		}
		return false;
	}
	if (r < 30) {
		uint64_t value;

		if (chance(10))
			value = 0;
		else if (chance(15))	/* around the window end: the save's race */
			value = sched_window_end(&C.cs) + rnd(0, EXIT_COST);
		else if (chance(10))
			value = C.tsc > 200 ? C.tsc - rnd(0, 200) : 1;
		else
			value = C.tsc + rnd(1, C.dl_range);
		if (g->vt.mode == TIMER_INJECT) {
			/* not trapped: straight into the physical MSR */
			ref_write(g, value, C.tsc);
			wr_deadline(value);
			return false;
		}
		vm_exit(i, X_WRMSR_DL, value);
		return true;
	}
	if (r < 36 || (g->ref_masked && r < 45)) {
		uint32_t lvt = (2u << 17) | g->vec | (chance(25) ? LVT_MASK : 0);

		vm_exit(i, X_LVT, lvt);
		return true;
	}
	if (r < 60 && vlapic_in_service(&g->vt.vlapic)) {
		vm_exit(i, X_EOI, 0);
		return true;
	}
	if (r < 70) {
		g->gif = false;
		return false;
	}
	if (r < 85) {
		g->gif = true;
		if (g->intr_window) {
			vm_exit(i, X_WINDOW, 0);
			return true;
		}
		return false;
	}
	vm_exit(i, X_CPUID, 0);
	return true;
}

/* The running vCPU until its next exit. */
static void guest_step(void)
{
	int i = C.running;
	struct gvcpu *g = &C.v[i];

	for (;;) {
		uint64_t t_fire = NEVER, next;

		if (C.pirr) {
			vm_exit(i, X_EXTINT, 0);
			return;
		}
		if (C.parmed && !C.plvt_masked)
			t_fire = C.pdl > C.tsc ? C.pdl : C.tsc;
		next = C.pt_exp;
		if (t_fire < next)
			next = t_fire;
		if (g->next_action < next) {
			advance(g->next_action - C.tsc);
			if (guest_action(i))
				return;
			continue;
		}
		advance(next - C.tsc);
		if (C.pirr) {
			vm_exit(i, X_EXTINT, 0);
			return;
		}
		if (C.tsc >= C.pt_exp) {
			vm_exit(i, X_PTIMER, 0);
			return;
		}
	}
}

/* ---- the run ---- */

static void setup(uint64_t seed, uint64_t events)
{
	static const enum timer_mode modes[3] = { TIMER_INJECT, TIMER_EMULATED, TIMER_PV_LAZY };
	int32_t slots[SCHED_MAX_WINDOWS];
	uint64_t len[SCHED_MAX_WINDOWS];
	uint32_t n;

	memset(&C, 0, sizeof(C));
	C.seed = seed;
	C.rng = seed * 0x9e3779b97f4a7c15ull + 1;
	C.max_events = events;
	C.tsc = rnd(1000, 1ull << 40);
	C.rate = (uint32_t)rnd(0, 6);
	C.bochs = chance(30);
	C.nv = (int)rnd(2, 3);
	C.gap = rnd(50, 3000);
	C.dl_range = rnd(100, 40000);
	C.running = -1;
	C.hw_owner = -1;
	C.win_planned = NEVER;
	C.bound = EXIT_COST + (2ull << C.rate);
	for (int i = 0; i < C.nv; i++) {
		/* at least one inject and one software vCPU */
		enum timer_mode m = i == 0 ? TIMER_INJECT : i == 1 ? TIMER_EMULATED :
				    modes[rnd(0, 2)];

		vtimer_init(&C.v[i].vt, m);
		C.v[i].vec = (uint8_t)(0x30 + i * 0x10);
		/* the guest has put its LVT in TSC-deadline mode, still masked */
		vtimer_write_lvt(&C.v[i].vt, (2u << 17) | LVT_MASK | C.v[i].vec);
		C.v[i].gif = true;
		C.v[i].ref_masked = true;
	}
	n = (uint32_t)rnd((uint32_t)C.nv, 8);
	for (uint32_t k = 0; k < n; k++) {
		slots[k] = k < (uint32_t)C.nv ? (int32_t)k :
			   chance(30) ? SCHED_IDLE : (int32_t)rnd(0, (uint64_t)C.nv - 1);
		len[k] = rnd(C.bound + 100, 30000);
	}
	assert_true(sched_init(&C.cs, slots, len, n, C.tsc));
	C.start0 = C.tsc;
	host_timer_init(&C.ht, C.tsc, chance(20) ? 0 : rnd(C.bound + 100, 50000), 0);
}

static void run_one(uint64_t seed, uint64_t events)
{
	uint64_t drain_end = 0;

	setup(seed, events);
	C.win_planned = C.cs.cur_start;
	sched_loop();
	while (!C.failed) {
		if (!C.drain && C.events >= C.max_events) {
			uint64_t last = C.tsc;

			C.drain = true;
			for (int i = 0; i < C.nv; i++) {
				if (C.v[i].ref_dl > last)
					last = C.v[i].ref_dl;
				if (C.v[i].vt.deadline > last)
					last = C.v[i].vt.deadline;
			}
			if (C.pdl > last)
				last = C.pdl;
			drain_end = last + 4 * C.cs.frame_tsc;
		}
		if (C.drain && C.tsc >= drain_end)
			break;
		guest_step();
	}
	for (int i = 0; i < C.nv && !C.failed; i++) {
		struct gvcpu *g = &C.v[i];

		ref_advance(g, C.tsc);
		if (g->req_pend)
			sim_fail("vCPU %d (mode %d): %llu timer interrupt(s) lost after the drain "
			     "(delivered %llu of %llu required)", i, g->vt.mode,
			     (unsigned long long)g->req_pend, (unsigned long long)g->delivered,
			     (unsigned long long)g->req_total);
	}
	for (uint32_t k = 0; k < C.cs.count && !C.failed; k++) {
		if (C.cs.w[k].start_late_max_ticks > C.bound || C.cs.w[k].skipped)
			sim_fail("window %u: start late by up to %llu (bound %llu), %llu skipped", k,
			     (unsigned long long)C.cs.w[k].start_late_max_ticks,
			     (unsigned long long)C.bound, (unsigned long long)C.cs.w[k].skipped);
	}
	/*
	 * A tick that falls due during a switch waits for the next vCPU's first
	 * exit (sched_loop enters a runnable slot before it looks at the host
	 * timer, and an external-interrupt exit does not run it either): up to
	 * one more exit round trip than a window start.
	 */
	if (!C.failed && (C.ht.late_max_ticks > C.bound + TICK_EXTRA || C.ht.ticks_missed))
		sim_fail("host tick late by up to %llu (bound %llu), %llu missed",
		     (unsigned long long)C.ht.late_max_ticks, (unsigned long long)C.bound + TICK_EXTRA,
		     (unsigned long long)C.ht.ticks_missed);
	printf("  seed %llu: %d vCPUs (modes %d %d %d) rate %u bochs %d, %llu events, %llu exits, "
	       "%llu window switches, %llu ticks, %llu timer irqs (races %llu, drained %llu), "
	       "start late max %llu / tick late max %llu (bound %llu)\n",
	       (unsigned long long)seed, C.nv, C.v[0].vt.mode, C.v[1].vt.mode,
	       C.nv > 2 ? (int)C.v[2].vt.mode : -1, C.rate, C.bochs,
	       (unsigned long long)C.events, (unsigned long long)C.exits,
	       (unsigned long long)C.switches, (unsigned long long)C.ht.ticks,
	       (unsigned long long)C.deliveries, (unsigned long long)C.races,
	       (unsigned long long)C.drained, (unsigned long long)C.starts_late_max,
	       (unsigned long long)C.ht.late_max_ticks, (unsigned long long)C.bound);
	if (C.failed)
		fail_msg("%s", C.msg);
}

static void test_random_schedules(void **state)
{
	const char *env = getenv("TIMER_SCHED_SEED");
	uint64_t total = 0;

	(void)state;
	if (env) {
		run_one(strtoull(env, NULL, 0), 300000);
		return;
	}
	for (uint64_t seed = 1; seed <= 8; seed++) {
		run_one(seed, 150000);
		total += C.events;
	}
	printf("  %llu events in all\n", (unsigned long long)total);
	assert_true(total >= 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_schedules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
