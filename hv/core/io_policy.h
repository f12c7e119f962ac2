/* SPDX-License-Identifier: MIT */
/*
 * What a guest's port I/O reaches: one table (hv/core/io_policy.c) of port
 * ranges and the device that answers them. Every IN and OUT exits (the I/O
 * bitmaps are all ones); hv/exit/io.c looks the port up and runs the device's
 * handler. A port no row names has no device: reads float high (all ones),
 * writes are dropped. String I/O (INS/OUTS) stops the partition. Pure.
 *
 * A new device is one row here and one case in hv/exit/io.c.
 */
#ifndef TEMPO_HV_CORE_IO_POLICY_H
#define TEMPO_HV_CORE_IO_POLICY_H

#include <stdint.h>

enum io_device {
	IO_NONE = 0,	/* no device: reads all ones, writes dropped */
	IO_UART,	/* the partition's virtual 16550 (hv/core/vuart.c) */
	IO_ACPI_PM,	/* the FADT's sleep control register: S5 powers a Linux guest off */
	IO_RESET,	/* a PC's reset registers: no device, but some writes reset the guest */
	IO_DEBUG_EXIT,	/* QEMU's isa-debug-exit: a device only with debug_exit = on */
	IO_FW_CFG,	/* QEMU's fw_cfg (hv/core/fw_cfg.h): a device only with fw_cfg = on */
	IO_PCI,		/* the PCI bus of a partition with channels (hv/core/vpci.h) */
};

#define IO_DEBUG_EXIT_PORT	0xf4	/* kvm-unit-tests: iobase 0xf4, iosize 4 */

/* QEMU's exit status for a debug-exit write of @value: (value << 1) | 1. */
static inline int64_t io_debug_exit_code(uint32_t value)
{
	return ((int64_t)value << 1) | 1;
}

struct io_rule {
	uint16_t first, last;	/* inclusive */
	uint8_t device;		/* enum io_device */
	const char *what;
};

/* The rule for @port (a no-device rule when none matches). */
const struct io_rule *io_rule_find(uint16_t port);

/* What an IN from no device reads (the bus floats high), cut to the access size. */
static inline uint32_t io_float(void)
{
	return 0xffffffffu;
}

/*
 * A write to an IO_RESET port that resets a PC, named for the report
 * (and the FADT's reset register, 0xCF9 = 0x06): else NULL. Port 0x92
 * keeps what was written in *@port92 (reads return it): its bit 0 resets
 * when it goes from 0 to 1, as on a chipset, so the common "read, set A20,
 * write back" does not.
 */
const char *io_reset_write(uint16_t port, uint8_t value, uint8_t *port92);

#define IO_PORT92_RESET	0x02	/* system control port A at reset: A20 on */

#define IO_RESET_PORT	0xcf9	/* the FADT's RESET_REG */
#define IO_RESET_VALUE	0x06	/* RESET_VALUE: CPU reset, hard */

/* For tests and the docs: the table itself. */
const struct io_rule *io_rules(unsigned int *count);

#endif
