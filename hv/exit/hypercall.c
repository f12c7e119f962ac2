// SPDX-License-Identifier: MIT
/*
 * VMCALL exits: hv/core/hypercall.c decodes and checks the arguments; these
 * only act on them. A checked range is inside the guest's RAM, so
 * gpa_to_hva() cannot fail.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/trap.h"
#include "hv/dev/channel.h"
#include "hv/ops/console.h"
#include "hv/time/time.h"
#include "hv/core/hypercall.h"
#include "hv/core/hypercall_abi.h"
#include "hv/exit/exit.h"
#include "hv/lib/lib.h"
#include "hv/state/platform.h"

static int64_t hc_console_write(struct vcpu *v, uint64_t gpa, uint64_t len)
{
	/* whole or not at all: 0 when the console ring had no room (dropped, counted) */
	if (!vuart_put(&v->part->uart, gpa_to_hva(v->part, gpa, len), (uint32_t)len))
		return 0;
	return (int64_t)len;
}

static int64_t hc_partition_info(struct vcpu *v, uint64_t gpa)
{
	struct tempo_partition_info info, *dst = gpa_to_hva(v->part, gpa, sizeof(info));

	memset(&info, 0, sizeof(info));
	str_copy(info.name, sizeof(info.name), v->part->cfg->name, CONFIG_NAME_LEN);
	info.partition_id = v->part->id;
	info.vcpu_count = v->part->vcpu_count;
	info.vcpu_index = v->index;
	info.timer_mode = v->part->cfg->timer;
	info.memory_bytes = v->part->mem_size;
	info.tsc_khz = platform.tsc_hz / 1000;
	info.channel_count = v->part->channel_count;
	memcpy(dst, &info, sizeof(info));
	return TEMPO_HC_OK;
}

enum exit_action exit_vmcall(struct vcpu *v, struct exit_ctx *x)
{
	struct hc_regs r = {
		.rax = v->arch.regs.rax, .rdi = v->arch.regs.rdi, .rsi = v->arch.regs.rsi,
		.rdx = v->arch.regs.rdx,
		.long_mode = guest_long_mode(), .cpl = guest_cpl(),
	};
	struct hc_context c = {
		.mem_size = v->part->mem_size, .timer_mode = v->vt.mode,
		.shared_core = v->pcpu->shared, .vcpu_count = v->part->vcpu_count,
		.channel_count = v->part->channel_count, .posted = v->apic.pi_on,
	};
	struct hc_decision d;
	int64_t ret;

	hypercall_decode(&r, &c, &d);
	switch (d.action) {
	case HC_ACT_UD:
		inject_exception(VEC_UD, false, 0);
		return EXIT_RESUME;
	case HC_ACT_CONSOLE_WRITE:
		ret = hc_console_write(v, d.gpa, d.len);
		break;
	case HC_ACT_PARTITION_INFO:
		ret = hc_partition_info(v, d.gpa);
		break;
	case HC_ACT_TIMER_MODE_SET:
		ret = vcpu_timer_mode_set(v, d.mode);
		break;
	case HC_ACT_TIMER_MODE_GET:
		ret = v->vt.mode;
		break;
	case HC_ACT_PV_TIMER:
		pv_register(v, d.gpa);
		ret = TEMPO_HC_OK;
		break;
	case HC_ACT_STATS:
		snapshot_vcpu(v);
		ret = TEMPO_HC_OK;
		break;
	case HC_ACT_CHANNEL_INFO:
		channel_info(v, d.channel, gpa_to_hva(v->part, d.gpa, d.len));
		ret = TEMPO_HC_OK;
		break;
	case HC_ACT_CHANNEL_BIND:
		channel_bind(v, d.channel, d.vector, d.vcpu);
		ret = TEMPO_HC_OK;
		break;
	case HC_ACT_CHANNEL_RING:
		ret = channel_ring(v, d.channel, d.peer);
		break;
	case HC_ACT_SHUTDOWN:
		x->code = d.exit_code;
		return EXIT_SHUTDOWN;
	case HC_ACT_RETURN:
	default:
		ret = d.ret;
		break;
	}
	v->arch.regs.rax = (uint64_t)ret;
	skip_instruction();
	return EXIT_RESUME;
}

