// SPDX-License-Identifier: MIT
/*
 * The operator's side of the serial console: what is typed on COM1 goes to
 * one partition's virtual UART or to the monitor (hv/core/console_input.c
 * routes it), and the monitor's commands (hv/core/monitor.c parses them) are
 * done here. It runs where the consoles drain, under the drain lock, just
 * before the drain (operator_service): on the console core, or, when every
 * core runs a guest, at guests' exits.
 *
 * A flood cannot stall anything: at most MONITOR_POLL_BYTES bytes are taken
 * a poll (the UART drops what its FIFO cannot hold), a partition's receive
 * FIFO drops and counts what it cannot take, and no command waits on a guest.
 */
#include "hv/ops/monitor.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "hv/apic/apic.h"
#include "hv/core/console_input.h"
#include "hv/core/monitor.h"
#include "hv/dev/dma.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/uart16550.h"
#include "hv/ops/console.h"
#include "hv/ops/report.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/upcalls.h"

#define MONITOR_POLL_BYTES	64
/*
 * The UART's status is read at most this often: a port read costs about a
 * microsecond on hardware, and with no core free the drains run at guests'
 * exits. A 16550's 16-byte FIFO takes 1.4 ms to fill at 115200 baud.
 */
#define MONITOR_POLL_US		100

static struct console_input cin;
static struct monitor_line line;
static bool started;
static bool typed;	/* a byte has come in: someone is at the console */

static const char *const state_names[] = {
	[PART_RUNNING] = "running",
	[PART_SHUTDOWN] = "shutdown",
	[PART_STOPPED] = "stopped",
	[PART_RESTARTING] = "restarting",
};

static const char *target_name(uint32_t t)
{
	return t < partition_count ? partitions[t].cfg->name : "monitor";
}

static int mode_of(const char *name)
{
	enum timer_mode m = timer_mode_parse(name, (uint32_t)strlen(name));

	return m == TIMER_MODE_COUNT ? -1 : (int)m;
}

/* A help text, a log line at a time (a log line is at most LOG_LINE_MAX). */
static void print_text(const char *s)
{
	while (*s) {
		const char *nl = s;

		while (*nl && *nl != '\n')
			nl++;
		log_printf(LOG_EMERG, "%.*s\n", (int)(nl - s), s);
		s = *nl ? nl + 1 : nl;
	}
}

/*
 * No prompt: the monitor shares the line with the partitions' output, and a
 * prompt would sit in front of whatever line came next.
 */
static void say_focus(uint32_t t)
{
	log_printf(LOG_EMERG, "CONSOLE_INPUT target=%s\n", target_name(t));
	if (t == partition_count)
		log_printf(LOG_EMERG, "Tempo monitor: type help and Enter for the commands\n");
}

static void cmd_list(void)
{
	for (uint32_t i = 0; i < partition_count; i++) {
		const struct partition *p = &partitions[i];
		char cpus[CONFIG_MAX_VCPUS * 5 + 1] = "";	/* "4095," for each */
		uint64_t exits = 0;
		uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE), o = 0;

		for (uint32_t k = 0; k < p->vcpu_count; k++) {
			exits += p->vcpus[k]->stats.exits_total;
			o += (uint32_t)fmt_snprintf(cpus + o, sizeof(cpus) - o, "%s%u", k ? "," : "",
						    p->vcpus[k]->pcpu->index);
			if (o >= sizeof(cpus))
				break;
		}
		log_printf(LOG_EMERG, "MONITOR_PARTITION name=%s state=%s cpus=%s timer=%s "
			   "vcpus=%u exits=%lu restarts=%u restart=%s rx_dropped=%lu\n", p->cfg->name,
			   st < ARRAY_SIZE(state_names) ? state_names[st] : "?", cpus,
			   timer_mode_name(p->vcpus[0]->vt.mode), p->vcpu_count, exits,
			   p->restarts, restart_policy_name(p->cfg->restart), p->uart.rx_dropped);
	}
}

/* TSC ticks as ns (the monitor's figures; 0 before the TSC's rate is known). */
static uint64_t ticks_ns(uint64_t ticks)
{
	uint64_t mhz = platform.tsc_hz / 1000000;

	return mhz ? ticks * 1000 / mhz : 0;
}

/*
 * A partition's counters as tables an operator can read on an 80-column
 * console: the vCPUs' exits and guest timer events, the host ticks on
 * their cores with how late they ran, and the exits by reason. Every
 * column says its unit. Each line is printed as it is made: the console
 * core is where this runs, and the UART takes its time.
 */
static void cmd_stats(const struct partition *p)
{
	uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);

	log_printf(LOG_EMERG, "STATS partition %s: %s, %u vCPU%s, %u restart%s (restart = %s)\n",
		   p->cfg->name, st < ARRAY_SIZE(state_names) ? state_names[st] : "?",
		   p->vcpu_count, p->vcpu_count == 1 ? "" : "s", p->restarts,
		   p->restarts == 1 ? "" : "s", restart_policy_name(p->cfg->restart));
	log_printf(LOG_EMERG, "  guest timer events, counts; advance_ns: how early a software "
		   "deadline is armed\n");
	log_printf(LOG_EMERG, "  %4s %4s %-9s %10s %10s %10s %10s %10s %10s\n", "vcpu", "cpu",
		   "mode", "exits", "deadlines", "fired", "injected", "dropped", "advance_ns");
	for (uint32_t k = 0; k < p->vcpu_count; k++) {
		const struct vcpu *v = p->vcpus[k];
		char adv[24] = "-";

		if (timer_mode(v->vt.mode)->soft_deadline)
			fmt_snprintf(adv, sizeof(adv), "%lu", ticks_ns(v->adv.tsc));
		log_printf(LOG_EMERG, "  %4u %4u %-9s %10lu %10lu %10lu %10lu %10lu %10s\n", k,
			   v->pcpu->index, timer_mode_name(v->vt.mode), v->stats.exits_total,
			   v->vt.stats.programmed, v->vt.stats.fired, v->vt.stats.injected,
			   v->vt.stats.dropped_masked, adv);
	}
	log_printf(LOG_EMERG, "  host ticks on the vCPU's core (its own tick, on the preemption "
		   "timer), counts and ns\n");
	log_printf(LOG_EMERG, "  %4s %4s %10s %10s %12s %12s %10s %10s\n", "vcpu", "cpu", "ticks",
		   "missed", "late_max_ns", "late_avg_ns", "hit_guest", "deferred");
	for (uint32_t k = 0; k < p->vcpu_count; k++) {
		const struct vcpu *v = p->vcpus[k];
		const struct host_timer *h = &v->pcpu->ht;

		log_printf(LOG_EMERG, "  %4u %4u %10lu %10lu %12lu %12lu %10lu %10lu\n", k,
			   v->pcpu->index, h->ticks, h->ticks_missed, ticks_ns(h->late_max_ticks),
			   h->ticks ? ticks_ns(h->late_sum_ticks / h->ticks) : 0,
			   v->stats.tick_hits, v->stats.tick_defer_exits);
	}
	log_printf(LOG_EMERG, "  exits by reason, counts\n");
	for (uint32_t k = 0; k < p->vcpu_count; k++) {
		const struct vcpu *v = p->vcpus[k];
		char line[100];
		size_t n = fmt_scnprintf(line, sizeof(line), "  vcpu %u:", k);
		bool any = false;

		for (uint32_t r = 0; r < EXIT_REASON_COUNT; r++) {
			char item[48];
			size_t len;

			if (!v->stats.exits[r])
				continue;
			len = fmt_scnprintf(item, sizeof(item), " %s %lu", vmx_exit_reason_name(r),
					    v->stats.exits[r]);
			/* a full line goes out and the list goes on, indented, on the next */
			if (n + len + 1 >= sizeof(line) - 1) {
				log_printf(LOG_EMERG, "%s\n", line);
				n = fmt_scnprintf(line, sizeof(line), "  %*s", 7, "");
			}
			n += fmt_scnprintf(line + n, sizeof(line) - n, "%s%s", any ? "," : "",
					   item);
			any = true;
		}
		log_printf(LOG_EMERG, "%s%s\n", line, any ? "" : " none");
	}
}

/*
 * A timer mode switch is the vCPU's own to make, at one of its exits with
 * nothing in service (the hypercall's rules: hv/time/mode.c): the
 * request waits in the vCPU, and a kick makes the exit come at once.
 */
static int cmd_mode(struct partition *p, uint32_t vcpu, uint32_t mode, char *err, size_t len)
{
	struct vcpu *v;

	if (vcpu >= p->vcpu_count)
		return fmt_fail(&(struct fmt_err){ err, len }, NULL, 0, "mode: partition '%s' has %u vCPU%s (0-%u)", p->cfg->name,
				p->vcpu_count, p->vcpu_count == 1 ? "" : "s", p->vcpu_count - 1);
	v = p->vcpus[vcpu];
	if (!timer_modes[mode].may_share_core && v->pcpu->shared)
		return fmt_fail(&(struct fmt_err){ err, len }, NULL, 0, "mode: %s needs a dedicated core; CPU %u is shared",
				timer_mode_name((enum timer_mode)mode), v->pcpu->index);
	if (timer_modes[mode].owns_lapic && vcpu_takes_posted(v))
		return fmt_fail(&(struct fmt_err){ err, len }, NULL, 0,
				"mode: vCPU %u of '%s' takes posted interrupts (posted=on); %s is "
				"refused to it", vcpu, p->cfg->name,
				timer_mode_name((enum timer_mode)mode));
	if (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != PART_RUNNING ||
	    v->state != VCPU_RUNNING)
		return fmt_fail(&(struct fmt_err){ err, len }, NULL, 0, "mode: vCPU %u of '%s' is not running", vcpu, p->cfg->name);
	__atomic_store_n(&v->mode_request, mode + 1, __ATOMIC_RELEASE);
	__atomic_fetch_or(&v->pcpu->mailbox, MAILBOX_MODE, __ATOMIC_ACQ_REL);
	if (v->pcpu != this_pcpu())
		x2apic_send_nmi(v->pcpu->apic_id);
	return 0;
}

static int cmd_start(struct partition *p, char *err, size_t len)
{
	switch (partition_start_request(p)) {
	case START_OK:
		/* a later end of every partition is reported (and acted on) again */
		end_run_resume();
		return 0;
	case START_RUNNING:
		return fmt_fail(&(struct fmt_err){ err, len }, NULL, 0,
				"start: '%s' is %s, not ended (restart %s boots a running "
				"one again)", p->cfg->name,
				__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) == PART_RESTARTING ?
				"restarting" : "running", p->cfg->name);
	case START_LEAVING:
		break;
	}
	return fmt_fail(&(struct fmt_err){ err, len }, NULL, 0,
			"start: '%s' is still stopping; try again in a moment", p->cfg->name);
}

static void run_command(const char *text)
{
	const char *names[CONFIG_MAX_PARTITIONS];
	struct monitor_cmd cmd;
	char err[160];
	int rc = 0;

	for (uint32_t i = 0; i < partition_count; i++)
		names[i] = partitions[i].cfg->name;
	if (monitor_parse(text, names, partition_count, mode_of, &cmd, err, sizeof(err))) {
		log_printf(LOG_EMERG, "MONITOR_ERROR msg=\"%s\"\n", err);
		return;
	}
	switch (cmd.op) {
	case MON_HELP:
		print_text(monitor_help());
		print_text(console_input_help());
		break;
	case MON_LIST:
		cmd_list();
		break;
	case MON_STATS:
		cmd_stats(&partitions[cmd.part]);
		break;
	case MON_TRACE:
		print_trace(&partitions[cmd.part]);
		break;
	case MON_TICKS:
		print_host_ticks();
		break;
	case MON_STOP:
	case MON_RESTART:
		if (!partition_stop_request(&partitions[cmd.part], cmd.op == MON_RESTART))
			rc = fmt_fail(&(struct fmt_err){ err, sizeof(err) }, NULL, 0, "%s: '%s' is not running",
				      cmd.op == MON_STOP ? "stop" : "restart",
				      partitions[cmd.part].cfg->name);
		break;
	case MON_MODE:
		rc = cmd_mode(&partitions[cmd.part], cmd.vcpu, cmd.mode, err, sizeof(err));
		break;
	case MON_CONSOLE:
		console_input_focus(&cin, cmd.part);
		say_focus(cmd.part);
		return;
	case MON_START:
		rc = cmd_start(&partitions[cmd.part], err, sizeof(err));
		break;
	case MON_REBOOT:
		log_printf(LOG_EMERG, "MONITOR_OK cmd=reboot\n");
		hv_reboot("the monitor's reboot command");
	}
	if (rc)
		log_printf(LOG_EMERG, "MONITOR_ERROR msg=\"%s\"\n", err);
	else if (cmd.op == MON_STOP || cmd.op == MON_RESTART || cmd.op == MON_MODE ||
		 cmd.op == MON_START)
		log_printf(LOG_EMERG, "MONITOR_OK cmd=%s name=%s\n",
			   cmd.op == MON_STOP ? "stop" : cmd.op == MON_RESTART ? "restart" :
			   cmd.op == MON_START ? "start" : "mode", partitions[cmd.part].cfg->name);
}

static void to_monitor(uint8_t b)
{
	char echo[MONITOR_ECHO_MAX + 1];
	uint32_t n = 0;

	if (monitor_line_byte(&line, b, echo, &n)) {
		if (n)
			log_printf(LOG_EMERG, "\n");
		run_command(line.buf);
		monitor_line_reset(&line);
		return;
	}
	if (n) {
		echo[n] = 0;
		log_printf(LOG_EMERG, "%s", echo);
	}
}

static void monitor_poll(void)
{
	static uint64_t last_tsc;
	uint64_t now = rdtsc();
	unsigned char b;

	/* a difference, not a deadline: a core whose TSC lags another's still polls */
	if (last_tsc && now - last_tsc < platform.tsc_hz / 1000000 * MONITOR_POLL_US)
		return;
	last_tsc = now;
	if (!started) {
		console_input_init(&cin, partition_count);
		monitor_line_reset(&line);
		started = true;
	}
	for (uint32_t n = 0; n < MONITOR_POLL_BYTES && uart_getc(&b); n++) {
		struct cin_result r = console_input_byte(&cin, b);

		typed = true;
		switch (r.kind) {
		case CIN_BYTE:
			if (r.target < partition_count)
				vuart_rx_push(&partitions[r.target].uart, &r.byte, 1);
			else
				to_monitor(r.byte);
			break;
		case CIN_FOCUS:
			say_focus(r.target);
			break;
		case CIN_HELP:
			print_text(console_input_help());
			break;
		case CIN_NO_PARTITION:
			log_printf(LOG_EMERG, "CONSOLE_INPUT_ERROR msg=\"no partition %u: there "
				   "%s %u (Ctrl-T 1 to %u, n, p; m the monitor); input stays "
				   "with %s\"\n", r.target + 1,
				   partition_count == 1 ? "is" : "are", partition_count,
				   partition_count, target_name(cin.focus));
			break;
		case CIN_NONE:
			break;
		}
	}
}

void operator_service(void)
{
	if (!console_lock(false))
		return;		/* another core is at it */
	if (partitions_go && !hv_stopping) {
		dma_poll();	/* a fault stops its partition before its device does more */
		monitor_poll();
		if (typed)	/* someone is at the console: their partition's prompt shows */
			console_set_focus((int)cin.focus);
	}
	console_drain(false);
	console_unlock();
}
