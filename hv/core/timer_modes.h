/* SPDX-License-Identifier: MIT */
/*
 * The timer modes as data: what each one does with the guest's LAPIC timer
 * (../docs/timer-modes.md). Code asks a mode's row, never which mode it is:
 * a new mode is a new row here and its handlers.
 */
#ifndef TEMPO_HV_CORE_TIMER_MODES_H
#define TEMPO_HV_CORE_TIMER_MODES_H

#include <stdbool.h>
#include <stdint.h>

enum timer_mode {
	TIMER_DIRECT = 0,
	TIMER_INJECT = 1,
	TIMER_EMULATED = 2,
	TIMER_PV_LAZY = 3,		/* "pv-lazy" in the config */
	TIMER_MODE_COUNT
};

struct timer_mode_desc {
	const char *name;		/* in the config, the hypercall's answers and the logs */
	/*
	 * The guest owns the physical LAPIC while it runs: its LVT, SVR, ESR,
	 * count-down timer and self-IPIs go to the hardware, and the timer
	 * interrupt is its own vector. Otherwise every LAPIC register but the
	 * deadline (and EOI/TPR/ICR, checked) is virtual, and the physical LVT
	 * timer holds the hypervisor's vector in TSC-deadline mode.
	 */
	bool owns_lapic;
	/*
	 * The guest's deadline lives in software: writes to IA32_TSC_DEADLINE
	 * exit and the preemption timer stands in for it. Otherwise it is in
	 * the hardware while the guest runs, written with no exit.
	 */
	bool soft_deadline;
	/* A fired hardware deadline exits on the hypervisor's vector and is injected. */
	bool injects_fired;
	/* May run on a core shared by a [schedule] (the LAPIC timer can be switched away). */
	bool may_share_core;
	/* Host ticks are placed out of the guest's deadlines' way (tick_slack_us). */
	bool places_ticks;
	/* The guest may register a pv-lazy page (TEMPO_HC_PV_TIMER). */
	bool pv_page;
	/* A host tick this close before the guest's deadline (x host_tick_margin_tsc) waits. */
	uint8_t tick_margin_mult;
};

extern const struct timer_mode_desc timer_modes[TIMER_MODE_COUNT];

/* What an out-of-range mode gets: no rights of its own, everything trapped. */
extern const struct timer_mode_desc timer_mode_none;

/* @m's row (inline: the exit paths ask it several times an exit). */
static inline const struct timer_mode_desc *timer_mode(enum timer_mode m)
{
	return (unsigned int)m < TIMER_MODE_COUNT ? &timer_modes[m] : &timer_mode_none;
}

/* The mode whose name is the @len bytes at @s, or TIMER_MODE_COUNT. */
enum timer_mode timer_mode_parse(const char *s, uint32_t len);

const char *timer_mode_name(enum timer_mode m);

#endif
