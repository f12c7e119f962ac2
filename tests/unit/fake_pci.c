// SPDX-License-Identifier: MIT
/* The fake PCI segment of the host tests (tests/unit/fake_pci.h). */
#include "fake_pci.h"

#include <string.h>

struct fake_pci fake;

static uint32_t width_mask(uint8_t size)
{
	return size >= 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
}

void fake_reset(uint32_t limit)
{
	memset(&fake, 0, sizeof(fake));
	fake.limit = limit;
	fake.mmio_base = 0xfe000000;
}

struct fake_fn *fake_find(uint32_t bdf)
{
	for (uint32_t i = 0; i < FAKE_MAX_FNS; i++)
		if (fake.fn[i].present && fake.fn[i].bdf == bdf)
			return &fake.fn[i];
	return NULL;
}

void fake_set(struct fake_fn *f, uint32_t off, uint8_t size, uint32_t value, uint32_t wmask)
{
	for (uint32_t i = 0; i < size; i++) {
		f->cfg[off + i] = (uint8_t)(value >> (8 * i));
		f->wmask[off + i] = (uint8_t)(wmask >> (8 * i));
	}
}

uint32_t fake_get(const struct fake_fn *f, uint32_t off, uint8_t size)
{
	uint32_t v = 0;

	for (uint32_t i = 0; i < size; i++)
		v |= (uint32_t)f->cfg[off + i] << (8 * i);
	return v;
}

struct fake_fn *fake_add(uint32_t bdf, uint16_t vendor, uint16_t device, uint32_t class_code,
			 uint8_t header_type)
{
	for (uint32_t i = 0; i < FAKE_MAX_FNS; i++) {
		struct fake_fn *f = &fake.fn[i];

		if (f->present)
			continue;
		memset(f, 0, sizeof(*f));
		f->present = true;
		f->bdf = bdf;
		fake_set(f, PCI_VENDOR_ID, 2, vendor, 0);
		fake_set(f, PCI_DEVICE_ID, 2, device, 0);
		fake_set(f, PCI_COMMAND, 2, 0, 0x0547); /* IO, MEM, MASTER, PARITY, SERR, INTX */
		fake_set(f, PCI_REVISION_ID, 4, class_code << 8 | 1, 0);
		fake_set(f, PCI_CACHE_LINE_SIZE, 2, 0, 0xffff);
		fake_set(f, PCI_HEADER_TYPE, 1, header_type, 0);
		fake_set(f, PCI_INTERRUPT_LINE, 1, 0, 0xff);
		/* status bits 15:11 and 8 clear when 1 is written (6.2.3) */
		f->w1c[PCI_STATUS] = 0x00;
		f->w1c[PCI_STATUS + 1] = 0xf9;
		return f;
	}
	return NULL;
}

void fake_bar_mem(struct fake_fn *f, uint32_t i, uint64_t addr, uint64_t size, bool is64,
		  bool prefetch)
{
	uint64_t mask = ~(size - 1);
	uint32_t type = (is64 ? PCI_BAR_MEM_TYPE_64 : 0) | (prefetch ? PCI_BAR_MEM_PREFETCH : 0);

	fake_set(f, PCI_BAR0 + 4 * i, 4, (uint32_t)addr | type, (uint32_t)mask & ~0xfu);
	if (is64)
		fake_set(f, PCI_BAR0 + 4 * (i + 1), 4, (uint32_t)(addr >> 32),
			 (uint32_t)(mask >> 32));
}

void fake_bar_io(struct fake_fn *f, uint32_t i, uint32_t port, uint32_t size)
{
	fake_set(f, PCI_BAR0 + 4 * i, 4, port | PCI_BAR_SPACE_IO, ~(size - 1) & ~0x3u);
}

void fake_cap(struct fake_fn *f, uint8_t off, uint8_t id)
{
	uint32_t link = PCI_CAPABILITY_LIST;

	fake_set(f, PCI_STATUS, 2, fake_get(f, PCI_STATUS, 2) | PCI_STATUS_CAP_LIST, 0);
	while (f->cfg[link])
		link = f->cfg[link] + PCI_CAP_LIST_NEXT;
	f->cfg[link] = off;
	f->cfg[off] = id;
	f->cfg[off + 1] = 0;
}

static uint32_t fake_read(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size)
{
	struct fake_fn *f = fake_find(bdf);

	(void)ctx;
	if (!f || offset >= fake.limit || offset + size > PCI_EXT_CONFIG_SIZE)
		return width_mask(size);
	f->reads++;
	return fake_get(f, offset, size);
}

static void fake_write(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size, uint32_t value)
{
	struct fake_fn *f = fake_find(bdf);

	(void)ctx;
	if (fake.log_count < FAKE_LOG)
		fake.log[fake.log_count++] = (struct fake_write){ bdf, offset, size, value };
	if (!f || offset >= fake.limit || offset + size > PCI_EXT_CONFIG_SIZE)
		return;
	for (uint32_t i = 0; i < size; i++) {
		uint8_t b = (uint8_t)(value >> (8 * i)), m = f->wmask[offset + i];

		f->cfg[offset + i] = (uint8_t)((f->cfg[offset + i] & ~m) | (b & m));
		f->cfg[offset + i] &= (uint8_t)~(b & f->w1c[offset + i]);
	}
}

const struct pci_cfg_ops fake_ops = { .read = fake_read, .write = fake_write };

uint32_t fake_writes_at(uint32_t bdf, uint32_t off)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < fake.log_count; i++)
		if (fake.log[i].bdf == bdf && fake.log[i].offset <= off &&
		    off < fake.log[i].offset + fake.log[i].size)
			n++;
	return n;
}

void fake_log_clear(void)
{
	fake.log_count = 0;
	fake.mmio_writes = 0;
}

uint64_t fake_mmio_read(void *ctx, uint64_t hpa, uint8_t size)
{
	uint64_t v = 0;

	(void)ctx;
	if (hpa < fake.mmio_base || hpa - fake.mmio_base + size > FAKE_MMIO_SIZE) {
		fake.mmio_bad++;
		return ~0ull;
	}
	memcpy(&v, &fake.mmio[hpa - fake.mmio_base], size);
	return v;
}

void fake_mmio_write(void *ctx, uint64_t hpa, uint8_t size, uint64_t value)
{
	(void)ctx;
	if (hpa < fake.mmio_base || hpa - fake.mmio_base + size > FAKE_MMIO_SIZE) {
		fake.mmio_bad++;
		return;
	}
	if (fake.mmio_writes < FAKE_LOG) {
		fake.mmio_log[fake.mmio_writes].hpa = hpa;
		fake.mmio_log[fake.mmio_writes].value = value;
	}
	fake.mmio_writes++;
	memcpy(&fake.mmio[hpa - fake.mmio_base], &value, size);
}
