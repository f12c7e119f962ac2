/* SPDX-License-Identifier: MIT */
/*
 * What arch/x86 calls in hv/: declared once here, with hv_ names, so the
 * arch side needs no other hv header for them. hv's vCPU is an opaque
 * struct vcpu here: arch holds its pointer (struct vcpu_arch.owner) only to
 * hand it back.
 */
#ifndef TEMPO_HV_UPCALLS_H
#define TEMPO_HV_UPCALLS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Ending a run. On hardware the CPU halts with a last line on the console.
 * With exit=emu on the command line (the ISOs we build for emulators pass
 * it), the emulator is also told to exit with a status tests can check:
 *
 *   code         QEMU status   Bochs status   meaning
 *   STOP_OK           33            0         run finished as asked
 *   STOP_FAILURE      35            1         fatal error or exception
 *   STOP_NO_VMX       37            1         the CPU lacks what Tempo needs
 *
 * QEMU's isa-debug-exit (port 0xf4) exits with (code << 1) | 1; Bochs exits
 * 0 through its magic breakpoint and 1 through its shutdown port 0x8900.
 */
enum stop_code {
	STOP_OK = 0x10,
	STOP_FAILURE = 0x11,
	STOP_NO_VMX = 0x12,
};

/* exit=emu: hv_stop also ends the emulator (hv/start/main.c). */
void stop_set_emulator_exit(int on);
/* reboot=N: hv_stop resets the machine N seconds after a stop; 0 halts. */
void stop_set_reboot(uint32_t delay_s);
/* [hypervisor] all_ended = halt or monitor: a STOP_OK halts, for the reason @why. */
void stop_set_ok_halts(const char *why);
/* Once other CPUs run, how to halt them; they check hv_stopping on an NMI. */
void hv_set_halt_others(void (*fn)(void));
extern volatile int hv_stopping;
__attribute__((noreturn)) void hv_stop(enum stop_code code, const char *why);
/* Halt the other CPUs and reset the machine at once (the monitor's reboot). */
__attribute__((noreturn)) void hv_reboot(const char *why);

/* @bytes of the hypervisor's pool, rounded up to pages and zeroed (hv/state/pages.c); stops when empty. */
void *hv_pages_alloc(uint64_t bytes, const char *what);

/*
 * CPU @index comes up (boot CPU 0 in smp_boot, each AP in ap_main): the
 * per-CPU block its GS base is to point at (hv's this_pcpu()).
 */
void *hv_cpu_local(uint32_t index);

/* The root-mode loop of every core once it is up (hv/run/loop.c). */
__attribute__((noreturn)) void hv_pcpu_loop(void);

/*
 * An NMI in root mode, not one of hv_stop's: a kick from another core
 * (arch/x86/trap.c). hv reads why later; it may make the next VM entry
 * exit at once (vmx_set_preemption_timer(0)).
 */
void hv_root_nmi(void);

/*
 * VM exits (arch/x86/vmx_entry.S, with the guest's registers saved in
 * @v's struct vcpu_arch): returns the vCPU to resume (@v), or NULL once @v
 * has left its core, and the stub then enters hv_pcpu_loop afresh.
 */
struct vcpu;
struct vcpu *hv_exit_handler(struct vcpu *v);
/*
 * The VMRESUME of @v that the exit stub made after hv_exit_handler failed
 * with VM-instruction error @error: the same answer as hv_exit_handler's
 * (NULL: @v left, its partition stopped).
 */
struct vcpu *hv_resume_failed(struct vcpu *v, uint32_t error);

/*
 * An interrupt vector >= 32 taken in one of a core's root-mode interrupt
 * windows (arch/x86/trap.c): true when it is hv's to end (a device's
 * vector, handed to its owner as the external-interrupt exit does, and
 * acknowledged), false for a stray that arch acknowledges and counts.
 */
bool hv_root_irq(uint8_t vector);

/* The hypervisor's vector (0xee) arrived in root mode, in an inject-mode save window. */
void hv_timer_vector_handler(void);

/*
 * An exception in root mode that no fixup covers. If this core was handling
 * a partition's VM exit, that partition is stopped (PARTITION_STOP
 * reason=hv_fault) and the core goes on with its other work: the call does
 * not return. Otherwise it returns and the caller stops the machine.
 */
void hv_exit_fault(uint64_t vector, uint64_t error_code, uint64_t rip);

#endif
