// SPDX-License-Identifier: MIT
/*
 * A partition's own devices' resources (docs/devices.md): its assigned
 * port ranges pass through the I/O bitmaps with no exit, and its mmio =
 * ranges are mapped in its EPT at their own addresses, uncached. Both are
 * set up once, when the partition is built, and never change: a restart
 * keeps them. Every other port still exits to hv/exit/io.c, and any other
 * address outside its RAM to the EPT-violation handler, as before. A
 * neighbour that touches another partition's ports is stopped, naming the
 * owner (a guest reaching for a device it was not given is misconfigured
 * or hostile; reading all ones would hide that); one that touches its
 * pages meets the EPT violation any unmapped address does.
 */
#include "arch/x86/vmx.h"
#include "arch/x86/vmx_defs.h"
#include "hv/core/io_policy.h"
#include "hv/dev/devices.h"
#include "hv/dev/dma.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/x86.h"
#include "hv/state/ept.h"
#include "hv/state/hooks.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"

#define IO_BITMAP_BYTES		0x2000	/* A: ports 0-0x7FFF, B: 0x8000-0xFFFF, a bit each */

/* Accesses to its own ports that exited all the same, per partition. */
static volatile uint64_t port_exits[CONFIG_MAX_PARTITIONS];

/*
 * An assigned range is in the port registry too, though its bitmap bits
 * are clear: an access that exits there anyway runs past the range's end
 * (the bitmap sends an access to the exit if any of its ports' bits is
 * set, SDM Vol. 3C 26.1.3). It is counted, and the exit hands this range
 * only its own bytes (io_split, hv/exit/io.c): those go to the device, as
 * they would without Tempo; the bytes beyond are the other ranges'.
 */
static enum exit_action own_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				 uint8_t size, bool in, uint32_t *value, void *opaque)
{
	(void)x;
	(void)opaque;
	__atomic_fetch_add(&port_exits[v->part->id], 1, __ATOMIC_RELAXED);
	if (in)
		*value = size == 1 ? inb(port) : size == 2 ? inw(port) : inl(port);
	else if (size == 1)
		outb(port, (uint8_t)*value);
	else if (size == 2)
		outw(port, (uint16_t)*value);
	else
		outl(port, *value);
	return EXIT_RESUME;
}

/* An access to ports given to partition @opaque (its name): stops the guest. */
static enum exit_action neighbour_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				       uint8_t size, bool in, uint32_t *value, void *opaque)
{
	(void)v;
	(void)size;
	(void)in;
	(void)value;
	fmt_snprintf(x->detail_buf, sizeof(x->detail_buf), "port 0x%x is given to '%s'", port,
		     (const char *)opaque);
	return exit_stop(x, "assigned_port", port, x->detail_buf);
}

/*
 * The other partitions' port ranges in @p's registry, so that an access
 * stops @p: what @p has of its own at those ports (its virtual COM1, ...)
 * keeps them, the rest of the range is registered around it. A registry
 * too full for them leaves them as they were, no device, and says so.
 */
static void neighbour_ports_init(struct partition *p, const struct hv_config *cfg)
{
	for (uint32_t i = 0; i < cfg->partition_count; i++) {
		const struct partition_config *o = &cfg->partitions[i];

		if (o == p->cfg)
			continue;
		for (uint32_t k = 0; k < o->dev.port_count && k < DEV_MAX_PORTS; k++) {
			uint32_t first = o->dev.ports[k].first, last = o->dev.ports[k].last;

			while (first <= last) {
				uint32_t end = first;

				if (port_region_find(p, (uint16_t)first)) {
					first++;
					continue;
				}
				while (end < last && !port_region_find(p, (uint16_t)(end + 1)))
					end++;
				int id = port_region_add(p, (uint16_t)first, (uint16_t)end,
							 neighbour_port, (void *)o->name,
							 "another partition's ports");

				port_region_refuses(p, id);
				if (id < 0)
					log_warn("partition '%s': no room in its port registry for "
						 "'%s''s ports 0x%x-0x%x: an access there reads all "
						 "ones, as a port with no device\n", p->cfg->name,
						 o->name, first, end);
				first = end + 1;
			}
		}
	}
}

/*
 * Ports [@first, @last] pass through: their bitmap bits clear (the bitmaps
 * all ones at first: every other port exits). A virtual device of the
 * partition's own at such a port (its COM1, fw_cfg, debug-exit, the PCI
 * configuration ports of its bus) would never see an access: refused,
 * with the range and the device.
 */
int devices_pass_ports(struct partition *p, uint16_t first, uint16_t last, char *err,
		       size_t errlen)
{
	uint8_t *bm = (uint8_t *)(uintptr_t)p->io_bitmap_pa;

	if (!vmx_ctl.has_io_bitmaps) {
		fmt_snprintf(err, errlen, "partition '%s': ports: this CPU has no I/O bitmaps, "
			     "so no port can pass through", p->cfg->name);
		return -1;
	}
	for (uint32_t port = first; port <= last; port++) {
		const struct port_region *r = port_region_find(p, (uint16_t)port);

		if (r) {
			fmt_snprintf(err, errlen, "partition '%s': ports: 0x%x-0x%x: port 0x%x "
				     "is its %s", p->cfg->name, first, last, port, r->what);
			return -1;
		}
	}
	if (port_region_add(p, first, last, own_port, NULL, "assigned ports") < 0) {
		fmt_snprintf(err, errlen, "partition '%s': ports: no room in its port registry "
			     "for 0x%x-0x%x", p->cfg->name, first, last);
		return -1;
	}
	if (!bm) {
		bm = hv_pages_alloc(IO_BITMAP_BYTES, "I/O bitmaps");
		memset(bm, 0xff, IO_BITMAP_BYTES);
		p->io_bitmap_pa = (uint64_t)(uintptr_t)bm;
	}
	for (uint32_t port = first; port <= last; port++)
		bm[port / 8] &= (uint8_t)~(1u << (port % 8));
	return 0;
}

static int ports_init(struct partition *p, const struct dev_assignment *d, char *err,
		      size_t errlen)
{
	for (uint32_t k = 0; k < d->port_count && k < DEV_MAX_PORTS; k++)
		if (devices_pass_ports(p, d->ports[k].first, d->ports[k].last, err, errlen))
			return -1;
	return 0;
}

/*
 * The memory ranges: at their own guest-physical address, read and write
 * (no fetch: nobody runs code from device registers), uncached whatever the
 * guest's PAT says (EPT memory type UC with ignore-PAT, SDM Vol. 3C
 * 29.3.7.2), as a device's registers need. The config check
 * (hv/core/config.c) has kept them off the RAM, the channels and the
 * emulated pages; a mapping that still meets one fails the build.
 */
static int mmio_init(struct partition *p, const struct dev_assignment *d, char *err,
		     size_t errlen)
{
	for (uint32_t k = 0; k < d->mmio_count && k < DEV_MAX_MMIO; k++) {
		const struct dev_mmio_range *r = &d->mmio[k];

		if (ept_map_uc(p, r->base, r->base, r->size, EPT_READ | EPT_WRITE)) {
			fmt_snprintf(err, errlen, "partition '%s': mmio: 0x%lx+0x%lx: part of it "
				     "is mapped already", p->cfg->name, r->base, r->size);
			return -1;
		}
	}
	return 0;
}

static int devices_part_init(struct partition *p, const struct hv_config *cfg, char *err,
			     size_t errlen)
{
	const struct dev_assignment *d = &p->cfg->dev;

	if (ports_init(p, d, err, errlen) || mmio_init(p, d, err, errlen))
		return -1;
	neighbour_ports_init(p, cfg);
	return 0;
}

/* After the PC's ports (30) and the channels (40): ports_init looks for their regions. */
PART_HOOK(50, devices, .init = devices_part_init);

void devices_report(void)
{
	for (uint32_t i = 0; i < partition_count; i++) {
		const struct partition *p = &partitions[i];
		const struct dev_assignment *d = &p->cfg->dev;
		char irqs[200];

		if (!d->given)
			continue;
		irqs_report_line(p, irqs, sizeof(irqs));
		/* dma=: whether its functions may master the bus (hv/dev/dma.h) */
		log_printf(LOG_EMERG, "DEVICES partition=%s pci=%u ports=%u port_exits=%lu mmio=%u%s"
			   "%s\n", p->cfg->name, d->pci_count, d->port_count, port_exits[p->id],
			   d->mmio_count, irqs, !d->pci_count ? "" : dma_confined(p) ?
			   " dma=confined" : " dma=pio_only");
	}
}
