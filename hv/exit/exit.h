/* SPDX-License-Identifier: MIT */
/*
 * VM-exit handling (hv/exit/): the dispatcher (exit.c) and one file per
 * exit family (cpuid.c, msr.c, xapic_page.c, io.c, cr.c, hypercall.c); the
 * exits of time are hv/time/'s. A handler never leaves the exit itself: it
 * returns what happens next (enum exit_action, hv/state/exit_ctx.h) and the
 * dispatcher acts on it, in one place.
 */
#ifndef TEMPO_HV_EXIT_EXIT_H
#define TEMPO_HV_EXIT_EXIT_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/guest/inject.h"
#include "hv/guest/insn.h"
#include "hv/state/exit_ctx.h"
#include "hv/state/partition.h"

typedef enum exit_action (*exit_handler_t)(struct vcpu *v, struct exit_ctx *x);

/* cpuid.c */
enum exit_action exit_cpuid(struct vcpu *v, struct exit_ctx *x);

/* msr.c */
enum exit_action exit_rdmsr(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_wrmsr(struct vcpu *v, struct exit_ctx *x);
/*
 * The MSR table's answer for @msr in @v's timer mode, as RDMSR and WRMSR
 * exits take it (the xAPIC page runs its registers through these too).
 * False means #GP; a write that stops the partition fills @x.
 */
bool msr_read(struct vcpu *v, uint32_t msr, uint64_t *value);
bool msr_write(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);

/* io.c */
enum exit_action exit_io(struct vcpu *v, struct exit_ctx *x);

/* cr.c */
enum exit_action exit_cr_access(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_xsetbv(struct vcpu *v, struct exit_ctx *x);

/* hypercall.c */
enum exit_action exit_vmcall(struct vcpu *v, struct exit_ctx *x);

#endif
