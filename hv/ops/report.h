/* SPDX-License-Identifier: MIT */
/* The end of the run and its report (hv/ops/report.c). */
#ifndef TEMPO_HV_REPORT_H
#define TEMPO_HV_REPORT_H

#include <stdbool.h>

/*
 * Once every partition has ended: drain the consoles, print PARTITION_END,
 * EXITS, TRACE, HOSTTICK, SCHED and TIMER_COST, and stop the machine (the
 * reboot or the halt follows the stop). Only one core does it; the others
 * return. With report_end_waits set (all_ended = monitor), the machine is
 * not stopped: the monitor stays up, to start a partition or reboot.
 */
void end_run_if_done(void);
void report_end_waits(bool waits);
/* A partition was started again from the monitor: the next end is reported again. */
void end_run_resume(void);

struct partition;
/* HOSTTICK (and ROOT_STRAY) lines, one per core: at the end and for the monitor's ticks. */
void print_host_ticks(void);
/* The last TRACE lines of each of @p's vCPUs. */
void print_trace(const struct partition *p);

#endif
