// SPDX-License-Identifier: MIT
/*
 * The virtual PCI bus: configuration mechanism #1, a host bridge and the
 * channel functions' configuration space.
 *
 * Each register is built as a whole dword and cut to the bytes asked for;
 * a write of fewer bytes is merged into the dword as it reads now and the
 * dword written, so every field takes only its own bytes and read-only bits
 * stay as they are.
 *
 * References: PCI Local Bus Specification 3.0: 3.2.2.3.2 (configuration
 * mechanism #1), 6.1 and 6.2 (the type 0 header), 6.2.5.1 (BARs and their
 * sizing), 6.7 (capabilities list), 6.8.1 (the MSI capability); Intel SDM
 * Vol. 3A 11.11 (the MSI message address and data on x86).
 */
#include "hv/core/vpci.h"

#include "hv/core/hypercall_abi.h"
#include "hv/core/irq_route.h"
#include "hv/lib/lib.h"

#define ALL_ONES		0xffffffffu
#define BAR0_TYPE		0x0u	/* memory, 32-bit, not prefetchable */
#define BAR2_TYPE		(PCI_BAR_MEM_TYPE_64 | PCI_BAR_MEM_PREFETCH)
#define BAR_MEM_LOW_BITS	0xfu	/* memory BAR: type and prefetchable, read-only */
#define BAR2_MIN_SIZE		0x1000ull
#define COMMAND_WRITABLE	(PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER)
#define MSI_CAP			TEMPO_PCI_CHAN_MSI_CAP
#define MSI_CAP_END		(MSI_CAP + PCI_MSI_DATA_64 + 2)

_Static_assert(MSI_CAP % 4 == 0 && MSI_CAP >= 0x40 && MSI_CAP_END <= PCI_CONFIG_SIZE,
	       "the MSI capability is dword-aligned in the device-specific space");
_Static_assert((TEMPO_PCI_BAR0_SIZE & (TEMPO_PCI_BAR0_SIZE - 1)) == 0,
	       "BAR0's size is a power of two");
_Static_assert(TEMPO_PCI_BAR0_BASE % TEMPO_PCI_BAR0_SIZE == 0,
	       "BAR0s sit at multiples of their size");
_Static_assert(TEMPO_PCI_BAR0_BASE + (uint64_t)VPCI_MAX_CHANNELS * TEMPO_PCI_BAR0_SIZE <=
	       TEMPO_PCI_MMIO_WINDOW_END, "every BAR0 fits in the host bridge's window");

/* The x86 MSI message: hv/core/irq_route.h names its fields. */
#define MSI_DATA_DELIVERY(d)	(((d) >> MSI_DATA_DELIVERY_SHIFT) & 7)

/* The published route: valid, logical, destination, vector. */
#define ROUTE_VALID		0x80000000u
#define ROUTE_LOGICAL		0x40000000u
#define ROUTE_DEST_SHIFT	8

uint64_t vpci_bar2_size(uint64_t size)
{
	uint64_t s = BAR2_MIN_SIZE;

	if (size > 1ull << 63)
		return 0;
	while (s < size)
		s <<= 1;
	return s;
}

/* A dword holding all of its writable bits set: software is sizing the BAR. */
static bool probing(uint32_t value, uint32_t writable)
{
	return writable && (value & writable) == writable;
}

/* Either dword of a 64-bit BAR at @bar, @mask its address bits. */
static bool probing64(uint64_t bar, uint64_t mask)
{
	return probing((uint32_t)bar, (uint32_t)mask) ||
	       probing((uint32_t)(bar >> 32), (uint32_t)(mask >> 32));
}

/*
 * A BAR2 the bus can decode at reset: an address at which it reads as a
 * sizing probe never decodes (vpci_bar2()), while the hypervisor maps the
 * channel there at boot and would never unmap it.
 */
static bool desc_valid(const struct vpci_chan_desc *d)
{
	uint64_t s = vpci_bar2_size(d->size);

	return d->size >= BAR2_MIN_SIZE && s && d->bar2_gpa && !(d->bar2_gpa & (s - 1)) &&
	       d->bar2_gpa <= UINT64_MAX - s + 1 && !probing64(d->bar2_gpa, ~(s - 1));
}

/* Field by field: another core may be reading msi_route meanwhile. */
static void fn_reset(struct vpci_fn *f, uint32_t chan, const struct vpci_chan_desc *d)
{
	/* Firmware that placed the BARs leaves memory decode on. */
	f->command = PCI_COMMAND_MEMORY;
	f->interrupt_line = 0;
	f->bar0 = TEMPO_PCI_BAR0_BASE + chan * TEMPO_PCI_BAR0_SIZE;
	f->bar2_size = vpci_bar2_size(d->size);
	f->bar2 = d->bar2_gpa;
	f->msi_control = 0;
	f->msi_address_lo = 0;
	f->msi_address_hi = 0;
	f->msi_data = 0;
	__atomic_store_n(&f->msi_route, 0, __ATOMIC_RELEASE);
}

void vpci_reset(struct vpci_bus *b)
{
	b->config_address = 0;
	for (uint32_t i = 0; i < b->chan_count; i++)
		fn_reset(&b->fn[i], i, &b->desc[i]);
}

bool vpci_init(struct vpci_bus *b, const struct vpci_chan_desc *chans, uint32_t count)
{
	memset(b, 0, sizeof(*b));
	if (count > VPCI_MAX_CHANNELS || (count && !chans))
		return false;
	for (uint32_t i = 0; i < count; i++)
		if (!desc_valid(&chans[i]))
			return false;
	for (uint32_t i = 0; i < count; i++)
		b->desc[i] = chans[i];
	b->chan_count = count;
	vpci_reset(b);
	return true;
}

/* ---- the BARs as the hypervisor sees them ---- */

static uint64_t bar2_mask(const struct vpci_fn *f)
{
	return ~(f->bar2_size - 1);
}

struct vpci_window vpci_bar0(const struct vpci_fn *f)
{
	uint32_t mask = ~(uint32_t)(TEMPO_PCI_BAR0_SIZE - 1);

	return (struct vpci_window){
		.gpa = f->bar0,
		.size = TEMPO_PCI_BAR0_SIZE,
		.decodes = (f->command & PCI_COMMAND_MEMORY) && f->bar0 && !probing(f->bar0, mask),
	};
}

struct vpci_window vpci_bar2(const struct vpci_fn *f)
{
	return (struct vpci_window){
		.gpa = f->bar2,
		.size = f->bar2_size,
		.decodes = (f->command & PCI_COMMAND_MEMORY) && f->bar2 &&
			   !probing64(f->bar2, bar2_mask(f)),
	};
}

static bool window_changed(struct vpci_window was, struct vpci_window now)
{
	if (was.decodes != now.decodes)
		return true;
	return now.decodes && was.gpa != now.gpa;
}

/* ---- MSI ---- */

/* What a doorbell raises, packed for other cores (0: nothing). */
static uint32_t msi_route(const struct vpci_fn *f)
{
	uint32_t addr = f->msi_address_lo, mode = MSI_DATA_DELIVERY(f->msi_data);
	uint8_t vector = (uint8_t)f->msi_data;

	/* An MSI is a memory write: without bus master the function sends none. */
	if (!(f->command & PCI_COMMAND_MASTER) || !(f->msi_control & PCI_MSI_FLAGS_ENABLE) ||
	    f->msi_address_hi ||
	    (addr & MSI_ADDR_BASE_MASK) != MSI_ADDR_BASE || (addr & MSI_ADDR_RESERVED))
		return 0;
	if (mode != IRQ_DELIVERY_FIXED && mode != IRQ_DELIVERY_LOWEST)
		return 0;
	if (vector < TEMPO_CHANNEL_VECTOR_MIN || vector > TEMPO_CHANNEL_VECTOR_MAX)
		return 0;
	return ROUTE_VALID | (addr & MSI_ADDR_DM_LOGICAL ? ROUTE_LOGICAL : 0) |
	       ((addr >> MSI_ADDR_DEST_SHIFT) & 0xff) << ROUTE_DEST_SHIFT | vector;
}

bool vpci_msi_target(const struct vpci_fn *f, uint8_t *vector, uint8_t *dest, bool *logical)
{
	uint32_t r = __atomic_load_n(&f->msi_route, __ATOMIC_ACQUIRE);

	if (!(r & ROUTE_VALID))
		return false;
	*vector = (uint8_t)r;
	*dest = (uint8_t)(r >> ROUTE_DEST_SHIFT);
	*logical = r & ROUTE_LOGICAL;
	return true;
}

/* ---- configuration space ---- */

static uint32_t host_bridge_dword(uint32_t reg)
{
	switch (reg) {
	case PCI_VENDOR_ID:
		return (uint32_t)TEMPO_PCI_HOST_DEVICE << 16 | TEMPO_PCI_HOST_VENDOR;
	case PCI_REVISION_ID:
		return (uint32_t)PCI_CLASS_BRIDGE_HOST << 8;	/* revision 0 */
	}
	return 0;	/* header type 0, no BARs, no capabilities, nothing writable */
}

static uint32_t chan_dword(const struct vpci_fn *f, uint32_t reg)
{
	switch (reg) {
	case PCI_VENDOR_ID:
		return (uint32_t)TEMPO_PCI_CHAN_DEVICE << 16 | TEMPO_PCI_CHAN_VENDOR;
	case PCI_COMMAND:
		return (uint32_t)PCI_STATUS_CAP_LIST << 16 | f->command;
	case PCI_REVISION_ID:
		return (uint32_t)TEMPO_PCI_CHAN_CLASS << 8 | TEMPO_PCI_CHAN_REVISION;
	case PCI_BAR0:
		return f->bar0 | BAR0_TYPE;
	case PCI_BAR2:
		return (uint32_t)f->bar2 | BAR2_TYPE;
	case PCI_BAR3:
		return (uint32_t)(f->bar2 >> 32);
	case PCI_SUBSYSTEM_VENDOR_ID:
		return (uint32_t)TEMPO_PCI_CHAN_SUBDEVICE << 16 | TEMPO_PCI_CHAN_SUBVENDOR;
	case PCI_CAPABILITY_LIST:
		return MSI_CAP;
	case PCI_INTERRUPT_LINE:
		return f->interrupt_line;	/* pin 0, MIN_GNT 0, MAX_LAT 0 */
	case MSI_CAP:
		return (uint32_t)(PCI_MSI_FLAGS_64BIT | f->msi_control) << 16 | PCI_CAP_ID_MSI;
	case MSI_CAP + PCI_MSI_ADDRESS_LO:
		return f->msi_address_lo;
	case MSI_CAP + PCI_MSI_ADDRESS_HI:
		return f->msi_address_hi;
	case MSI_CAP + PCI_MSI_DATA_64:
		return f->msi_data;
	}
	return 0;
}

/* The channel function at @bdf, NULL for the host bridge; false where nothing answers. */
static bool lookup(const struct vpci_bus *b, uint32_t bdf, const struct vpci_fn **f)
{
	uint32_t bus = bdf >> 8, dev = (bdf >> 3) & 0x1f, fn = bdf & 7;

	if (bus || fn || dev > b->chan_count)
		return false;
	*f = dev ? &b->fn[dev - 1] : NULL;
	return true;
}

static bool access_valid(uint32_t offset, uint8_t size)
{
	return (size == 1 || size == 2 || size == 4) && offset < PCI_CONFIG_SIZE &&
	       (offset & 3) + size <= 4;
}

static uint32_t size_mask(uint8_t size)
{
	return size >= 4 ? ALL_ONES : (1u << (size * 8)) - 1;
}

static uint32_t read_dword(const struct vpci_fn *f, uint32_t reg)
{
	return f ? chan_dword(f, reg) : host_bridge_dword(reg);
}

uint32_t vpci_config_read(const struct vpci_bus *b, uint32_t bdf, uint32_t offset, uint8_t size)
{
	const struct vpci_fn *f;

	if (!access_valid(offset, size) || !lookup(b, bdf, &f))
		return size_mask(size);
	return (read_dword(f, offset & ~3u) >> (offset & 3) * 8) & size_mask(size);
}

/* A whole dword @v written to @reg: each field takes its writable bits. */
static void write_dword(struct vpci_fn *f, uint32_t reg, uint32_t v)
{
	uint64_t mask = bar2_mask(f);

	switch (reg) {
	case PCI_COMMAND:
		f->command = (uint16_t)(v & COMMAND_WRITABLE);	/* status: read-only */
		break;
	case PCI_BAR0:
		f->bar0 = v & ~(uint32_t)(TEMPO_PCI_BAR0_SIZE - 1);
		break;
	case PCI_BAR2:
		f->bar2 = ((f->bar2 & ~0xffffffffull) | (v & ~BAR_MEM_LOW_BITS)) & mask;
		break;
	case PCI_BAR3:
		f->bar2 = ((uint64_t)v << 32 | (uint32_t)f->bar2) & mask;
		break;
	case PCI_INTERRUPT_LINE:
		f->interrupt_line = (uint8_t)v;
		break;
	case MSI_CAP:
		f->msi_control = (uint16_t)(v >> 16) & PCI_MSI_FLAGS_ENABLE;
		break;
	case MSI_CAP + PCI_MSI_ADDRESS_LO:
		f->msi_address_lo = v & ~3u;
		break;
	case MSI_CAP + PCI_MSI_ADDRESS_HI:
		f->msi_address_hi = v;
		break;
	case MSI_CAP + PCI_MSI_DATA_64:
		f->msi_data = (uint16_t)v;
		break;
	}
}

uint32_t vpci_config_write(struct vpci_bus *b, uint32_t bdf, uint32_t offset, uint8_t size,
			   uint32_t value, struct vpci_event *ev)
{
	uint32_t reg = offset & ~3u, shift = (offset & 3) * 8, bytes, old, route;
	const struct vpci_fn *cf;
	struct vpci_fn *f;
	uint16_t msi_control, msi_data;
	uint32_t msi_lo, msi_hi;

	memset(ev, 0, sizeof(*ev));
	if (!access_valid(offset, size) || !lookup(b, bdf, &cf) || !cf)
		return 0;	/* nothing there, or the host bridge: nothing writable */
	f = &b->fn[cf - b->fn];
	ev->chan = (uint32_t)(cf - b->fn);
	ev->bar0_was = vpci_bar0(f);
	ev->bar2_was = vpci_bar2(f);
	msi_control = f->msi_control;
	msi_lo = f->msi_address_lo;
	msi_hi = f->msi_address_hi;
	msi_data = f->msi_data;

	bytes = size_mask(size) << shift;
	old = chan_dword(f, reg);
	write_dword(f, reg, (old & ~bytes) | ((value << shift) & bytes));

	ev->bar0 = vpci_bar0(f);
	ev->bar2 = vpci_bar2(f);
	if (window_changed(ev->bar0_was, ev->bar0))
		ev->changed |= VPCI_EV_BAR0;
	if (window_changed(ev->bar2_was, ev->bar2))
		ev->changed |= VPCI_EV_BAR2;
	/* Only this core writes the route, so reading it plainly here is safe. */
	route = msi_route(f);
	if (route != f->msi_route) {
		__atomic_store_n(&f->msi_route, route, __ATOMIC_RELEASE);
		ev->changed |= VPCI_EV_MSI;
	}
	if (msi_control != f->msi_control || msi_lo != f->msi_address_lo ||
	    msi_hi != f->msi_address_hi || msi_data != f->msi_data)
		ev->changed |= VPCI_EV_MSI;
	return ev->changed;
}

/* ---- the ports ---- */

bool vpci_claims(uint16_t port, uint8_t size)
{
	if (port == TEMPO_PCI_CF8)
		return size == 4;
	return port >= TEMPO_PCI_CFC && port <= VPCI_PORT_LAST;
}

/* CONFIG_DATA at @port: the latched function and register, or false. */
static bool data_target(uint32_t cf8, uint16_t port, uint32_t *bdf, uint32_t *offset)
{
	if (!(cf8 & VPCI_CF8_ENABLE))
		return false;
	*bdf = (cf8 >> 8) & 0xffff;
	*offset = (cf8 & 0xfc) + (port & 3u);
	return true;
}

uint32_t vpci_io_read(const struct vpci_bus *b, uint16_t port, uint8_t size)
{
	uint32_t bdf, offset;

	if (!vpci_claims(port, size))
		return size_mask(size);
	if (port == TEMPO_PCI_CF8)
		return b->config_address;
	if (!data_target(b->config_address, port, &bdf, &offset))
		return size_mask(size);
	return vpci_config_read(b, bdf, offset, size);
}

uint32_t vpci_io_write(struct vpci_bus *b, uint16_t port, uint8_t size, uint32_t value,
		       struct vpci_event *ev)
{
	uint32_t bdf, offset;

	memset(ev, 0, sizeof(*ev));
	if (!vpci_claims(port, size))
		return 0;
	if (port == TEMPO_PCI_CF8) {
		b->config_address = value & VPCI_CF8_MASK;
		return 0;
	}
	if (!data_target(b->config_address, port, &bdf, &offset))
		return 0;
	return vpci_config_write(b, bdf, offset, size, value, ev);
}

bool vpci_data_target(const struct vpci_bus *b, uint16_t port, uint8_t size, uint32_t *bdf,
		       uint32_t *offset)
{
	return port != TEMPO_PCI_CF8 && vpci_claims(port, size) &&
	       data_target(b->config_address, port, bdf, offset);
}

int32_t vpci_find_bar0(const struct vpci_bus *b, uint64_t gpa, uint32_t *offset)
{
	for (uint32_t i = 0; i < b->chan_count; i++) {
		struct vpci_window w = vpci_bar0(&b->fn[i]);

		if (w.decodes && gpa >= w.gpa && gpa - w.gpa < w.size) {
			*offset = (uint32_t)(gpa - w.gpa);
			return (int32_t)i;
		}
	}
	return -1;
}
