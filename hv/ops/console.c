// SPDX-License-Identifier: MIT
/*
 * The console core drains the partitions' virtual UARTs and their vCPUs'
 * snapshots to the serial line, and the end reports after their last words.
 */
#include "hv/ops/console.h"

#include "arch/x86/cpu.h"
#include "hv/lib/log.h"
#include "hv/state/hooks.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/upcalls.h"

static volatile int drain_lock;	/* 0 free, else the holder's CPU index + 1 */
static volatile int focus = -1;	/* whose input the console is (console_set_focus) */

struct emit_ctx {
	const char *name;
};

/* "[name] line\n" fits one log line: a guest's line is never cut twice. */
_Static_assert(1 + CONFIG_NAME_LEN + 2 + VUART_LINE_MAX + 1 < LOG_LINE_MAX,
	       "a partition's console line does not fit the log's line");

static void emit_line(void *ctx, const char *line)
{
	log_printf(LOG_EMERG, "[%s] %s\n", ((struct emit_ctx *)ctx)->name, line);
}

void print_vcpu_stats(const struct partition *p, const struct vcpu *v,
		      const struct vcpu_snapshot *s)
{
	log_printf(LOG_EMERG, "VCPU_STATS partition=%s vcpu=%u mode=%s tsc=%lu "
		   "exits=%lu tick_exits=%lu timer_exits=%lu "
		   "deadline_write_exits=%lu extint_exits=%lu eoi_exits=%lu fast_exits=%lu "
		   "programmed=%lu fired=%lu injected=%lu dropped_masked=%lu "
		   "mode_switches=%lu host_ticks=%lu tick_late_max_ticks=%lu "
		   "tick_hits=%lu tick_defer_exits=%lu posted_taken=%lu tick_busy=%lu "
		   "window_exits=%lu hlt_exits=%lu\n",
		   p->cfg->name, v->index, timer_mode_name(s->mode), s->tsc,
		   s->exits, s->tick_exits, s->timer_exits,
		   s->deadline_write_exits, s->extint_exits, s->eoi_exits, s->fast_exits,
		   s->timer.programmed, s->timer.fired, s->timer.injected,
		   s->timer.dropped_masked, s->timer.mode_switches, s->host_ticks,
		   s->tick_late_max_ticks, s->tick_hits, s->tick_defer_exits, s->posted_taken,
		   s->tick_busy, s->window_exits, s->hlt_exits);
}

static void print_snapshots(struct partition *p)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *v = p->vcpus[i];

		while (v->stats.snap_tail != __atomic_load_n(&v->stats.snap_head, __ATOMIC_ACQUIRE)) {
			print_vcpu_stats(p, v, &v->stats.snaps[v->stats.snap_tail % VCPU_SNAPSHOTS]);
			__atomic_store_n(&v->stats.snap_tail, v->stats.snap_tail + 1, __ATOMIC_RELEASE);
		}
		/* the vCPU's core found it busy (hv/ops/monitor.c); it does not print itself */
		if (__atomic_exchange_n(&v->mode_busy, false, __ATOMIC_ACQ_REL))
			log_printf(LOG_EMERG, "MONITOR_ERROR msg=\"mode: vCPU %u of '%s' is busy (an "
				   "interrupt in service): not switched\"\n", v->index, p->cfg->name);
	}
}

/*
 * @flush: also the partial last lines of the partitions that have ended, and
 * wait for a drain in progress (a stop report must come after the
 * partition's last words). Without it, a busy drainer means there is nothing
 * to do here.
 */
bool console_lock(bool wait)
{
	int free = 0, me = (int)this_pcpu()->index + 1;

	while (!__atomic_compare_exchange_n(&drain_lock, &free, me, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		free = 0;
		if (!wait)
			return false;
		cpu_relax();
	}
	return true;
}

/*
 * The partition the operator types into gets its partial line out once it
 * has stood still for PROMPT_IDLE_MS: a shell's prompt has no newline. Only
 * once someone has typed: until then every line comes out whole, however
 * long its guest pauses in the middle of it (a shared core's other windows).
 */
#define PROMPT_IDLE_MS	50

/*
 * Output a partition wrote faster than the console drains is dropped when
 * its 8 KiB ring is full (vuart_put): said where it happened, once per
 * drain that finds new drops, with the partition's total so far.
 */
static void console_report_drops(struct partition *p)
{
	uint64_t n = vuart_dropped_since(&p->uart);

	if (n)
		log_printf(LOG_EMERG, "CONSOLE_DROP partition=%s bytes=%lu total_bytes=%lu\n",
			   p->cfg->name, n, p->uart.dropped_shown);
}

static struct vuart_idle prompt_wait[CONFIG_MAX_PARTITIONS];	/* the drainer's */

static bool prompt_due(uint32_t i)
{
	if (__atomic_load_n(&focus, __ATOMIC_RELAXED) != (int)i) {
		prompt_wait[i].armed = false;
		return false;
	}
	return vuart_line_idle(&partitions[i].uart, &prompt_wait[i], rdtsc(),
			       platform.tsc_hz / 1000 * PROMPT_IDLE_MS);
}

void console_drain(bool flush)
{
	for (uint32_t i = 0; i < partition_count; i++) {
		struct emit_ctx ctx = { partitions[i].cfg->name };
		/*
		 * A partial line is printed only once its partition has ended: one
		 * partition's end must not cut a line another is still writing.
		 */
		bool ended = __atomic_load_n(&partitions[i].vcpus_done, __ATOMIC_ACQUIRE) ==
			     partitions[i].vcpu_count;

		vuart_drain(&partitions[i].uart, flush && ended, emit_line, &ctx);
		if (prompt_due(i))
			vuart_flush_line(&partitions[i].uart, emit_line, &ctx);
		console_report_drops(&partitions[i]);
		print_snapshots(&partitions[i]);
		if (__atomic_load_n(&partitions[i].end_report_pending, __ATOMIC_ACQUIRE)) {
			vuart_drain(&partitions[i].uart, true, emit_line, &ctx);
			log_printf(LOG_EMERG, "%s", partitions[i].end_report);
			partitions[i].end_report_pending = false;
		}
	}
}

void console_unlock(void)
{
	__atomic_store_n(&drain_lock, 0, __ATOMIC_RELEASE);
}

void console_drain_all(bool flush)
{
	if (!console_lock(flush))
		return;
	console_drain(flush);
	console_unlock();
}

void console_set_focus(int target)
{
	__atomic_store_n(&focus, target, __ATOMIC_RELAXED);
}

/* A restart: @p's virtual UART back to its reset state, its unprinted bytes gone. */
static void console_reset(struct partition *p)
{
	struct emit_ctx ctx = { p->cfg->name };

	console_lock(true);
	vuart_drain(&p->uart, true, emit_line, &ctx);	/* the old instance's last partial line */
	vuart_init(&p->uart);
	prompt_wait[p - partitions].armed = false;	/* its counts start again */
	__atomic_store_n(&drain_lock, 0, __ATOMIC_RELEASE);
}

PART_HOOK(10, console, .reset = console_reset);

void console_release(uint32_t cpu)
{
	if (__atomic_load_n(&drain_lock, __ATOMIC_ACQUIRE) == (int)cpu + 1)
		__atomic_store_n(&drain_lock, 0, __ATOMIC_RELEASE);
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
	s->exits = v->stats.exits_total;
	s->tick_exits = v->stats.host_tick_exits;
	s->timer_exits = v->stats.exits[EXIT_REASON_PREEMPTION_TIMER];
	s->deadline_write_exits = v->stats.deadline_write_exits;
	s->extint_exits = v->stats.exits[EXIT_REASON_EXTERNAL_INTR];
	s->eoi_exits = v->stats.eoi_exits;
	s->fast_exits = v->stats.fast_exits;
	s->host_ticks = v->pcpu->ht.ticks;
	s->tick_late_max_ticks = v->pcpu->ht.late_max_ticks;
	s->tick_hits = v->stats.tick_hits;
	s->tick_defer_exits = v->stats.tick_defer_exits;
	s->posted_taken = v->stats.pi_taken;
	s->tick_busy = v->stats.tick_busy;
	s->window_exits = v->stats.exits[EXIT_REASON_INTR_WINDOW];
	s->hlt_exits = v->stats.exits[EXIT_REASON_HLT];
	s->timer = v->vt.stats;
	s->mode = v->vt.mode;
}

bool snapshot_vcpu(struct vcpu *v)
{
	uint32_t head = v->stats.snap_head;

	if (head - __atomic_load_n(&v->stats.snap_tail, __ATOMIC_ACQUIRE) >= VCPU_SNAPSHOTS)
		return false;
	vcpu_snapshot_fill(v, &v->stats.snaps[head % VCPU_SNAPSHOTS]);
	__atomic_store_n(&v->stats.snap_head, head + 1, __ATOMIC_RELEASE);
	return true;
}
