// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a VMCALL as a hostile guest issues it. The input is the
 * guest's RAX, RDI, RSI, its mode and CPL, and the partition's RAM size and
 * timer mode; hypercall_decode() must return a decision whose arguments all
 * hold (hv/core/hypercall.h). Any that does not traps; ASan and UBSan catch the rest.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/config.h"
#include "hv/core/hypercall.h"
#include "hv/core/hypercall_abi.h"
#include "hv/lib/lib.h"

static uint64_t take64(const uint8_t **p, size_t *len)
{
	uint64_t v = 0;

	if (*len >= 8) {
		v = rd64(*p);
		*p += 8;
		*len -= 8;
	}
	return v;
}

/*
 * The range the hypervisor will map lies in one piece of the partition's
 * RAM as its guest sees it: below the MMIO window (0xFEA00000 at most) or
 * from 4 GiB (hv/core/guest_ram.h), spelled out here in 128-bit arithmetic.
 */
static bool in_guest_ram(uint64_t mem_size, uint64_t gpa, uint64_t len)
{
	const unsigned __int128 low_max = 0xfea00000u, g4 = 1ull << 32;
	unsigned __int128 low = mem_size < low_max ? mem_size : low_max, high = mem_size - low;
	unsigned __int128 start = gpa, end = start + len;

	if (start < low)
		return end <= low;
	return high && start >= g4 && start < g4 + high && end <= g4 + high;
}

static void check(const struct hc_regs *r, const struct hc_context *c, const struct hc_decision *d)
{
	uint64_t mask = r->long_mode ? ~0ull : 0xffffffffull;
	uint64_t nr = r->rax & mask, a0 = r->rdi & mask, a1 = r->rsi & mask, a2 = r->rdx & mask;
	bool channel_call = nr >= TEMPO_HC_CHANNEL_INFO && nr <= TEMPO_HC_CHANNEL_RING;

	if (d->nr != nr)
		abort();
	if (r->cpl != 0) {
		if (d->action != HC_ACT_UD)
			abort();
		return;
	}
	switch (d->action) {
	case HC_ACT_UD:
		abort();
	case HC_ACT_RETURN:
		if (d->ret != TEMPO_HC_EINVAL && d->ret != TEMPO_HC_ENOSYS)
			abort();
		if ((d->ret == TEMPO_HC_ENOSYS) != (nr > TEMPO_HC_CHANNEL_RING))
			abort();
		break;
	case HC_ACT_CHANNEL_INFO:
		if (nr != TEMPO_HC_CHANNEL_INFO || d->gpa != a1 ||
		    d->len != sizeof(struct tempo_channel_info) ||
		    !in_guest_ram(c->mem_size, d->gpa, d->len))
			abort();
		break;
	case HC_ACT_CHANNEL_BIND:
		if (nr != TEMPO_HC_CHANNEL_BIND || d->vector != a1 || d->vcpu != a2 ||
		    d->vcpu >= c->vcpu_count ||
		    (d->vector && (d->vector < TEMPO_CHANNEL_VECTOR_MIN ||
				   d->vector > TEMPO_CHANNEL_VECTOR_MAX)))
			abort();
		break;
	case HC_ACT_CHANNEL_RING:
		if (nr != TEMPO_HC_CHANNEL_RING || d->peer != a1)
			abort();
		break;
	case HC_ACT_CONSOLE_WRITE:
		if (nr != TEMPO_HC_CONSOLE_WRITE || d->len > TEMPO_HC_CONSOLE_MAX ||
		    d->gpa != a0 || d->len != a1)
			abort();
		/* the range the hypervisor maps, checked again the long way */
		if (!in_guest_ram(c->mem_size, d->gpa, d->len))
			abort();
		break;
	case HC_ACT_PARTITION_INFO:
		if (nr != TEMPO_HC_PARTITION_INFO || d->gpa != a0 ||
		    d->len != sizeof(struct tempo_partition_info) ||
		    !in_guest_ram(c->mem_size, d->gpa, d->len))
			abort();
		break;
	case HC_ACT_PV_TIMER:
		if (nr != TEMPO_HC_PV_TIMER || d->gpa != a0 || (d->gpa & 7) ||
		    c->timer_mode != TIMER_PV_LAZY || d->len != sizeof(struct tempo_pv_timer) ||
		    !in_guest_ram(c->mem_size, d->gpa, d->len))
			abort();
		break;
	case HC_ACT_TIMER_MODE_SET:
		if (nr != TEMPO_HC_TIMER_MODE_SET || d->mode > TIMER_PV_LAZY || d->mode != a0 ||
		    (d->mode == TIMER_DIRECT && (c->shared_core || c->posted)))
			abort();
		break;
	case HC_ACT_SHUTDOWN:
		if (nr != TEMPO_HC_SHUTDOWN || (uint64_t)d->exit_code != a0)
			abort();
		break;
	case HC_ACT_TIMER_MODE_GET:
		if (nr != TEMPO_HC_TIMER_MODE_GET)
			abort();
		break;
	case HC_ACT_STATS:
		if (nr != TEMPO_HC_STATS)
			abort();
		break;
	default:
		abort();
	}
	/* every channel call that gets past the decoder names a channel that exists */
	if (channel_call && d->action != HC_ACT_RETURN && (d->channel != a0 || a0 >= c->channel_count))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hc_regs r;
	struct hc_context c;
	struct hc_decision d;
	uint8_t flags;

	if (size < 1)
		return 0;
	flags = data[0];
	data++;
	size--;
	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	r.long_mode = flags & 1;
	r.cpl = (flags >> 1) & 3;
	c.shared_core = (flags >> 3) & 1;
	c.timer_mode = (flags >> 4) & 3;
	/* small numbers are the interesting ones: let one byte pick the call */
	r.rax = (flags & 0x40) ? take64(&data, &size) : (size ? (size--, *data++) % 11 : 0);
	r.rdi = take64(&data, &size);
	r.rsi = take64(&data, &size);
	r.rdx = take64(&data, &size);
	c.vcpu_count = size ? (size--, *data++) % 70 : 0;
	c.channel_count = size ? (size--, *data++) % 10 : 0;
	c.mem_size = take64(&data, &size);
	if (flags & 0x80)	/* a realistic size: 2 MiB granules up to 64 GiB */
		c.mem_size = (c.mem_size & 0x7fff) << 21;
	/* last, so older seeds keep their meaning: a vCPU taking posted interrupts */
	c.posted = size && (*data & 1);
	hypercall_decode(&r, &c, &d);
	check(&r, &c, &d);
	return 0;
}
