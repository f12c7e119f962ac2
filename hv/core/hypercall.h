/* SPDX-License-Identifier: MIT */
/*
 * Hypercall decoding: the guest's registers in, a decision out. Pure (no
 * VMCS, no hardware, no partition structure), so the host unit tests and
 * the fuzzer run it as the hypervisor does; hv/exit/hypercall.c reads the registers,
 * calls hypercall_decode() and carries out what it says.
 *
 * Every argument a decision carries has been checked: a range lies wholly
 * inside one piece of the partition's RAM (hv/core/guest_ram.h) without
 * wrapping, a length is at most TEMPO_HC_CONSOLE_MAX, a timer mode exists
 * and is allowed on the core.
 * What the decoder cannot know (whether an interrupt is in service) the
 * caller still checks: TIMER_MODE_SET may yet return TEMPO_HC_EBUSY.
 */
#ifndef TEMPO_HV_HYPERCALL_H
#define TEMPO_HV_HYPERCALL_H

#include <stdbool.h>
#include <stdint.h>

#define TEMPO_HC_CONSOLE_MAX	4096u

enum hc_action {
	HC_ACT_UD,		/* VMCALL outside CPL 0: inject #UD, RAX unchanged */
	HC_ACT_RETURN,		/* nothing to do: RAX = ret (an error code) */
	HC_ACT_CONSOLE_WRITE,	/* gpa, len: RAX = len */
	HC_ACT_PARTITION_INFO,	/* gpa: fill a struct tempo_partition_info, RAX = 0 */
	HC_ACT_SHUTDOWN,	/* exit_code: the partition ends, no return */
	HC_ACT_TIMER_MODE_SET,	/* mode: RAX = 0 or TEMPO_HC_EBUSY */
	HC_ACT_TIMER_MODE_GET,	/* RAX = the calling vCPU's mode */
	HC_ACT_STATS,		/* queue a VCPU_STATS snapshot, RAX = 0 */
	HC_ACT_PV_TIMER,	/* gpa: register the pv-lazy page, RAX = 0 */
	HC_ACT_CHANNEL_INFO,	/* channel, gpa: fill a struct tempo_channel_info, RAX = 0 */
	HC_ACT_CHANNEL_BIND,	/* channel, vector (0: none), vcpu: RAX = 0 */
	HC_ACT_CHANNEL_RING,	/* channel, peer (unchecked: the exit knows the peers) */
};

/* The guest state a hypercall is decoded from. */
struct hc_regs {
	uint64_t rax, rdi, rsi, rdx;
	bool long_mode;		/* IA32_EFER.LMA and CS.L: else the low halves count */
	uint32_t cpl;
};

/* What the decoder needs to know of the partition and the calling vCPU. */
struct hc_context {
	uint64_t mem_size;	/* the partition's RAM: hv/core/guest_ram.h */
	uint32_t timer_mode;	/* enum timer_mode of the calling vCPU */
	bool shared_core;	/* the vCPU runs on a [schedule] core */
	uint32_t vcpu_count;	/* the partition's vCPUs */
	uint32_t channel_count;	/* channels that list the partition */
	bool posted;		/* the vCPU takes posted interrupts (hv/core/posted.h) */
};

struct hc_decision {
	enum hc_action action;
	int64_t ret;		/* HC_ACT_RETURN: the value for RAX */
	uint64_t nr;		/* the hypercall number as decoded */
	uint64_t gpa;		/* CONSOLE_WRITE, PARTITION_INFO, PV_TIMER */
	uint64_t len;		/* CONSOLE_WRITE: bytes; PARTITION_INFO, PV_TIMER: the size checked */
	uint32_t mode;		/* TIMER_MODE_SET */
	int64_t exit_code;	/* SHUTDOWN */
	uint32_t channel;	/* CHANNEL_*: a local index < channel_count */
	uint32_t vector;	/* CHANNEL_BIND: 0 or TEMPO_CHANNEL_VECTOR_MIN..MAX */
	uint32_t vcpu;		/* CHANNEL_BIND: < vcpu_count */
	uint64_t peer;		/* CHANNEL_RING: as the guest gave it */
};

/*
 * True when [gpa, gpa + len) lies in one piece of a partition of @mem_size
 * bytes of RAM (below its MMIO window, or from 4 GiB), without wrapping.
 */
bool hc_range_ok(uint64_t mem_size, uint64_t gpa, uint64_t len);

void hypercall_decode(const struct hc_regs *r, const struct hc_context *c,
		      struct hc_decision *d);

#endif
