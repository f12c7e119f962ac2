// SPDX-License-Identifier: MIT
/*
 * The PC a partition sees at its ports: its virtual 16550 on COM1, the
 * reset registers, the ACPI power-off register of a Linux guest, and QEMU's
 * debug-exit and fw_cfg devices where its config turns them on. Which port
 * is what is hv/core/io_policy.c's table; each row with a device is
 * registered in the partition's port registry (hv/state/region.h). A port
 * no row names has no device: reads float high, writes are dropped.
 */
#include "hv/core/fw_cfg.h"
#include "hv/core/guest_boot.h"
#include "hv/core/io_policy.h"
#include "hv/core/vuart.h"
#include "hv/lib/fmt.h"
#include "hv/state/hooks.h"
#include "hv/state/partition.h"

/*
 * Byte registers: a wider access is one byte access per port, in order, as
 * the chipset splits it for an 8-bit device. Out of line, so that the
 * console's byte accesses do not pay for its registers.
 */
static __attribute__((noinline)) void uart_wide(struct vuart *u, uint16_t port, uint8_t size,
						bool in, uint32_t *value)
{
	if (in)
		*value = 0;
	for (uint8_t i = 0; i < size; i++) {
		uint16_t at = (uint16_t)(port + i);

		if (in)
			*value |= (uint32_t)(vuart_owns_port(at) ? vuart_read(u, at) : 0xff) << (8 * i);
		else if (vuart_owns_port(at))
			vuart_write(u, at, (uint8_t)(*value >> (8 * i)));
	}
}

static enum exit_action uart_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				  uint8_t size, bool in, uint32_t *value, void *opaque)
{
	(void)x;
	(void)opaque;
	if (size != 1)
		uart_wide(&v->part->uart, port, size, in, value);
	else if (in)
		*value = vuart_read(&v->part->uart, port);
	else
		vuart_write(&v->part->uart, port, (uint8_t)*value);
	return EXIT_RESUME;
}

static enum exit_action acpi_pm_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				     uint8_t size, bool in, uint32_t *value, void *opaque)
{
	(void)x;
	(void)port;
	(void)size;
	(void)opaque;
	if (!in && v->part->linux_boot && guest_acpi_is_poweroff((uint8_t)*value))
		return EXIT_POWEROFF;
	return EXIT_RESUME;
}

static enum exit_action reset_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				   uint8_t size, bool in, uint32_t *value, void *opaque)
{
	(void)size;
	(void)opaque;
	if (in) {
		if (port == 0x92)	/* its latch; the ports above it float */
			*value = (io_float() & ~0xffu) | v->part->port92;
		return EXIT_RESUME;
	}
	x->stop_detail = io_reset_write(port, (uint8_t)*value, &v->part->port92);
	return x->stop_detail ? EXIT_RESET : EXIT_RESUME;
}

static enum exit_action debug_exit_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
					uint8_t size, bool in, uint32_t *value, void *opaque)
{
	(void)v;
	(void)port;
	(void)size;
	(void)opaque;
	if (in)
		return EXIT_RESUME;
	x->code = io_debug_exit_code(*value);
	return EXIT_SHUTDOWN;
}

static enum exit_action fw_cfg_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				    uint8_t size, bool in, uint32_t *value, void *opaque)
{
	(void)x;
	(void)opaque;
	if (in && port == FW_CFG_PORT_DATA) {
		*value = 0;
		for (uint32_t i = 0; i < size; i++)	/* the item's next bytes */
			*value |= (uint32_t)fw_cfg_read(&v->part->fw_cfg) << (8 * i);
	} else if (!in && port == FW_CFG_PORT_SEL) {
		fw_cfg_select(&v->part->fw_cfg, (uint16_t)*value);
	}
	return EXIT_RESUME;	/* the data port takes no writes */
}

/* The handler of a row's device, or NULL where there is none for this partition. */
static port_region_fn device_port(const struct partition *p, enum io_device dev)
{
	switch (dev) {
	case IO_UART:
		return uart_port;
	case IO_ACPI_PM:
		return acpi_pm_port;
	case IO_RESET:
		return reset_port;
	case IO_DEBUG_EXIT:
		return p->cfg->debug_exit ? debug_exit_port : NULL;	/* off: no device there */
	case IO_FW_CFG:
		return p->cfg->fw_cfg ? fw_cfg_port : NULL;
	case IO_PCI:		/* the bus registers itself (hv/dev/channel.c) */
	case IO_NONE:
	default:
		return NULL;
	}
}

static int platform_part_init(struct partition *p, const struct hv_config *cfg, char *err,
			      size_t errlen)
{
	unsigned int count;
	const struct io_rule *rules = io_rules(&count);

	(void)cfg;
	p->port92 = IO_PORT92_RESET;
	vuart_init(&p->uart);
	fw_cfg_init(&p->fw_cfg, p->mem_size, (uint16_t)p->vcpu_count);
	for (unsigned int i = 0; i < count; i++) {
		port_region_fn fn = device_port(p, (enum io_device)rules[i].device);

		if (fn && port_region_add(p, rules[i].first, rules[i].last, fn, NULL,
					  rules[i].what) < 0) {
			fmt_snprintf(err, errlen, "partition '%s': ports 0x%x-0x%x: its port table "
				     "is full", p->cfg->name, rules[i].first, rules[i].last);
			return -1;
		}
	}
	return 0;
}

/* A restart: the latch and fw_cfg's selection as at power-up (the UART is the console's). */
static void platform_part_reset(struct partition *p)
{
	p->port92 = IO_PORT92_RESET;
	fw_cfg_init(&p->fw_cfg, p->mem_size, (uint16_t)p->vcpu_count);
}

PART_HOOK(30, platform, .init = platform_part_init, .reset = platform_part_reset);
