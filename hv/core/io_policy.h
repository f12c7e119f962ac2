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

#include <stdbool.h>
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

/*
 * A port access that straddles devices, decoded as a chipset decodes it:
 * byte by byte (an IN or OUT of @size bytes at @port covers ports @port ..
 * @port + @size - 1: SDM Vol. 1, "I/O Address Space"). Each byte goes to
 * the range that holds its port; the bytes of one range, side by side, are
 * one access to it (of 1, 2 or 4 bytes: three become two and one, the even
 * port's pair first). A byte past 0xFFFF reaches no device (Tempo's choice:
 * the SDM only says that an access wrapping past it always exits, Vol. 3C,
 * "Instructions That Cause VM Exits Conditionally"). If any byte's range
 * refuses the partition (another partition's ports), the whole access is
 * that range's, before any byte has reached a device. A range that decodes
 * an access starting at its port by that port alone takes it whole: the
 * PCI CONFIG_ADDRESS register is a dword at 0xCF8 (PCI Local Bus 3.0,
 * 3.2.2.3.2), though a byte at 0xCF9 is the reset control register.
 */
#define IO_ACCESS_MAX	4

/* What holds one byte's port, as the caller's registry says. */
struct io_byte_owner {
	int range;	/* the caller's index of the range; -1: no device */
	bool refuses;	/* an access there stops the partition */
	/* byte 0 only: its range takes this access whole (CONFIG_ADDRESS's dword) */
	bool whole;
};

struct io_piece {
	uint16_t port;
	uint8_t size;	/* 1, 2 or 4 */
	uint8_t shift;	/* its first byte's place in the access's value (0 .. 3) */
	int range;
};

struct io_split {
	uint8_t count;	/* pieces that reach a device; the other bytes float or drop */
	struct io_piece piece[IO_ACCESS_MAX];
	int refused;	/* the first byte whose range refuses (the access is its), or -1 */
};

/*
 * Split the access by @owner[0 .. @size - 1] (@owner[i] for port @port + i;
 * entries past 0xFFFF are ignored). False, and nothing filled, for a
 * @size other than 1, 2 or 4.
 */
bool io_split(uint16_t port, uint8_t size, const struct io_byte_owner *owner,
	      struct io_split *out);

/* The access's bytes inside the 64 KiB port space: from @port, at most @size. */
static inline uint8_t io_bytes_in_space(uint16_t port, uint8_t size)
{
	uint32_t left = 0x10000u - port;

	return (uint8_t)(size < left ? size : left);
}

#endif
