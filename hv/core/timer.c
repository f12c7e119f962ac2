// SPDX-License-Identifier: MIT
/*
 * The per-core timer state machine (DESIGN.md, "Per-core timer state
 * machine"): the VMX-preemption timer value, the host's tick and watchdog,
 * and one vCPU's TSC-deadline timer in the direct, inject and emulated modes.
 * Pure C, no hardware access: tests/unit/test_timer.c drives it with a
 * simulated CPU and checks it against a simpler reference model.
 */
#include "hv/core/timer.h"

#include "hv/lib/lib.h"

#define LVT_MASKED	(1u << 16)	/* SDM Vol. 3A 11.5.1, figure 11-8 */
#define LVT_TIMER_MODE	(3u << 17)	/* 00 one-shot, 01 periodic, 10 TSC-deadline */
#define LVT_TSC_DEADLINE (2u << 17)

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- the software deadline's advance ---- */

void timer_advance_init(struct timer_advance *a, uint64_t tsc_hz)
{
	memset(a, 0, sizeof(*a));
	a->spin_tsc = tsc_hz / 1000000 * TIMER_ADVANCE_SPIN_NS / 1000;
	a->max_tsc = tsc_hz / 1000000 * TIMER_ADVANCE_MAX_NS / 1000;
}

void timer_advance_learn(struct timer_advance *a, int64_t ready_before)
{
	int64_t step = ((int64_t)a->spin_tsc - ready_before) / 4;

	a->learned++;
	if (step < 0 && (uint64_t)-step >= a->tsc)
		a->tsc = 0;
	else if (step > 0 && a->tsc + (uint64_t)step > a->max_tsc)
		a->tsc = a->max_tsc;
	else
		a->tsc = (uint64_t)((int64_t)a->tsc + step);
}

/* ---- host events on one core ---- */

static uint64_t watchdog_due(const struct host_timer *h)
{
	if (!h->watchdog_tsc)
		return TIMER_NO_EVENT;
	return add_sat(h->last_exit, h->watchdog_tsc);
}

void host_timer_init(struct host_timer *h, uint64_t now, uint64_t period_tsc,
		     uint64_t watchdog_tsc)
{
	memset(h, 0, sizeof(*h));
	h->period_tsc = period_tsc;
	/* A first tick beyond the TSC's range is no tick at all. */
	h->next_tick = period_tsc ? add_sat(now, period_tsc) : TIMER_NO_EVENT;
	h->fire_tick = h->next_tick;
	h->last_grid = now;
	h->watchdog_tsc = watchdog_tsc;
	h->last_exit = now;
}

/*
 * The watchdog counts a vCPU that ran watchdog_tsc ticks without an exit; the
 * preemption timer, armed for it by host_timer_next(), forces that exit. So
 * call this before recording the exit at hand in last_exit (else it is never
 * due); a fire re-arms it from @now, so it fires once per allowance and not on
 * every entry until the next exit.
 *
 * The tick stays on its grid (first tick + n * period: no drift). When @now
 * is past several due times, one tick is handled, late by now - (the first
 * due time missed), and the others count in ticks_missed; the next tick is
 * the first grid point strictly after @now.
 */
bool host_timer_run(struct host_timer *h, uint64_t now)
{
	uint64_t late, skipped;

	if (h->watchdog_tsc && now >= h->last_exit &&
	    now - h->last_exit >= h->watchdog_tsc) {
		h->watchdog_fired++;
		h->last_exit = now;
	}

	if (!h->period_tsc || h->next_tick == TIMER_NO_EVENT || now < h->fire_tick)
		return false;

	h->last_grid = h->next_tick;
	late = now - h->next_tick;
	skipped = late / h->period_tsc;
	h->ticks++;
	h->ticks_missed += skipped;
	h->late_sum_ticks += late;
	if (late > h->late_max_ticks)
		h->late_max_ticks = late;
	/* skipped * period <= late, so this sum is <= now: no overflow. */
	h->next_tick += skipped * h->period_tsc;
	h->next_tick = add_sat(h->next_tick, h->period_tsc);
	h->fire_tick = h->next_tick;
	h->deferred_this = false;
	return true;
}

/*
 * In direct mode a guest fire that lands while the core is in a
 * host-tick exit waits for the VM entry (with IF=0 in root mode it stays in
 * the physical IRR). A tick placed four margins before the guest's
 * deadline is over before it fires; one at the slack's end, when that does
 * not fit, comes well after the guest's work after its interrupt. The grid
 * does not move (next_tick), and the offset never exceeds the slack, so a
 * tick is at most slack + one exit late and never missed (slack < period).
 */
/*
 * A tick's exit defers past a guest deadline up to two margins ahead (the
 * tick's own exit can be longer than one margin: Bochs counts ~600
 * instructions for it); a tick placed before a deadline comes four margins
 * before it, a margin past the end of the exit stub's step-aside window
 * (below), whose three margins after the placed time hold the tick's whole
 * exit (some 1,400 Bochs instructions from its due time): the stub lets it
 * through, and it is over before the deadline, even one that comes a margin
 * early of the placement's guess (Linux's does: a step past it would land
 * in its wake-up).
 */
#define TICK_DEFER_WINDOW(m)	(2 * (m))
#define TICK_BEFORE(m)		(4 * (m))
/*
 * A placed tick keeps that window and a margin of its slack free for the
 * deferral at its exit: a fired deadline moves it to now + margin, an armed
 * one to at most now + 3 margins, where now is the placed time plus the
 * exit's delay and prologue. So a fired deadline's deferral fits while that
 * delay is under two margins, and an armed one whenever the deadline is
 * under a margin ahead, the case where it would meet the tick's exit; at
 * the slack's very end, with no room, either would meet the whole tick.
 */
/*
 * The exit stub's step-aside (below): its window, from two margins before
 * the exit (a guest that took its interrupt then is still in its handler)
 * to three after; a step is D's place in it, so at most its length.
 */
#define TICK_ASIDE_BEFORE(m)	(2 * (m))
#define TICK_ASIDE_SPAN(m)	(TICK_ASIDE_BEFORE(m) + TICK_BEFORE(m) - (m))
#define TICK_ASIDE_STEP(m)	TICK_ASIDE_SPAN(m)
/*
 * What a step may overrun: its own exit and entry and the timer's
 * granularity (Bochs: ~35 ticks; hardware: a µs or two, against a margin of
 * 10 µs). The plan counts it, so the steps end by the slack's end.
 */
#define TICK_ASIDE_DRIFT(m)	(m)
#define TICK_ASIDE_MAX		255u		/* more than a slack under a period holds */
#define TICK_ASIDE_REACH	(1ull << 31)	/* its windows are 32-bit */
/* ... and a step of the exit stub's step-aside, at its longest, with a margin to spare */
#define TICK_DEFER_ROOM(m)	(TICK_ASIDE_STEP(m) + TICK_ASIDE_DRIFT(m))

/*
 * host_tick_offset's phase lock guesses the guest's deadline a tick period
 * on from the one read now. A guest whose deadline came within two margins
 * of the last guess keeps it (a periodic one re-armed from its handler
 * drifts a little each period; Linux's comes up to a margin early); one
 * that missed it (random intervals) gets no guess: its ticks are placed by
 * the deadline read alone, mostly on the grid. A random guest's guess is
 * the deadline read at the last tick's final exit, after its steps, a
 * period on: each placed time came after the last one's, creeping toward
 * the slack's end, where the stub had room for one step and then ran the
 * tick (make run's rt-direct: ticks placed 6,500-9,500 ticks past their
 * grid time, the guest's deadline 300-1,400 ticks into the tick's exit).
 */
#define TICK_PHASE_TOLERANCE(m)	(2 * (m))

/* The offset from @grid that puts a tick four margins before @deadline, if the slack holds it. */
static bool tick_before(uint64_t grid, uint64_t slack_tsc, uint64_t deadline, uint64_t margin_tsc,
			uint64_t *off)
{
	if (deadline < add_sat(grid, TICK_BEFORE(margin_tsc)) ||
	    deadline - TICK_BEFORE(margin_tsc) - grid > slack_tsc)
		return false;
	*off = deadline - TICK_BEFORE(margin_tsc) - grid;
	return true;
}

/*
 * Is @deadline too close to @grid for that: under four margins after it,
 * or less than the slack less four margins before it? On the grid, or just
 * after the deadline, the tick would land in what the guest does after its
 * interrupt (Linux's wake-up is some 3,500 Bochs instructions, 7 margins);
 * at the slack's end it is at least the slack less four margins after the
 * deadline. A slack of four margins or less has no such end: the grid.
 */
static bool tick_after(uint64_t grid, uint64_t slack_tsc, uint64_t deadline, uint64_t margin_tsc)
{
	uint64_t after;

	if (slack_tsc <= TICK_BEFORE(margin_tsc))
		return false;
	after = slack_tsc - TICK_BEFORE(margin_tsc);
	return add_sat(deadline, after) > grid && deadline < add_sat(grid, TICK_BEFORE(margin_tsc));
}

/*
 * Before the deadline, out of host_timer_defer's window and a margin more:
 * the tick's exit is over before the guest's timer fires, and the guest's
 * work after its interrupt (a wake-up, a control loop's step: longer than a
 * margin) runs undisturbed. Against the deadline read, else against the
 * phase lock's guess: the guest's deadline a tick period on (a guest that
 * re-arms from its handler runs a little late of it every period; an early
 * guess only widens the gap before it). Only where neither fits, the
 * slack's end (tick_after). Both "before" rules go first: with a slack over
 * about half a period the slack's end for the deadline read can fall on the
 * guessed one (an outside review's case: period 50,000, slack 27,000 after
 * the room, deadline 25,250 past the grid: 23,250 before the guess, not
 * 27,000, which lands 1,750 into the next deadline's work).
 */
static uint64_t tick_offset(uint64_t grid_this, uint64_t grid_next, uint64_t slack_tsc,
			    uint64_t deadline, uint64_t margin_tsc)
{
	uint64_t off;

	if (tick_before(grid_next, slack_tsc, deadline, margin_tsc, &off) ||
	    tick_before(grid_this, slack_tsc, deadline, margin_tsc, &off))
		return off;
	if (tick_after(grid_next, slack_tsc, deadline, margin_tsc) ||
	    tick_after(grid_this, slack_tsc, deadline, margin_tsc))
		return slack_tsc;
	return 0;
}

uint64_t host_tick_offset(uint64_t grid_this, uint64_t grid_next, uint64_t slack_tsc,
			  uint64_t deadline, uint64_t margin_tsc)
{
	uint64_t off;

	if (!slack_tsc || !deadline || grid_next == TIMER_NO_EVENT || grid_next < grid_this)
		return 0;
	off = tick_offset(grid_this, grid_next, slack_tsc, deadline, margin_tsc);
	/* a tick placed at the TSC's end would be no tick at all */
	return add_sat(grid_next, off) == TIMER_NO_EVENT ? 0 : off;
}

bool host_tick_phase_locked(uint64_t guess, uint64_t deadline, uint64_t margin_tsc)
{
	if (!guess || !deadline)
		return true;
	return deadline < guess ? guess - deadline <= TICK_PHASE_TOLERANCE(margin_tsc) :
				  deadline - guess <= TICK_PHASE_TOLERANCE(margin_tsc);
}

void host_timer_place(struct host_timer *h, uint64_t deadline, uint64_t margin_tsc)
{
	uint64_t off, slack;
	bool locked;

	if (!h->period_tsc || h->next_tick == TIMER_NO_EVENT)
		return;
	slack = MIN(h->slack_tsc, h->period_tsc - 1);
	slack = slack > TICK_DEFER_ROOM(margin_tsc) ? slack - TICK_DEFER_ROOM(margin_tsc) : 0;
	locked = host_tick_phase_locked(h->phase_guess, deadline, margin_tsc);
	h->phase_guess = deadline ? add_sat(deadline, h->next_tick - h->last_grid) : 0;
	/* grid_this = grid_next: the deadline read alone, no guess */
	off = host_tick_offset(locked ? h->last_grid : h->next_tick, h->next_tick, slack, deadline,
			       margin_tsc);
	h->fire_tick = h->next_tick + off;
	if (off > h->offset_max)
		h->offset_max = off;
}

/*
 * The placement above guesses from one deadline a tick earlier; a guest
 * whose period only nearly divides the tick's (rtbench re-arms from its
 * handler, so each period is a little longer) or is random lands near the
 * tick anyway. Its deadline, read at the tick's own exit, says so for sure.
 */
bool host_timer_defer(struct host_timer *h, uint64_t now, uint64_t deadline, bool fired,
		      uint64_t margin_tsc)
{
	uint64_t target, limit;
	bool near = deadline > now && deadline - now <= TICK_DEFER_WINDOW(margin_tsc);

	/* the usual answer first, and at once: most ticks find the deadline far (every tick's exit) */
	if (!near && !fired)
		return false;
	if (!h->slack_tsc || !h->period_tsc || h->next_tick == TIMER_NO_EVENT ||
	    h->deferred_this || now < h->fire_tick)
		return false;
	/* near: about to fire; else fired, in this exit's first instructions */
	target = add_sat(near ? deadline : now, margin_tsc);
	limit = add_sat(h->next_tick, MIN(h->slack_tsc, h->period_tsc - 1));
	if (target > limit || target == TIMER_NO_EVENT)
		return false;
	h->fire_tick = target;
	h->deferred_this = true;
	h->deferred++;
	if (target - h->next_tick > h->offset_max)
		h->offset_max = target - h->next_tick;
	return true;
}

/*
 * The exit stub's step-aside (arch/x86/vmx.h struct vmx_tick_aside) does
 * host_timer_defer's work at a fraction of its length: the deferral exit
 * itself is what a deadline that falls in it waits for. Its window runs
 * from two margins before the exit (a guest that took its interrupt then
 * is still in its handler) to three after (the tick's whole exit: some
 * 1,400 Bochs instructions from its due time, 600 of them before the TSC
 * is read in hv); each step moves the tick to two margins past the
 * deadline D in the window (its place in it, x = D - the exit's time + two
 * margins: at most the window's length), where it has been taken and its
 * handler entered, and not further: the guest's next deadline, armed after
 * D, is then as far from the moved tick as its interval allows (a fixed
 * step to the window's end and two margins more left the next deadline in
 * the next window more often than not, and the steps ran out). The window
 * is the exit's own time's, as the exit stored it (Bochs takes a
 * preemption-timer exit up to ~1,000 instructions after its due time).
 * Steps end within the slack and before the watchdog is due, each counted
 * at its longest (the window and a drift: the plan's step); at an exit
 * before the last step's (the guest's own, or a kick's) hv takes the tick
 * as due when that step's timer runs out, at most its value from then and
 * never past that bound (tick_aside_fold). They may follow
 * host_timer_defer's and each other's (the plan is made afresh for each
 * placed time), since the deadline they judge is the one armed now.
 */

bool host_timer_aside_plan(const struct host_timer *h, uint64_t margin_tsc,
			   struct tick_aside_plan *p)
{
	uint64_t end, room, stride = TICK_ASIDE_STEP(margin_tsc) + TICK_ASIDE_DRIFT(margin_tsc);

	/*
	 * Only steps says whether there is a plan: made at every placed time,
	 * on the tick's exit path, it writes no more than it must (a memset of
	 * the plan was some 160 of the exit's instructions).
	 */
	p->steps = 0;
	if (!h->slack_tsc || !h->period_tsc || h->next_tick == TIMER_NO_EVENT || !margin_tsc ||
	    margin_tsc >= TICK_ASIDE_REACH / 8 || h->fire_tick < TICK_ASIDE_BEFORE(margin_tsc))
		return false;
	end = MIN(add_sat(h->next_tick, MIN(h->slack_tsc, h->period_tsc - 1)), watchdog_due(h));
	if (end <= h->fire_tick)
		return false;
	room = end - h->fire_tick;
	if (room >= TICK_ASIDE_REACH || room < stride)
		return false;
	/* both under 2^31 (TICK_ASIDE_REACH, a margin under 2^28): a 32-bit division */
	p->steps = MIN((uint32_t)room / (uint32_t)stride, TICK_ASIDE_MAX);
	p->span = TICK_ASIDE_SPAN(margin_tsc);
	p->step = stride;
	p->bias = (uint32_t)TICK_ASIDE_BEFORE(margin_tsc);
	/* the stub counts its steps from here, one each: the last carries out of 32 bits */
	p->lo0 = 0u - p->steps;
	return true;
}

uint32_t host_timer_aside_steps_taken(const struct tick_aside_plan *p, uint64_t word)
{
	uint32_t lo_now = (uint32_t)word;
	/* past the last step lo has wrapped to 0, below lo0 */
	uint64_t moved = ((uint64_t)(lo_now < p->lo0) << 32 | lo_now) - p->lo0;

	return (uint32_t)MIN(moved, (uint64_t)p->steps);
}

uint64_t host_timer_aside_due(const struct tick_aside_plan *p, uint64_t tick, uint32_t taken,
			      uint64_t now, bool aimed, uint64_t left)
{
	uint64_t bound = add_sat(tick, (uint64_t)MIN(taken, p->steps) * p->step);

	if (!taken)
		return tick;
	return MIN(aimed ? now : add_sat(now, left), bound);
}

void host_timer_aside_taken(struct host_timer *h, uint32_t steps, uint64_t due)
{
	if (!steps)
		return;
	h->fire_tick = MAX(due, h->next_tick);	/* a step only ever moves it later */
	h->deferred += steps;
	if (h->fire_tick > h->next_tick && h->fire_tick - h->next_tick > h->offset_max)
		h->offset_max = h->fire_tick - h->next_tick;
}

bool host_timer_stub_plan(const struct host_timer *h, struct stub_tick_plan *p)
{
	uint64_t next, far;

	if (!h->slack_tsc || !h->period_tsc || h->next_tick == TIMER_NO_EVENT ||
	    h->fire_tick == TIMER_NO_EVENT || h->fire_tick < h->next_tick ||
	    h->fire_tick - h->next_tick >= h->period_tsc)
		return false;
	next = add_sat(h->next_tick, h->period_tsc);
	far = add_sat(next, h->period_tsc);
	/*
	 * The stub takes a tick before next only, and each later one within
	 * two periods of the last: the watchdog (counted from the vCPU's last
	 * exit) is never due at one of them, as host_timer_run would find.
	 */
	if (h->watchdog_tsc && (h->watchdog_tsc / 2 < h->period_tsc ||
				add_sat(h->last_exit, h->watchdog_tsc) < next))
		return false;
	/* the stub adds periods without a check: leave it a long way from the TSC's end */
	if (far >= UINT64_MAX / 2)
		return false;
	p->due = h->fire_tick;
	p->next = next;
	p->far = far;
	p->period = h->period_tsc;
	return true;
}

void host_timer_stub_taken(struct host_timer *h, uint32_t n, uint64_t due, uint64_t late_sum,
			   uint64_t late_max, uint64_t last_now, uint64_t last_d)
{
	if (!n || !h->period_tsc || due < h->period_tsc)
		return;
	h->ticks += n;
	h->stub_ticks += n;
	h->late_sum_ticks += late_sum;
	if (late_max > h->late_max_ticks)
		h->late_max_ticks = late_max;
	h->next_tick = due;
	h->fire_tick = due;
	h->last_grid = due - h->period_tsc;
	h->deferred_this = false;
	h->phase_guess = last_d ? add_sat(last_d, h->period_tsc) : 0;
	if (h->watchdog_tsc)
		h->last_exit = last_now;
}

/* ---- one vCPU's view of its timer ---- */

void vtimer_init(struct vtimer *t, enum timer_mode mode)
{
	memset(t, 0, sizeof(*t));
	t->mode = mode;
	/*
	 * The LVT resets masked (SDM 11.5.1). Nothing is in the hardware until
	 * the first entry, which is an entry after a long stay (vtimer_restore).
	 */
	t->lvt = LVT_MASKED;
	vlapic_init(&t->vlapic);
	lapic_timer_init(&t->countdown, 0);
}

/*
 * SDM Vol. 3A 11.5.4.1: a write to the LVT timer register that changes the
 * timer mode disarms the timer (IA32_TSC_DEADLINE becomes 0). Direct and
 * inject mode: the physical LVT takes the guest's mode and the LAPIC does it
 * (t->deadline is 0 while the deadline is in the hardware); emulated and
 * pv-lazy: here.
 */
void vtimer_write_lvt(struct vtimer *t, uint32_t lvt)
{
	if ((lvt ^ t->lvt) & LVT_TIMER_MODE)
		t->deadline = 0;
	t->lvt = lvt;
	lapic_timer_set_mode(&t->countdown, lapic_timer_mode_of(lvt));
}

/* SDM 11.5.4.1: only in TSC-deadline mode does IA32_TSC_DEADLINE arm anything. */
static bool vtimer_tsc_deadline_mode(const struct vtimer *t)
{
	return (t->lvt & LVT_TIMER_MODE) == LVT_TSC_DEADLINE;
}

bool vtimer_lvt_masked(const struct vtimer *t)
{
	return t->lvt & LVT_MASKED;
}

/*
 * The guest's deadline expired. As in hardware, an expiry with the LVT
 * masked is lost (and so is one with an illegal vector, below 16, which the
 * LAPIC refuses: SDM 11.5.3). In direct mode the vector must reach the
 * physical APIC, which only vtimer_restore can do: keep it pending.
 */
static void vtimer_fire(struct vtimer *t, bool while_out)
{
	t->stats.fired++;
	if (vtimer_lvt_masked(t) || vtimer_vector(t) < 16) {
		t->stats.dropped_masked++;
		return;
	}
	if (t->mode == TIMER_DIRECT) {
		t->fired_pending = true;
		return;
	}
	vlapic_raise(&t->vlapic, vtimer_vector(t));
	t->stats.injected++;
	if (while_out)
		t->stats.from_pending++;
}

/*
 * Emulated mode, and a deadline saved by vtimer_save. The old deadline, if
 * already due at @now, expired before this write (the write came after it)
 * and fires first: a rewrite before expiry replaces it, one after does not
 * lose it. The window between the WRMSR and @now (the exit's latency) is the
 * instruction's own execution time to the guest: an old deadline falling in
 * it may fire or not, as one falling inside a real WRMSR would. A new
 * deadline at or before @now fires at once (SDM 11.5.4.1: the timer fires
 * when the TSC is at or past the target); 0 disarms. Outside TSC-deadline
 * mode the write is ignored (SDM 11.5.4.1), and nothing can be armed then.
 */
void vtimer_write_deadline(struct vtimer *t, uint64_t value, uint64_t now)
{
	if (!vtimer_tsc_deadline_mode(t))
		return;
	t->stats.programmed++;
	vtimer_check(t, now);
	t->deadline = value;
	vtimer_check(t, now);
}

/*
 * pv-lazy: a deadline the guest published on the page without trapping,
 * read at an exit (@now). The guest skipped the trap because the exit armed
 * for the old deadline D1 came no later than the new one; but that exit
 * comes after D1 (up to the entry path's length: the preemption timer was
 * loaded after its RDTSC), so the guest may have published after D1
 * expired. On hardware D1 has then fired; the page does not say when the
 * guest wrote it, so a D1 already due at @now fires before it is replaced,
 * as in a trapped write. A D1 postponed in time but read only at or after
 * it therefore gives an extra interrupt (the guest tells it from its own
 * deadline by the TSC, as a guest must on hardware for a deadline it moves
 * just as it expires); dropping it would lose the interrupt of one that
 * expired first. One read before D1 is replaced and never fires.
 */
void vtimer_replace_deadline(struct vtimer *t, uint64_t value, uint64_t now)
{
	if (!vtimer_tsc_deadline_mode(t))
		return;	/* as a trapped write outside TSC-deadline mode */
	t->stats.programmed++;
	vtimer_check(t, now);
	t->deadline = value;
	vtimer_check(t, now);
}

/*
 * What RDMSR IA32_TSC_DEADLINE returns: 0 once fired, when disarmed, and
 * always outside TSC-deadline mode (SDM 11.5.4.1).
 */
uint64_t vtimer_read_deadline(const struct vtimer *t)
{
	return vtimer_tsc_deadline_mode(t) ? t->deadline : 0;
}

/* In direct mode the count-down timer is the physical LAPIC's, not this one. */
static bool countdown_virtual(const struct vtimer *t)
{
	return t->mode != TIMER_DIRECT;
}

/*
 * The count-down timer's expiries up to @now: one interrupt, however many
 * passed (lapic_timer.h), judged by the LVT in force (LVT writes check
 * first).
 */
static bool countdown_check(struct vtimer *t, uint64_t now)
{
	if (!countdown_virtual(t) || !lapic_timer_expire(&t->countdown, now))
		return false;
	vtimer_fire(t, false);
	return true;
}

void vtimer_expire_soft(struct vtimer *t)
{
	t->deadline = 0;
	vtimer_fire(t, false);
}

bool vtimer_check(struct vtimer *t, uint64_t now)
{
	bool fired = countdown_check(t, now);

	if (!t->deadline || now < t->deadline)
		return fired;
	t->deadline = 0;
	vtimer_fire(t, !timer_mode_software(t->mode));
	return true;
}

/*
 * Inject mode (and emulated mode, for a fire left in the physical IRR by
 * inject mode before a switch): the hypervisor's vector arrived, meaning the
 * guest's hardware deadline expired. The guest's LVT is judged now. LVT
 * writes trap, so the only one that can fall between the expiry and this
 * exit is one whose exit was being handled when the timer fired: to the guest
 * that WRMSR was still executing, and either value is right. Taken while
 * out (after vtimer_save, by a caller that lets its own vector in), it is the
 * fire the save found on its way: nothing is left to re-fire or wait for. In
 * direct mode the physical APIC has delivered it already.
 */
void vtimer_hw_fired(struct vtimer *t)
{
	if (t->mode == TIMER_DIRECT)
		return;
	if (!t->in_hw) {
		t->hw_firing = false;
		t->hw_refire = false;
	}
	vtimer_fire(t, false);
}


void vtimer_write_tmict(struct vtimer *t, uint32_t count, uint64_t now)
{
	countdown_check(t, now);
	lapic_timer_write_tmict(&t->countdown, count, now);
}

uint32_t vtimer_read_tmict(const struct vtimer *t)
{
	return lapic_timer_read_tmict(&t->countdown);
}

uint32_t vtimer_read_tmcct(const struct vtimer *t, uint64_t now)
{
	return lapic_timer_read_tmcct(&t->countdown, now);
}

void vtimer_write_tdcr(struct vtimer *t, uint32_t value, uint64_t now)
{
	countdown_check(t, now);
	lapic_timer_write_tdcr(&t->countdown, value, now);
}

uint32_t vtimer_read_tdcr(const struct vtimer *t)
{
	return lapic_timer_read_tdcr(&t->countdown);
}

/*
 * DESIGN.md, "Leaving the guest for a long stay": before <= RDMSR (D) <=
 * WRMSR 0 <= now, then the physical IRR was read for the timer's vector
 * (@vec_in_irr). SDM Vol. 3A 11.5.4.1: the CPU clears IA32_TSC_DEADLINE
 * when the timer fires, and writing 0 disarms it, cancelling a fire that has
 * not happened yet; with IF=0 in root mode a fire that did happen waits in
 * the IRR. Bochs never clears the MSR (EMULATORS.md): there a non-zero D at
 * or below the TSC may have fired long ago. So:
 *  - D > now: the TSC had not reached D at the disarm: never fired; saved.
 *  - the vector is in the IRR: the fire is there (or coalesces with one
 *    already there, which the guest has not taken: on hardware it would
 *    coalesce too). Direct mode: the physical APIC delivers it after the
 *    entry. Inject mode: the caller takes it in a short STI window and calls
 *    vtimer_hw_fired, or the next entry exits for it. Never re-armed;
 *    hw_firing holds mode switches off (the vector is in the physical APIC,
 *    where the new mode would not look) until then.
 *  - otherwise D <= now with nothing in the IRR: it did not fire before the
 *    WRMSR of 0, which cancelled it, unless it fired long before and was
 *    handled. On a CPU that clears the MSR on fire (@clears_on_fire) a
 *    non-zero D proves the former; in Bochs D > before does (the guest has
 *    not run since @before, so a fire after it would be in the IRR).
 *    Cancelled: vtimer_restore fires it again (hw_refire); hw_firing
 *    because a fire already decided inside the APIC may still land in the
 *    IRR, where the second fire coalesces with it. Bochs with D <= before:
 *    it fired while the guest ran and was taken: nothing to do.
 * "D <= before means fired, never re-armed" loses the fire the WRMSR of 0
 * cancelled on hardware (tests/unit/timer_sim.c models that CPU).
 * Called twice (no entry between), the second call would read the 0 the
 * first one wrote: it changes nothing.
 */
void vtimer_save(struct vtimer *t, uint64_t msr_value, uint64_t before, uint64_t now,
		 bool vec_in_irr, bool clears_on_fire)
{
	if (timer_mode_software(t->mode) || !t->in_hw)
		return;
	t->in_hw = false;
	t->deadline = 0;
	if (msr_value > now) {
		t->deadline = msr_value;
		t->stats.programmed++;
	}
	if (vec_in_irr) {
		t->hw_firing = true;
		return;
	}
	if (!msr_value || msr_value > now)
		return;
	if (clears_on_fire || msr_value > before) {
		t->hw_firing = true;
		t->hw_refire = true;
	}
}

/*
 * DESIGN.md, "Entering the guest". A deadline that expired while out in
 * direct mode (fired_pending), or one the save could not tell (hw_refire),
 * comes back as 1: any target at or below the TSC fires at once, through the
 * LVT the caller wrote first. Neither coexists with a saved deadline: each
 * comes from the one deadline the save found, and the guest has not run
 * since to write another. Returns 0 (write nothing) in emulated mode or when
 * the deadline is already in the hardware.
 */
uint64_t vtimer_restore(struct vtimer *t)
{
	uint64_t value;

	if (timer_mode_software(t->mode) || t->in_hw)
		return 0;
	t->in_hw = true;
	t->hw_firing = false;
	value = t->deadline;
	t->deadline = 0;
	if (t->fired_pending || t->hw_refire) {
		if (t->fired_pending)
			t->stats.from_pending++;
		t->fired_pending = false;
		t->hw_refire = false;
		value = 1;
	}
	return value;
}

/*
 * Refused (false, nothing changed) while a virtual interrupt is in service
 * (DESIGN.md); while the deadline is still in the hardware (vtimer_save
 * first); while the last save found it fired or firing (hw_firing: its
 * vector, the guest's or the hypervisor's, is on its way through the
 * physical APIC, where the new mode would not look for it; after the next
 * entry it has arrived); and into direct mode while the vlapic holds a
 * pending vector (only the physical APIC could deliver it there, and it
 * cannot be moved into it) or while the count-down timer is armed, even
 * expired and not yet checked (in direct mode the count-down is the physical
 * LAPIC's, and this one would never fire). The caller's part: leaving direct mode, the
 * physical APIC holds none of the guest's vectors in its ISR or IRR (a guest
 * that never EOIs keeps its mode); entering it, the hypervisor's vector is not
 * pending in the physical IRR (root mode takes no interrupt: wait for the
 * external-interrupt exit); and it moves the guest's TPR between the physical
 * APIC and the vlapic.
 */
bool vtimer_switch_mode(struct vtimer *t, enum timer_mode mode, uint64_t now)
{
	if (mode == t->mode)
		return true;
	if ((unsigned int)mode >= TIMER_MODE_COUNT)
		return false;
	if (vlapic_in_service(&t->vlapic) || t->in_hw || t->hw_firing)
		return false;
	if (mode == TIMER_DIRECT && vlapic_highest_irr(&t->vlapic) >= 0)
		return false;
	if (mode == TIMER_DIRECT && lapic_timer_next(&t->countdown) != LAPIC_TIMER_IDLE)
		return false;
	if (t->fired_pending) {
		/* Judged (unmasked) when it fired; the guest has not run since. */
		t->fired_pending = false;
		vlapic_raise(&t->vlapic, vtimer_vector(t));
		t->stats.injected++;
		t->stats.from_pending++;
	}
	t->mode = mode;
	t->stats.mode_switches++;
	vtimer_check(t, now);
	return true;
}
