// SPDX-License-Identifier: MIT
#include "hv/upcalls.h"

#include "arch/x86/cpu.h"
#include "arch/x86/vmx_check.h"
#include "drivers/reset.h"
#include "hv/core/cmdline.h"
#include "hv/lib/log.h"
#include "hv/lib/uart16550.h"

#define QEMU_DEBUG_EXIT_PORT	0xf4
#define BOCHS_SHUTDOWN_PORT	0x8900

static int emulator_exit;
static uint32_t reboot_delay_s = CMDLINE_REBOOT_DEFAULT_S;
static const char *ok_halts_why;	/* set: a run that ended as asked halts */
static void (*halt_others)(void);
volatile int hv_stopping;

void hv_set_halt_others(void (*fn)(void))
{
	halt_others = fn;
}

void stop_set_emulator_exit(int on)
{
	emulator_exit = on;
}

void stop_set_reboot(uint32_t delay_s)
{
	reboot_delay_s = delay_s;
}

void stop_set_ok_halts(const char *why)
{
	ok_halts_why = why;
}

static const char *stop_name(enum stop_code code)
{
	switch (code) {
	case STOP_OK:
		return "ok";
	case STOP_FAILURE:
		return "failure";
	case STOP_NO_VMX:
		return "no-vmx";
	}
	return "?";
}

void hv_stop(enum stop_code code, const char *why)
{
	asm volatile("cli");
	/* the other CPUs halt first, so nothing runs on while we report */
	if (!__atomic_exchange_n(&hv_stopping, 1, __ATOMIC_ACQ_REL) && halt_others)
		halt_others();
	vmx_check_report();	/* VMCS_CHECK builds: the checker's summary */
	log_emerg("TEMPO_EXIT code=%d status=%s reason=\"%s\"\n", code, stop_name(code), why);
	if (emulator_exit) {
		uart_flush();	/* the emulator ends at once: the line must be out first */
		outb(QEMU_DEBUG_EXIT_PORT, code);
		if (code == STOP_OK) {
			asm volatile("xchg %bx, %bx");	/* Bochs magic breakpoint */
		} else {
			for (const char *s = "Shutdown"; *s; s++)
				outb(BOCHS_SHUTDOWN_PORT, *s);
		}
	}
	if (reboot_delay_s && !(code == STOP_OK && ok_halts_why)) {
		log_emerg("Tempo: rebooting in %u s (reboot=%u on the command line; reboot=0 "
			  "halts instead)\n", reboot_delay_s, reboot_delay_s);
		uart_flush();
		machine_reset_after(reboot_delay_s);
	}
	if (code == STOP_OK && ok_halts_why)
		log_emerg("Tempo: halted (%s).\n", ok_halts_why);
	else
		log_emerg("Tempo: halted.\n");
	halt_forever();
}

void hv_reboot(const char *why)
{
	asm volatile("cli");
	if (!__atomic_exchange_n(&hv_stopping, 1, __ATOMIC_ACQ_REL) && halt_others)
		halt_others();
	/* the run ended as asked: the same lines as any end, then the reset */
	vmx_check_report();	/* VMCS_CHECK builds: the checker's summary */
	log_emerg("TEMPO_EXIT code=%d status=%s reason=\"%s\"\n", STOP_OK, stop_name(STOP_OK),
		  why);
	log_emerg("Tempo: rebooting now (%s)\n", why);
	uart_flush();
	machine_reset_after(0);
}
