// SPDX-License-Identifier: MIT
/*
 * Hypercall decoding and argument checks (hv/core/hypercall.h). Nothing here
 * touches guest memory: a range is only checked against the RAM size, and
 * hv/exit/hypercall.c maps it with gpa_to_hva(), which applies the same test.
 */
#include "hv/core/hypercall.h"

#include "hv/core/timer_modes.h"
#include "hv/core/guest_ram.h"
#include "hv/core/hypercall_abi.h"
#include "hv/lib/lib.h"

bool hc_range_ok(uint64_t mem_size, uint64_t gpa, uint64_t len)
{
	return guest_ram_offset(mem_size, gpa, len, (uint64_t *)0);
}

static void ret_error(struct hc_decision *d, int64_t err)
{
	d->action = HC_ACT_RETURN;
	d->ret = err;
}

static void decode_range(const struct hc_context *c, struct hc_decision *d,
			 enum hc_action action, uint64_t gpa, uint64_t len)
{
	if (!hc_range_ok(c->mem_size, gpa, len)) {
		ret_error(d, TEMPO_HC_EINVAL);
		return;
	}
	d->action = action;
	d->gpa = gpa;
	d->len = len;
}

/* The channel hypercalls: RDI is always a local channel index. */
static void decode_channel(const struct hc_context *c, struct hc_decision *d, uint64_t nr,
			   uint64_t a0, uint64_t a1, uint64_t a2)
{
	if (a0 >= c->channel_count) {
		ret_error(d, TEMPO_HC_EINVAL);
		return;
	}
	d->channel = (uint32_t)a0;
	switch (nr) {
	case TEMPO_HC_CHANNEL_INFO:
		decode_range(c, d, HC_ACT_CHANNEL_INFO, a1, sizeof(struct tempo_channel_info));
		break;
	case TEMPO_HC_CHANNEL_BIND:
		if ((a1 && (a1 < TEMPO_CHANNEL_VECTOR_MIN || a1 > TEMPO_CHANNEL_VECTOR_MAX)) ||
		    a2 >= c->vcpu_count) {
			ret_error(d, TEMPO_HC_EINVAL);
			break;
		}
		d->action = HC_ACT_CHANNEL_BIND;
		d->vector = (uint32_t)a1;
		d->vcpu = (uint32_t)a2;
		break;
	default:	/* TEMPO_HC_CHANNEL_RING */
		d->action = HC_ACT_CHANNEL_RING;
		d->peer = a1;
		break;
	}
}

void hypercall_decode(const struct hc_regs *r, const struct hc_context *c,
		      struct hc_decision *d)
{
	uint64_t mask = r->long_mode ? ~0ull : 0xffffffffull;
	uint64_t nr = r->rax & mask, a0 = r->rdi & mask, a1 = r->rsi & mask, a2 = r->rdx & mask;

	memset(d, 0, sizeof(*d));
	d->nr = nr;
	if (r->cpl != 0) {
		d->action = HC_ACT_UD;	/* not for user space */
		return;
	}
	switch (nr) {
	case TEMPO_HC_CONSOLE_WRITE:
		if (a1 > TEMPO_HC_CONSOLE_MAX)
			ret_error(d, TEMPO_HC_EINVAL);
		else
			decode_range(c, d, HC_ACT_CONSOLE_WRITE, a0, a1);
		break;
	case TEMPO_HC_PARTITION_INFO:
		decode_range(c, d, HC_ACT_PARTITION_INFO, a0,
			     sizeof(struct tempo_partition_info));
		break;
	case TEMPO_HC_SHUTDOWN:
		d->action = HC_ACT_SHUTDOWN;
		d->exit_code = (int64_t)a0;	/* a 32-bit guest's: its low half */
		break;
	case TEMPO_HC_TIMER_MODE_SET:
		if (a0 >= TIMER_MODE_COUNT)
			ret_error(d, TEMPO_HC_EINVAL);
		else if (!timer_modes[a0].may_share_core && c->shared_core)
			ret_error(d, TEMPO_HC_EINVAL);	/* direct mode needs a dedicated core */
		else if (timer_modes[a0].owns_lapic && c->posted)
			ret_error(d, TEMPO_HC_EINVAL);	/* never leaves posted interrupts (posted.h) */
		else {
			d->action = HC_ACT_TIMER_MODE_SET;
			d->mode = (uint32_t)a0;
		}
		break;
	case TEMPO_HC_TIMER_MODE_GET:
		d->action = HC_ACT_TIMER_MODE_GET;
		break;
	case TEMPO_HC_STATS:
		d->action = HC_ACT_STATS;
		break;
	case TEMPO_HC_PV_TIMER:
		if (!timer_mode(c->timer_mode)->pv_page || (a0 & 7))
			ret_error(d, TEMPO_HC_EINVAL);
		else
			decode_range(c, d, HC_ACT_PV_TIMER, a0, sizeof(struct tempo_pv_timer));
		break;
	case TEMPO_HC_CHANNEL_INFO:
	case TEMPO_HC_CHANNEL_BIND:
	case TEMPO_HC_CHANNEL_RING:
		decode_channel(c, d, nr, a0, a1, a2);
		break;
	default:
		ret_error(d, TEMPO_HC_ENOSYS);
		break;
	}
}
