/* SPDX-License-Identifier: MIT */
/*
 * The per-core timer state machine (DESIGN.md, "Per-core timer state
 * machine"). Pure C: no hardware access. The VMX side (the exit handlers,
 * hv/time/vcpu_timer.c, hv/run/switch.c) feeds it what happened and does what it
 * returns; the unit tests drive it with a simulated CPU and check it against
 * a simpler reference model.
 *
 * Time is the TSC (the guest's TSC is the host's: offset 0).
 */
#ifndef TEMPO_HV_TIMER_H
#define TEMPO_HV_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/lapic_timer.h"
#include "hv/core/timer_modes.h"
#include "hv/core/vlapic.h"

#define TIMER_NO_EVENT	UINT64_MAX

/* emulated and pv-lazy keep the guest's deadline in software (trapped writes) */
static inline bool timer_mode_software(enum timer_mode m)
{
	return timer_mode(m)->soft_deadline;
}

/* ---- the VMX-preemption timer (SDM Vol. 3C 26.5.1) ---- */

#define PTIMER_MAX	0xffffffffu	/* the timer is a 32-bit VMCS field */

/*
 * The value to load so the timer expires no earlier than @due: it counts
 * down by 1 every 2^@rate TSC ticks (rate = IA32_VMX_MISC[4:0], 0..31), so
 * value = ceil((due - now - 1) / 2^rate) + 1, clamped to 32 bits; 0 when due
 * is at or before now (exit at once). A clamped or rounded value may still
 * expire before @due: exit 52 compares the TSC with what is due.
 */
/*
 * Why: the timer (SDM Vol. 3C 26.5.1) counts down by 1 each time bit X = @rate of
 * the TSC changes; it is loaded at VM entry at some TSC L. Bit X changes at
 * every multiple of 2^X, so the first decrement comes at the first multiple
 * of 2^X above L, which is anywhere in [L + 1, L + 2^X], and the value v
 * reaches 0 (VM exit) at
 *
 *	E = (floor(L / 2^X) + 1) * 2^X + (v - 1) * 2^X	(v >= 1).
 *
 * Loading v = ceil((d - 1) / 2^X) + 1 with d = due - now >= 1:
 *	(v - 1) * 2^X = ceil((d - 1) / 2^X) * 2^X is in [d - 1, d - 1 + 2^X - 1]
 *	first decrement after L >= now is in [L + 1, L + 2^X]
 * so, the guarantee (tested for every rate in tests/unit/test_timer.c):
 *
 *	due <= E <= due + (L - now) + 2^(X+1) - 2
 *
 * whenever the value is not clamped (ceil((d - 1) / 2^X) + 1 <= 2^32 - 1) and
 * the timer is loaded at or after @now. Both bounds are reached (with
 * L = now): E = due when now = -1 mod 2^X and d - 1 = 0 mod 2^X; and for
 * X >= 1, E = due + 2^(X+1) - 2 when now = 0 mod 2^X and d - 1 = 1 mod 2^X.
 * For X = 0, E = due + (L - now) exactly. The "+1" covers a first decrement
 * that comes as early as L + 1; the "- 1" keeps the value at 1 (not 2) when
 * due = now + 1. A clamped value (d more than about 2^(32+X) ticks away)
 * expires early, at E >= now + 1 + (2^32 - 2) * 2^X: exit 52 then finds
 * nothing due and re-arms. The value is 0 exactly when due <= now.
 *
 * No overflow: d - 1 <= 2^64 - 2, the rounded-up quotient fits 64 bits, and
 * the clamp is tested before the "+1".
 */
static inline uint32_t ptimer_value(uint64_t now, uint64_t due, uint32_t rate)
{
	uint64_t delta, q;

	if (due <= now)
		return 0;
	rate &= 31;	/* IA32_VMX_MISC[4:0] */
	delta = due - now - 1;
	q = delta >> rate;
	if (delta & ((1ull << rate) - 1))
		q++;
	if (q >= PTIMER_MAX)
		return PTIMER_MAX;
	return (uint32_t)q + 1;
}


/* ---- the software deadline's advance ---- */

/*
 * A software deadline (emulated, pv-lazy) is armed on the preemption timer
 * early by the advance, so that the exit and the injection are done by the
 * deadline and the guest's interrupt comes at it, not one exit path after
 * it (the idea of KVM's lapic_timer_advance). The interrupt is never early:
 * a quick expiry that is ready before the deadline waits for it in root
 * mode (hv/time/quick.c). Each such expiry tells how far before the
 * deadline it was ready (@ready_before, negative: late), and the advance
 * moves a quarter of the way toward being ready TIMER_ADVANCE_SPIN_NS early:
 * a short wait on most events rather than a late interrupt on half of them.
 */
#define TIMER_ADVANCE_SPIN_NS	500
#define TIMER_ADVANCE_MAX_NS	20000

struct timer_advance {
	uint64_t tsc;		/* the advance now */
	uint64_t spin_tsc;	/* TIMER_ADVANCE_SPIN_NS in TSC ticks */
	uint64_t max_tsc;	/* TIMER_ADVANCE_MAX_NS: it never grows past */
	uint64_t learned;	/* expiries it learned from */
};

/* No advance yet; its bounds from the TSC's frequency. */
void timer_advance_init(struct timer_advance *a, uint64_t tsc_hz);
void timer_advance_learn(struct timer_advance *a, int64_t ready_before);

/* When to arm for @deadline: the advance before it, not before 1 (0 is "none"). */
static inline uint64_t timer_advance_arm(const struct timer_advance *a, uint64_t deadline)
{
	return deadline > a->tsc ? deadline - a->tsc : 1;
}

/* ---- host events on one core ---- */

struct host_timer {
	uint64_t period_tsc;	/* tick period; 0 = tickless */
	uint64_t next_tick;	/* absolute TSC of the next tick, TIMER_NO_EVENT if none */
	/*
	 * How far past its grid time a tick may be placed (host_timer_place);
	 * 0 = always on the grid. Less than period_tsc.
	 */
	uint64_t slack_tsc;
	uint64_t fire_tick;	/* when to exit for next_tick: next_tick + the placed offset */
	uint64_t last_grid;	/* the grid time of the tick handled last */
	uint64_t watchdog_tsc;	/* the watchdog's allowance; 0 = off */
	uint64_t last_exit;	/* TSC of the vCPU's last exit (the watchdog's reference) */
	/* stats */
	uint64_t ticks;		/* ticks handled */
	uint64_t ticks_missed;	/* periods skipped because the core was late by more */
	uint64_t late_max_ticks;	/* worst (handled - due) in TSC ticks */
	uint64_t late_sum_ticks;
	uint64_t watchdog_fired;
	uint64_t offset_max;	/* largest offset host_timer_place chose */
	uint64_t deferred;	/* ticks host_timer_defer moved at their own exit */
	bool deferred_this;	/* the tick at next_tick was deferred once already */
	/* the guest's deadline a period on from the one read at the last placement; 0: none */
	uint64_t phase_guess;
	uint64_t stub_ticks;	/* of ticks, those the exit stub took (host_timer_stub_taken) */
};

void host_timer_init(struct host_timer *h, uint64_t now, uint64_t period_tsc,
		     uint64_t watchdog_tsc);
/*
 * The next host event as an absolute TSC (the tick's placed time or the
 * watchdog), or TIMER_NO_EVENT.
 */
static inline uint64_t host_timer_next(const struct host_timer *h)
{
	uint64_t watchdog = TIMER_NO_EVENT;

	if (h->watchdog_tsc)	/* add_sat: an allowance past the TSC's end is none */
		watchdog = h->last_exit > UINT64_MAX - h->watchdog_tsc ? UINT64_MAX :
			   h->last_exit + h->watchdog_tsc;
	return h->fire_tick < watchdog ? h->fire_tick : watchdog;
}
/*
 * Handle whatever is due at @now: account the tick (lateness = now - its
 * grid time, so a placed offset counts as lateness), move next_tick forward
 * by whole periods past @now (counting missed ones) and place the next tick
 * on the grid (fire_tick = next_tick) until host_timer_place or
 * host_timer_defer moves it. A tick is due from its placed time (fire_tick)
 * on, which is at most slack past its grid time.
 * Returns true if a tick was due. Call it before recording the exit at hand
 * in last_exit, or the watchdog is never due; a watchdog fire re-arms it from
 * @now.
 */
bool host_timer_run(struct host_timer *h, uint64_t now);

/*
 * The exit stub's step-aside (arch/x86/vmx.h): at the placed
 * tick's exit (and each later one it makes), a guest deadline in [the
 * exit's time less bias (two margins), + span) moves the tick to bias past
 * it, up to @steps times: each step counted at its longest (step: the
 * window and a drift for the stub's own length), the last step's exit
 * comes by the slack's end and before the watchdog is due. False (and
 * steps 0) when the tick may not move: no slack, or no room left.
 */
struct tick_aside_plan {
	/* the window's length; a step at its longest (that length) with its drift */
	uint64_t span, step;
	uint32_t steps;
	/*
	 * Where the stub's step count starts: 2^32 - steps, so the last step
	 * carries out of the 32 bits into closed (arch/x86/vmx.h struct
	 * vmx_tick_aside); and how far before the exit's time its window
	 * starts (D - then + bias below span).
	 */
	uint32_t lo0, bias;
};
bool host_timer_aside_plan(const struct host_timer *h, uint64_t margin_tsc,
			   struct tick_aside_plan *p);
/*
 * How many steps the stub took, from its window word now (@word: closed <<
 * 32 | lo). Only lo is read: closed holds the last step's carry or hv's own
 * write (a kick's hv_root_nmi), and neither counts. At most @p's steps.
 */
uint32_t host_timer_aside_steps_taken(const struct tick_aside_plan *p, uint64_t word);
/*
 * Where the tick placed at @tick is due after @taken steps of @p, at an
 * exit at @now: the exit the last step's timer made (@aimed), now; an
 * exit before it (the guest's own, or a kick's), when that timer runs out,
 * at most @left (its value, in TSC ticks) from now. Never past the plan's
 * bound, a whole step each (the exit may come late, hv reads @now later):
 * so a stepped tick stays within its slack. @tick with no step.
 */
uint64_t host_timer_aside_due(const struct tick_aside_plan *p, uint64_t tick, uint32_t taken,
			      uint64_t now, bool aimed, uint64_t left);
/* The stub took @steps steps: the tick is due at @due now (counted in deferred). */
void host_timer_aside_taken(struct host_timer *h, uint32_t steps, uint64_t due);

/*
 * The exit stub's own tick (arch/x86/vmx.h struct vmx_stub_tick): for the
 * tick placed at fire_tick, the stub may count it, put the next one on the
 * grid (next: the grid time after the one fire_tick was placed for) and
 * re-enter, where the guest's deadline then is 0 or at or past far. There
 * host_timer_run, host_timer_place and host_timer_defer would do just
 * that: a deadline a period past next is past every window the placement
 * looks at (its offsets stay within the slack, under a period; its
 * phase-lock guess only chooses among those windows), none is near the
 * exit, and with none armed the tick goes on the grid. Later ticks move
 * all three on by a period. False where the stub may not: no placed ticks
 * (slack 0), no tick, a tick time off its period, or a watchdog that could
 * be due at one of its ticks (an allowance under two periods, or one that
 * ends before next).
 */
struct stub_tick_plan {
	uint64_t due, next, far, period;
};
bool host_timer_stub_plan(const struct host_timer *h, struct stub_tick_plan *p);
/*
 * hv folds @n ticks the stub took, the last at @last_now with the guest's
 * deadline @last_d, its next tick due at @due (on the grid), their
 * lateness summed and its worst: what host_timer_run and host_timer_place
 * would have left (the ticks counted, the grid moved, the placement's
 * guess made from @last_d, the watchdog's reference the last exit).
 */
void host_timer_stub_taken(struct host_timer *h, uint32_t n, uint64_t due, uint64_t late_sum,
			   uint64_t late_max, uint64_t last_now, uint64_t last_d);

/*
 * Guest deadline to tick placement margin: the guest's interrupt has been
 * delivered and its handler entered (and has re-armed) by deadline + margin.
 */
#define HOST_TICK_MARGIN_NS	10000

/*
 * The offset past @grid_next to place the next tick at, so that it does not
 * land just as the guest's timer fires (a fire during the tick's exit waits
 * for the VM entry). @deadline: the guest's armed TSC deadline read at the
 * tick handled at @grid_this (0: none; it may be in the past); @margin_tsc:
 * HOST_TICK_MARGIN_NS in TSC ticks. Returns 0 .. @slack_tsc:
 *  - deadline - 4 margins within [grid_next, grid_next + slack]: the tick
 *    comes four margins before that deadline, its exit over before the
 *    guest's interrupt and the work the guest does after it;
 *  - else, phase lock: a guest whose period divides the tick period has a
 *    deadline at deadline + n * its period = deadline + (grid_next -
 *    grid_this): the same, four margins before that guess;
 *  - else, if that deadline (or the guess) is under four margins after its
 *    grid time or less than slack - 4 margins before it: the slack's end,
 *    out of the guest's work after its interrupt (with a slack over four
 *    margins; a smaller one keeps the grid);
 *  - else 0 (on the grid).
 * Pure; tests/unit/test_timer.c.
 */
uint64_t host_tick_offset(uint64_t grid_this, uint64_t grid_next, uint64_t slack_tsc,
			  uint64_t deadline, uint64_t margin_tsc);

/* Did the guest's @deadline come where the phase lock's @guess put it? (0: none, true) */
bool host_tick_phase_locked(uint64_t guess, uint64_t deadline, uint64_t margin_tsc);

/*
 * After host_timer_run handled a tick: place the next one by
 * host_tick_offset for the guest's armed @deadline (direct and inject mode,
 * where the MSR is the guest's), with its phase-lock guess only while the
 * guest keeps it (host_tick_phase_locked: @deadline within two margins of
 * the guess made at the last placement, or no guess). Only the tick moves;
 * the watchdog and window ends keep their times.
 */
void host_timer_place(struct host_timer *h, uint64_t deadline, uint64_t margin_tsc);

/*
 * At the exit for a due tick (@now >= fire_tick), before host_timer_run:
 * when the guest's armed @deadline is about to fire (now < deadline <=
 * now + 2 * margin, so it would fire during the tick's exit) and deadline +
 * margin is still within the slack of the grid time, move this tick to
 * deadline + margin and return true: the caller re-enters at once (a short
 * exit) and the guest takes its interrupt in non-root mode. @fired: the
 * guest's timer already fired during this exit, before the deadline was read
 * (its vector waits in the physical IRR; the MSR reads 0 on hardware, the
 * fired value in Bochs): move the tick to now + margin instead, so the guest
 * waits for this short exit rather than for a whole tick. At most once per
 * tick, so a tick costs at most one extra exit.
 */
bool host_timer_defer(struct host_timer *h, uint64_t now, uint64_t deadline, bool fired,
		      uint64_t margin_tsc);

/* ---- one vCPU's view of its timer ---- */

struct vtimer_stats {
	uint64_t programmed;	/* deadline writes seen (trapped or saved) */
	uint64_t fired;		/* deadlines that expired */
	uint64_t injected;	/* delivered through the virtual LAPIC */
	uint64_t from_pending;	/* delivered on entry after expiring while out */
	uint64_t dropped_masked;	/* expired while the LVT was masked */
	uint64_t mode_switches;
};

struct vtimer {
	enum timer_mode mode;
	/*
	 * The guest's deadline while it is NOT in the hardware: in emulated
	 * mode always; in direct/inject mode only while the vCPU is out for a
	 * long stay (saved by vtimer_save). 0 = not armed.
	 */
	uint64_t deadline;
	bool in_hw;		/* direct/inject: the deadline lives in IA32_TSC_DEADLINE */
	uint32_t lvt;		/* the guest's LVT timer register as it wrote it */
	bool fired_pending;	/* expired, its interrupt not yet raised in the (v)LAPIC */
	/*
	 * Set by vtimer_save: hw_firing, a fire is (or may be) in the physical
	 * APIC, so no mode switch until vtimer_restore (or, inject mode,
	 * vtimer_hw_fired). hw_refire: the WRMSR of 0 cancelled a deadline that
	 * was due: restore fires it again (coalescing in the physical IRR with
	 * a fire that would still land).
	 */
	bool hw_firing;
	bool hw_refire;
	struct vlapic vlapic;	/* inject and emulated modes */
	/*
	 * The count-down timer (one-shot and periodic LVT modes) in every
	 * mode but direct, where it is the physical LAPIC's. Its fires go
	 * through the vlapic as the deadline's do; vtimer_next includes its
	 * due time and vtimer_check fires it. min_period_tsc is 0 after
	 * vtimer_init: the caller sets the floor (LAPIC_TIMER_MIN_PERIOD_NS).
	 */
	struct lapic_timer countdown;
	struct vtimer_stats stats;
};

void vtimer_init(struct vtimer *t, enum timer_mode mode);

/*
 * LVT timer write (always trapped; the caller filters it first). Emulated
 * mode, and every mode but direct while the count-down timer counts: call
 * vtimer_check first, so an expiry before the write is judged by the LVT it
 * expired under (its mask, and for the count-down whether it reloads).
 * Entering or leaving TSC-deadline mode disarms both timers.
 */
void vtimer_write_lvt(struct vtimer *t, uint32_t lvt);
bool vtimer_lvt_masked(const struct vtimer *t);
#define LVT_VECTOR_MASK	0xffu

/* Inline: the tick's deferral exit reads it (hv/time/timer_exit.c tick_exit_early). */
static inline uint8_t vtimer_vector(const struct vtimer *t)
{
	return (uint8_t)(t->lvt & LVT_VECTOR_MASK);
}

/* Emulated mode: the trapped WRMSR to IA32_TSC_DEADLINE and its RDMSR. */
void vtimer_write_deadline(struct vtimer *t, uint64_t value, uint64_t now);
uint64_t vtimer_read_deadline(const struct vtimer *t);
/*
 * pv-lazy: a deadline taken from the shared page at @now. The old one fires
 * first if already due (the guest may have published it after the old one
 * expired); one not yet due is replaced unfired.
 */
void vtimer_replace_deadline(struct vtimer *t, uint64_t value, uint64_t now);

/*
 * Emulated mode (and saved deadlines of the other modes): when the software
 * deadline is due (deadline != 0 && now >= deadline) it fires: the deadline
 * becomes 0 and the interrupt is raised in the virtual LAPIC (or counted as
 * dropped when the LVT is masked). Returns true if it fired. Never early.
 */
bool vtimer_check(struct vtimer *t, uint64_t now);
/*
 * vtimer_check's work for a software deadline known to be due now, with
 * the count-down timer idle (the quick exit's precondition): it fires.
 */
void vtimer_expire_soft(struct vtimer *t);

/*
 * Inject mode: the hypervisor's vector arrived (external-interrupt exit), so
 * the guest's hardware deadline expired: raise the guest's vector in the
 * vlapic, or count it dropped if its LVT is masked. Also in emulated mode,
 * for a fire inject mode left in the physical IRR before a switch. Called
 * while out (after vtimer_save), it clears hw_firing and hw_refire: that
 * fire has arrived. Ignored in direct mode (the physical LAPIC delivers the
 * guest's vector itself).
 */
void vtimer_hw_fired(struct vtimer *t);

/*
 * The software event to arm the preemption timer for: the deadline, or
 * (every mode but direct) the count-down timer's next expiry; or
 * TIMER_NO_EVENT.
 */
static inline uint64_t vtimer_next(const struct vtimer *t)
{
	uint64_t next = t->deadline ? t->deadline : TIMER_NO_EVENT;

	/* in direct mode the count-down timer is the physical LAPIC's */
	if (t->mode != TIMER_DIRECT && t->countdown.due < next)
		next = t->countdown.due;
	return next;
}

/*
 * The count-down timer's registers (TMICT 0x838, TMCCT 0x839, TDCR 0x83e;
 * xAPIC 0x380, 0x390, 0x3e0) in every mode but direct, at @now. A write
 * first fires an expiry that came before it (as vtimer_check would).
 */
void vtimer_write_tmict(struct vtimer *t, uint32_t count, uint64_t now);
uint32_t vtimer_read_tmict(const struct vtimer *t);
uint32_t vtimer_read_tmcct(const struct vtimer *t, uint64_t now);
void vtimer_write_tdcr(struct vtimer *t, uint32_t value, uint64_t now);
uint32_t vtimer_read_tdcr(const struct vtimer *t);

/*
 * Direct/inject mode, leaving the guest for a long stay (DESIGN.md): the
 * caller read @before from the TSC, then @msr_value from IA32_TSC_DEADLINE,
 * then wrote 0, then read @now, then the physical IRR bit of the timer's
 * vector (the guest's in direct mode, the hypervisor's in inject mode) into
 * @vec_in_irr (IF=0 throughout). @clears_on_fire: the CPU clears the MSR
 * when the timer fires (hardware, SDM Vol. 3A 11.5.4.1; Bochs does not).
 * A deadline that had not fired is saved (value > now) or fired again on
 * entry (hw_refire: the WRMSR of 0 cancelled it); one whose fire is in the
 * IRR is left there (hw_firing until the next entry or vtimer_hw_fired).
 */
void vtimer_save(struct vtimer *t, uint64_t msr_value, uint64_t before, uint64_t now,
		 bool vec_in_irr, bool clears_on_fire);

/*
 * Direct/inject mode, entering the guest after a long stay: the value to
 * write to IA32_TSC_DEADLINE after the LVT (0 = leave disarmed). A saved
 * deadline already in the past is written anyway: it fires at once. In direct
 * mode, one that vtimer_check fired while out (fired_pending) comes back as
 * 1, which fires at once through the guest's LVT; so does one that
 * vtimer_save could not tell fired or not (hw_refire), in both modes.
 */
uint64_t vtimer_restore(struct vtimer *t);

/*
 * Switch modes (only when no interrupt is in service: returns false and
 * changes nothing otherwise; also refused while in_hw or hw_firing, and into
 * direct mode while the vlapic holds a pending vector or the count-down
 * timer counts: in direct mode it would be the physical one). The caller has saved
 * a hardware deadline with vtimer_save first; the deadline carries over.
 * Leaving direct mode the caller guarantees the physical APIC holds none of
 * the guest's vectors (ISR or IRR); entering it, that the hypervisor's vector
 * is not pending in the physical IRR (no maskable interrupt is taken in root
 * mode: wait for the next exit). The caller moves the guest's TPR between the
 * physical APIC and the vlapic.
 */
bool vtimer_switch_mode(struct vtimer *t, enum timer_mode mode, uint64_t now);

#endif
