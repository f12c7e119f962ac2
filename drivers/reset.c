// SPDX-License-Identifier: MIT
#include "drivers/reset.h"

#include "arch/x86/boot_layout.h"
#include "arch/x86/cpu.h"
#include "arch/x86/vmx.h"
#include "hv/lib/log.h"
#include "hv/lib/uart16550.h"
#include "hv/lib/x86.h"

/* The reset control register of Intel chipsets since the PIIX (PIIX4 datasheet 4.1.3). */
#define RST_CNT_PORT		0xcf9
#define RST_CNT_SYS_RST		0x02	/* 1: a hard reset (PLTRST#) rather than INIT */
#define RST_CNT_RST_CPU		0x04	/* 0 -> 1: do the reset SYS_RST selects */
/* The 8042 keyboard controller: a command that pulses its CPU reset line. */
#define KBC_STATUS_PORT		0x64
#define KBC_STATUS_IBF		0x02	/* input buffer full: not ready for a command */
#define KBC_PULSE_RESET		0xfe
/* PCI configuration mechanism #1 (PCI Local Bus 3.0, 3.2.2.3.2), bus 0 only. */
#define PCI_CONFIG_ADDRESS	0xcf8
#define PCI_CONFIG_DATA		0xcfc
#define POST_PORT		0x80	/* an ISA write: about 1 us, used as a delay */
/* how long a reset is given before the next is tried */
#define TRY_MS			100

static struct acpi_reset_reg fadt_reg;
static bool have_fadt_reg;
static uint64_t tsc_khz;

void reset_set_fadt_register(const struct acpi_reset_reg *reg)
{
	have_fadt_reg = reg != NULL;
	if (reg)
		fadt_reg = *reg;
}

void reset_set_tsc_hz(uint64_t tsc_hz)
{
	tsc_khz = tsc_hz / 1000;
}

static void delay_ms(uint64_t ms)
{
	if (tsc_khz) {
		uint64_t end = rdtsc() + ms * tsc_khz;

		while ((int64_t)(rdtsc() - end) < 0)
			cpu_relax();
		return;
	}
	for (uint64_t i = 0; i < ms * 1000; i++)
		outb(POST_PORT, 0);
}

static const char *const space_names[] = {
	[ACPI_SPACE_MEMORY] = "memory",
	[ACPI_SPACE_IO] = "I/O port",
	[ACPI_SPACE_PCI_CONFIG] = "PCI config",
};

/* RESET_VALUE to RESET_REG (ACPI 6.5 4.8.4.6); acpi_parse kept only a valid one. */
static void fadt_reset(void)
{
	const struct acpi_reset_reg *r = &fadt_reg;

	log_emerg("Tempo: reset through the FADT reset register (%s 0x%lx = 0x%x)\n",
		  r->space <= ACPI_SPACE_PCI_CONFIG ? space_names[r->space] : "?", r->address,
		  r->value);
	uart_flush();
	switch (r->space) {
	case ACPI_SPACE_IO:
		outb((uint16_t)r->address, r->value);
		break;
	case ACPI_SPACE_MEMORY:
		/* the boot page tables map the low 4 GiB, where chipsets put it */
		if (r->address < IDENTITY_MAP_LIMIT)
			*(volatile uint8_t *)(uintptr_t)r->address = r->value;
		else
			log_emerg("Tempo: the reset register is above 4 GiB, not mapped\n");
		break;
	case ACPI_SPACE_PCI_CONFIG: {
		uint32_t dev = (uint32_t)(r->address >> 32) & 0x1f;
		uint32_t fn = (uint32_t)(r->address >> 16) & 0x7;
		uint32_t off = (uint32_t)r->address & 0xff;

		outl(PCI_CONFIG_ADDRESS, 0x80000000u | dev << 11 | fn << 8 | (off & 0xfc));
		outb((uint16_t)(PCI_CONFIG_DATA + (off & 3)), r->value);
		break;
	}
	}
}

static void cf9_reset(void)
{
	uint8_t keep = inb(RST_CNT_PORT) & ~(RST_CNT_SYS_RST | RST_CNT_RST_CPU);

	log_emerg("Tempo: reset through port 0xcf9\n");
	uart_flush();
	/* the kind first, then the 0 -> 1 edge of RST_CPU that does it */
	outb(RST_CNT_PORT, keep | RST_CNT_SYS_RST);
	delay_ms(1);
	outb(RST_CNT_PORT, keep | RST_CNT_SYS_RST | RST_CNT_RST_CPU);
}

static void kbc_reset(void)
{
	log_emerg("Tempo: reset through the keyboard controller\n");
	uart_flush();
	for (int i = 0; i < 10; i++) {
		for (int spin = 0; spin < 100000 && (inb(KBC_STATUS_PORT) & KBC_STATUS_IBF); spin++)
			outb(POST_PORT, 0);
		outb(KBC_STATUS_PORT, KBC_PULSE_RESET);
		delay_ms(10);
	}
}

/* An IDT of no entries: the next exception cannot be delivered, and a triple fault resets. */
static __attribute__((noreturn)) void triple_fault(void)
{
	static const struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) no_idt = { 0, 0 };

	log_emerg("Tempo: reset by a triple fault\n");
	uart_flush();
	asm volatile("lidt %0; int3" : : "m"(no_idt));
	halt_forever();
}

void machine_reset_after(uint32_t delay_s)
{
	delay_ms((uint64_t)delay_s * 1000);
	vmx_cpu_off();
	if (have_fadt_reg) {
		fadt_reset();
		delay_ms(TRY_MS);
	}
	cf9_reset();
	delay_ms(TRY_MS);
	kbc_reset();
	delay_ms(TRY_MS);
	triple_fault();
}
