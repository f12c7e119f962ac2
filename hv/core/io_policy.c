// SPDX-License-Identifier: MIT
#include "hv/core/io_policy.h"

#include "hv/core/chan_pci_abi.h"
#include "hv/core/fw_cfg.h"
#include "hv/core/guest_boot.h"
#include "hv/core/vuart.h"
#include "hv/lib/lib.h"

/*
 * Sorted and disjoint (the unit tests check). The legacy devices a PC guest
 * may probe are named so the table says what they do: nothing, as on a
 * board without them (the guests are told of none: no PIC, PIT or RTC in
 * their ACPI tables or multiboot information).
 */
static const struct io_rule rules[] = {
	{ 0x0020, 0x0021, IO_NONE, "8259 PIC (master): absent, reads float high" },
	{ 0x0040, 0x0043, IO_NONE, "8254 PIT: absent, the LAPIC timer is the guest's timer" },
	{ 0x0064, 0x0064, IO_RESET, "8042 command: absent, but 0xFE (pulse reset) resets" },
	{ 0x0070, 0x0071, IO_NONE, "CMOS/RTC: absent" },
	{ 0x0092, 0x0092, IO_RESET, "system control port A: bit 0 (fast reset) resets" },
	{ 0x00a0, 0x00a1, IO_NONE, "8259 PIC (slave): absent" },
	{ IO_DEBUG_EXIT_PORT, IO_DEBUG_EXIT_PORT + 3, IO_DEBUG_EXIT,
	  "QEMU isa-debug-exit: with debug_exit = on a write ends the partition, code (v << 1) | 1" },
	{ VUART_BASE, VUART_BASE + VUART_PORTS - 1, IO_UART, "COM1: the partition's virtual UART" },
	{ FW_CFG_PORT_SEL, FW_CFG_PORT_DATA, IO_FW_CFG,
	  "QEMU fw_cfg: with fw_cfg = on its signature, CPU count and RAM size" },
	{ GUEST_ACPI_PM_PORT, GUEST_ACPI_PM_PORT, IO_ACPI_PM,
	  "ACPI PM1a control: an S5 write powers a Linux guest off" },
	{ TEMPO_PCI_CF8, TEMPO_PCI_CF8, IO_PCI,
	  "PCI CONFIG_ADDRESS (32-bit accesses): a partition with channels has a bus" },
	{ IO_RESET_PORT, IO_RESET_PORT, IO_RESET,
	  "reset control (the FADT's reset register): bit 2 (CPU reset) resets" },
	{ TEMPO_PCI_CFC, TEMPO_PCI_CFC + 3, IO_PCI,
	  "PCI CONFIG_DATA: the channels' functions (hv/core/chan_pci_abi.h)" },
};

const char *io_reset_write(uint16_t port, uint8_t value, uint8_t *port92)
{
	uint8_t old;

	switch (port) {
	case 0x64:
		/* 0xF0-0xFF pulse the output port's low bits; bit 0 clear pulses reset */
		return (value & 0xf1) == 0xf0 ? "keyboard controller, port 0x64" : NULL;
	case 0x92:
		old = *port92;
		*port92 = value;
		return !(old & 1) && (value & 1) ? "fast reset, port 0x92" : NULL;
	case IO_RESET_PORT:
		return value & 4 ? "reset control, port 0xcf9" : NULL;
	}
	return NULL;
}

static const struct io_rule none_rule = {
	0, 0, IO_NONE, "no device: reads float high, writes dropped"
};

const struct io_rule *io_rules(unsigned int *count)
{
	*count = ARRAY_SIZE(rules);
	return rules;
}

const struct io_rule *io_rule_find(uint16_t port)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(rules); i++)
		if (port >= rules[i].first && port <= rules[i].last)
			return &rules[i];
	return &none_rule;
}

/* @n bytes of one range from byte @at: as accesses of 1, 2 or 4 bytes. */
static void add_run(struct io_split *out, uint16_t port, uint8_t at, uint8_t n, int range)
{
	while (n) {
		uint8_t size = n == 3 ? (((port + at) & 1) ? 1 : 2) : n;

		out->piece[out->count++] = (struct io_piece){
			.port = (uint16_t)(port + at), .size = size, .shift = at, .range = range,
		};
		at += size;
		n -= size;
	}
}

bool io_split(uint16_t port, uint8_t size, const struct io_byte_owner *owner,
	      struct io_split *out)
{
	uint8_t in_space, at = 0;

	if (size != 1 && size != 2 && size != 4)
		return false;
	memset(out, 0, sizeof(*out));
	out->refused = -1;
	in_space = io_bytes_in_space(port, size);
	for (uint8_t i = 0; i < in_space; i++) {
		if (owner[i].range >= 0 && owner[i].refuses) {
			out->refused = i;
			return true;
		}
	}
	if (owner[0].range >= 0 && owner[0].whole) {
		out->piece[0] = (struct io_piece){ .port = port, .size = size, .range = owner[0].range };
		out->count = 1;
		return true;
	}
	/*
	 * A dword at 0xCF8 is CONFIG_ADDRESS on a PC's chipset whether or not
	 * a bus answers there: with none (a partition without a virtual PCI
	 * bus), it reaches no device, never the reset control register at
	 * 0xCF9 whose byte it covers. Linux's probe writes back the all-ones
	 * it read there, which would otherwise reset the partition.
	 */
	if (port == TEMPO_PCI_CF8 && size == 4 && owner[0].range < 0)
		return true;
	while (at < in_space) {
		uint8_t n = 1;

		while (at + n < in_space && owner[at + n].range == owner[at].range)
			n++;
		if (owner[at].range >= 0)
			add_run(out, port, at, n, owner[at].range);
		at += n;
	}
	return true;
}
