/* SPDX-License-Identifier: MIT */
/*
 * What a vCPU's timer mode makes of the hardware (hv/time/vcpu_timer.c): the
 * physical LVT timer, the interrupt model and MSR bitmap of its VMCS, the
 * deadline in and out of the hardware, and the VMX-preemption timer armed
 * for the earliest event of its core. Policy from hv/core/timer_modes.h;
 * arch/x86/vmx.c only loads the values.
 */
#ifndef TEMPO_HV_VCPU_TIMER_H
#define TEMPO_HV_VCPU_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* The physical LVT timer vector while a guest's timer is in inject mode. */
#define HV_TIMER_VECTOR	0xee

/* The host tick period from the config, in TSC ticks (0 = tickless). */
extern uint64_t host_tick_tsc;
/* The watchdog's allowance in TSC ticks (0 = off): a vCPU without an exit that long. */
extern uint64_t host_watchdog_tsc;
/* tick_slack_us in TSC ticks (0 = ticks on the grid) and HOST_TICK_MARGIN_NS. */
extern uint64_t host_tick_slack_tsc;
/* Tempo's posted=on, where the CPU has posted interrupts (hv/core/posted.h) */
extern bool posted_enabled;
/* posted=soft: no posted-interrupt processing in the VMCS; notifications exit */
extern bool posted_soft;

struct vcpu;
/* @v takes posted interrupts in the modes with virtual-interrupt delivery (fixed) */
bool vcpu_takes_posted(const struct vcpu *v);
extern uint64_t host_tick_margin_tsc;

/* Boot: one MSR bitmap per timer mode. */
void vcpu_timer_boot(void);
/* Program the physical LVT timer for @v's mode and its guest LVT shadow. */
void timer_program_lvt(struct vcpu *v);
/* Takes a direct/inject deadline out of the hardware (vtimer_save). */
void timer_save_hw(struct vcpu *v);
/* The VMCS controls that depend on the timer mode (VMCS of @v current). */
void vcpu_timer_apply_mode(struct vcpu *v);

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

/* Time vcpu_timer_arm once on @v (TIMER_COST). */
void vcpu_timer_measure_rearm(struct vcpu *v);
/* The most it took, in TSC ticks. */
extern uint64_t rearm_cost_ticks;

#endif
