/* SPDX-License-Identifier: MIT */
/* The operator's console: COM1's input, routed, and the monitor's commands (hv/ops/monitor.c). */
#ifndef TEMPO_HV_OPS_MONITOR_H
#define TEMPO_HV_OPS_MONITOR_H

/*
 * The console duty of a core (the console core's loop, or a guest's exit
 * when every core runs one): what was typed is taken (a bounded amount) and
 * acted on, then the partitions' output goes out. A core that finds
 * another at it returns at once.
 */
void operator_service(void);

#endif
