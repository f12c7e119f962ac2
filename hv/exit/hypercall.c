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

/*
 * Nothing in service or pending in the physical APIC (no guest vector
 * left). A posted-interrupt notification pending there is not the guest's:
 * the CPU takes it after the entry, in any mode that takes posted
 * interrupts, and a vCPU that does never leaves them (hv/core/posted.h).
 */
static bool physical_apic_idle(const struct vcpu *v)
{
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t irr = rdmsr(X2APIC_IRR0 + i);

		if (v->pi_on && i == TRAP_POSTED_VECTOR / 32)
			irr &= ~(1ull << (TRAP_POSTED_VECTOR % 32));
		if (rdmsr(X2APIC_ISR0 + i) || irr)
			return false;
	}
	return true;
}

/*
 * Only with nothing in service, physical or virtual (DESIGN.md). A deadline
 * in the hardware is taken out by the save protocol and put back, or kept in
 * software, by the new mode; the APIC state moves with it
 * (x2apic_move_state). @mode is valid for this core (decoder).
 */
int64_t vcpu_timer_mode_set(struct vcpu *v, uint32_t mode)
{
	struct vtimer *t = &v->vt;
	enum timer_mode old_mode;

	if (mode == t->mode)
		return TEMPO_HC_OK;
	/* the decoder and the monitor refuse it first; this is the last gate */
	if (v->pi_on && timer_mode((enum timer_mode)mode)->owns_lapic)
		return TEMPO_HC_EINVAL;
	if (vlapic_in_service(&t->vlapic) || !physical_apic_idle(v))
		return TEMPO_HC_EBUSY;
	old_mode = t->mode;
	/* a fire since the check above is found in the IRR (and taken, inject) */
	if (!timer_mode(t->mode)->soft_deadline)
		timer_save_hw(v);
	if (!vtimer_switch_mode(t, (enum timer_mode)mode, rdtsc())) {
		/* refused after the save: the deadline goes back where it was */
		if (!timer_mode(t->mode)->soft_deadline)
			wrmsr(MSR_IA32_TSC_DEADLINE, vtimer_restore(t));
		return TEMPO_HC_EBUSY;
	}
	vcpu_trace(v, TRACE_MODE, mode, rdtsc());
	x2apic_move_state(v, old_mode);
	vcpu_timer_apply_mode(v);
	timer_program_lvt(v);
	if (!timer_mode(t->mode)->soft_deadline)
		wrmsr(MSR_IA32_TSC_DEADLINE, vtimer_restore(t));	/* after the LVT */
	v->pv = NULL;	/* a pv-lazy page is registered again in that mode */
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
		.channel_count = v->part->channel_count, .posted = v->pi_on,
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

/*
 * On demand (hypercall, CPUID leaf TEMPO_CPUID_STATS): a copy of the
 * counters, a few dozen instructions on the guest's core; the console core
 * formats it later (a VCPU_STATS line a script can difference between two
 * calls). A full ring drops the copy.
 */
void vcpu_snapshot_fill(const struct vcpu *v, struct vcpu_snapshot *s)
{
	s->tsc = rdtsc();
	s->exits = v->exits_total;
	s->tick_exits = v->host_tick_exits;
	s->timer_exits = v->exits[EXIT_REASON_PREEMPTION_TIMER];
	s->deadline_write_exits = v->deadline_write_exits;
	s->extint_exits = v->exits[EXIT_REASON_EXTERNAL_INTR];
	s->eoi_exits = v->eoi_exits;
	s->fast_exits = v->fast_exits;
	s->host_ticks = v->pcpu->ht.ticks;
	s->tick_late_max_ticks = v->pcpu->ht.late_max_ticks;
	s->tick_hits = v->tick_hits;
	s->tick_defer_exits = v->tick_defer_exits;
	s->posted_taken = v->pi_taken;
	s->tick_busy = v->tick_busy;
	s->timer = v->vt.stats;
	s->mode = v->vt.mode;
}

bool snapshot_vcpu(struct vcpu *v)
{
	uint32_t head = v->snap_head;

	if (head - __atomic_load_n(&v->snap_tail, __ATOMIC_ACQUIRE) >= VCPU_SNAPSHOTS)
		return false;
	vcpu_snapshot_fill(v, &v->snaps[head % VCPU_SNAPSHOTS]);
	__atomic_store_n(&v->snap_head, head + 1, __ATOMIC_RELEASE);
	return true;
}
