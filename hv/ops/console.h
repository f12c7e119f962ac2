/* SPDX-License-Identifier: MIT */
/* The partitions' consoles, drained to the serial line by the console core (hv/ops/console.c). */
#ifndef TEMPO_HV_CONSOLE_H
#define TEMPO_HV_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

/* Drain every partition's console ring to the serial line (console core). */
void console_drain_all(bool flush);

struct partition;
struct vcpu;
struct vcpu_snapshot;
/* A VCPU_STATS line for @v's counters in @s. */
void print_vcpu_stats(const struct partition *p, const struct vcpu *v,
		      const struct vcpu_snapshot *s);
/* A restart: @p's virtual UART back to its reset state, its unprinted bytes gone. */
void console_reset(struct partition *p);

/* CPU @cpu faulted, perhaps inside a drain: the drain lock is released if it holds it. */
void console_release(uint32_t cpu);

#endif
