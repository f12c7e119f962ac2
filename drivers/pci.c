// SPDX-License-Identifier: MIT
/*
 * PCI enumeration (drivers/pci.h). References: PCI Local Bus Specification
 * 3.0, 6.1 (the header), 6.2.5.1 (BAR sizing), 6.7 (capabilities), 6.8.1
 * and 6.8.2 (MSI, MSI-X); PCI-to-PCI Bridge Architecture 1.2, 3.2.
 */
#include "drivers/pci.h"

#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/pci_cap.h"

#define ALL_ONES	0xffffffffu

static uint32_t cfg_read(const struct pci_cfg_ops *ops, uint32_t bdf, uint32_t off, uint8_t size)
{
	return ops->read(ops->ctx, bdf, off, size);
}

static void cfg_write(const struct pci_cfg_ops *ops, uint32_t bdf, uint32_t off, uint8_t size,
		      uint32_t v)
{
	ops->write(ops->ctx, bdf, off, size, v);
}

/* All ones written, the value read, the original put back. */
static uint32_t size_dword(const struct pci_cfg_ops *ops, uint32_t bdf, uint32_t reg,
			   uint32_t orig)
{
	uint32_t v;

	cfg_write(ops, bdf, reg, 4, ALL_ONES);
	v = cfg_read(ops, bdf, reg, 4);
	cfg_write(ops, bdf, reg, 4, orig);
	return v;
}

/* The size of the lowest address bit a sizing probe left writable (0: none). */
static uint64_t lowest_bit(uint64_t writable)
{
	return writable & ~(writable - 1);
}

/* Size BAR @i of @f; returns how many registers it takes (1 or 2). */
static uint32_t read_bar(const struct pci_cfg_ops *ops, struct pci_function *f, uint32_t i)
{
	uint32_t reg = PCI_BAR0 + 4 * i, lo = cfg_read(ops, f->bdf, reg, 4), hi = 0, slo, shi = 0;
	struct pci_bar *b = &f->bar[i];
	uint64_t mask;

	memset(b, 0, sizeof(*b));
	slo = size_dword(ops, f->bdf, reg, lo);
	if (lo & PCI_BAR_SPACE_IO) {
		/* x86 I/O space is 16 bits: what a decoder has above is not space */
		mask = (uint64_t)(slo & PCI_BAR_IO_MASK & 0xffff);
		if (!mask)
			return 1;
		b->kind = PCI_BAR_IO;
		b->addr = lo & PCI_BAR_IO_MASK & 0xffff;
		b->size = lowest_bit(mask);
		return 1;
	}
	if ((lo & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64 && i + 1 < f->bar_count) {
		hi = cfg_read(ops, f->bdf, reg + 4, 4);
		shi = size_dword(ops, f->bdf, reg + 4, hi);
		mask = ((uint64_t)shi << 32 | (slo & PCI_BAR_MEM_MASK));
		b->kind = PCI_BAR_MEM64;
		b->addr = (uint64_t)hi << 32 | (lo & PCI_BAR_MEM_MASK);
	} else {
		mask = slo & PCI_BAR_MEM_MASK;
		b->kind = PCI_BAR_MEM32;
		b->addr = lo & PCI_BAR_MEM_MASK;
	}
	b->prefetch = lo & PCI_BAR_MEM_PREFETCH;
	b->size = lowest_bit(mask);
	if (!b->size)
		memset(b, 0, sizeof(*b));
	return (lo & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64 && i + 1 < f->bar_count ? 2 : 1;
}

static void read_bars(const struct pci_cfg_ops *ops, struct pci_function *f)
{
	uint16_t cmd = (uint16_t)cfg_read(ops, f->bdf, PCI_COMMAND, 2);
	bool quiet = f->class_code != PCI_CLASS_BRIDGE_HOST &&
		     (cmd & (PCI_COMMAND_IO | PCI_COMMAND_MEMORY));

	/* a half-sized BAR must not decode over something else meanwhile */
	if (quiet)
		cfg_write(ops, f->bdf, PCI_COMMAND, 2,
			  cmd & (uint16_t)~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (uint32_t i = 0; i < f->bar_count; )
		i += read_bar(ops, f, i);
	if (quiet)
		cfg_write(ops, f->bdf, PCI_COMMAND, 2, cmd);
}

static void read_caps(const struct pci_cfg_ops *ops, struct pci_function *f, uint8_t type)
{
	struct pci_cap_list caps;
	uint32_t v;

	pci_cap_walk(ops, f->bdf, type, &caps);
	f->caps_malformed = caps.malformed;
	f->msi_cap = pci_cap_find(&caps, PCI_CAP_ID_MSI);
	f->msix_cap = pci_cap_find(&caps, PCI_CAP_ID_MSIX);
	f->pm_cap = pci_cap_find(&caps, PCI_CAP_ID_PM);
	f->exp_cap = pci_cap_find(&caps, PCI_CAP_ID_EXP);
	if (f->msi_cap) {
		v = cfg_read(ops, f->bdf, f->msi_cap + PCI_MSI_FLAGS, 2);
		f->msi_64bit = v & PCI_MSI_FLAGS_64BIT;
		/* 6 and 7 are reserved encodings: at most 32 vectors */
		f->msi_vectors = (uint8_t)(1u << MIN((v & PCI_MSI_FLAGS_QMASK) >>
						     PCI_MSI_FLAGS_QMASK_SHIFT, 5u));
	}
	if (f->msix_cap) {
		v = cfg_read(ops, f->bdf, f->msix_cap + PCI_MSIX_FLAGS, 2);
		f->msix_entries = (uint16_t)((v & PCI_MSIX_FLAGS_QSIZE) + 1);
		v = cfg_read(ops, f->bdf, f->msix_cap + PCI_MSIX_TABLE, 4);
		f->msix_bar = (uint8_t)(v & PCI_MSIX_BIR_MASK);
		f->msix_offset = v & PCI_MSIX_OFFSET_MASK;
	}
}

static void read_function(const struct pci_cfg_ops *ops, struct pci_function *f, uint32_t bdf,
			  uint32_t id, uint8_t header)
{
	uint32_t rev_class = cfg_read(ops, bdf, PCI_REVISION_ID, 4);
	uint32_t intr = cfg_read(ops, bdf, PCI_INTERRUPT_LINE, 2);
	uint8_t type = header & PCI_HEADER_TYPE_MASK;

	memset(f, 0, sizeof(*f));
	f->bdf = (uint16_t)bdf;
	f->vendor = (uint16_t)id;
	f->device = (uint16_t)(id >> 16);
	f->revision = (uint8_t)rev_class;
	f->class_code = rev_class >> 8;
	f->header_type = type;
	f->multifunction = header & PCI_HEADER_TYPE_MFD;
	f->bridge = type == PCI_HEADER_TYPE_BRIDGE || type == PCI_HEADER_TYPE_CARDBUS ||
		    (f->class_code >> 16) == PCI_BASE_CLASS_BRIDGE;
	f->bar_count = type == PCI_HEADER_TYPE_NORMAL ? PCI_TYPE0_BARS :
		       type == PCI_HEADER_TYPE_BRIDGE ? PCI_TYPE1_BARS : 1;
	if (type == PCI_HEADER_TYPE_BRIDGE || type == PCI_HEADER_TYPE_CARDBUS) {
		f->secondary_bus = (uint8_t)cfg_read(ops, bdf, PCI_SECONDARY_BUS, 1);
		f->subordinate_bus = (uint8_t)cfg_read(ops, bdf, PCI_SUBORDINATE_BUS, 1);
	}
	if (type > PCI_HEADER_TYPE_CARDBUS)
		f->bar_count = 0;	/* an unknown layout: nothing is written to it */
	f->interrupt_line = (uint8_t)intr;
	f->interrupt_pin = (uint8_t)(intr >> 8);
	read_bars(ops, f);
	read_caps(ops, f, type);
}

/* Is a function at @bdf? Its ID dword in *@id. */
static bool present(const struct pci_cfg_ops *ops, uint32_t bdf, uint32_t *id)
{
	uint16_t vendor;

	*id = cfg_read(ops, bdf, PCI_VENDOR_ID, 4);
	vendor = (uint16_t)*id;
	return vendor != 0xffff && vendor != 0x0000;
}

static void record(const struct pci_cfg_ops *ops, struct pci_enum *out, uint32_t bdf,
		   uint32_t id, uint8_t header)
{
	out->found++;
	if (out->count < PCI_MAX_FUNCTIONS)
		read_function(ops, &out->fn[out->count++], bdf, id, header);
}

void pci_enumerate(const struct pci_cfg_ops *ops, uint8_t bus_first, uint8_t bus_last,
		   struct pci_enum *out)
{
	out->bus_first = bus_first;
	out->bus_last = bus_last;
	out->found = 0;
	out->count = 0;
	for (uint32_t bus = bus_first; bus <= bus_last; bus++) {
		for (uint32_t dev = 0; dev < PCI_DEVS_PER_BUS; dev++) {
			uint32_t id, bdf = PCI_BDF(bus, dev, 0);
			uint8_t header;

			if (!present(ops, bdf, &id))
				continue;
			header = (uint8_t)cfg_read(ops, bdf, PCI_HEADER_TYPE, 1);
			record(ops, out, bdf, id, header);
			if (!(header & PCI_HEADER_TYPE_MFD))
				continue;
			for (uint32_t fn = 1; fn < PCI_FNS_PER_DEV; fn++) {
				bdf = PCI_BDF(bus, dev, fn);
				if (present(ops, bdf, &id))
					record(ops, out, bdf, id,
					       (uint8_t)cfg_read(ops, bdf, PCI_HEADER_TYPE, 1));
			}
		}
	}
}

const struct pci_function *pci_find(const struct pci_enum *e, uint16_t bdf)
{
	for (uint32_t i = 0; i < e->count && i < PCI_MAX_FUNCTIONS; i++)
		if (e->fn[i].bdf == bdf)
			return &e->fn[i];
	return NULL;
}

static const char *const bar_kind_names[] = {
	[PCI_BAR_NONE] = "none",
	[PCI_BAR_IO] = "io",
	[PCI_BAR_MEM32] = "mem32",
	[PCI_BAR_MEM64] = "mem64",
};

/* Append to @buf at *@at (cut at @len, always terminated; *@at < @len). */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*at += fmt_vscnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
}

char *pci_describe(const struct pci_function *f, char *buf, size_t len)
{
	size_t at = 0;
	const char *sep = " caps=";

	if (!len)
		return buf;
	buf[0] = 0;
	put(buf, len, &at, "%02x:%02x.%x %04x:%04x class 0x%06x type %u",
	    PCI_BDF_BUS(f->bdf), PCI_BDF_DEV(f->bdf), PCI_BDF_FN(f->bdf), f->vendor, f->device,
	    f->class_code, f->header_type);
	if (f->header_type == PCI_HEADER_TYPE_BRIDGE || f->header_type == PCI_HEADER_TYPE_CARDBUS)
		put(buf, len, &at, " bridge buses %02x-%02x", f->secondary_bus,
		    f->subordinate_bus);
	if (f->interrupt_pin >= 1 && f->interrupt_pin <= 4)
		put(buf, len, &at, " pin %c line %u", 'A' + f->interrupt_pin - 1,
		    f->interrupt_line);
	for (uint32_t i = 0; i < f->bar_count && i < PCI_TYPE0_BARS; i++) {
		const struct pci_bar *b = &f->bar[i];

		if (b->kind == PCI_BAR_NONE)
			continue;
		put(buf, len, &at, " bar%u=%s%s:0x%llx+0x%llx", i, bar_kind_names[b->kind],
		    b->prefetch ? "pf" : "", (unsigned long long)b->addr,
		    (unsigned long long)b->size);
	}
	if (f->msi_cap) {
		put(buf, len, &at, "%smsi%sx%u", sep, f->msi_64bit ? "64" : "32", f->msi_vectors);
		sep = ",";
	}
	if (f->msix_cap) {
		put(buf, len, &at, "%smsix%u@bar%u+0x%x", sep, f->msix_entries, f->msix_bar,
		    f->msix_offset);
		sep = ",";
	}
	if (f->pm_cap) {
		put(buf, len, &at, "%spm", sep);
		sep = ",";
	}
	if (f->exp_cap) {
		put(buf, len, &at, "%spcie", sep);
		sep = ",";
	}
	if (f->caps_malformed)
		put(buf, len, &at, " caps-malformed");
	return buf;
}
