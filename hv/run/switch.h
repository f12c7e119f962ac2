/* SPDX-License-Identifier: MIT */
/* Shared cores: several vCPUs in a cyclic schedule, switched at window ends (hv/run/switch.c). */
#ifndef TEMPO_HV_SWITCH_H
#define TEMPO_HV_SWITCH_H

struct pcpu;
struct vcpu;

/* A shared core's window has ended while @v ran: save it and run the next. */
__attribute__((noreturn)) void hv_switch_window(struct vcpu *v);

/* A dedicated core starts @v after a restart: the old instance's CPU state goes. */
void vcpu_restart_cpu(struct vcpu *v);

/* Root mode on a shared core: whoever's window it is runs; idle windows poll. */
__attribute__((noreturn)) void shared_core_loop(struct pcpu *c);

#endif
