// SPDX-License-Identifier: MIT
/* The end of the run: every partition's end, its counters and the cores' (log lines tests parse). */
#include "hv/ops/report.h"

#include "arch/x86/trap.h"
#include "hv/dev/channel.h"
#include "hv/dev/devices.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/ops/console.h"
#include "hv/ops/prof.h"
#include "hv/time/time.h"
#include "hv/state/partition.h"
#include "hv/upcalls.h"

static volatile int run_ending;
static bool end_waits;		/* all_ended = monitor */

void report_end_waits(bool waits)
{
	end_waits = waits;
}

void end_run_resume(void)
{
	__atomic_store_n(&run_ending, 0, __ATOMIC_RELEASE);
}

static bool all_partitions_done(void)
{
	for (uint32_t i = 0; i < partition_count; i++)
		/* final first: a restarting partition's vCPUs have all left too */
		if (!partition_final(&partitions[i]) ||
		    __atomic_load_n(&partitions[i].vcpus_done, __ATOMIC_ACQUIRE) !=
		    partitions[i].vcpu_count)
			return false;
	return true;
}

static void print_exit_stats(const struct partition *p)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		const struct vcpu *v = p->vcpus[i];
		char line[480];
		int n = fmt_snprintf(line, sizeof(line), "EXITS partition=%s vcpu=%u total=%lu",
				     p->cfg->name, v->index, v->stats.exits_total);

		for (uint32_t r = 0; r < EXIT_REASON_COUNT; r++)
			if (v->stats.exits[r] && n < (int)sizeof(line))
				n += fmt_snprintf(line + n, sizeof(line) - n, " %s=%lu",
						  vmx_exit_reason_name(r), v->stats.exits[r]);
		log_printf(LOG_EMERG, "%s\n", line);
	}
}

void print_host_ticks(void)
{
	for (uint32_t i = 0; i < pcpu_count; i++) {
		const struct host_timer *h = &pcpus[i].ht;
		uint8_t last;
		uint64_t strays = trap_root_strays(i, &last);

		if (strays)
			log_printf(LOG_EMERG, "ROOT_STRAY cpu=%u vectors=%lu last_vector=0x%x\n", i,
				   strays, last);

		if (!h->ticks && !h->ticks_missed && !h->watchdog_fired)
			continue;
		log_printf(LOG_EMERG, "HOSTTICK cpu=%u ticks=%lu missed=%lu late_max_ticks=%lu "
			   "late_avg_ticks=%lu period_ticks=%lu watchdog_fired=%lu "
			   "slack_ticks=%lu offset_max_ticks=%lu stub_ticks=%lu\n", i, h->ticks,
			   h->ticks_missed, h->late_max_ticks, h->ticks ? h->late_sum_ticks / h->ticks : 0,
			   h->period_tsc, h->watchdog_fired, h->slack_tsc, h->offset_max,
			   h->stub_ticks);
	}
}

static void print_schedules(void)
{
	for (uint32_t i = 0; i < pcpu_count; i++) {
		const struct pcpu *c = &pcpus[i];

		struct cyclic_sched snap;

		if (!c->shared || !c->sched_started)
			continue;
		/* the core runs on while the UART takes ms a line: print one moment */
		snap = c->sched;
		log_printf(LOG_EMERG, "SCHED cpu=%u windows=%u frame_ticks=%lu frames=%lu "
			   "switches=%lu\n", i, snap.count, snap.frame_tsc, snap.frames,
			   snap.switches);
		for (uint32_t w = 0; w < snap.count; w++) {
			const struct sched_window *sw = &snap.w[w];

			log_printf(LOG_EMERG, "WINDOW cpu=%u index=%u partition=%s length_ticks=%lu "
				   "starts=%lu start_late_max_ticks=%lu start_late_avg_ticks=%lu "
				   "skipped=%lu\n", i, w,
				   sw->slot >= 0 ? c->slots[sw->slot]->part->cfg->name : "idle",
				   sw->length_tsc, sw->starts, sw->start_late_max_ticks,
				   sw->starts ? sw->start_late_sum / sw->starts : 0, sw->skipped);
		}
	}
}

static const char *const trace_names[] = {
	[TRACE_DEADLINE_WRITE] = "deadline_write", [TRACE_PV_UPDATE] = "pv_update",
	[TRACE_HW_FIRE] = "hw_fire", [TRACE_INJECT] = "inject", [TRACE_LVT] = "lvt",
	[TRACE_SAVE] = "save", [TRACE_RESTORE] = "restore", [TRACE_MODE] = "mode",
	[TRACE_WINDOW_IN] = "window_in",
};

/* The last few timer-state transitions of every vCPU of @p, oldest first. */
void print_trace(const struct partition *p)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		const struct vcpu *v = p->vcpus[i];
		uint32_t n = v->stats.trace_next < 8 ? v->stats.trace_next : 8;

		for (uint32_t k = v->stats.trace_next - n; k != v->stats.trace_next; k++) {
			const struct trace_entry *t = &v->stats.trace[k % TRACE_RING];

			log_printf(LOG_EMERG, "TRACE partition=%s vcpu=%u seq=%u tsc=%lu event=%s "
				   "value=0x%lx\n", p->cfg->name, v->index, k, t->tsc,
				   t->event < ARRAY_SIZE(trace_names) && trace_names[t->event]
					   ? trace_names[t->event] : "?", t->value);
		}
	}
}

void end_run_if_done(void)
{
	if (!all_partitions_done())
		return;
	if (__atomic_exchange_n(&run_ending, 1, __ATOMIC_ACQ_REL))
		return;
	console_drain_all(true);
	for (uint32_t i = 0; i < partition_count; i++) {
		const struct partition *p = &partitions[i];

		char restarts[24] = "";

		/* the key only where restarts can happen: the line stays as it was elsewhere */
		if (p->restarts || p->cfg->restart != RESTART_NEVER)
			fmt_snprintf(restarts, sizeof(restarts), " restarts=%u", p->restarts);
		log_printf(LOG_EMERG, "PARTITION_END name=%s state=%s exit_code=%ld%s\n",
			   p->cfg->name, p->state == PART_SHUTDOWN ? "shutdown" : "stopped",
			   p->exit_code, restarts);
		print_exit_stats(p);
		print_trace(p);
	}
	print_host_ticks();
	print_schedules();
	channels_report();
	devices_report();
	log_printf(LOG_EMERG, "TIMER_COST rearm_instr=%lu\n", rearm_cost_ticks);
	prof_report();
	if (end_waits) {
		/* an admin on a remote console must see what they can do next */
		log_printf(LOG_EMERG, "TEMPO_ALL_ENDED action=monitor: every partition has ended; "
			   "Tempo waits in its monitor (all_ended = monitor): Ctrl-T m, then "
			   "start NAME, or reboot\n");
		return;
	}
	hv_stop(STOP_OK, "all partitions ended");
}
