// SPDX-License-Identifier: MIT
/* Port I/O exits: the device hv/core/io_policy.c names for the port answers. */
#include "hv/dev/channel.h"
#include "hv/core/fw_cfg.h"
#include "hv/core/guest_boot.h"
#include "hv/core/io_policy.h"
#include "hv/core/vpci.h"
#include "hv/core/vuart.h"
#include "hv/exit/exit.h"

enum exit_action exit_io(struct vcpu *v, struct exit_ctx *x)
{
	uint64_t q = vmread(VMCS_EXIT_QUALIFICATION);
	uint32_t size = (q & 7) + 1;
	bool in = q & 8;
	uint16_t port = (uint16_t)(q >> 16);
	enum io_device dev = (enum io_device)io_rule_find(port)->device;
	const struct partition_config *pc = v->part->cfg;
	uint64_t mask = size == 4 ? 0xffffffffull : (1ull << (8 * size)) - 1, value;
	/* a PCI bus only where there are channels, and only for its own access widths */
	bool pci = dev == IO_PCI && v->part->channel_count && vpci_claims(port, (uint8_t)size);

	if (q & 16)
		return exit_stop(x, "string_io", q, "INS/OUTS are not emulated");
	if (in) {
		if (dev == IO_UART)
			value = vuart_read(&v->part->uart, port);
		else if (port == 0x92)	/* its latch; the ports above it float */
			value = (io_float() & ~0xffu) | v->part->port92;
		else if (pci)
			value = channel_pci_in(v, port, (uint8_t)size);
		else if (dev == IO_FW_CFG && pc->fw_cfg && port == FW_CFG_PORT_DATA)
			for (uint32_t i = value = 0; i < size; i++)	/* the item's next bytes */
				value |= (uint64_t)fw_cfg_read(&v->part->fw_cfg) << (8 * i);
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
		case IO_DEBUG_EXIT:
			if (!pc->debug_exit)
				break;	/* off: no device there, the write is dropped */
			x->code = io_debug_exit_code((uint32_t)(v->arch.regs.rax & mask));
			return EXIT_SHUTDOWN;
		case IO_FW_CFG:
			if (pc->fw_cfg && port == FW_CFG_PORT_SEL)
				fw_cfg_select(&v->part->fw_cfg, (uint16_t)(v->arch.regs.rax & mask));
			break;	/* the data port takes no writes */
		case IO_PCI:
			if (pci)
				channel_pci_out(v, port, (uint8_t)size, (uint32_t)(v->arch.regs.rax & mask));
			break;
		case IO_NONE:
		default:
			break;	/* the write is dropped (documented) */
		}
	}
	skip_instruction();
	return EXIT_RESUME;
}
