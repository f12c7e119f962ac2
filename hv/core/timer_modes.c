// SPDX-License-Identifier: MIT
#include "hv/core/timer_modes.h"

#include "hv/lib/lib.h"

const struct timer_mode_desc timer_modes[TIMER_MODE_COUNT] = {
	[TIMER_DIRECT] = {
		.name = "direct", .owns_lapic = true, .places_ticks = true,
		.tick_margin_mult = 1,
	},
	[TIMER_INJECT] = {
		.name = "inject", .injects_fired = true, .may_share_core = true,
		/* the injection itself comes later than a direct interrupt */
		.tick_margin_mult = 3,
	},
	[TIMER_EMULATED] = {
		.name = "emulated", .soft_deadline = true, .may_share_core = true,
		.tick_margin_mult = 1,
	},
	[TIMER_PV_LAZY] = {
		.name = "pv-lazy", .soft_deadline = true, .may_share_core = true,
		.pv_page = true, .tick_margin_mult = 1,
	},
};

const struct timer_mode_desc timer_mode_none = {
	.name = "unknown", .soft_deadline = true, .tick_margin_mult = 1,
};

enum timer_mode timer_mode_parse(const char *s, uint32_t len)
{
	for (unsigned int m = 0; m < TIMER_MODE_COUNT; m++)
		if (strlen(timer_modes[m].name) == len && !memcmp(timer_modes[m].name, s, len))
			return (enum timer_mode)m;
	return TIMER_MODE_COUNT;
}

const char *timer_mode_name(enum timer_mode m)
{
	return timer_mode(m)->name;
}
