/* SPDX-License-Identifier: MIT */
/*
 * The life of a vCPU on its core (hv/run/): entering it, the per-CPU loop
 * (hv_pcpu_loop is in hv/upcalls.h), shared cores' windows, leaving for
 * good, INIT and SIPI, restarting a partition, and a fault in an exit.
 * Every path that leaves a vCPU returns to the core's loop: a function here
 * that ends a vCPU's run returns, and its caller (the exit path) answers
 * NULL, after which arch's exit stub enters hv_pcpu_loop afresh.
 */
#ifndef TEMPO_HV_RUN_RUN_H
#define TEMPO_HV_RUN_RUN_H

#include <stdbool.h>

struct pcpu;
struct vcpu;

/* ---- enter.c ---- */

/* Build @v's VMCS on this core, its interrupt model and LVT with it. */
void vcpu_vmcs_setup(struct vcpu *v);
/* What every entry that does not come from an exit's resume needs: the preemption timer armed, ... */
void vcpu_entry_prepare(struct vcpu *v);
/*
 * Enter @v (vcpu_entry_prepare, then VM entry). Returns only if the entry
 * failed: @v's partition is stopped and @v has left (vcpu_leave).
 */
void vcpu_enter(struct vcpu *v);
/* @v's MSRs, CR2 and debug registers into the core: a window's start, a restart. */
void vcpu_saved_restore(struct vcpu *v);
/* A dedicated core starts @v after a restart: the old instance's CPU state goes. */
void vcpu_restart_cpu(struct vcpu *v);

/* ---- life.c ---- */

/* @v leaves its core for good, or until its partition's restart; the caller returns to the loop. */
void vcpu_leave(struct vcpu *v);
/* An INIT IPI reached @v (at an exit on its core): it resets and waits for SIPI. */
void vcpu_init_reset(struct vcpu *v);
/*
 * @v waits for SIPI: drop INIT and NMI that reached it, take a SIPI parked
 * for a reset that has ended. True if a SIPI is there to start it.
 */
bool vcpu_sipi_poll(struct vcpu *v);
/* Rebuild and start the partitions whose vCPUs have all left for a restart. */
void partition_restart_poll(void);

/* ---- switch.c ---- */

/*
 * A shared core's window has ended while @v ran: @v to resume (the next
 * window is its own too, the entry prepared), or NULL: @v is switched out
 * and the core's loop runs the next window.
 */
struct vcpu *vcpu_switch_window(struct vcpu *v);
/* Root mode on a shared core: whoever's window it is runs; idle windows poll. */
__attribute__((noreturn)) void shared_core_loop(struct pcpu *c);

#endif
