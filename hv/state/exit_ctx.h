/* SPDX-License-Identifier: MIT */
/*
 * What a VM exit's handler answers: what happens next (enum exit_action),
 * and for a stop the report (struct exit_ctx). A handler never leaves the
 * exit itself; the dispatcher (hv/exit/exit.c) acts on the answer in one
 * place. The types are the state room's so that every room's handlers
 * (MSR, MMIO, port and timer handlers alike) can answer.
 */
#ifndef TEMPO_HV_STATE_EXIT_CTX_H
#define TEMPO_HV_STATE_EXIT_CTX_H

#include <stdbool.h>
#include <stdint.h>

enum exit_action {
	EXIT_RESUME = 0,	/* back into the guest */
	EXIT_LEAVE,		/* the vCPU leaves its core for good (vcpu_leave) */
	EXIT_SWITCH,		/* a shared core: the window ended, the next vCPU runs */
	EXIT_STOP,		/* stop the partition: ctx.stop_* is the report */
	EXIT_SHUTDOWN,		/* the guest asked to end: ctx.code */
	EXIT_POWEROFF,		/* the guest powered off (ACPI S5) */
	EXIT_RESET,		/* the guest reset its machine: ctx.stop_detail says how */
	EXIT_INIT,		/* an INIT IPI reached the vCPU: it resets and waits for SIPI */
	EXIT_HALT,		/* the hypervisor is stopping: this core halts */
	/* only from a fast row's handler on the fast path: not finished, take the full path */
	EXIT_SLOW,
};

struct exit_ctx {
	uint32_t reason;	/* VMCS_EXIT_REASON, all of it */
	/*
	 * A fast row's handler runs first with this set, off the console
	 * core and with an empty mailbox, before any of the generic work
	 * (hv/exit/exit.c). It finishes the exit (EXIT_RESUME) or returns
	 * EXIT_SLOW, having changed nothing the full path would not redo.
	 */
	bool fast;
	/* EXIT_STOP */
	const char *stop_reason;
	uint64_t stop_qual;
	const char *stop_detail;
	char detail_buf[64];
	/* EXIT_SHUTDOWN */
	int64_t code;
};

static inline enum exit_action exit_stop(struct exit_ctx *x, const char *reason, uint64_t qual,
					 const char *detail)
{
	x->stop_reason = reason;
	x->stop_qual = qual;
	x->stop_detail = detail;
	return EXIT_STOP;
}

#endif
