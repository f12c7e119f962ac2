/* SPDX-License-Identifier: MIT */
/*
 * Partition hooks: a room that keeps state per partition or per vCPU
 * registers what to do when a partition is built, restarted or stopped
 * and when a vCPU comes out of reset, instead of the builder calling it by
 * name. PART_HOOK puts a struct part_hook in the .part_hooks section
 * (linker.ld); hv/state/hooks.c runs them in the order of their ORDER key
 * (two digits), lowest first.
 */
#ifndef TEMPO_HV_STATE_HOOKS_H
#define TEMPO_HV_STATE_HOOKS_H

#include <stddef.h>

struct hv_config;
struct partition;
struct vcpu;

struct part_hook {
	const char *name;
	/*
	 * @p has its RAM, EPT and vCPUs, before its image loads (a Linux
	 * image's ACPI tables describe what the hooks set up): 0, or -1 with
	 * the reason in @err and the boot stops.
	 */
	int (*init)(struct partition *p, const struct hv_config *cfg, char *err, size_t errlen);
	/* @p restarts: every vCPU has left and its RAM is zeroed, before its image loads again */
	void (*reset)(struct partition *p);
	/* @p has just left PART_RUNNING (stopped, shut down, restarting); its vCPUs may run on a little */
	void (*stop)(struct partition *p);
	/* @v out of reset: at build, at each restart of its partition, at an INIT */
	void (*vcpu_reset)(struct vcpu *v);
};

#define PART_HOOK(order, id, ...)						\
	static const struct part_hook part_hook_##id				\
	__attribute__((used, aligned(8), section(".part_hooks." #order "_" #id))) = {	\
		.name = #id, __VA_ARGS__ }

int part_hooks_init(struct partition *p, const struct hv_config *cfg, char *err, size_t errlen);
void part_hooks_reset(struct partition *p);
void part_hooks_stop(struct partition *p);
void part_hooks_vcpu_reset(struct vcpu *v);

#endif
