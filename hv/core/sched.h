/* SPDX-License-Identifier: MIT */
/*
 * A static cyclic schedule for one core (ARINC 653 style): a major frame of
 * windows, each giving the core to one vCPU (a slot) or to nobody. Window
 * ends are host events on the preemption timer. Pure and host-testable: the
 * caller says what time it is; this says which window that is and when the
 * next switch is due, and keeps the jitter statistics.
 */
#ifndef TEMPO_HV_SCHED_H
#define TEMPO_HV_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#define SCHED_MAX_WINDOWS	16
#define SCHED_IDLE		(-1)

struct sched_window {
	int32_t slot;		/* the core's vCPU slot, or SCHED_IDLE */
	uint64_t length_tsc;
	/* stats */
	uint64_t starts;
	uint64_t start_late_max_ticks;	/* actual start - planned start */
	uint64_t start_late_sum;
	uint64_t skipped;	/* windows that passed entirely while the core was late */
};

struct cyclic_sched {
	uint32_t count;
	struct sched_window w[SCHED_MAX_WINDOWS];
	uint64_t frame_tsc;
	uint32_t cur;		/* the window in force */
	uint64_t cur_start;	/* its planned start (absolute TSC) */
	uint64_t frames;	/* major frames begun */
	uint64_t switches;	/* changes of the running slot */
};

/*
 * Set up from window lengths (TSC ticks, each > 0) and slots; the first
 * frame starts at @start. Returns false on an empty or oversized schedule.
 */
bool sched_init(struct cyclic_sched *s, const int32_t *slots, const uint64_t *lengths,
		uint32_t count, uint64_t start);

/* The planned end of the window in force: the next switch's due time. */
static inline uint64_t sched_window_end(const struct cyclic_sched *s)
{
	return s->cur_start + s->w[s->cur].length_tsc;
}

static inline int32_t sched_slot(const struct cyclic_sched *s)
{
	return s->w[s->cur].slot;
}

/*
 * Move to the window that contains @now (a no-op before the current one
 * ends). Windows that passed entirely count as skipped; the one entered
 * counts a start late by (now - its planned start). The grid never drifts:
 * planned starts stay multiples of the window lengths from the first frame.
 * Returns true if the window changed.
 */
bool sched_advance(struct cyclic_sched *s, uint64_t now);

#endif
