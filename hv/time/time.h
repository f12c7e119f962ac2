/* SPDX-License-Identifier: MIT */
/*
 * The guest's timer and the host's tick (hv/time/): what a vCPU's timer
 * mode makes of the hardware (the physical LVT timer, the deadline in and
 * out of it, the VMX-preemption timer armed for the earliest event of its
 * core), the exits of time, the tick's step-aside from the guest's
 * deadline, the LAPIC's timer registers, the software deadline and where
 * it fires, the pv-lazy page, and switching modes. Policy from
 * hv/core/timer_modes.h and hv/core/timer.c; arch/x86/vmx.c only loads
 * the values.
 */
#ifndef TEMPO_HV_TIME_TIME_H
#define TEMPO_HV_TIME_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/state/exit_ctx.h"

struct vcpu;

/* The physical LVT timer vector while a guest's timer is in inject mode. */
#define HV_TIMER_VECTOR	0xee

/* ---- vcpu_timer.c ---- */

/* The host tick period from the config, in TSC ticks (0 = tickless). */
extern uint64_t host_tick_tsc;
/* The watchdog's allowance in TSC ticks (0 = off): a vCPU without an exit that long. */
extern uint64_t host_watchdog_tsc;
/* tick_slack_us in TSC ticks (0 = ticks on the grid) and HOST_TICK_MARGIN_NS. */
extern uint64_t host_tick_slack_tsc;
extern uint64_t host_tick_margin_tsc;

/* Program the physical LVT timer for @v's mode and its guest LVT shadow. */
void timer_program_lvt(struct vcpu *v);
/* Takes a direct/inject deadline out of the hardware (vtimer_save). */
void timer_save_hw(struct vcpu *v);
/*
 * Off the LAPIC-owning modes, before every entry: a software deadline or
 * count-down timer that is due fires into the vLAPIC (and the pv-lazy page
 * is read and written back), then the vLAPIC delivers (apic_deliver).
 */
void deliver_virtual(struct vcpu *v);
/*
 * Arm the preemption timer for the earliest of this core's next host event
 * and, in a software-deadline mode, @v's deadline (every entry).
 */
void vcpu_timer_arm(struct vcpu *v);
/*
 * vcpu_timer_arm where only host events are due: a dedicated core (no
 * window end) whose mode owns the LAPIC timer and keeps no software deadline
 * (direct). The tick's deferral exit re-arms with it.
 */
void vcpu_timer_arm_host(struct vcpu *v);
/*
 * vcpu_timer_arm for a quick exit (hv/time/quick.c): a dedicated core, no
 * count-down timer running; @guest is the guest's next event in software
 * (its deadline, emulated and pv-lazy) or TIMER_NO_EVENT.
 */
void vcpu_timer_arm_quick(struct vcpu *v, uint64_t guest);
/* Time vcpu_timer_arm once on @v (TIMER_COST). */
void vcpu_timer_measure_rearm(struct vcpu *v);
/* The most it took, in TSC ticks. */
extern uint64_t rearm_cost_ticks;

/* ---- quick.c: the exits of time that finish first, in a few dozen instructions ---- */

/* struct vcpu's quick: which quick exits it may take */
#define QUICK_TICK	(1u << 0)	/* direct: a placed tick's exit (tick_exit_early) */
#define QUICK_SOFT	(1u << 1)	/* emulated, pv-lazy: the software deadline's expiry */
#define QUICK_INJECT	(1u << 2)	/* inject: the hypervisor's vector, a fire of the guest's deadline */
#define QUICK_ADVANCE	(1u << 3)	/* QUICK_SOFT, its deadline armed early (timer_advance = on) */

/* Which quick exits @v may take, from its mode and core (after its interrupt model is set). */
void timer_quick_update(struct vcpu *v);
/*
 * Before anything else of an exit (@reason, the basic one): a quick exit
 * of time finished and @v is to re-enter (true), or the usual path takes
 * the exit, nothing changed (false).
 */
bool time_exit_quick(struct vcpu *v, uint32_t reason);

/* ---- timer_exit.c: the exits of time ---- */

enum exit_action exit_preemption_timer(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_external_interrupt(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_interrupt_window(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_hlt(struct vcpu *v, struct exit_ctx *x);
/* At the end of a host-tick exit: did the guest's timer fire meanwhile? */
void count_tick_hit(struct vcpu *v);
/*
 * A placed tick's exit on a dedicated core with nothing else to do, before
 * the generic work: it steps aside from the guest's deadline or is the
 * ordinary tick (true: re-enter), or the usual path takes it, nothing
 * changed (false).
 */
bool tick_exit_early(struct vcpu *v);

/* ---- aside.c: the exit stub's tick step-aside ---- */

/*
 * What the stub did (its steps, and its own ticks: arch/x86/vmx.h struct
 * vmx_stub_tick), folded in at the next exit that reaches hv (@reason:
 * that exit's), before anything else.
 */
void tick_aside_fold(struct vcpu *v, uint32_t reason);
/*
 * A kick's exit at once: the stub takes none of its exits aside, nor a tick
 * of its own. _disarm before the entry (nothing was stepped yet); _close
 * from hv_root_nmi, which may come while the guest runs after steps or
 * ticks the next exit still folds.
 */
void tick_aside_disarm(struct vcpu *v);
void tick_aside_close(struct vcpu *v);
/* A kick's NMI in root mode: closed, and its exit (made at once) not the one a step aimed. */
void tick_aside_kick(struct vcpu *v);


/* ---- timer_regs.c: the LAPIC's timer registers; false means #GP ---- */

bool lvt_timer_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
/* The software TSC deadline (MSR_SOFT_DEADLINE rows). */
bool soft_deadline_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool soft_deadline_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
/* The vLAPIC's timer registers (LVT timer, initial/current count, divide), off direct mode. */
bool timer_reg_is(uint32_t msr);
bool timer_reg_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool timer_reg_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
/*
 * The guest disabled its APIC while it runs: its timer masked and disarmed
 * first, so nothing due fires into the state that follows.
 */
void timer_reset_live(struct vcpu *v);
/* The count-down timer out of reset (also a vCPU reset hook). */
void timer_reset(struct vcpu *v);

/* ---- mode.c: switching timer modes ---- */

/* Switch @v's timer mode at its exit (the hypercall, the monitor); TEMPO_HC_OK or EBUSY. */
int64_t vcpu_timer_mode_set(struct vcpu *v, uint32_t mode);
/* At @v's exit with MAILBOX_MODE: make the monitor's mode switch; true if it had one. */
bool vcpu_mode_request_take(struct vcpu *v);

/* ---- pv_lazy.c: the page a pv-lazy guest publishes its deadlines on ---- */

void pv_register(struct vcpu *v, uint64_t gpa);
void pv_sync(struct vcpu *v);
void pv_trapped(struct vcpu *v);
void pv_publish_armed(struct vcpu *v);

#endif
