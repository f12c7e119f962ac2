/* SPDX-License-Identifier: MIT */
/*
 * Exception handling for guests: every vector 0-31 prints what happened and
 * ends the run through guest_panic(), so a bug never hangs silently. A test
 * that expects a fault sets exc_resume_eip first: the next exception then
 * resumes there instead, with its vector in exc_caught_vector.
 */
#ifndef TEMPO_GUESTS_COMMON_EXC_H
#define TEMPO_GUESTS_COMMON_EXC_H

#include <stdint.h>

extern volatile uint32_t exc_resume_eip;
extern volatile int32_t exc_caught_vector;	/* -1: none */
/* The EFLAGS image the caught exception pushed (RF, TF as the CPU or hypervisor left them) */
extern volatile uint32_t exc_caught_eflags;

/* Builds the IDT (once, on the BSP) and loads it. */
void exc_init(void);
/* An interrupt gate (DPL 0) for @vector in exc_init's IDT; a vector without one faults (#GP). */
void exc_set_gate(uint32_t vector, uint32_t handler);
/* Loads the IDT exc_init() built (each AP). */
void exc_load(void);
const char *exc_name(uint32_t vector);
/*
 * The entry stub of exception @vector (0-31), for a guest that builds an IDT
 * of its own (one with interrupt vectors too) but keeps these exceptions.
 */
uint32_t exc_stub_address(uint32_t vector);

#endif
