// SPDX-License-Identifier: MIT
#include "hv/core/sched.h"

#include "hv/lib/lib.h"

bool sched_init(struct cyclic_sched *s, const int32_t *slots, const uint64_t *lengths,
		uint32_t count, uint64_t start)
{
	memset(s, 0, sizeof(*s));
	if (!count || count > SCHED_MAX_WINDOWS)
		return false;
	for (uint32_t i = 0; i < count; i++) {
		if (!lengths[i] || lengths[i] > UINT64_MAX / SCHED_MAX_WINDOWS)
			return false;
		s->w[i].slot = slots[i];
		s->w[i].length_tsc = lengths[i];
		s->frame_tsc += lengths[i];
	}
	s->count = count;
	s->cur = 0;
	s->cur_start = start;
	s->frames = 1;
	s->w[0].starts = 1;
	return true;
}

bool sched_advance(struct cyclic_sched *s, uint64_t now)
{
	uint32_t first = s->cur;
	int32_t old_slot = s->w[s->cur].slot;
	uint64_t late;

	if (now < sched_window_end(s))
		return false;
	/* whole frames missed: skip them at once, counting every window */
	if (now - sched_window_end(s) >= s->frame_tsc) {
		uint64_t frames = (now - sched_window_end(s)) / s->frame_tsc;

		for (uint32_t i = 0; i < s->count; i++)
			s->w[i].skipped += frames;
		s->cur_start += frames * s->frame_tsc;
		s->frames += frames;
	}
	while (now >= sched_window_end(s)) {
		s->cur_start += s->w[s->cur].length_tsc;
		s->cur = (s->cur + 1) % s->count;
		if (s->cur == 0)
			s->frames++;
		if (now >= sched_window_end(s))
			s->w[s->cur].skipped++;
	}
	late = now - s->cur_start;
	s->w[s->cur].starts++;
	s->w[s->cur].start_late_sum += late;
	if (late > s->w[s->cur].start_late_max_ticks)
		s->w[s->cur].start_late_max_ticks = late;
	if (s->w[s->cur].slot != old_slot)
		s->switches++;
	(void)first;
	return true;
}
