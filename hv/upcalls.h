/* SPDX-License-Identifier: MIT */
/*
 * What arch/x86 calls in hv/: declared once here, with hv_ names, so the
 * arch side needs no other hv header for them.
 */
#ifndef TEMPO_HV_UPCALLS_H
#define TEMPO_HV_UPCALLS_H

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

void stop_set_emulator_exit(int on);
/* Once other CPUs run, how to halt them; they check hv_stopping on an NMI. */
void stop_set_halt_others(void (*fn)(void));
extern volatile int hv_stopping;
__attribute__((noreturn)) void hv_stop(enum stop_code code, const char *why);

/*
 * An exception in root mode that no fixup covers. If this core was handling
 * a partition's VM exit, that partition is stopped (PARTITION_STOP
 * reason=hv_fault) and the core goes on with its other work: the call does
 * not return. Otherwise it returns and the caller stops the machine.
 */
void hv_exit_fault(uint64_t vector, uint64_t error_code, uint64_t rip);

#endif
