/* SPDX-License-Identifier: MIT */
/* The operator's console: COM1's input, routed, and the monitor's commands (hv/ops/monitor.c). */
#ifndef TEMPO_HV_MONITOR_RUN_H
#define TEMPO_HV_MONITOR_RUN_H

#include <stdbool.h>

struct vcpu;

/* Take what was typed (a bounded amount) and act on it; under the drain lock. */
void monitor_poll(void);
/*
 * Whose input the console is: a partition's index, or partition_count for
 * the monitor; -1 until a byte has been typed (nobody is at the console).
 */
int monitor_focus(void);
/* At @v's exit with MAILBOX_MODE: make the monitor's mode switch; true if it had one. */
bool vcpu_mode_request_take(struct vcpu *v);

#endif
