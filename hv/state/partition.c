// SPDX-License-Identifier: MIT
/*
 * The partitions and their state word: one core wins each change (a CAS on
 * the state), formats the report and kicks the other vCPUs. What a vCPU
 * does next (it leaves its core) is the run room's.
 */
#include "hv/state/partition.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "hv/core/restart.h"
#include "hv/lib/fmt.h"
#include "hv/state/hooks.h"
#include "hv/state/platform.h"

struct partition partitions[CONFIG_MAX_PARTITIONS];
uint32_t partition_count;
struct channel channels[CONFIG_MAX_CHANNELS];
uint32_t channel_count;

void kick_partition(struct partition *p, struct vcpu *self)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *t = p->vcpus[i];

		if (t == self)
			continue;
		__atomic_fetch_or(&t->pcpu->mailbox, MAILBOX_STOP_VCPU, __ATOMIC_ACQ_REL);
		x2apic_send_nmi(t->pcpu->apic_id);
	}
}

/*
 * The end of a partition is reported by the console core, after the
 * partition's last console lines: the stopping core only formats the line
 * and never waits for the UART (on a shared core that would eat the other
 * vCPUs' windows). A core with console duty prints it at its next drain.
 */
static void report_end(struct partition *p)
{
	__atomic_store_n(&p->end_report_pending, true, __ATOMIC_RELEASE);
}

/* One more restart of @p, and its PARTITION_RESTART line as its end report. */
static void restart_report(struct partition *p, const char *reason)
{
	const struct partition_config *pc = p->cfg;

	p->restarts++;
	fmt_snprintf(p->end_report, sizeof(p->end_report),
		     "PARTITION_RESTART name=%s reason=%s count=%u limit=%u window_s=%u\n",
		     pc->name, reason, p->restarts, pc->restart_limit, pc->restart_window_s);
}

/*
 * Move @p from running to its end (@final: STOPPED or SHUTDOWN) or to a
 * restart. One caller wins; it formats the report. Returns false if @p had
 * already left PART_RUNNING (another vCPU or the monitor was first).
 */
static bool end_partition(struct partition *p, enum restart_end kind, uint32_t final,
			  const char *reason, const char *report)
{
	uint64_t now = rdtsc();
	struct restart_verdict v = restart_decide(p->cfg, &p->window, kind, now, platform.tsc_hz);
	uint32_t expected = PART_RUNNING;
	uint32_t to = v.restart ? PART_RESTARTING : final;
	const struct partition_config *pc = p->cfg;

	if (!__atomic_compare_exchange_n(&p->state, &expected, to, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return false;
	if (v.restart) {
		restart_commit(&p->window, v, now);
		restart_report(p, reason);
	} else if (pc->restart != RESTART_NEVER && kind != RESTART_END_REQUEST) {
		char within[24] = "in this run";

		if (pc->restart_window_s)
			fmt_snprintf(within, sizeof(within), "within %u s", pc->restart_window_s);
		fmt_snprintf(p->end_report, sizeof(p->end_report),
			     "Partition '%s': restart limit reached (%u restarts %s), not "
			     "restarted\n%s", pc->name, p->window.count, within, report);
	} else {
		fmt_snprintf(p->end_report, sizeof(p->end_report), "%s", report);
	}
	part_hooks_stop(p);
	report_end(p);
	return true;
}

/* A PARTITION_STOP line for @p as a vCPU of it (@v) or the monitor (@v NULL) saw it. */
static void stop_line(char *buf, size_t len, struct partition *p, struct vcpu *v,
		      const char *reason, uint64_t qual, const char *detail)
{
	fmt_snprintf(buf, len, "PARTITION_STOP name=%s reason=%s rip=0x%lx qual=0x%lx vcpu=%u "
		     "cpu=%u detail=\"%s\"\n", p->cfg->name, reason, v ? vmread(VMCS_GUEST_RIP) : 0,
		     qual, v ? v->index : 0, v ? v->pcpu->index : this_pcpu()->index, detail);
}

void partition_stop(struct vcpu *v, const char *reason, uint64_t qual, const char *detail)
{
	struct partition *p = v->part;
	char line[320];

	stop_line(line, sizeof(line), p, v, reason, qual, detail);
	if (end_partition(p, RESTART_END_FAILURE, PART_STOPPED, reason, line))
		kick_partition(p, v);
}

void partition_reset(struct vcpu *v, const char *how)
{
	struct partition *p = v->part;
	char line[320], detail[96];

	fmt_snprintf(detail, sizeof(detail), "the guest asked for a reset (%s)", how);
	stop_line(line, sizeof(line), p, v, "reset", 0, detail);
	if (end_partition(p, RESTART_END_RESET, PART_STOPPED, "reset", line))
		kick_partition(p, v);
}

bool partition_stop_outside(struct partition *p, const char *reason, uint64_t qual,
			    const char *detail)
{
	char line[320];

	stop_line(line, sizeof(line), p, NULL, reason, qual, detail);
	if (!end_partition(p, RESTART_END_FAILURE, PART_STOPPED, reason, line))
		return false;
	kick_partition(p, NULL);
	return true;
}

bool partition_stop_request(struct partition *p, bool restart)
{
	uint32_t expected = PART_RUNNING;
	char line[320];

	if (restart) {
		/* the operator's restart: always, and outside the limit's count */
		if (!__atomic_compare_exchange_n(&p->state, &expected, PART_RESTARTING, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return false;
		restart_report(p, "monitor");
	} else {
		if (!__atomic_compare_exchange_n(&p->state, &expected, PART_STOPPED, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return false;
		stop_line(line, sizeof(line), p, NULL, "monitor", 0, "stopped from the monitor");
		fmt_snprintf(p->end_report, sizeof(p->end_report), "%s", line);
	}
	part_hooks_stop(p);
	__atomic_store_n(&p->end_report_pending, true, __ATOMIC_RELEASE);
	kick_partition(p, NULL);
	return true;
}

enum start_refusal partition_start_request(struct partition *p)
{
	uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);

	if (st != PART_STOPPED && st != PART_SHUTDOWN)
		return START_RUNNING;
	/* the rebuild may only begin once nothing of the old instance runs or waits to print */
	if (__atomic_load_n(&p->vcpus_done, __ATOMIC_ACQUIRE) != p->vcpu_count ||
	    __atomic_load_n(&p->end_report_pending, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&p->rebuilding, __ATOMIC_ACQUIRE))
		return START_LEAVING;
	if (!__atomic_compare_exchange_n(&p->state, &st, PART_RESTARTING, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return START_RUNNING;
	restart_report(p, "start");
	/* the restart's rebuild waits for this line, as for any restart */
	__atomic_store_n(&p->end_report_pending, true, __ATOMIC_RELEASE);
	/* its cores gave the vCPUs up; a kick makes each take its own back (hv_pcpu_loop) */
	for (uint32_t i = 0; i < p->vcpu_count; i++)
		if (!p->vcpus[i]->pcpu->shared && p->vcpus[i]->pcpu != this_pcpu())
			x2apic_send_nmi(p->vcpus[i]->pcpu->apic_id);
	return START_OK;
}

static void end_by_request(struct vcpu *v, int64_t code, const char *how, const char *reason)
{
	struct partition *p = v->part;
	char line[160];

	fmt_snprintf(line, sizeof(line), "Partition '%s' %s (exit code %ld)\n", p->cfg->name,
		     how, code);
	if (end_partition(p, RESTART_END_REQUEST, PART_SHUTDOWN, reason, line)) {
		p->exit_code = code;
		kick_partition(p, v);
	}
}

void partition_shutdown(struct vcpu *v, int64_t code)
{
	end_by_request(v, code, "shut down", "shutdown");
}

void partition_poweroff(struct vcpu *v)
{
	end_by_request(v, 0, "powered off (ACPI S5)", "poweroff");
}

/*
 * State and generation in one load: a rebuild publishes PART_RUNNING with
 * the new generation in one store, so a stop seen here is the stop of the
 * generation it came with, and a vCPU that left that one is not counted
 * twice.
 */
bool vcpu_note_end(struct vcpu *v)
{
	struct partition *p = v->part;
	uint64_t run = __atomic_load_n(&p->run, __ATOMIC_ACQUIRE);
	uint32_t gen = (uint32_t)(run >> 32);

	if ((uint32_t)run == PART_RUNNING || v->left_gen == gen + 1)
		return false;
	v->state = VCPU_STOPPED;
	v->left_gen = gen + 1;
	__atomic_fetch_add(&p->vcpus_done, 1, __ATOMIC_ACQ_REL);
	return true;
}
