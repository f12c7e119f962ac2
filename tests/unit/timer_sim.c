// SPDX-License-Identifier: MIT
/*
 * The simulated core and the reference model (see timer_sim.h).
 *
 * The hypervisor side does what hv/time/timer_exit.c, hv/apic/deliver.c, hv/time/vcpu_timer.c
 * and hv/run/switch.c are meant to do (DESIGN.md, "Per-core timer state machine"):
 *  - exit 52 (preemption timer): vtimer_check + host_timer_run;
 *  - short exits (CPUID, ...) touch no timer MSR;
 *  - every entry arms the preemption timer with ptimer_value() for the
 *    host's next event (and, in emulated mode, the guest's deadline); if that
 *    is 0 (already due) it handles the event on the spot, as exit 52 would,
 *    instead of entering only to exit at once;
 *  - a long stay (window switch, idle, mode switch) saves a hardware deadline
 *    (read TSC, read D, write 0, read TSC), polls the TSC against what is
 *    due, and restores (LVT first, then the deadline);
 *  - inject mode: the hypervisor's vector arrives as an external-interrupt
 *    exit and becomes vtimer_hw_fired; emulated mode: trapped RDMSR/WRMSR of
 *    IA32_TSC_DEADLINE; LVT writes always trap (emulated mode checks the
 *    deadline first);
 *  - interrupts reach the guest as with virtual-interrupt delivery: whenever
 *    the guest runs with IF=1 and the (v)LAPIC has one above PPR.
 *
 * The reference model knows nothing of modes, saves or vlapics. It sees the
 * guest's deadline writes at the instant each took effect (the guest's WRMSR
 * where it reaches the hardware, the handler's call where it traps), its LVT
 * writes (which always trap) as the interval from issue to resumption, the
 * moments an expiry reached the guest's interrupt state or was dropped
 * ("fires"), and the interrupts the guest takes. A deadline expires at
 * max(deadline, its write); it fires once, never before that, with the LVT
 * in force then (either value while an LVT write is in flight), and within
 * one exit of it while the guest runs; one that expired before the next
 * write must have fired, one that did not never fires. Fires coalesce in one
 * pending bit until the guest takes the interrupt (a second fire into a
 * pending bit, as the save's race makes, is invisible), which it must as
 * soon as its own IF, TPR and in-service state allow, and never otherwise.
 * Host ticks stay on the grid start + n * period and are handled within one
 * exit plus the preemption timer's granularity of their due time, plus the
 * slack by which a tick may be placed after a guest deadline (tick_slack): an
 * exit 52 past grid + slack must take the tick, one before the grid must not.
 */
#include "timer_sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hv/core/config.h"

#define LVT_MASK	(1u << 16)
#define LVT_TSCDL	(2u << 17)	/* TSC-deadline mode (SDM 11.5.1) */
#define HV_VECTOR	0xef	/* the hypervisor's timer vector in inject mode */
#define NEVER		UINT64_MAX
#define LVT_HIST	4096
#define TRACE_LINES	48

enum exit_reason {
	EXIT_EXTINT = 1,
	EXIT_CPUID = 10,
	EXIT_VMCALL = 18,
	EXIT_RDMSR = 31,
	EXIT_WRMSR_DEADLINE = 32,
	EXIT_WRMSR_LVT = 33,	/* really 32 too; split for the handler's switch */
	EXIT_PTIMER = 52,
};

enum vmcall { VMCALL_YIELD, VMCALL_SWITCH };

/* One deadline the guest wrote. */
struct ref_deadline {
	bool valid, done;
	uint64_t d;		/* 0 = disarm */
	uint64_t ws, we;	/* when the write took effect (the same instant) */
};

struct ref_lvt {
	bool masked;
	uint64_t ws, we;
};

struct sim {
	const struct sim_params *p;
	struct sim_result *r;
	uint64_t rng;
	uint64_t ev;
	bool failed;

	/* the CPU */
	uint64_t tsc, tsc0;
	bool in_guest;
	uint64_t msr_deadline;	/* what RDMSR IA32_TSC_DEADLINE returns */
	/* the MSR as the VM exit stored it: direct mode's placement reads this */
	uint64_t exit_msr;
	bool hw_armed;
	uint64_t hw_target;
	/*
	 * When the armed timer fires: at hw_target in Bochs; on hardware a
	 * little later (SIM_FIRE_LAT), and until then RDMSR still returns the
	 * target though it is already at or below the TSC (SDM Vol. 3A
	 * 11.5.4.1: the MSR is cleared when the timer fires).
	 */
	uint64_t hw_fire_at;
	uint32_t phys_lvt;
	struct vlapic papic;	/* the physical APIC's IRR/ISR/TPR */
	uint64_t pt_expiry;
	uint64_t entry_time;

	/* the hypervisor */
	struct host_timer host;
	struct vtimer vt;
	uint64_t seen_injected, seen_dropped;

	/* the guest */
	uint8_t gv;
	bool g_if;
	uint8_t g_tpr;
	bool g_in_service;
	uint32_t g_lvt;

	/* the reference model */
	struct ref_deadline cur, nxt;
	struct ref_lvt lvt[LVT_HIST];
	uint64_t lvt_n;
	bool lvt_initial_masked;
	uint32_t raised;	/* fires since the guest last took the interrupt */
	uint64_t ref_next_tick, ref_ticks, ref_last_exit;
	uint64_t bound;		/* one exit plus the preemption timer's granularity */
	uint64_t tick_bound;	/* bound + the tick's slack */
	bool save_firing;	/* the last save found the deadline at or below the TSC */

	/* the last things that happened, printed when an invariant breaks */
	struct {
		uint64_t ev, tsc, a, b;
		const char *what;
		enum timer_mode mode;
	} trace[TRACE_LINES];
	uint64_t trace_n;
};

static void trace(struct sim *s, const char *what, uint64_t a, uint64_t b)
{
	uint64_t i = s->trace_n++ % TRACE_LINES;

	s->trace[i].ev = s->ev;
	s->trace[i].tsc = s->tsc;
	s->trace[i].mode = s->vt.mode;
	s->trace[i].what = what;
	s->trace[i].a = a;
	s->trace[i].b = b;
}

static void trace_dump(struct sim *s)
{
	uint64_t i = s->trace_n > TRACE_LINES ? s->trace_n - TRACE_LINES : 0;

	fprintf(stderr, "timer sim: physical APIC IRR %d ISR %d TPR %#x; vlapic IRR %d ISR %d "
		"TPR %#x; guest IF %d TPR %#x in service %d, pending %u; %s\n",
		vlapic_highest_irr(&s->papic), vlapic_highest_isr(&s->papic), s->papic.tpr,
		vlapic_highest_irr(&s->vt.vlapic), vlapic_highest_isr(&s->vt.vlapic),
		s->vt.vlapic.tpr, s->g_if, s->g_tpr, s->g_in_service, s->raised,
		s->in_guest ? "in the guest" : "in root mode");
	fprintf(stderr, "timer sim: the last steps before the failure (event, TSC, mode):\n");
	for (; i < s->trace_n; i++) {
		unsigned int k = (unsigned int)(i % TRACE_LINES);
		enum timer_mode m = s->trace[k].mode;

		fprintf(stderr, "  %8llu %llu %c %-14s %llu %llu\n",
			(unsigned long long)s->trace[k].ev, (unsigned long long)s->trace[k].tsc,
			m == TIMER_DIRECT ? 'D' : m == TIMER_INJECT ? 'I' : 'E', s->trace[k].what,
			(unsigned long long)s->trace[k].a, (unsigned long long)s->trace[k].b);
	}
}

static const char *mode_name(enum timer_mode m)
{
	return m == TIMER_DIRECT ? "direct" : m == TIMER_INJECT ? "inject" : "emulated";
}

static void __attribute__((format(printf, 2, 3))) fail(struct sim *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->failed)
		return;
	s->failed = true;
	n = snprintf(s->r->msg, sizeof(s->r->msg),
		     "seed %llu event %llu tsc %llu (+%llu) mode %s rate %u: ",
		     (unsigned long long)s->p->seed, (unsigned long long)s->ev,
		     (unsigned long long)s->tsc, (unsigned long long)(s->tsc - s->tsc0),
		     mode_name(s->vt.mode), s->p->rate);
	va_start(ap, fmt);
	vsnprintf(s->r->msg + n, sizeof(s->r->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	trace_dump(s);
}

/* ---- randomness ---- */

static uint64_t rnd64(struct sim *s)
{
	/* splitmix64 */
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint64_t rnd(struct sim *s, uint64_t lo, uint64_t hi)
{
	return lo + rnd64(s) % (hi - lo + 1);
}

static bool chance(struct sim *s, unsigned int percent)
{
	return rnd(s, 0, 99) < percent;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ---- the reference model ---- */

/* Could the LVT have been masked / unmasked at some instant of [a, b]? */
static void ref_lvt_possible(struct sim *s, uint64_t a, uint64_t b, bool *can_mask,
			     bool *can_unmask)
{
	*can_mask = *can_unmask = false;
	for (uint64_t i = s->lvt_n; ; i--) {
		const struct ref_lvt *e;

		if (i == 0) {
			*(s->lvt_initial_masked ? can_mask : can_unmask) = true;
			return;
		}
		if (s->lvt_n - i >= LVT_HIST) {
			fail(s, "reference: LVT history too short for window [%llu, %llu]",
			     (unsigned long long)a, (unsigned long long)b);
			return;
		}
		e = &s->lvt[(i - 1) % LVT_HIST];
		if (e->ws > b)
			continue;	/* began after the window */
		*(e->masked ? can_mask : can_unmask) = true;
		if (e->we < a)
			return;		/* done before the window: nothing older shows */
	}
}

/*
 * An LVT write traps; to the guest it takes effect somewhere between its
 * issue and the resumption (in inject mode the expiry is judged at the exit
 * that reports it, in emulated mode at the handler, in direct mode when the
 * handler writes the physical LVT): either value may apply in between.
 */
static void ref_lvt_begin(struct sim *s, bool masked)
{
	struct ref_lvt *e = &s->lvt[s->lvt_n++ % LVT_HIST];

	e->masked = masked;
	e->ws = s->tsc;
	e->we = NEVER;
}

static uint64_t ref_expiry_min(const struct ref_deadline *k)
{
	return max64(k->d, k->ws);
}

/* An expiry reached the guest's interrupt state (raised) or was dropped, at @f. */
static void ref_fire(struct sim *s, uint64_t f, bool raised)
{
	struct ref_deadline *k = NULL;
	bool can_mask, can_unmask;
	uint64_t a, b;

	/*
	 * The oldest deadline that can have expired by @f fired; one being
	 * replaced only if it expired before the new write took effect.
	 */
	if (s->cur.valid && !s->cur.done && s->cur.d && ref_expiry_min(&s->cur) <= f &&
	    (!s->nxt.valid || s->cur.d <= s->nxt.ws))
		k = &s->cur;
	else if (s->nxt.valid && !s->nxt.done && s->nxt.d && ref_expiry_min(&s->nxt) <= f)
		k = &s->nxt;
	if (!k && raised && s->raised) {
		/* a second fire into a pending interrupt: the IRR coalesces it */
		trace(s, "ref coalesced", f, 0);
		s->r->coalesced++;
		return;
	}
	if (!k && !raised && (s->lvt_n ? s->lvt[(s->lvt_n - 1) % LVT_HIST].masked :
			      s->lvt_initial_masked)) {
		/* a second drop: nothing reaches the guest either way */
		trace(s, "ref drop again", f, 0);
		s->r->coalesced++;
		return;
	}
	if (!k) {
		fail(s, "guest timer %s at %llu with no deadline expired (early or twice): "
		     "last deadline %llu written [%llu, %llu]%s",
		     raised ? "fired" : "dropped", (unsigned long long)f,
		     (unsigned long long)s->cur.d, (unsigned long long)s->cur.ws,
		     (unsigned long long)s->cur.we, s->cur.done ? " already fired" : "");
		return;
	}
	a = ref_expiry_min(k);
	b = k->we == NEVER ? f : max64(k->d, k->we);
	/* a hardware timer fires up to SIM_FIRE_LAT after the TSC reaches it */
	if (!s->p->bochs_msr && s->vt.mode != TIMER_EMULATED)
		b = b > NEVER - SIM_FIRE_LAT ? NEVER : b + SIM_FIRE_LAT;
	b = min64(b, f);
	ref_lvt_possible(s, a, b, &can_mask, &can_unmask);
	if (raised && !can_unmask)
		fail(s, "deadline %llu raised at %llu though the LVT was masked when it expired",
		     (unsigned long long)k->d, (unsigned long long)f);
	if (!raised && !can_mask)
		fail(s, "deadline %llu dropped at %llu though the LVT was unmasked when it "
		     "expired (lost)", (unsigned long long)k->d, (unsigned long long)f);
	trace(s, raised ? "ref fire" : "ref drop", k->d, f);
	k->done = true;
	if (f - a > s->r->fire_late_max)
		s->r->fire_late_max = f - a;
	if (raised) {
		s->raised++;
		s->r->fires++;
	} else {
		s->r->drops++;
	}
	s->ev++;
}

/*
 * A deadline write takes effect at the current TSC: the guest's WRMSR in
 * direct and inject mode, the handler's vtimer_write_deadline in emulated
 * mode. Between begin and end the state machine may fire the old deadline
 * (if it expired by then) and the new one (if already due).
 */
static void ref_write_begin(struct sim *s, uint64_t d)
{
	trace(s, "write deadline", d, 0);
	s->nxt = (struct ref_deadline){ .valid = true, .d = d, .ws = s->tsc, .we = s->tsc };
	s->r->writes++;
}

static void ref_write_end(struct sim *s)
{
	struct ref_deadline *c = &s->cur;

	if (c->valid && !c->done && c->d && c->d <= s->nxt.ws)
		fail(s, "deadline %llu expired before the next write at %llu but never fired (lost)",
		     (unsigned long long)c->d, (unsigned long long)s->nxt.ws);
	/* one not yet expired is replaced: it never fires */
	s->cur = s->nxt;
	s->nxt.valid = false;
}

/* What must hold at every moment. */
static void ref_check_time(struct sim *s)
{
	if (s->p->period && s->tsc > s->ref_next_tick + s->tick_bound)
		fail(s, "host tick due at %llu not handled within %llu",
		     (unsigned long long)s->ref_next_tick, (unsigned long long)s->tick_bound);
	if (s->p->watchdog && s->tsc > s->ref_last_exit + s->p->watchdog + s->bound)
		fail(s, "watchdog due at %llu not handled within %llu",
		     (unsigned long long)(s->ref_last_exit + s->p->watchdog),
		     (unsigned long long)s->bound);
	if (s->in_guest && s->cur.valid && !s->cur.done && s->cur.d) {
		uint64_t due = max64(max64(s->cur.d, s->cur.we), s->entry_time);

		if (s->tsc > due && s->tsc - due > s->bound)
			fail(s, "deadline %llu (written [%llu, %llu]) not fired by now (lost)",
			     (unsigned long long)s->cur.d, (unsigned long long)s->cur.ws,
			     (unsigned long long)s->cur.we);
	}
}

/* ---- the state machine's observable effects ---- */

/* Fires the state machine made in the call just done, at @now. */
static void observe(struct sim *s, uint64_t now)
{
	while (s->vt.stats.injected > s->seen_injected) {
		s->seen_injected++;
		ref_fire(s, now, true);
	}
	while (s->vt.stats.dropped_masked > s->seen_dropped) {
		s->seen_dropped++;
		ref_fire(s, now, false);
	}
}

static void host_run(struct sim *s, uint64_t now)
{
	uint64_t wd = s->host.watchdog_fired;
	bool ticked = host_timer_run(&s->host, now);

	if (s->host.watchdog_fired != wd) {
		if (!s->p->watchdog || now - s->ref_last_exit < s->p->watchdog)
			fail(s, "watchdog fired early: last exit %llu",
			     (unsigned long long)s->ref_last_exit);
		s->ref_last_exit = now;
		s->r->watchdog_fired++;
	}
	if (!ticked) {
		if (s->p->period && now >= s->ref_next_tick + s->p->slack)
			fail(s, "host tick due at %llu not handled at %llu",
			     (unsigned long long)s->ref_next_tick, (unsigned long long)now);
		return;
	}
	if (!s->p->period || now < s->ref_next_tick) {
		fail(s, "host tick handled at %llu before its due time %llu",
		     (unsigned long long)now, (unsigned long long)s->ref_next_tick);
		return;
	}
	if (now - s->ref_next_tick > s->r->host_late_max)
		s->r->host_late_max = now - s->ref_next_tick;
	if (now - s->ref_next_tick > s->tick_bound)
		fail(s, "host tick due at %llu handled %llu late (bound %llu)",
		     (unsigned long long)s->ref_next_tick,
		     (unsigned long long)(now - s->ref_next_tick),
		     (unsigned long long)s->tick_bound);
	while (s->ref_next_tick <= now)
		s->ref_next_tick += s->p->period;
	s->ref_ticks++;
	s->r->host_ticks++;
	if (s->host.next_tick != s->ref_next_tick)
		fail(s, "host tick drifted: next %llu, grid says %llu",
		     (unsigned long long)s->host.next_tick,
		     (unsigned long long)s->ref_next_tick);
	if (s->host.ticks != s->ref_ticks)
		fail(s, "host ticks %llu, expected %llu", (unsigned long long)s->host.ticks,
		     (unsigned long long)s->ref_ticks);
	s->ev++;
}

/* ---- the physical core ---- */

static void hw_fire(struct sim *s)
{
	uint8_t v = s->phys_lvt & 0xff;
	bool masked = s->phys_lvt & LVT_MASK;

	trace(s, "hw fire", s->hw_target, s->phys_lvt);
	s->hw_armed = false;
	if (!s->p->bochs_msr)
		s->msr_deadline = 0;
	if (v == HV_VECTOR) {
		/* inject mode: the hypervisor's vector; the exit turns it into a fire */
		if (!masked)
			vlapic_raise(&s->papic, v);
		return;
	}
	/* direct mode: the guest's vector, straight into the physical IRR */
	ref_fire(s, s->tsc, !masked);
	if (!masked)
		vlapic_raise(&s->papic, v);
}

/* Root mode: time passes; the LAPIC timer still fires, the IRR holds it (IF=0). */
static void advance_root(struct sim *s, uint64_t n)
{
	uint64_t t = s->tsc + n;

	if (s->hw_armed && s->hw_fire_at <= t) {
		s->tsc = max64(s->tsc, s->hw_fire_at);
		hw_fire(s);
	}
	s->tsc = t;
}

static void write_msr_deadline(struct sim *s, uint64_t v)
{
	trace(s, "wrmsr deadline", v, 0);
	s->msr_deadline = v;
	s->hw_armed = v != 0;
	s->hw_target = v;
	s->hw_fire_at = v;
	if (!s->p->bochs_msr)
		s->hw_fire_at = min64(max64(v, s->tsc), NEVER - SIM_FIRE_LAT) +
				rnd(s, 0, SIM_FIRE_LAT);
	if (s->hw_armed && s->hw_fire_at <= s->tsc)
		hw_fire(s);
}

/* The VMX-preemption timer, modelled on its own: bit @rate toggles. */
static uint64_t pt_expiry(uint64_t load, uint32_t value, uint32_t rate)
{
	unsigned __int128 e;

	if (!value)
		return load;
	e = ((unsigned __int128)(load >> rate) + 1) << rate;
	e += (unsigned __int128)(value - 1) << rate;
	return e > UINT64_MAX ? UINT64_MAX : (uint64_t)e;
}

static struct vlapic *guest_apic(struct sim *s)
{
	return s->vt.mode == TIMER_DIRECT ? &s->papic : &s->vt.vlapic;
}

/* ---- the hypervisor ---- */

static void vm_entry(struct sim *s)
{
	uint32_t value;

	for (int spins = 0; ; spins++) {
		uint64_t now = s->tsc;

		if (spins == 100) {
			fail(s, "entry path livelock: host event %llu, guest deadline %llu stay due "
			     "after being handled", (unsigned long long)host_timer_next(&s->host),
			     (unsigned long long)vtimer_next(&s->vt));
			return;
		}
		uint64_t due = host_timer_next(&s->host);

		if (s->vt.mode == TIMER_EMULATED)
			due = min64(due, vtimer_next(&s->vt));
		value = ptimer_value(now, due, s->p->rate);
		if (value)
			break;
		/* Already due: handle it here rather than enter and exit at once. */
		vtimer_check(&s->vt, now);
		observe(s, now);
		host_run(s, now);
		advance_root(s, rnd(s, 1, 5));
	}
	advance_root(s, SIM_ENTRY_LAT);
	s->pt_expiry = pt_expiry(s->tsc, value, s->p->rate);
	trace(s, "entry", value, s->pt_expiry);
	s->in_guest = true;
	s->entry_time = s->tsc;
	/* a trapped LVT write completes */
	if (s->lvt_n && s->lvt[(s->lvt_n - 1) % LVT_HIST].we == NEVER)
		s->lvt[(s->lvt_n - 1) % LVT_HIST].we = s->tsc;
}

static void restore(struct sim *s)
{
	uint64_t v;

	/* LVT first (DESIGN.md), then the deadline */
	if (s->vt.mode == TIMER_DIRECT)
		s->phys_lvt = s->vt.lvt;
	else if (s->vt.mode == TIMER_INJECT)
		s->phys_lvt = HV_VECTOR;
	else
		s->phys_lvt = HV_VECTOR | LVT_MASK;
	advance_root(s, 1);
	if (s->vt.mode == TIMER_EMULATED)
		return;
	v = vtimer_restore(&s->vt);
	s->save_firing = false;
	trace(s, "restore", v, s->phys_lvt);
	if (v)
		write_msr_deadline(s, v);
	advance_root(s, rnd(s, 1, 3));
}

static void try_switch(struct sim *s, enum timer_mode m)
{
	enum timer_mode old = s->vt.mode;
	uint64_t now = s->tsc;
	bool expect, ok;

	if (m == old)
		return;
	if (old == TIMER_DIRECT) {
		/* the caller's guarantee: no guest vector left in the physical APIC */
		if (vlapic_highest_irr(&s->papic) >= 0 || vlapic_in_service(&s->papic)) {
			s->r->switches_skipped++;
			return;
		}
	}
	if (m == TIMER_DIRECT && vlapic_highest_irr(&s->papic) == HV_VECTOR) {
		/* ... and no hypervisor vector either (root mode cannot take it) */
		s->r->switches_skipped++;
		return;
	}
	expect = !s->g_in_service && !(m == TIMER_DIRECT && s->raised) && !s->save_firing;
	ok = vtimer_switch_mode(&s->vt, m, now);
	trace(s, "switch to", m, ok);
	if (ok != expect) {
		fail(s, "switch %s -> %s %s (guest in service %d, pending %u)", mode_name(old),
		     mode_name(m), ok ? "accepted" : "refused", s->g_in_service, s->raised);
		return;
	}
	if (!ok) {
		s->r->switches_refused++;
		return;
	}
	observe(s, now);
	s->r->switches++;
	/* the guest's TPR moves with its interrupt state */
	if (old == TIMER_DIRECT) {
		vlapic_set_tpr(&s->vt.vlapic, s->papic.tpr);
		vlapic_set_tpr(&s->papic, 0);
	}
	if (m == TIMER_DIRECT)
		vlapic_set_tpr(&s->papic, s->vt.vlapic.tpr);
	advance_root(s, rnd(s, 1, SIM_POLL));
}

static void long_stay(struct sim *s, int want_mode)
{
	uint64_t end;

	s->r->long_stays++;
	if (s->vt.mode != TIMER_EMULATED) {
		/* read the TSC, read D, write 0, read the TSC: time passes between */
		uint64_t before = s->tsc, d;
		uint8_t vec;
		bool irr;

		advance_root(s, rnd(s, 0, 3));
		d = s->msr_deadline;
		advance_root(s, rnd(s, 0, 3));
		s->hw_armed = false;
		s->msr_deadline = 0;
		advance_root(s, rnd(s, 0, 3));
		/* then the IRR bit of the timer's vector: the guest's or ours */
		vec = s->vt.mode == TIMER_DIRECT ? s->gv : HV_VECTOR;
		irr = s->papic.irr[vec / 32] & (1u << (vec % 32));
		vtimer_save(&s->vt, d, before, s->tsc, irr, !s->p->bochs_msr);
		/*
		 * A fire in the IRR, or one the disarm may have cancelled (any
		 * due D on hardware, where a fired one reads 0; only D > before
		 * in Bochs, where one at or below it fired while the guest ran):
		 * no mode switch until the entry.
		 */
		s->save_firing = irr || (d && d <= s->tsc && (!s->p->bochs_msr || d > before));
		if (d && d <= before)
			s->r->save_fired++;
		else if (d && d <= s->tsc)
			s->r->save_race++;
		if (d && d <= before && !irr && !s->p->bochs_msr)
			s->r->save_cancelled++;
		/*
		 * Direct mode, due D with the guest's vector already pending: a
		 * fire the disarm cancelled would have coalesced with it, so
		 * the pending bit stands for it (the reference sees that fire,
		 * or a second one into a pending bit if it did land).
		 */
		if (s->vt.mode == TIMER_DIRECT && irr && d && d <= s->tsc)
			ref_fire(s, s->tsc, !(s->phys_lvt & LVT_MASK));
		/*
		 * inject mode may let its own vector in right away (timer_save_hw
		 * in hv/time/vcpu_timer.c: sti; nop; nop; cli), as the physical APIC
		 * holds no guest state: a fire from before the disarm is handled
		 * now.
		 */
		if (s->vt.mode == TIMER_INJECT && chance(s, 50) &&
		    vlapic_pending(&s->papic) == HV_VECTOR) {
			vlapic_accept(&s->papic, HV_VECTOR);
			vlapic_eoi(&s->papic);
			vtimer_hw_fired(&s->vt);
			observe(s, s->tsc);
			s->save_firing = false;
			s->r->save_drained++;
		}
		trace(s, "save", d, before);
	}
	switch (rnd(s, 0, 9)) {
	case 0:
		end = s->tsc + rnd(s, 10000, 3000000);
		break;
	case 1: case 2: case 3:
		end = s->tsc + rnd(s, 1000, 10000);
		break;
	default:
		end = s->tsc + rnd(s, 1, 1000);
		break;
	}
	while (!s->failed && s->tsc < end) {
		uint64_t next = min64(host_timer_next(&s->host), vtimer_next(&s->vt));
		uint64_t now;

		/* poll: reach what is due within SIM_POLL */
		if (next < end)
			next = min64(end, max64(next, s->tsc) + rnd(s, 0, SIM_POLL));
		else
			next = end;
		advance_root(s, next - s->tsc);
		now = s->tsc;
		ref_check_time(s);
		if (vtimer_next(&s->vt) <= now) {
			vtimer_check(&s->vt, now);
			observe(s, now);
		}
		if (host_timer_next(&s->host) <= now)
			host_run(s, now);
	}
	if (want_mode >= 0)
		try_switch(s, (enum timer_mode)want_mode);
	else if (s->p->switch_modes && chance(s, 10))
		try_switch(s, (enum timer_mode)rnd(s, 0, 2));
	restore(s);
}

/*
 * Exit 52 in direct or inject mode with a slack: the hypervisor reads the
 * guest's IA32_TSC_DEADLINE (what RDMSR returns: on hardware 0 once fired,
 * in Bochs the fired value) and defers the tick past it or, having run the
 * tick, places the next one (hv/time/timer_exit.c preemption_timer).
 */
static void host_run_placed(struct sim *s, uint64_t now)
{
	bool placed = s->p->slack && s->vt.in_hw &&
		      (s->vt.mode == TIMER_DIRECT || s->vt.mode == TIMER_INJECT);
	/* direct: the exit's MSR store, as tick_exit_early takes it (a fire since reads as it was) */
	uint64_t ticks = s->host.ticks,
		 msr = s->vt.mode == TIMER_DIRECT ? s->exit_msr : s->msr_deadline;
	uint8_t vec = s->vt.mode == TIMER_DIRECT ? s->gv : HV_VECTOR;
	/*
	 * direct: fired in this exit, and the guest can take it: in the IRR,
	 * IF=1, above the guest's priority (tick_guest_fired)
	 */
	bool fired = s->vt.mode == TIMER_DIRECT && msr <= now &&
		     (s->papic.irr[vec / 32] & (1u << (vec % 32))) && s->g_if &&
		     !s->g_in_service && (s->gv >> 4) > (s->g_tpr >> 4);

	if (placed && now >= s->host.fire_tick &&
	    host_timer_defer(&s->host, now, msr, fired, s->p->margin)) {
		s->r->tick_defers++;
		trace(s, "defer", msr, s->host.fire_tick);
		return;
	}
	host_run(s, now);
	if (placed && s->host.ticks != ticks) {
		host_timer_place(&s->host, msr, s->p->margin);
		if (s->host.fire_tick != s->host.next_tick)
			s->r->ticks_placed++;
	}
}

static void vm_exit(struct sim *s, enum exit_reason why, uint64_t arg)
{
	bool stay = false;
	int want_mode = -1;
	uint64_t now;
	int v;

	s->in_guest = false;
	s->r->exits++;
	s->ev++;
	trace(s, "exit", why, arg);
	s->exit_msr = s->msr_deadline;
	advance_root(s, SIM_EXIT_LAT);
	now = s->tsc;
	ref_check_time(s);
	switch (why) {
	case EXIT_PTIMER:
		s->r->exits_ptimer++;
		if (vtimer_next(&s->vt) > now && host_timer_next(&s->host) > now)
			s->r->exits_ptimer_idle++;	/* clamped: nothing due yet */
		vtimer_check(&s->vt, now);
		observe(s, now);
		host_run_placed(s, now);
		break;
	case EXIT_EXTINT:
		/* acknowledge-on-exit, then EOI the physical APIC */
		v = vlapic_pending(&s->papic);
		if (v >= 0) {
			vlapic_accept(&s->papic, (uint8_t)v);
			vlapic_eoi(&s->papic);
		}
		if (v != HV_VECTOR) {
			fail(s, "external interrupt %d in %s mode", v, mode_name(s->vt.mode));
			return;
		}
		vtimer_hw_fired(&s->vt);
		observe(s, now);
		break;
	case EXIT_CPUID:
		break;
	case EXIT_WRMSR_DEADLINE:
		ref_write_begin(s, arg);
		vtimer_write_deadline(&s->vt, arg, now);
		observe(s, now);
		ref_write_end(s);
		break;
	case EXIT_RDMSR: {
		uint64_t got, want;

		vtimer_check(&s->vt, now);
		observe(s, now);
		got = vtimer_read_deadline(&s->vt);
		want = s->cur.valid && !s->cur.done ? s->cur.d : 0;
		if (got != want)
			fail(s, "RDMSR TSC_DEADLINE read %llu, expected %llu",
			     (unsigned long long)got, (unsigned long long)want);
		break;
	}
	case EXIT_WRMSR_LVT:
		if (s->vt.mode == TIMER_EMULATED) {
			vtimer_check(&s->vt, now);
			observe(s, now);
		}
		vtimer_write_lvt(&s->vt, (uint32_t)arg);
		if (s->vt.mode == TIMER_DIRECT)
			s->phys_lvt = (uint32_t)arg;
		break;
	case EXIT_VMCALL:
		stay = true;
		if (arg != VMCALL_YIELD)
			want_mode = (int)(arg - VMCALL_SWITCH);
		break;
	}
	/* the watchdog's reference: after host_timer_run, as timer.h asks */
	s->host.last_exit = now;
	s->ref_last_exit = now;
	advance_root(s, rnd(s, 0, SIM_HANDLER_MAX));
	if (stay || chance(s, 1))
		long_stay(s, want_mode);
	vm_entry(s);
}

/* ---- the guest ---- */

static void try_deliver(struct sim *s)
{
	struct vlapic *a = guest_apic(s);
	bool deliverable = !s->g_in_service && (s->gv >> 4) > (s->g_tpr >> 4);
	bool should = deliverable && s->raised;
	int v;

	if (!s->in_guest || !s->g_if)
		return;
	v = vlapic_pending(a);
	if (v >= 0 && !should) {
		fail(s, "vector %d deliverable, but the guest should get none now "
		     "(pending %u, TPR %#x, in service %d): early, twice or blocked",
		     v, s->raised, s->g_tpr, s->g_in_service);
		return;
	}
	if (v < 0 && should) {
		fail(s, "the guest's timer interrupt is deliverable (TPR %#x) but the "
		     "(v)LAPIC has none (lost)", s->g_tpr);
		return;
	}
	if (v < 0)
		return;
	if (v != s->gv) {
		fail(s, "vector %d delivered, the guest's is %u", v, s->gv);
		return;
	}
	trace(s, "guest takes", (uint64_t)v, 0);
	vlapic_accept(a, (uint8_t)v);
	s->g_in_service = true;
	s->raised = 0;
	s->r->delivered++;
	s->ev++;
}

/* Hardware at the current TSC, with the guest running (again after each exit). */
static void guest_events(struct sim *s)
{
	for (;;) {
		ref_check_time(s);
		if (s->failed)
			return;
		if (s->hw_armed && s->tsc >= s->hw_fire_at)
			hw_fire(s);
		if (s->tsc >= s->pt_expiry) {
			vm_exit(s, EXIT_PTIMER, 0);
			continue;
		}
		if (s->vt.mode != TIMER_DIRECT && vlapic_pending(&s->papic) >= 0) {
			vm_exit(s, EXIT_EXTINT, 0);
			continue;
		}
		try_deliver(s);
		return;
	}
}

static void guest_spin(struct sim *s, uint64_t n)
{
	uint64_t end = s->tsc + n;

	for (;;) {
		uint64_t stop;

		/* what is pending now (say, just after an entry) comes first */
		guest_events(s);
		if (s->failed || s->tsc >= end)
			break;
		stop = min64(end, s->pt_expiry);
		if (s->hw_armed)
			stop = min64(stop, max64(s->hw_fire_at, s->tsc));
		s->tsc = max64(s->tsc, stop);
	}
}

static uint64_t pick_deadline(struct sim *s)
{
	uint64_t now = s->tsc;

	if ((s->p->scenario & SIM_DEADLINE_0) && chance(s, 90))
		return 0;
	if ((s->p->scenario & SIM_DEADLINE_MAX) && chance(s, 90))
		return UINT64_MAX;
	switch (rnd(s, 0, 19)) {
	case 0: case 1:
		return 0;
	case 2:
		return 1;
	case 3: case 4:
		return now - rnd(s, 1, 20000);	/* past */
	case 5:
		return now;
	case 6: case 7: case 8: case 9: case 10:
		return now + rnd(s, 1, 400);	/* about one exit away */
	case 11: case 12: case 13:
		return now + rnd(s, 400, 40000);
	case 14:
		return now + rnd(s, 40000, 5000000);
	case 15:
		return now + rnd(s, 1ull << 30, 1ull << 40);
	case 16:
		return UINT64_MAX;
	default:
		/* rewrite the armed one, earlier or later, before it expires */
		if (s->cur.valid && !s->cur.done && s->cur.d > now && s->cur.d != UINT64_MAX) {
			uint64_t left = s->cur.d - now;

			if (chance(s, 50))
				return now + rnd(s, 1, left);
			return s->cur.d + rnd(s, 1, left + 1000);
		}
		return now + rnd(s, 1, 2000);
	}
}

static void guest_write_deadline(struct sim *s, uint64_t d)
{
	/*
	 * The guest writes after an expiry that is still on its way
	 * (hardware): the model lets that fire land first (and, in inject
	 * mode, its exit happen), as the reference expects.
	 */
	if (s->hw_armed && s->hw_target <= s->tsc) {
		hw_fire(s);
		guest_events(s);
		if (s->failed || !s->in_guest)
			return;
	}
	if (s->vt.mode == TIMER_EMULATED) {
		vm_exit(s, EXIT_WRMSR_DEADLINE, d);
		return;
	}
	/* direct and inject: WRMSR 0x6E0 goes straight to the hardware */
	ref_write_begin(s, d);
	ref_write_end(s);
	write_msr_deadline(s, d);
	guest_events(s);
}

static void guest_write_lvt(struct sim *s)
{
	bool masked = (s->p->scenario & SIM_LVT_MASKED) ? true : chance(s, 30);

	s->g_lvt = LVT_TSCDL | s->gv | (masked ? LVT_MASK : 0);
	trace(s, "write lvt", s->g_lvt, 0);
	ref_lvt_begin(s, masked);
	vm_exit(s, EXIT_WRMSR_LVT, s->g_lvt);
}

static void guest_set_tpr(struct sim *s)
{
	uint8_t tpr;

	if ((s->p->scenario & SIM_TPR15) && chance(s, 95))
		tpr = 0xf0;
	else if (chance(s, 50))
		tpr = 0;
	else if (chance(s, 30))
		tpr = 0xf0;
	else
		tpr = (uint8_t)rnd(s, 0, 255);
	trace(s, "guest tpr", tpr, 0);
	s->g_tpr = tpr;
	vlapic_set_tpr(guest_apic(s), tpr);
	try_deliver(s);
}

static void guest_eoi(struct sim *s)
{
	int v;

	if (!s->g_in_service || (s->p->scenario & SIM_NEVER_EOI)) {
		guest_spin(s, rnd(s, 1, 100));
		return;
	}
	v = vlapic_eoi(guest_apic(s));
	if (v != s->gv)
		fail(s, "EOI retired vector %d, the guest had %u in service", v, s->gv);
	trace(s, "guest eoi", (uint64_t)v, 0);
	s->g_in_service = false;
	try_deliver(s);
}

static void guest_step(struct sim *s)
{
	uint32_t sc = s->p->scenario;
	unsigned int a;

	guest_events(s);
	if (s->failed || !s->in_guest)
		return;
	s->ev++;
	if ((sc & SIM_TIGHT_EXITS) && chance(s, 90)) {
		guest_spin(s, rnd(s, 0, 5));
		if (!s->failed)
			vm_exit(s, EXIT_CPUID, 0);
		return;
	}
	a = (unsigned int)rnd(s, 0, 99);
	if (a < 30) {
		if ((sc & SIM_LONG_SPIN) && chance(s, 10)) {
			guest_spin(s, rnd(s, 1ull << 31, 1ull << 34));
			return;
		}
		switch (rnd(s, 0, 19)) {
		case 0:
			guest_spin(s, rnd(s, 100000, 3000000));
			break;
		case 1: case 2: case 3: case 4:
			guest_spin(s, rnd(s, 5000, 100000));
			break;
		case 5: case 6: case 7: case 8: case 9: case 10:
			guest_spin(s, rnd(s, 200, 5000));
			break;
		default:
			guest_spin(s, rnd(s, 1, 200));
			break;
		}
	} else if (a < 42) {
		vm_exit(s, EXIT_CPUID, 0);
	} else if (a < 60) {
		guest_write_deadline(s, pick_deadline(s));
	} else if (a < 63) {
		if (s->vt.mode == TIMER_EMULATED)
			vm_exit(s, EXIT_RDMSR, 0);
	} else if (a < 68) {
		guest_write_lvt(s);
	} else if (a < 73) {
		guest_set_tpr(s);
	} else if (a < 77) {
		if ((sc & SIM_CLI_SPIN) || chance(s, 50))
			s->g_if = false;
	} else if (a < 82) {
		if (!(sc & SIM_CLI_SPIN) || chance(s, 5)) {
			s->g_if = true;
			try_deliver(s);
		}
	} else if (a < 96) {
		guest_eoi(s);
	} else {
		/*
		 * A hypercall that leaves for a long stay; half the time with a
		 * deadline timed to expire around the save's WRMSR of 0.
		 */
		if (chance(s, 50)) {
			guest_write_deadline(s, s->tsc + rnd(s, SIM_EXIT_LAT,
							     SIM_EXIT_LAT + SIM_HANDLER_MAX + 8));
			if (s->failed || !s->in_guest)
				return;
		}
		if (a < 98 && s->p->switch_modes)
			vm_exit(s, EXIT_VMCALL, VMCALL_SWITCH + rnd(s, 0, 2));
		else
			vm_exit(s, EXIT_VMCALL, VMCALL_YIELD);
	}
}

bool sim_run(const struct sim_params *p, struct sim_result *r)
{
	static struct sim sim;
	struct sim *s = &sim;

	memset(s, 0, sizeof(*s));
	memset(r, 0, sizeof(*r));
	s->p = p;
	s->r = r;
	s->rng = p->seed;
	s->tsc = s->tsc0 = rnd(s, 1000000, 1ull << 40);
	s->bound = SIM_EXIT_COST + (2ull << p->rate);
	s->tick_bound = s->bound + p->slack;
	r->host_bound = s->tick_bound;
	do {
		s->gv = (uint8_t)rnd(s, 0x20, 0xfe);
	} while (s->gv == HV_VECTOR);

	host_timer_init(&s->host, s->tsc, p->period, p->watchdog);
	s->host.slack_tsc = p->slack;
	s->ref_next_tick = p->period ? s->tsc + p->period : NEVER;
	s->ref_last_exit = s->tsc;
	vtimer_init(&s->vt, p->mode);
	vlapic_init(&s->papic);

	/* the guest's set-up, before its first instruction here */
	s->g_if = true;
	s->g_tpr = (p->scenario & SIM_TPR15) ? 0xf0 : 0;
	vlapic_set_tpr(guest_apic(s), s->g_tpr);
	s->lvt_initial_masked = (p->scenario & SIM_LVT_MASKED) || chance(s, 20);
	s->g_lvt = LVT_TSCDL | s->gv | (s->lvt_initial_masked ? LVT_MASK : 0);
	vtimer_write_lvt(&s->vt, s->g_lvt);
	if (p->scenario & SIM_CLI_SPIN)
		s->g_if = false;

	restore(s);
	vm_entry(s);
	while (!s->failed && s->ev < p->events)
		guest_step(s);

	r->events = s->ev;
	r->from_pending = s->vt.stats.from_pending;
	r->tsc_span = s->tsc - s->tsc0;
	r->ok = !s->failed;
	if (r->ok && s->host.ticks_missed)
		fail(s, "%llu host ticks missed", (unsigned long long)s->host.ticks_missed);
	if (r->ok && s->host.late_max_ticks > s->tick_bound)
		fail(s, "host tick late by %llu", (unsigned long long)s->host.late_max_ticks);
	r->ok = !s->failed;
	return r->ok;
}
