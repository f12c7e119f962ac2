// SPDX-License-Identifier: MIT
/* Port I/O exits: the device hv/core/io_policy.c names for the port answers. */
#include "hv/core/guest_boot.h"
#include "hv/core/io_policy.h"
#include "hv/core/vuart.h"
#include "hv/exit.h"

enum exit_action exit_io(struct vcpu *v, struct exit_ctx *x)
{
	uint64_t q = vmread(VMCS_EXIT_QUALIFICATION);
	uint32_t size = (q & 7) + 1;
	bool in = q & 8;
	uint16_t port = (uint16_t)(q >> 16);
	enum io_device dev = (enum io_device)io_rule_find(port)->device;
	uint64_t value;

	if (q & 16)
		return exit_stop(x, "string_io", q, "INS/OUTS are not emulated");
	if (in) {
		if (dev == IO_UART)
			value = vuart_read(&v->part->uart, port);
		else if (port == 0x92)	/* its latch; the ports above it float */
			value = (io_float() & ~0xffu) | v->part->port92;
		else
			value = io_float();	/* no device: the bus floats high */
		if (size == 1)
			v->arch.regs.rax = (v->arch.regs.rax & ~0xffull) | (value & 0xff);
		else if (size == 2)
			v->arch.regs.rax = (v->arch.regs.rax & ~0xffffull) | (value & 0xffff);
		else
			v->arch.regs.rax = value & 0xffffffff;
	} else {
		switch (dev) {
		case IO_UART:
			vuart_write(&v->part->uart, port, (uint8_t)v->arch.regs.rax);
			break;
		case IO_ACPI_PM:
			if (v->part->linux_boot && guest_acpi_is_poweroff((uint8_t)v->arch.regs.rax))
				return EXIT_POWEROFF;
			break;
		case IO_RESET:
			x->stop_detail = io_reset_write(port, (uint8_t)v->arch.regs.rax,
							&v->part->port92);
			if (x->stop_detail)
				return EXIT_RESET;
			break;
		case IO_NONE:
		default:
			break;	/* the write is dropped (documented) */
		}
	}
	skip_instruction();
	return EXIT_RESUME;
}
