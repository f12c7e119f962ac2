/* SPDX-License-Identifier: MIT */
/*
 * What follows a partition's end under its restart policy (config restart,
 * restart_limit, restart_window_s; docs/operating.md): restart it, or let the
 * end stand. Pure: the caller gives the time; host-testable.
 */
#ifndef TEMPO_HV_CORE_RESTART_H
#define TEMPO_HV_CORE_RESTART_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/config.h"

enum restart_end {
	RESTART_END_FAILURE,	/* Tempo stopped it (a PARTITION_STOP reason) */
	RESTART_END_REQUEST,	/* the guest shut down or powered off */
	RESTART_END_RESET,	/* the guest asked for a reset */
};

/* The restarts the limit counts: those in the current window. */
struct restart_window {
	uint32_t count;		/* restarts in the window; 0: no window open */
	uint64_t start_tsc;	/* when its first restart was */
};

struct restart_verdict {
	bool restart;
	bool window_new;	/* the window starts again with this restart */
};

/*
 * Does an end of @kind at @now restart the partition? A window of
 * restart_window_s seconds opens at the first restart and holds at most
 * restart_limit of them; one that has run out opens anew (0 s: it never runs
 * out). The verdict changes nothing: only the caller that makes the end
 * happen commits it (restart_commit).
 */
struct restart_verdict restart_decide(const struct partition_config *pc,
				      const struct restart_window *w, enum restart_end kind,
				      uint64_t now, uint64_t tsc_hz);
void restart_commit(struct restart_window *w, struct restart_verdict v, uint64_t now);

#endif
