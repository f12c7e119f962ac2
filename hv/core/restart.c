// SPDX-License-Identifier: MIT
#include "hv/core/restart.h"

struct restart_verdict restart_decide(const struct partition_config *pc,
				      const struct restart_window *w, enum restart_end kind,
				      uint64_t now, uint64_t tsc_hz)
{
	uint64_t window_tsc = (uint64_t)pc->restart_window_s * tsc_hz;
	struct restart_verdict v = { false, false };

	if (pc->restart == RESTART_NEVER ||
	    (kind == RESTART_END_REQUEST && pc->restart != RESTART_ALWAYS))
		return v;
	v.window_new = !w->count || (window_tsc && now - w->start_tsc >= window_tsc);
	v.restart = v.window_new || w->count < pc->restart_limit;
	return v;
}

void restart_commit(struct restart_window *w, struct restart_verdict v, uint64_t now)
{
	if (!v.restart)
		return;
	if (v.window_new) {
		w->start_tsc = now;
		w->count = 0;
	}
	w->count++;
}
