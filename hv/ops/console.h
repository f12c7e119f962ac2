/* SPDX-License-Identifier: MIT */
/*
 * The partitions' consoles, drained to the serial line by the console core
 * (hv/ops/console.c), and the vCPUs' counter snapshots printed there.
 */
#ifndef TEMPO_HV_OPS_CONSOLE_H
#define TEMPO_HV_OPS_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

struct partition;
struct vcpu;
struct vcpu_snapshot;

/*
 * The drain lock: one core at a time drains (and serves the monitor). With
 * @wait, until it is free; without, false if another core holds it.
 */
bool console_lock(bool wait);
void console_unlock(void);
/*
 * Every partition's console ring to the serial line, under the lock.
 * @flush: also the partial last lines of the partitions that have ended,
 * and the end reports (a stop report comes after the partition's last
 * words). console_drain_all takes the lock itself (waiting, with @flush).
 */
void console_drain(bool flush);
void console_drain_all(bool flush);
/* Whose input the console is (a partition's index), -1 until someone types: its prompt shows. */
void console_set_focus(int target);

/* A VCPU_STATS line for @v's counters in @s. */
void print_vcpu_stats(const struct partition *p, const struct vcpu *v,
		      const struct vcpu_snapshot *s);
/* @v's counters now (read from any core: the monitor's stats). */
void vcpu_snapshot_fill(const struct vcpu *v, struct vcpu_snapshot *s);
/* A copy of @v's counters for the console core (VCPU_STATS); false if the ring is full. */
bool snapshot_vcpu(struct vcpu *v);

/* CPU @cpu faulted, perhaps inside a drain: the drain lock is released if it holds it. */
void console_release(uint32_t cpu);

#endif
