// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the filter of an assigned PCI function
 * (hv/core/pci_assign.c) between a hostile guest and a fake function
 * (tests/unit/fake_pci.c) whose capability area the input may also fill
 * with garbage (the capability walk, hv/lib/pci_cap.c, reads it). After
 * every access it checks what hv/core/pci_assign.h promises, from what
 * reached the "hardware", and traps when a promise fails:
 * - a physical BAR is only ever written with its host address;
 * - bus master is never set without confined DMA; initiate-FLR never
 *   reaches the function; the IDs, ROM BAR, BIST and interrupt line are
 *   never written;
 * - an enabled physical MSI, and an unmasked physical MSI-X entry, carry a
 *   message to one of the partition's CPUs with a vector it may use;
 * - a live memory window is aligned, on its host BAR, and overlaps no
 *   forbidden range and no other live window;
 * - nothing touches memory outside the function's MSI-X BAR.
 *
 * Input: [0] flags (bit 0 DMA confined, bit 1 garbage capabilities, bit 2
 * 32-bit MSI, bit 3 MSI masking, bits 6:4 MSI vectors, bit 7 no MSI-X),
 * [1] MSI-X table size - 1 (3 bits) and offset (bits 7:3, in 256 bytes),
 * then with bit 1: 192 bytes of capability area and 192 of write masks.
 * Then operations, one byte each and its arguments, until the input ends.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/pci_assign.h"
#include "tests/unit/fake_pci.h"

#define CHECK(cond)	do { if (!(cond)) abort(); } while (0)
#define BDF		PCI_BDF(0, 3, 0)
#define BAR0_HOST	0xfeb80000ull
#define BAR1_PORT	0xc040u
#define BAR2_HOST	0xfe000000ull	/* fake.mmio_base: the MSI-X BAR */
#define BAR4_HOST	0xfe004000ull	/* in the fake's MMIO window too */
#define MSI		0x50
#define EXP		0x70
#define MSIX		0xb0
#define PM		0x40
#define ENTRIES_MAX	8

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct input *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && in->left; i++, in->left--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

static const struct pci_range forbidden[] = {
	{ 0, 128ull << 20 },
	{ 0xfee00000, 0x1000 },
	{ 0xfd000000, 0x100000 },
	{ 0x800000000ull, 0x100000000ull },
};
static struct irq_cpus cpus;
static struct irq_vector_set vectors;
static struct pci_assign_env env;
static struct pci_assign_fn fn;
static struct pci_assign_msix_entry table[ENTRIES_MAX];
static struct pci_assign_desc desc;
static struct fake_fn *dev;

static void build(struct input *in, uint8_t flags)
{
	uint8_t msix = (uint8_t)take(in, 1);
	uint16_t msi_flags = (flags & 4 ? 0 : PCI_MSI_FLAGS_64BIT) |
			     (flags & 8 ? PCI_MSI_FLAGS_MASKBIT : 0) |
			     (uint16_t)(((flags >> 4) & 7) % 6 << PCI_MSI_FLAGS_QMASK_SHIFT);

	fake_reset(PCI_EXT_CONFIG_SIZE);
	fake.mmio_base = BAR2_HOST;
	dev = fake_add(BDF, 0x8086, 0x100e, 0x020000, 0);
	fake_bar_mem(dev, 0, BAR0_HOST, 0x20000, false, false);
	fake_bar_io(dev, 1, BAR1_PORT, 0x40);
	fake_bar_mem(dev, 2, BAR2_HOST, 0x4000, true, true);
	fake_bar_mem(dev, 4, BAR4_HOST, 0x100, false, false);
	fake_set(dev, PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY, 0x0547);
	fake_set(dev, PCI_ROM_ADDRESS, 4, 0, 0xfffff801);
	fake_cap(dev, PM, PCI_CAP_ID_PM);
	fake_set(dev, PM + PCI_PM_CTRL, 2, 0, 0x8103);
	fake_cap(dev, MSI, PCI_CAP_ID_MSI);
	fake_set(dev, MSI + PCI_MSI_FLAGS, 2, msi_flags,
		 PCI_MSI_FLAGS_ENABLE | PCI_MSI_FLAGS_QSIZE);
	for (uint32_t off = MSI + 4; off < MSI + 0x18; off += 4)
		fake_set(dev, off, 4, 0, 0xffffffff);
	fake_cap(dev, EXP, PCI_CAP_ID_EXP);
	for (uint32_t off = EXP + 4; off < EXP + 0x3c; off += 4)
		fake_set(dev, off, 4, 0, 0xffffffff);
	if (!(flags & 0x80)) {
		fake_cap(dev, MSIX, PCI_CAP_ID_MSIX);
		fake_set(dev, MSIX + PCI_MSIX_FLAGS, 2, msix & 7,
			 PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
		fake_set(dev, MSIX + PCI_MSIX_TABLE, 4, (uint32_t)(msix >> 3) << 8 | 2, 0);
		fake_set(dev, MSIX + PCI_MSIX_PBA, 4, 0x3800 | 2, 0);
	}
	if (flags & 2) {
		for (uint32_t off = 0x40; off < 0x100; off++)
			dev->cfg[off] = (uint8_t)take(in, 1);
		for (uint32_t off = 0x40; off < 0x100; off++)
			dev->wmask[off] = (uint8_t)take(in, 1);
		dev->cfg[PCI_CAPABILITY_LIST] = (uint8_t)take(in, 1);
	}
	memset(fake.mmio, 0, sizeof(fake.mmio));

	memset(&desc, 0, sizeof(desc));
	desc.bdf = BDF;
	desc.command = PCI_COMMAND_IO | PCI_COMMAND_MEMORY;
	desc.bar[0] = (struct pci_assign_bar_desc){ PCI_ASSIGN_BAR_MEM32, false, 0x20000,
						    BAR0_HOST, BAR0_HOST };
	desc.bar[1] = (struct pci_assign_bar_desc){ PCI_ASSIGN_BAR_IO, false, 0x40, BAR1_PORT,
						    BAR1_PORT };
	desc.bar[2] = (struct pci_assign_bar_desc){ PCI_ASSIGN_BAR_MEM64, true, 0x4000,
						    BAR2_HOST, BAR2_HOST };
	desc.bar[4] = (struct pci_assign_bar_desc){ PCI_ASSIGN_BAR_MEM32, false, 0x100,
						    BAR4_HOST, BAR4_HOST };
	memset(&cpus, 0, sizeof(cpus));
	cpus.count = 2;
	cpus.apic_id[0] = 2;
	cpus.apic_id[1] = 3;
	cpus.logical_id[0] = 1;
	cpus.logical_id[1] = 2;
	memset(&vectors, 0, sizeof(vectors));
	for (unsigned int v = 0xec; v <= 0xef; v++)
		irq_vector_add(&vectors, (uint8_t)v);
	memset(&env, 0, sizeof(env));
	env.cfg = &fake_ops;
	env.mmio_read = fake_mmio_read;
	env.mmio_write = fake_mmio_write;
	env.cpus = &cpus;
	env.vectors = &vectors;
	env.forbidden = forbidden;
	env.forbidden_count = sizeof(forbidden) / sizeof(forbidden[0]);
	env.dma_confined = flags & 1;
}

/* A physical message the hardware would send: to CPU 2 or 3, a vector it may use. */
static void check_message(uint32_t lo, uint32_t hi, uint32_t data)
{
	uint8_t vector = (uint8_t)data, dest = (uint8_t)(lo >> 12);

	CHECK(!hi && (lo & 0xfff00ffcu) == 0xfee00000u);
	CHECK(dest == 2 || dest == 3);
	CHECK(vector >= 16 && (vector < 0xec || vector > 0xef));
	CHECK(!((data >> 8) & 7));	/* fixed */
}

static uint32_t host_dword(uint32_t off)
{
	switch (off) {
	case PCI_BAR0:
		return (uint32_t)BAR0_HOST;
	case PCI_BAR1:
		return BAR1_PORT | 1;
	case PCI_BAR2:
		return (uint32_t)BAR2_HOST | 0xc;
	case PCI_BAR3:
		return (uint32_t)(BAR2_HOST >> 32);
	case PCI_BAR4:
		return (uint32_t)BAR4_HOST;
	}
	return 0xdeadbeef;	/* BAR5: never written */
}

static void check(void)
{
	CHECK(fake.log_count < FAKE_LOG);	/* one access never writes that much */
	for (uint32_t n = 0; n < fake.log_count; n++) {
		const struct fake_write *w = &fake.log[n];

		CHECK(w->bdf == BDF);
		if (w->offset >= PCI_BAR0 && w->offset < PCI_CARDBUS_CIS) {
			CHECK(w->size == 4 && w->value == host_dword(w->offset));
			continue;
		}
		CHECK(w->offset >= PCI_COMMAND && w->offset != PCI_REVISION_ID &&
		      !(w->offset >= PCI_CARDBUS_CIS && w->offset < PCI_STD_HEADER_END));
		CHECK(!(w->offset <= PCI_BIST && w->offset + w->size > PCI_BIST));
		CHECK(w->offset < PCI_CONFIG_SIZE);
		if (w->offset == PCI_COMMAND && !env.dma_confined)
			CHECK(!(w->value & PCI_COMMAND_MASTER));
		if (fn.exp_cap && w->offset <= fn.exp_cap + PCI_EXP_DEVCTL + 1u &&
		    w->offset + w->size > fn.exp_cap + PCI_EXP_DEVCTL + 1u)
			CHECK(!((w->value << 8 * (w->offset - fn.exp_cap - PCI_EXP_DEVCTL)) &
				PCI_EXP_DEVCTL_BCR_FLR));
	}
	if (!env.dma_confined)
		CHECK(!(fake_get(dev, PCI_COMMAND, 2) & PCI_COMMAND_MASTER));
	if (fn.msi_cap && (fake_get(dev, fn.msi_cap + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE)) {
		bool is64 = fn.msi_flags_hw & PCI_MSI_FLAGS_64BIT;

		check_message(fake_get(dev, fn.msi_cap + PCI_MSI_ADDRESS_LO, 4),
			      is64 ? fake_get(dev, fn.msi_cap + PCI_MSI_ADDRESS_HI, 4) : 0,
			      fake_get(dev, fn.msi_cap + fn.msi_data_off, 2));
	}
	for (uint32_t i = 0; i < fn.msix_count; i++) {
		uint64_t e = BAR2_HOST + fn.msix_offset + 16ull * i;

		if (fake_mmio_read(NULL, e + 12, 4) & 1)
			continue;
		check_message((uint32_t)fake_mmio_read(NULL, e, 4),
			      (uint32_t)fake_mmio_read(NULL, e + 4, 4),
			      (uint32_t)fake_mmio_read(NULL, e + 8, 4));
	}
	for (uint32_t i = 0; i < PCI_TYPE0_BARS; i++) {
		struct pci_assign_window w = pci_assign_window(&fn, i);

		if (!w.live)
			continue;
		CHECK(w.hpa == fn.bar[i].host && !(w.gpa & (w.size - 1)));
		if (w.io)
			continue;
		for (size_t k = 0; k < sizeof(forbidden) / sizeof(forbidden[0]); k++)
			CHECK(w.gpa + w.size <= forbidden[k].base ||
			      forbidden[k].base + forbidden[k].size <= w.gpa);
		for (uint32_t j = 0; j < PCI_TYPE0_BARS; j++) {
			struct pci_assign_window o = pci_assign_window(&fn, j);

			if (j != i && o.live && !o.io)
				CHECK(w.gpa + w.size <= o.gpa || o.gpa + o.size <= w.gpa);
		}
	}
	CHECK(!fake.mmio_bad);
	fake_log_clear();
}

static const uint32_t trapped[5] = { 2, 4, 1, 3, 6 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct pci_assign_event ev;
	uint8_t flags = (uint8_t)take(&in, 1);
	char err[128];

	build(&in, flags);
	if (!pci_assign_init(&fn, &desc, &env, table, ENTRIES_MAX, err, sizeof(err)))
		return 0;
	check();
	while (in.left) {
		uint8_t op = (uint8_t)take(&in, 1), width;
		uint32_t off;
		uint64_t value;

		switch (op % 8) {
		case 0:	/* a config write: mostly the registers that matter */
		case 1:
		case 2:
			off = op & 0x80 ? (uint32_t)take(&in, 2) % 0x1100 :
					  (uint32_t)take(&in, 1);
			width = (uint8_t)(1u << (take(&in, 1) % 3));
			pci_assign_cfg_write(&fn, off, width, (uint32_t)take(&in, 4), &ev);
			break;
		case 3:
			off = (uint32_t)take(&in, 2) % 0x1100;
			(void)pci_assign_cfg_read(&fn, off, (uint8_t)(take(&in, 1) % 5));
			break;
		case 4:	/* the MSI-X BAR, mostly the table */
		case 5:
			off = (uint32_t)take(&in, 2) % 0x4200;
			width = (uint8_t)(take(&in, 1) % 9);
			value = take(&in, 8);
			/* BAR0 is real memory outside the fake's window: never trapped here */
			if (op & 0x80)
				(void)pci_assign_bar_read(&fn, trapped[(op >> 4) % 5], off, width);
			else
				pci_assign_bar_write(&fn, op & 0x40 ? 4 : 2, off, width, value,
						     &ev);
			break;
		case 6:
			pci_assign_quiesce(&fn);
			CHECK(!(fake_get(dev, PCI_COMMAND, 2) & PCI_COMMAND_MASTER));
			break;
		case 7:
			pci_assign_reset(&fn, &ev);
			break;
		}
		check();
	}
	return 0;
}
