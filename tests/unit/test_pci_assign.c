// SPDX-License-Identifier: MIT
/*
 * The filter of an assigned PCI function (hv/core/pci_assign.c) over a
 * fake function (tests/unit/fake_pci.c) that behaves as hardware does:
 * BARs that size, read-only bits, write-one-to-clear status bits, an
 * MSI-X table in memory. The sequences are Linux's (BAR sizing with decode
 * off, pci_write_msi_msg(), __pci_write_msi_msg() for MSI-X) and a
 * hostile guest's. What is checked: what the guest reads, and what reached
 * the physical function.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fake_pci.h"
#include "hv/core/pci_assign.h"

#define BDF		PCI_BDF(0, 3, 0)
#define BAR0_HOST	0xfeb80000ull	/* 128 KiB, 32-bit */
#define BAR1_PORT	0xc040u		/* 64 ports */
#define BAR2_HOST	0xfe000000ull	/* 16 KiB, 64-bit prefetchable: the MSI-X table's */
#define BAR4_HOST	0xfebd1000ull	/* 256 bytes: under a page */
#define PM		0x40
#define MSI		0x50
#define EXP		0x70
#define MSIX		0xb0
#define VNDR		0xc0
#define TABLE_OFF	0x2000u
#define PBA_OFF		0x3000u
#define ENTRIES		8

static struct irq_cpus cpus;
static struct irq_vector_set tempo_vectors;
static struct pci_range forbidden[] = {
	{ 0, 128ull << 20 },			/* the partition's RAM */
	{ 0xfee00000, 0x1000 },			/* its LAPIC page */
	{ 0xfec00000, 0x1000 },			/* its IOAPIC */
	{ 0xfd000000, 0x100000 },		/* another device's BAR */
};
static struct pci_assign_env env;
static struct pci_assign_fn fn;
static struct pci_assign_msix_entry table[ENTRIES];
static struct pci_assign_desc desc;

/* the GSI the function's INTx reaches: the line the guest reads first */
#define INTX_GSI	9
static struct pci_assign_event ev;
static struct fake_fn *dev;

static void build_device(void)
{
	fake_reset(PCI_EXT_CONFIG_SIZE);
	dev = fake_add(BDF, 0x8086, 0x100e, 0x020000, 0);
	fake_bar_mem(dev, 0, BAR0_HOST, 0x20000, false, false);
	fake_bar_io(dev, 1, BAR1_PORT, 0x40);
	fake_bar_mem(dev, 2, BAR2_HOST, 0x4000, true, true);
	fake_bar_mem(dev, 4, BAR4_HOST, 0x100, false, false);
	fake_set(dev, PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER,
		 0x0547);
	fake_set(dev, PCI_INTERRUPT_PIN, 1, 1, 0);
	/* power management: PMCSR writable */
	fake_cap(dev, PM, PCI_CAP_ID_PM);
	fake_set(dev, PM + 2, 2, 0x0003, 0);
	fake_set(dev, PM + PCI_PM_CTRL, 2, 0, 0x0103);
	/* MSI: 64-bit, per-vector masking, 4 vectors */
	fake_cap(dev, MSI, PCI_CAP_ID_MSI);
	fake_set(dev, MSI + PCI_MSI_FLAGS, 2,
		 PCI_MSI_FLAGS_64BIT | PCI_MSI_FLAGS_MASKBIT | 2 << PCI_MSI_FLAGS_QMASK_SHIFT,
		 PCI_MSI_FLAGS_ENABLE | PCI_MSI_FLAGS_QSIZE);
	fake_set(dev, MSI + PCI_MSI_ADDRESS_LO, 4, 0, 0xfffffffc);
	fake_set(dev, MSI + PCI_MSI_ADDRESS_HI, 4, 0, 0xffffffff);
	fake_set(dev, MSI + PCI_MSI_DATA_64, 2, 0, 0xffff);
	fake_set(dev, MSI + PCI_MSI_MASK_64, 4, 0, 0xf);
	fake_set(dev, MSI + PCI_MSI_PENDING_64, 4, 0x5, 0);
	/* PCI Express: device control (FLR), status, link control */
	fake_cap(dev, EXP, PCI_CAP_ID_EXP);
	fake_set(dev, EXP + PCI_EXP_DEVCTL, 2, 0x2810, 0xffff);
	fake_set(dev, EXP + PCI_EXP_LNKCTL, 2, 0x0040, 0xffff);
	/* MSI-X: 8 entries at BAR2 + 0x2000, pending bits at BAR2 + 0x3000 */
	fake_cap(dev, MSIX, PCI_CAP_ID_MSIX);
	fake_set(dev, MSIX + PCI_MSIX_FLAGS, 2, ENTRIES - 1,
		 PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	fake_set(dev, MSIX + PCI_MSIX_TABLE, 4, TABLE_OFF | 2, 0);
	fake_set(dev, MSIX + PCI_MSIX_PBA, 4, PBA_OFF | 2, 0);
	fake_cap(dev, VNDR, PCI_CAP_ID_VNDR);
	fake_set(dev, VNDR + 4, 4, 0x12345678, 0xffffffff);
	/* the table as firmware left it: unmasked garbage */
	for (uint32_t i = 0; i < ENTRIES; i++)
		fake_mmio_write(NULL, BAR2_HOST + TABLE_OFF + 16 * i + 12, 4, 0);
	fake_mmio_write(NULL, BAR2_HOST + PBA_OFF, 8, 0x81);
}

static void build_desc(void)
{
	memset(&desc, 0, sizeof(desc));
	desc.bdf = BDF;
	desc.command = PCI_COMMAND_IO | PCI_COMMAND_MEMORY;
	desc.interrupt_line = INTX_GSI;
	desc.bar[0] = (struct pci_assign_bar_desc){ PCI_ASSIGN_BAR_MEM32, false, 0x20000,
						    BAR0_HOST, BAR0_HOST };
	desc.bar[1] = (struct pci_assign_bar_desc){ PCI_ASSIGN_BAR_IO, false, 0x40, BAR1_PORT,
						    BAR1_PORT };
	desc.bar[2] = (struct pci_assign_bar_desc){ PCI_ASSIGN_BAR_MEM64, true, 0x4000,
						    BAR2_HOST, BAR2_HOST };
	desc.bar[4] = (struct pci_assign_bar_desc){ PCI_ASSIGN_BAR_MEM32, false, 0x100,
						    BAR4_HOST, BAR4_HOST };
}

static int setup(void **state)
{
	char err[128];

	(void)state;
	build_device();
	build_desc();
	memset(&cpus, 0, sizeof(cpus));
	cpus.count = 2;
	cpus.apic_id[0] = 2;
	cpus.apic_id[1] = 3;
	memset(&tempo_vectors, 0, sizeof(tempo_vectors));
	for (unsigned int v = 0xec; v <= 0xef; v++)
		irq_vector_add(&tempo_vectors, (uint8_t)v);
	memset(&env, 0, sizeof(env));
	env.cfg = &fake_ops;
	env.mmio_read = fake_mmio_read;
	env.mmio_write = fake_mmio_write;
	env.cpus = &cpus;
	env.vectors = &tempo_vectors;
	env.forbidden = forbidden;
	env.forbidden_count = sizeof(forbidden) / sizeof(forbidden[0]);
	assert_true(pci_assign_init(&fn, &desc, &env, table, ENTRIES, err, sizeof(err)));
	fake_log_clear();
	return 0;
}

static uint32_t rd(uint32_t off, uint8_t size)
{
	return pci_assign_cfg_read(&fn, off, size);
}

static uint32_t wr(uint32_t off, uint8_t size, uint32_t v)
{
	pci_assign_cfg_write(&fn, off, size, v, &ev);
	return ev.refused;
}

static uint32_t phys(uint32_t off, uint8_t size)
{
	return fake_get(dev, off, size);
}

static uint32_t mmio32(uint64_t hpa)
{
	return (uint32_t)fake_mmio_read(NULL, hpa, 4);
}

#define REFUSED(r)	(1u << PCI_ASSIGN_REFUSED_##r)

/* ---- taking the function ---- */

static void test_init_quiets(void **state)
{
	(void)state;
	assert_int_equal(fn.msi_cap, MSI);
	assert_int_equal(fn.msix_cap, MSIX);
	assert_int_equal(fn.pm_cap, PM);
	assert_int_equal(fn.exp_cap, EXP);
	assert_int_equal(fn.msix_count, ENTRIES);
	assert_int_equal(fn.msix_bar, 2);
	/* bus master off, MSI and MSI-X off, every entry masked */
	assert_int_equal(phys(PCI_COMMAND, 2), PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	assert_int_equal(phys(MSI + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE, 0);
	assert_int_equal(phys(MSIX + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_ENABLE, 0);
	for (uint32_t i = 0; i < ENTRIES; i++)
		assert_int_equal(mmio32(BAR2_HOST + TABLE_OFF + 16 * i + 12), 1);
	/* the guest sees its entries masked at reset */
	for (uint32_t i = 0; i < ENTRIES; i++)
		assert_int_equal(pci_assign_bar_read(&fn, 2, TABLE_OFF + 16 * i + 12, 4), 1);
}

static void test_init_refused(void **state)
{
	struct pci_assign_desc d;
	char err[128];

	(void)state;
	/* a bridge */
	fake_set(dev, PCI_HEADER_TYPE, 1, PCI_HEADER_TYPE_BRIDGE, 0);
	assert_false(pci_assign_init(&fn, &desc, &env, table, ENTRIES, err, sizeof(err)));
	assert_non_null(strstr(err, "header type 1"));
	fake_set(dev, PCI_HEADER_TYPE, 1, 0, 0);
	/* nothing there */
	d = desc;
	d.bdf = PCI_BDF(0, 9, 0);
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	assert_non_null(strstr(err, "no function"));
	/* a table larger than the room given, or no room */
	assert_false(pci_assign_init(&fn, &desc, &env, table, ENTRIES - 1, err, sizeof(err)));
	assert_non_null(strstr(err, "8 entries, room for 7"));
	assert_false(pci_assign_init(&fn, &desc, &env, NULL, 0, err, sizeof(err)));
	/* a table in an I/O BAR, or past its BAR */
	fake_set(dev, MSIX + PCI_MSIX_TABLE, 4, 1, 0);
	assert_false(pci_assign_init(&fn, &desc, &env, table, ENTRIES, err, sizeof(err)));
	assert_non_null(strstr(err, "not inside a memory BAR"));
	fake_set(dev, MSIX + PCI_MSIX_TABLE, 4, 0x3f90 | 2, 0);
	assert_false(pci_assign_init(&fn, &desc, &env, table, ENTRIES, err, sizeof(err)));
	fake_set(dev, MSIX + PCI_MSIX_TABLE, 4, 7, 0);
	assert_false(pci_assign_init(&fn, &desc, &env, table, ENTRIES, err, sizeof(err)));
	fake_set(dev, MSIX + PCI_MSIX_TABLE, 4, TABLE_OFF | 2, 0);
	/* descriptions that are no BARs */
	d = desc;
	d.bar[0].size = 0x30000;
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	assert_non_null(strstr(err, "BAR0"));
	d = desc;
	d.bar[0].guest = 0x1000;
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	d = desc;
	d.bar[1].guest = 0x3f8;
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	d = desc;
	d.bar[1].size = 0x1000;
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	d = desc;
	d.bar[3].kind = PCI_ASSIGN_BAR_MEM32;
	d.bar[3].size = 0x1000;
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	assert_non_null(strstr(err, "upper half"));
	d = desc;
	d.bar[5] = d.bar[2];
	d.bar[2].kind = PCI_ASSIGN_BAR_NONE;
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	d = desc;
	d.bar[0].host = 0x100000000ull;
	d.bar[0].guest = 0x100000000ull;
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	d = desc;
	d.bar[0].kind = (enum pci_assign_bar_kind)9;
	assert_false(pci_assign_init(&fn, &d, &env, table, ENTRIES, err, sizeof(err)));
	/*
	 * MSI enabled by firmware and stuck on (its enable bit read-only, as a
	 * garbage or hostile device may have it; found by fuzz_pci_assign): its
	 * message would stay whatever was left there.
	 */
	fake_set(dev, MSI + PCI_MSI_FLAGS, 2, PCI_MSI_FLAGS_ENABLE, 0);
	assert_false(pci_assign_init(&fn, &desc, &env, table, ENTRIES, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot be quieted"));
}

/* ---- reads ---- */

static void test_reads_pass(void **state)
{
	(void)state;
	assert_int_equal(rd(PCI_VENDOR_ID, 4), 0x100e8086);
	assert_int_equal(rd(PCI_CLASS_DEVICE, 2), 0x0200);
	assert_int_equal(rd(PCI_HEADER_TYPE, 1), 0);
	assert_int_equal(rd(PCI_INTERRUPT_PIN, 1), 1);
	assert_int_equal(rd(PCI_CAPABILITY_LIST, 1), PM);
	assert_int_equal(rd(VNDR + 4, 4), 0x12345678);
	assert_int_equal(rd(MSI + PCI_MSI_PENDING_64, 4), 5);
	fake_set(dev, 0x100, 4, 0x00010001, 0);	/* an extended capability */
	assert_int_equal(rd(0x100, 4), 0x00010001);
	/* malformed accesses */
	assert_int_equal(rd(0x02, 4), 0xffffffff);
	assert_int_equal(rd(0x03, 2), 0xffff);
	assert_int_equal(rd(0x00, 3), 0xffffff);
	assert_int_equal(rd(0x1000, 4), 0xffffffff);
	assert_int_equal(rd(0xffffffff, 1), 0xff);
	fake_log_clear();
	wr(0x02, 4, 0);
	wr(0x1000, 4, 0);
	wr(0x04, 3, 0);
	assert_int_equal(fake.log_count, 0);
}

/* ---- BARs ---- */

static void test_bar_sizing(void **state)
{
	static const uint32_t orig[6] = {
		BAR0_HOST, BAR1_PORT | 1, (uint32_t)BAR2_HOST | 0xc, 0, BAR4_HOST, 0
	};
	static const uint32_t size_mask[6] = {
		0xfffe0000, 0xffffffc1, 0xffffc00c, 0xffffffff, 0xffffff00, 0
	};

	(void)state;
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(rd(PCI_BAR0 + 4 * i, 4), orig[i]);
	/* Linux: decode off, all ones, read, restore, decode on */
	wr(PCI_COMMAND, 2, 0);
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(wr(PCI_BAR0 + 4 * i, 4, 0xffffffff), 0);
		assert_int_equal(rd(PCI_BAR0 + 4 * i, 4), size_mask[i]);
		assert_int_equal(wr(PCI_BAR0 + 4 * i, 4, orig[i]), 0);
		assert_int_equal(rd(PCI_BAR0 + 4 * i, 4), orig[i]);
	}
	/* the physical BARs were never written */
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(fake_writes_at(BDF, PCI_BAR0 + 4 * i), 0);
	assert_int_equal(phys(PCI_BAR0, 4), BAR0_HOST);
	wr(PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	assert_true(pci_assign_window(&fn, 0).live);
	assert_true(pci_assign_window(&fn, 1).live);
	assert_true(pci_assign_window(&fn, 2).live);
	assert_false(pci_assign_window(&fn, 3).live);
	assert_false(pci_assign_window(&fn, 5).live);
}

/* Sizing with decode on: the window goes away while it reads as a probe. */
static void test_bar_probe_with_decode_on(void **state)
{
	(void)state;
	wr(PCI_BAR0, 4, 0xffffffff);
	assert_int_equal(ev.changed, PCI_ASSIGN_EV_BARS);
	assert_int_equal(ev.bars_changed, 1);
	assert_true(ev.was[0].live);
	assert_false(ev.now[0].live);
	wr(PCI_BAR0, 4, BAR0_HOST);
	assert_int_equal(ev.bars_changed, 1);
	assert_true(ev.now[0].live);
	assert_int_equal(ev.now[0].gpa, BAR0_HOST);
	assert_int_equal(ev.now[0].hpa, BAR0_HOST);
	assert_int_equal(ev.now[0].size, 0x20000);
	assert_false(ev.now[0].trap_all);
}

static void test_bar_move(void **state)
{
	struct pci_assign_window w;

	(void)state;
	/* with decode on, straight to a free place */
	assert_int_equal(wr(PCI_BAR0, 4, 0xc0000000), 0);
	assert_int_equal(ev.bars_changed, 1);
	assert_int_equal(ev.was[0].gpa, BAR0_HOST);
	w = pci_assign_window(&fn, 0);
	assert_true(w.live);
	assert_int_equal(w.gpa, 0xc0000000);
	assert_int_equal(w.hpa, BAR0_HOST);
	assert_int_equal(rd(PCI_BAR0, 4), 0xc0000000);
	assert_int_equal(phys(PCI_BAR0, 4), BAR0_HOST);
	/* the low bits are the size's: an unaligned address is cut */
	wr(PCI_BAR0, 4, 0xc0011234);
	assert_int_equal(rd(PCI_BAR0, 4), 0xc0000000);
	/* a 64-bit BAR moved above 4 GiB with decode off, half by half */
	wr(PCI_COMMAND, 2, PCI_COMMAND_IO);
	wr(PCI_BAR2, 4, 0x00000000);
	wr(PCI_BAR3, 4, 0x00000008);
	assert_int_equal(ev.changed & PCI_ASSIGN_EV_BARS, 0);
	wr(PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	assert_int_equal(ev.refused, 0);
	assert_int_equal(ev.bars_changed, 0x15);	/* the memory BARs back on */
	w = pci_assign_window(&fn, 2);
	assert_true(w.live);
	assert_int_equal(w.gpa, 0x800000000ull);
	assert_int_equal(w.hpa, BAR2_HOST);
}

static void test_bar_move_refused(void **state)
{
	static const uint32_t bad[] = {
		0x04000000,	/* RAM */
		0x00000000 + 0x20000,	/* RAM, low */
		0xfee00000,	/* the LAPIC page */
		0xfec00000,	/* the IOAPIC */
		0xfd0e0000,	/* another device's BAR */
		0xfe000000,	/* this function's BAR2 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(wr(PCI_BAR0, 4, bad[i]), REFUSED(BAR_FORBIDDEN));
		assert_int_equal(rd(PCI_BAR0, 4), BAR0_HOST);
		assert_int_equal(ev.bars_changed, 0);
		assert_true(pci_assign_window(&fn, 0).live);
	}
	/* a 64-bit BAR's upper half onto RAM above 4 GiB... not forbidden here */
	assert_int_equal(wr(PCI_BAR3, 4, 1), 0);
	assert_int_equal(pci_assign_window(&fn, 2).gpa, 0x1fe000000ull);
	/* ...but back down onto BAR0 is */
	wr(PCI_BAR2, 4, (uint32_t)BAR0_HOST);
	assert_int_equal(wr(PCI_BAR3, 4, 0), REFUSED(BAR_FORBIDDEN));
	assert_int_equal(pci_assign_window(&fn, 2).gpa, 0x1feb80000ull);
}

/* Moved with decode off onto a forbidden range: decode on puts it back. */
static void test_bar_move_refused_at_decode_on(void **state)
{
	(void)state;
	wr(PCI_BAR0, 4, 0xc0000000);
	wr(PCI_COMMAND, 2, PCI_COMMAND_IO);
	assert_int_equal(wr(PCI_BAR0, 4, 0x04000000), 0);
	assert_int_equal(rd(PCI_BAR0, 4), 0x04000000);
	assert_int_equal(wr(PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY),
			 REFUSED(BAR_FORBIDDEN));
	assert_int_equal(rd(PCI_BAR0, 4), 0xc0000000);
	assert_true(pci_assign_window(&fn, 0).live);
	assert_int_equal(pci_assign_window(&fn, 0).gpa, 0xc0000000);
	/* two BARs of the function onto each other: neither decodes there */
	wr(PCI_COMMAND, 2, PCI_COMMAND_IO);
	wr(PCI_BAR4, 4, 0xc0000000);
	wr(PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	assert_int_equal(ev.refused, REFUSED(BAR_FORBIDDEN));
	assert_int_equal(rd(PCI_BAR4, 4), BAR4_HOST);
}

static void test_bar_io(void **state)
{
	(void)state;
	assert_int_equal(wr(PCI_BAR1, 4, 0x3f8), REFUSED(BAR_IO_MOVE));
	assert_int_equal(rd(PCI_BAR1, 4), BAR1_PORT | 1);
	assert_int_equal(wr(PCI_BAR1, 4, 0), REFUSED(BAR_IO_MOVE));
	assert_int_equal(wr(PCI_BAR1, 4, BAR1_PORT | 1), 0);
	/* 16 bits of ones are an address, 0xffc0, not a probe of the 32-bit register */
	assert_int_equal(wr(PCI_BAR1, 2, 0xffff), REFUSED(BAR_IO_MOVE));
	assert_int_equal(wr(PCI_BAR1, 4, 0xffffffff), 0);
	assert_int_equal(rd(PCI_BAR1, 4), 0xffffffc1);
	assert_false(pci_assign_window(&fn, 1).live);
	wr(PCI_BAR1, 4, BAR1_PORT);
	assert_true(pci_assign_window(&fn, 1).live);
	assert_true(pci_assign_window(&fn, 1).io);
	assert_int_equal(pci_assign_window(&fn, 1).gpa, BAR1_PORT);
	wr(PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	assert_false(pci_assign_window(&fn, 1).live);
	assert_int_equal(ev.bars_changed, 2);
}

static void test_bar_sub_page(void **state)
{
	(void)state;
	assert_true(pci_assign_window(&fn, 4).trap_all);
	assert_false(pci_assign_window(&fn, 0).trap_all);
	/* a trapped access passes to the function, inside its 256 bytes only */
	fake.mmio_base = BAR4_HOST & ~0xfffull;
	fake_mmio_write(NULL, BAR4_HOST + 0x10, 4, 0xabcd);
	assert_int_equal(pci_assign_bar_read(&fn, 4, 0x10, 4), 0xabcd);
	pci_assign_bar_write(&fn, 4, 0x14, 2, 0x77, &ev);
	assert_int_equal(fake_mmio_read(NULL, BAR4_HOST + 0x14, 2), 0x77);
	assert_int_equal(pci_assign_bar_read(&fn, 4, 0x100, 4), 0xffffffff);
	assert_int_equal(pci_assign_bar_read(&fn, 4, 0xfc, 8), ~0ull);
	assert_int_equal(pci_assign_bar_read(&fn, 4, 0x11, 4), 0xffffffff);
	assert_int_equal(pci_assign_bar_read(&fn, 1, 0, 4), 0xffffffff);	/* I/O */
	assert_int_equal(pci_assign_bar_read(&fn, 3, 0, 4), 0xffffffff);	/* upper half */
	assert_int_equal(pci_assign_bar_read(&fn, 6, 0, 4), 0xffffffff);
	assert_int_equal(pci_assign_bar_read(&fn, 4, 0, 3), 0xffffff);
}

static void test_rom_and_read_only(void **state)
{
	(void)state;
	fake_set(dev, PCI_ROM_ADDRESS, 4, 0xfeb00001, 0xfffff801);
	assert_int_equal(rd(PCI_ROM_ADDRESS, 4), 0);
	assert_int_equal(wr(PCI_ROM_ADDRESS, 4, 0xffffffff), REFUSED(WRITE));
	assert_int_equal(rd(PCI_ROM_ADDRESS, 4), 0);
	assert_int_equal(wr(PCI_VENDOR_ID, 4, 0), REFUSED(WRITE));
	assert_int_equal(wr(PCI_SUBSYSTEM_VENDOR_ID, 4, 0), REFUSED(WRITE));
	assert_int_equal(wr(VNDR + 4, 4, 0), REFUSED(WRITE));
	assert_int_equal(wr(0x100, 4, 0), REFUSED(WRITE));
	assert_int_equal(wr(PCI_BIST, 1, 0x40), REFUSED(WRITE));
	assert_int_equal(fake.log_count, 0);
	assert_int_equal(phys(VNDR + 4, 4), 0x12345678);
	/* cache line and latency timer pass */
	assert_int_equal(wr(PCI_CACHE_LINE_SIZE, 2, 0x4010), 0);
	assert_int_equal(phys(PCI_CACHE_LINE_SIZE, 2), 0x4010);
	/* the interrupt line reads the INTx GSI first (not the physical byte), then the guest's own */
	fake_set(dev, PCI_INTERRUPT_LINE, 1, 0x2a, 0xff);
	assert_int_equal(rd(PCI_INTERRUPT_LINE, 1), INTX_GSI);
	assert_int_equal(wr(PCI_INTERRUPT_LINE, 1, 11), 0);
	assert_int_equal(rd(PCI_INTERRUPT_LINE, 2), 0x010b);
	assert_int_equal(phys(PCI_INTERRUPT_LINE, 1), 0x2a);
	assert_int_equal(wr(PCI_INTERRUPT_LINE, 4, 0xffffff0a), REFUSED(WRITE));
	assert_int_equal(rd(PCI_INTERRUPT_LINE, 4), 0x0000010a);
}

/* ---- command and status ---- */

static void test_bus_master(void **state)
{
	(void)state;
	assert_int_equal(wr(PCI_COMMAND, 2, 0x0007), REFUSED(BUS_MASTER));
	assert_int_equal(phys(PCI_COMMAND, 2), 0x0003);
	assert_int_equal(rd(PCI_COMMAND, 2), 0x0003);	/* reads as the function has it */
	env.dma_confined = true;
	assert_int_equal(wr(PCI_COMMAND, 2, 0x0007), 0);
	assert_int_equal(phys(PCI_COMMAND, 2), 0x0007);
	/* only the guest's bits pass */
	assert_int_equal(wr(PCI_COMMAND, 2, 0xffff), 0);
	assert_int_equal(phys(PCI_COMMAND, 2), 0x0547);
}

/* The command register's 16 bits never write the status register's. */
static void test_status_rw1c(void **state)
{
	(void)state;
	fake_set(dev, PCI_STATUS, 2, 0x2000 | PCI_STATUS_CAP_LIST, 0);	/* a master abort */
	wr(PCI_COMMAND, 2, 0x0003);
	wr(PCI_COMMAND, 1, 0x03);
	assert_int_equal(phys(PCI_STATUS, 2), 0x2010);
	assert_int_equal(fake_writes_at(BDF, PCI_STATUS), 0);
	/* a dword write with the bit set clears it, and only it */
	wr(PCI_COMMAND, 4, 0x20000003);
	assert_int_equal(phys(PCI_STATUS, 2), 0x0010);
	assert_int_equal(phys(PCI_COMMAND, 2), 0x0003);
}

/* Decode on writes the host addresses back first: a reset may have cleared them. */
static void test_decode_on_restores_bars(void **state)
{
	uint32_t i, bar_write = 0, cmd_write = 0;

	(void)state;
	wr(PCI_COMMAND, 2, 0);
	fake_set(dev, PCI_BAR0, 4, 0, 0xfffe0000);	/* as after a function-level reset */
	fake_set(dev, PCI_BAR2, 4, 0xc, 0xffffc000);
	fake_log_clear();
	wr(PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	assert_int_equal(phys(PCI_BAR0, 4), BAR0_HOST);
	assert_int_equal(phys(PCI_BAR2, 4), (uint32_t)BAR2_HOST | 0xc);
	for (i = 0; i < fake.log_count; i++) {
		if (fake.log[i].offset == PCI_BAR0 && !bar_write)
			bar_write = i + 1;
		if (fake.log[i].offset == PCI_COMMAND && !cmd_write)
			cmd_write = i + 1;
	}
	assert_true(bar_write && cmd_write && bar_write < cmd_write);
}

/* ---- MSI ---- */

/* Linux's pci_write_msi_msg() then the enable. */
static void msi_program(uint32_t lo, uint32_t hi, uint16_t data, uint16_t control)
{
	wr(MSI + PCI_MSI_ADDRESS_LO, 4, lo);
	wr(MSI + PCI_MSI_ADDRESS_HI, 4, hi);
	wr(MSI + PCI_MSI_DATA_64, 2, data);
	wr(MSI + PCI_MSI_FLAGS, 2, control);
}

static void test_msi(void **state)
{
	(void)state;
	/* lowest priority to CPU 3: physical is fixed to 3 */
	msi_program(0xfee03000, 0, 0x0141, PCI_MSI_FLAGS_ENABLE);
	assert_int_equal(ev.refused, 0);
	assert_true(ev.changed & PCI_ASSIGN_EV_MSI);
	assert_int_equal(pci_assign_msi_verdict(&fn), IRQ_OK);
	assert_int_equal(phys(MSI + PCI_MSI_ADDRESS_LO, 4), 0xfee03000);
	assert_int_equal(phys(MSI + PCI_MSI_ADDRESS_HI, 4), 0);
	assert_int_equal(phys(MSI + PCI_MSI_DATA_64, 2), 0x0041);
	assert_int_equal(phys(MSI + PCI_MSI_FLAGS, 2) & 0x71, PCI_MSI_FLAGS_ENABLE);
	/* the guest reads its own message back */
	assert_int_equal(rd(MSI + PCI_MSI_DATA_64, 2), 0x0141);
	assert_int_equal(rd(MSI + PCI_MSI_ADDRESS_LO, 4), 0xfee03000);
	assert_int_equal(rd(MSI, 4), (uint32_t)(PCI_MSI_FLAGS_64BIT | PCI_MSI_FLAGS_MASKBIT |
						 2 << 1 | PCI_MSI_FLAGS_ENABLE) << 16 |
					     (EXP << 8) | PCI_CAP_ID_MSI);
	/* per-vector masks pass */
	wr(MSI + PCI_MSI_MASK_64, 4, 0x1);
	assert_int_equal(phys(MSI + PCI_MSI_MASK_64, 4), 0x1);
	assert_int_equal(rd(MSI + PCI_MSI_MASK_64, 4), 0x1);
	/* disable */
	wr(MSI + PCI_MSI_FLAGS, 2, 0);
	assert_int_equal(phys(MSI + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE, 0);
}

/* A new message while enabled: the function is never left with half of it enabled. */
static void test_msi_rewrite_order(void **state)
{
	uint32_t disable = 0, addr = 0, enable = 0;

	(void)state;
	msi_program(0xfee02000, 0, 0x41, PCI_MSI_FLAGS_ENABLE);
	fake_log_clear();
	wr(MSI + PCI_MSI_ADDRESS_LO, 4, 0xfee03000);
	for (uint32_t i = 0; i < fake.log_count; i++) {
		if (fake.log[i].offset == MSI + PCI_MSI_FLAGS && !(fake.log[i].value & 1) &&
		    !disable)
			disable = i + 1;
		if (fake.log[i].offset == MSI + PCI_MSI_ADDRESS_LO)
			addr = i + 1;
		if (fake.log[i].offset == MSI + PCI_MSI_FLAGS && (fake.log[i].value & 1))
			enable = i + 1;
	}
	assert_true(disable && addr && enable && disable < addr && addr < enable);
	assert_int_equal(phys(MSI + PCI_MSI_ADDRESS_LO, 4), 0xfee03000);
	assert_true(phys(MSI + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE);
	/* rewriting the same value writes nothing */
	fake_log_clear();
	wr(MSI + PCI_MSI_ADDRESS_LO, 4, 0xfee03000);
	assert_int_equal(fake.log_count, 0);
}

static void test_msi_hostile(void **state)
{
	static const struct {
		uint32_t lo, hi;
		uint16_t data;
		enum irq_verdict why;
	} bad[] = {
		{ 0xfee00000, 0, 0x41, IRQ_DEST_NOT_OURS },	/* Tempo's CPU 0 */
		{ 0xfee01000, 0, 0x41, IRQ_DEST_NOT_OURS },	/* someone else's */
		{ 0xfeeff000, 0, 0x41, IRQ_DEST_SEVERAL },	/* broadcast, fixed */
		{ 0xfee02000, 0, 0xee, IRQ_VECTOR_TEMPO },
		{ 0xfee02000, 0, 0x05, IRQ_VECTOR_RESERVED },
		{ 0xfee02000, 0, 0x441, IRQ_DELIVERY_REFUSED },	/* NMI */
		{ 0xfee02000, 0, 0x741, IRQ_DELIVERY_REFUSED },	/* ExtINT */
		{ 0xfee02000, 1, 0x41, IRQ_MSI_ADDRESS },	/* above 4 GiB: a DMA write */
		{ 0x04000000, 0, 0x41, IRQ_MSI_ADDRESS },	/* into RAM */
		{ 0xfee02ff0, 0, 0x41, IRQ_MSI_ADDRESS },	/* extended destination ID */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msi_program(0xfee02000, 0, 0x41, PCI_MSI_FLAGS_ENABLE);
		assert_true(phys(MSI + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE);
		msi_program(bad[i].lo, bad[i].hi, bad[i].data, PCI_MSI_FLAGS_ENABLE);
		assert_int_equal(ev.refused, REFUSED(MSI));
		assert_int_equal(pci_assign_msi_verdict(&fn), bad[i].why);
		assert_false(phys(MSI + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE);
		/* what the function holds is still the last good message */
		assert_int_equal(phys(MSI + PCI_MSI_ADDRESS_LO, 4), 0xfee02000);
		assert_int_equal(phys(MSI + PCI_MSI_DATA_64, 2), 0x41);
		/* and the guest reads back its own */
		assert_int_equal(rd(MSI + PCI_MSI_ADDRESS_LO, 4), bad[i].lo & ~3u);
		assert_int_equal(rd(MSI + PCI_MSI_DATA_64, 2), bad[i].data);
		assert_true(rd(MSI + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE);
	}
}

/* Multiple message enable: the whole block of vectors must be the partition's. */
static void test_msi_multiple(void **state)
{
	(void)state;
	msi_program(0xfee02000, 0, 0xea, PCI_MSI_FLAGS_ENABLE | 2 << 4);
	assert_int_equal(pci_assign_msi_verdict(&fn), IRQ_OK);
	assert_int_equal(phys(MSI + PCI_MSI_DATA_64, 2), 0xe8);
	assert_int_equal(phys(MSI + PCI_MSI_FLAGS, 2) & 0x71, 0x21);
	/* 0xec-0xef are Tempo's */
	msi_program(0xfee02000, 0, 0xec, PCI_MSI_FLAGS_ENABLE | 2 << 4);
	assert_int_equal(pci_assign_msi_verdict(&fn), IRQ_VECTOR_TEMPO);
	msi_program(0xfee02000, 0, 0xe9, PCI_MSI_FLAGS_ENABLE | 3 << 4); /* 8 asked, 4 given */
	assert_int_equal(rd(MSI + PCI_MSI_FLAGS, 2) & 0x70, 0x20);
	assert_int_equal(pci_assign_msi_verdict(&fn), IRQ_OK);
	msi_program(0xfee02000, 0, 0xe8, PCI_MSI_FLAGS_ENABLE | 7 << 4);
	assert_int_equal(rd(MSI + PCI_MSI_FLAGS, 2) & 0x70, 0x20);
	/* with one vector, 0xeb alone is fine */
	msi_program(0xfee02000, 0, 0xeb, PCI_MSI_FLAGS_ENABLE);
	assert_int_equal(phys(MSI + PCI_MSI_DATA_64, 2), 0xeb);
}

/* ---- MSI-X ---- */

static uint64_t entry(uint32_t i, uint32_t dword)
{
	return TABLE_OFF + 16ull * i + 4 * dword;
}

/* Linux's __pci_write_msi_msg() for MSI-X: the entry masked, the message, unmasked. */
static void msix_program(uint32_t i, uint32_t lo, uint32_t hi, uint32_t data)
{
	pci_assign_bar_write(&fn, 2, entry(i, 3), 4, 1, &ev);
	pci_assign_bar_write(&fn, 2, entry(i, 0), 4, lo, &ev);
	pci_assign_bar_write(&fn, 2, entry(i, 1), 4, hi, &ev);
	pci_assign_bar_write(&fn, 2, entry(i, 2), 4, data, &ev);
	pci_assign_bar_write(&fn, 2, entry(i, 3), 4, 0, &ev);
}

static void test_msix(void **state)
{
	uint32_t bar;
	uint64_t off, len;

	(void)state;
	assert_true(pci_assign_msix_hole(&fn, &bar, &off, &len));
	assert_int_equal(bar, 2);
	assert_int_equal(off, 0x2000);
	assert_int_equal(len, 0x1000);
	wr(MSIX + PCI_MSIX_FLAGS, 2, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	assert_int_equal(phys(MSIX + PCI_MSIX_FLAGS, 2),
			 PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL | (ENTRIES - 1));
	assert_int_equal(rd(MSIX + PCI_MSIX_FLAGS, 2),
			 PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL | (ENTRIES - 1));
	assert_int_equal(rd(MSIX + PCI_MSIX_TABLE, 4), TABLE_OFF | 2);
	msix_program(0, 0xfee03000, 0, 0x0151);
	assert_int_equal(pci_assign_msix_verdict(&fn, 0), IRQ_OK);
	assert_int_equal(mmio32(BAR2_HOST + entry(0, 0)), 0xfee03000);
	assert_int_equal(mmio32(BAR2_HOST + entry(0, 1)), 0);
	assert_int_equal(mmio32(BAR2_HOST + entry(0, 2)), 0x51);
	assert_int_equal(mmio32(BAR2_HOST + entry(0, 3)), 0);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(0, 2), 4), 0x0151);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(0, 2), 8), 0x0151);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(0, 0), 8), 0xfee03000);
	/* a qword write, and a masked entry stays masked physically */
	pci_assign_bar_write(&fn, 2, entry(1, 0), 8, 0xfee02000, &ev);
	pci_assign_bar_write(&fn, 2, entry(1, 2), 8, 0x0000000100000061ull, &ev);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(1, 3), 4), 1);
	assert_int_equal(mmio32(BAR2_HOST + entry(1, 2)), 0x61);
	assert_int_equal(mmio32(BAR2_HOST + entry(1, 3)), 1);
	/* the control's reserved bits read 0 */
	pci_assign_bar_write(&fn, 2, entry(1, 3), 4, 0xfffffffe, &ev);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(1, 3), 4), 0);
	assert_int_equal(mmio32(BAR2_HOST + entry(1, 3)), 0);
	/* the pending bits pass through */
	assert_int_equal(pci_assign_bar_read(&fn, 2, PBA_OFF, 8), 0x81);
	/* accesses the table does not take */
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(0, 1), 8), ~0ull);	/* unaligned */
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(0, 0) + 1, 1), 0xff);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(0, 0), 2), 0xffff);
	fake_log_clear();
	pci_assign_bar_write(&fn, 2, entry(0, 0), 2, 0, &ev);
	pci_assign_bar_write(&fn, 2, 0x4000, 4, 0, &ev);
	assert_int_equal(fake.mmio_writes, 0);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(0, 0), 4), 0xfee03000);
}

/* A new message for an unmasked entry: masked physically while it changes. */
static void test_msix_rewrite_masked(void **state)
{
	(void)state;
	msix_program(2, 0xfee02000, 0, 0x71);
	fake_log_clear();
	pci_assign_bar_write(&fn, 2, entry(2, 0), 4, 0xfee03000, &ev);
	assert_true(ev.changed & PCI_ASSIGN_EV_MSIX);
	assert_int_equal(fake.mmio_writes, 5);
	assert_int_equal(fake.mmio_log[0].hpa, BAR2_HOST + entry(2, 3));
	assert_int_equal(fake.mmio_log[0].value, 1);
	assert_int_equal(fake.mmio_log[1].hpa, BAR2_HOST + entry(2, 0));
	assert_int_equal(fake.mmio_log[1].value, 0xfee03000);
	assert_int_equal(fake.mmio_log[4].hpa, BAR2_HOST + entry(2, 3));
	assert_int_equal(fake.mmio_log[4].value, 0);
}

static void test_msix_hostile(void **state)
{
	(void)state;
	msix_program(3, 0xfee02000, 0, 0x05);
	assert_int_equal(ev.refused, REFUSED(MSIX));
	assert_int_equal(pci_assign_msix_verdict(&fn, 3), IRQ_VECTOR_RESERVED);
	assert_int_equal(mmio32(BAR2_HOST + entry(3, 3)), 1);
	msix_program(3, 0xfee00000, 0, 0x40);
	assert_int_equal(pci_assign_msix_verdict(&fn, 3), IRQ_DEST_NOT_OURS);
	assert_int_equal(mmio32(BAR2_HOST + entry(3, 3)), 1);
	msix_program(3, 0xfee02000, 0, 0xef);
	assert_int_equal(pci_assign_msix_verdict(&fn, 3), IRQ_VECTOR_TEMPO);
	assert_int_equal(mmio32(BAR2_HOST + entry(3, 3)), 1);
	/* good again: delivered */
	msix_program(3, 0xfee02000, 0, 0x40);
	assert_int_equal(pci_assign_msix_verdict(&fn, 3), IRQ_OK);
	assert_int_equal(mmio32(BAR2_HOST + entry(3, 3)), 0);
	/* a bad message in a masked entry is no refusal: the entry is off */
	pci_assign_bar_write(&fn, 2, entry(5, 2), 4, 0x05, &ev);
	assert_int_equal(ev.refused, 0);
	assert_int_equal(pci_assign_msix_verdict(&fn, 5), IRQ_OK);
	pci_assign_bar_write(&fn, 2, entry(5, 3), 4, 0, &ev);
	assert_int_equal(ev.refused, REFUSED(MSIX));
	assert_int_equal(pci_assign_msix_verdict(&fn, 5), IRQ_MSI_ADDRESS);
	assert_int_equal(mmio32(BAR2_HOST + entry(5, 3)), 1);
	assert_int_equal(mmio32(BAR2_HOST + entry(3, 2)), 0x40);
	/* no access reaches past the table's entries into other memory */
	assert_int_equal(fake.mmio_bad, 0);
	assert_int_equal(pci_assign_msix_verdict(&fn, ENTRIES), IRQ_OK);
}

/* A table written while the function decoded nothing reaches it when decode goes on. */
static void test_msix_decode_off(void **state)
{
	(void)state;
	wr(PCI_COMMAND, 2, PCI_COMMAND_IO);
	msix_program(4, 0xfee02000, 0, 0x44);
	/* the fake ignores nothing; pretend those writes were lost */
	memset(&fake.mmio[TABLE_OFF + 16 * 4], 0, 16);
	wr(PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	assert_int_equal(mmio32(BAR2_HOST + entry(4, 0)), 0xfee02000);
	assert_int_equal(mmio32(BAR2_HOST + entry(4, 2)), 0x44);
	assert_int_equal(mmio32(BAR2_HOST + entry(4, 3)), 0);
	assert_int_equal(mmio32(BAR2_HOST + entry(5, 3)), 1);
}

/* ---- the interrupt-remapping hook ---- */

static uint32_t hook_calls;

static uint32_t hook_vectors;

static bool remap(void *ctx, uint32_t bdf, uint32_t index, uint32_t vectors,
		  const struct irq_target *t, uint32_t *lo, uint32_t *hi, uint32_t *data)
{
	(void)ctx;
	hook_calls++;
	hook_vectors = vectors;
	assert_int_equal(bdf, BDF);
	if (index == 6)
		return false;
	*lo = 0xfee00010 | (index == PCI_ASSIGN_MSI_INDEX ? 0x7ff : index) << 5;
	*hi = 0;
	*data = t->vector;
	return true;
}

static void test_remap_hook(void **state)
{
	(void)state;
	env.msi_compose = remap;
	msix_program(5, 0xfee03000, 0, 0x52);
	assert_int_equal(mmio32(BAR2_HOST + entry(5, 0)), 0xfee00010 | 5 << 5);
	msix_program(6, 0xfee03000, 0, 0x53);
	assert_int_equal(pci_assign_msix_verdict(&fn, 6), IRQ_REMAP_REFUSED);
	assert_int_equal(mmio32(BAR2_HOST + entry(6, 3)), 1);
	assert_int_equal(hook_vectors, 1);
	msi_program(0xfee02000, 0, 0x41, PCI_MSI_FLAGS_ENABLE);
	assert_int_equal(phys(MSI + PCI_MSI_ADDRESS_LO, 4), 0xfee00010 | 0x7ff << 5);
	assert_int_equal(hook_vectors, 1);
	/* four vectors (0x44-0x47): the hook is told, so it can write an entry for each */
	msi_program(0xfee02000, 0, 0x44, PCI_MSI_FLAGS_ENABLE | 2 << PCI_MSI_FLAGS_QSIZE_SHIFT);
	assert_int_equal(pci_assign_msi_verdict(&fn), IRQ_OK);
	assert_int_equal(hook_vectors, 4);
	assert_true(hook_calls >= 3);
	/* with remapping, CPUs above APIC id 255 are reachable */
	cpus.apic_id[1] = 0x1234;
	cpus.any_apic_id = true;
	msix_program(7, 0xfeeff000, 0, 0x153); /* lowest priority, broadcast: the first CPU */
	assert_int_equal(pci_assign_msix_verdict(&fn, 7), IRQ_OK);
	env.msi_compose = NULL;
	cpus.apic_id[0] = 0x300;
	msix_program(7, 0xfeeff000, 0, 0x153);
	assert_int_equal(pci_assign_msix_verdict(&fn, 7), IRQ_DEST_WIDE);
}

/* ---- power management, PCI Express ---- */

static void test_pm_and_exp(void **state)
{
	(void)state;
	assert_int_equal(wr(PM + PCI_PM_CTRL, 2, 0x0003), 0);	/* D3hot */
	assert_int_equal(phys(PM + PCI_PM_CTRL, 2), 0x0003);
	assert_int_equal(wr(PM + 2, 2, 0xffff), REFUSED(WRITE));
	assert_int_equal(phys(PM + 2, 2), 0x0003);
	/* device control passes, initiate FLR does not */
	assert_int_equal(wr(EXP + PCI_EXP_DEVCTL, 2, 0x2830), 0);
	assert_int_equal(phys(EXP + PCI_EXP_DEVCTL, 2), 0x2830);
	assert_int_equal(wr(EXP + PCI_EXP_DEVCTL, 2, 0xa830), REFUSED(FLR));
	assert_int_equal(phys(EXP + PCI_EXP_DEVCTL, 2), 0x2830);
	assert_int_equal(wr(EXP + PCI_EXP_DEVCTL + 1, 1, 0x80), REFUSED(FLR));
	assert_int_equal(phys(EXP + PCI_EXP_DEVCTL, 2), 0x0030);
	assert_int_equal(wr(EXP + PCI_EXP_LNKCTL, 2, 0x0043), 0);
	assert_int_equal(phys(EXP + PCI_EXP_LNKCTL, 2), 0x0043);
	assert_int_equal(wr(EXP + PCI_EXP_FLAGS, 2, 0), REFUSED(WRITE));
}

/* ---- stopping and restarting ---- */

static void test_quiesce(void **state)
{
	(void)state;
	env.dma_confined = true;
	wr(PCI_COMMAND, 2, 0x0007);
	msi_program(0xfee02000, 0, 0x41, PCI_MSI_FLAGS_ENABLE);
	wr(MSIX + PCI_MSIX_FLAGS, 2, PCI_MSIX_FLAGS_ENABLE);
	msix_program(0, 0xfee03000, 0, 0x51);
	assert_int_equal(mmio32(BAR2_HOST + entry(0, 3)), 0);
	pci_assign_quiesce(&fn);
	assert_int_equal(phys(PCI_COMMAND, 2) & PCI_COMMAND_MASTER, 0);
	assert_int_equal(phys(MSI + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE, 0);
	assert_int_equal(phys(MSIX + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_ENABLE, 0);
	assert_int_equal(mmio32(BAR2_HOST + entry(0, 3)), 1);
	/* with decode off, the table is reached all the same */
	wr(PCI_COMMAND, 2, 0);
	msix_program(0, 0xfee03000, 0, 0x51);
	fake_set(dev, PCI_BAR2, 4, 0xc, 0xffffc000);	/* a reset cleared the BAR */
	fake.mmio[TABLE_OFF + 12] = 0;
	pci_assign_quiesce(&fn);
	assert_int_equal(mmio32(BAR2_HOST + entry(0, 3)), 1);
	assert_int_equal(phys(PCI_COMMAND, 2) & PCI_COMMAND_MEMORY, 0);
}

static void test_reset(void **state)
{
	(void)state;
	wr(PCI_BAR0, 4, 0xc0000000);
	wr(PCI_INTERRUPT_LINE, 1, 5);
	msi_program(0xfee02000, 0, 0x41, PCI_MSI_FLAGS_ENABLE);
	msix_program(1, 0xfee03000, 0, 0x51);
	wr(PCI_COMMAND, 2, 0);
	pci_assign_reset(&fn, &ev);
	assert_int_equal(rd(PCI_BAR0, 4), BAR0_HOST);
	assert_int_equal(rd(PCI_INTERRUPT_LINE, 1), INTX_GSI);
	assert_int_equal(rd(MSI + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE, 0);
	assert_int_equal(rd(MSI + PCI_MSI_ADDRESS_LO, 4), 0);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(1, 0), 4), 0);
	assert_int_equal(pci_assign_bar_read(&fn, 2, entry(1, 3), 4), 1);
	assert_int_equal(phys(PCI_COMMAND, 2), PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	assert_true(ev.changed & PCI_ASSIGN_EV_BARS);
	assert_true(ev.now[0].live);
	assert_int_equal(ev.now[0].gpa, BAR0_HOST);
	assert_int_equal(mmio32(BAR2_HOST + entry(1, 3)), 1);
}

static void test_names(void **state)
{
	(void)state;
	for (unsigned int r = 0; r < PCI_ASSIGN_REFUSED_COUNT; r++)
		assert_non_null(pci_assign_refusal_name((enum pci_assign_refusal)r));
	assert_string_equal(pci_assign_refusal_name(PCI_ASSIGN_REFUSED_BUS_MASTER), "bus-master");
	assert_string_equal(pci_assign_refusal_name(PCI_ASSIGN_REFUSED_COUNT), "unknown");
}

/* Bus master only when all four hold; each missing one is named, in order. */
static void test_dma_confinement(void **state)
{
	(void)state;
	for (uint32_t m = 0; m < 32; m++) {
		bool units = m & 1, dom = m & 2, te = m & 4, ir = m & 8, alone = m & 16;
		enum pci_dma_confinement c = pci_dma_confinement(units, dom, te, ir, alone);

		assert_int_equal(c == PCI_DMA_CONFINED, m == 31);
		if (!units)
			assert_int_equal(c, PCI_DMA_NO_IOMMU);
		else if (!dom)
			assert_int_equal(c, PCI_DMA_NO_DOMAIN);
		else if (!te)
			assert_int_equal(c, PCI_DMA_NOT_TRANSLATING);
		else if (!ir)
			assert_int_equal(c, PCI_DMA_NO_INTERRUPT_REMAP);
		else if (!alone)
			assert_int_equal(c, PCI_DMA_REQUESTER_SHARED);
		assert_int_equal(strstr(pci_dma_confinement_text(c), "bus master allowed") != NULL,
				 c == PCI_DMA_CONFINED);
	}
	for (int a = 0; a < PCI_DMA_CONFINEMENT_COUNT; a++)
		for (int b = a + 1; b < PCI_DMA_CONFINEMENT_COUNT; b++)
			assert_string_not_equal(pci_dma_confinement_text(a),
						pci_dma_confinement_text(b));
	assert_string_equal(pci_dma_confinement_text(PCI_DMA_CONFINEMENT_COUNT), "unknown");
	assert_string_equal(pci_dma_confinement_text((enum pci_dma_confinement)-1), "unknown");
}

/*
 * Requester ids: a function on a bus where another owner's function is (a
 * switch or multifunction device without ACS, an alias behind a PCIe-to-PCI
 * bridge), or with an IOAPIC's id, is not alone; other buses are.
 */
static void test_requesters_alone(void **state)
{
	const uint16_t mine[] = { PCI_BDF(3, 0, 0), PCI_BDF(3, 0, 1) };
	const uint16_t far[] = { PCI_BDF(4, 0, 0), PCI_BDF(0, 2, 0) };
	const uint16_t sibling[] = { PCI_BDF(4, 0, 0), PCI_BDF(3, 5, 0) };
	const uint16_t multifunction[] = { PCI_BDF(3, 0, 2) };
	const uint16_t ioapic[] = { PCI_BDF(0xf0, 0x1f, 0), PCI_BDF(3, 0, 1) };
	uint16_t culprit = 0;

	(void)state;
	assert_true(pci_requesters_alone(mine, 2, far, 2, ioapic, 1, &culprit));
	assert_true(pci_requesters_alone(mine, 2, NULL, 0, NULL, 0, &culprit));
	assert_false(pci_requesters_alone(mine, 2, sibling, 2, NULL, 0, &culprit));
	assert_int_equal(culprit, PCI_BDF(3, 0, 0));
	assert_false(pci_requesters_alone(mine, 2, multifunction, 1, NULL, 0, &culprit));
	assert_false(pci_requesters_alone(mine, 2, far, 2, ioapic, 2, &culprit));
	assert_int_equal(culprit, PCI_BDF(3, 0, 1));
	/* no functions of its own: nothing to share */
	assert_true(pci_requesters_alone(NULL, 0, sibling, 2, ioapic, 2, &culprit));
}

/* The filter grants bus master exactly when the decision says confined (hv/dev/dma.c). */
static void test_bus_master_follows_confinement(void **state)
{
	(void)state;
	env.dma_confined = pci_dma_confinement(true, true, true, false, true) == PCI_DMA_CONFINED;
	assert_int_equal(wr(PCI_COMMAND, 2, 0x0007), REFUSED(BUS_MASTER));
	assert_int_equal(phys(PCI_COMMAND, 2), 0x0003);
	env.dma_confined = pci_dma_confinement(true, true, true, true, true) == PCI_DMA_CONFINED;
	assert_int_equal(wr(PCI_COMMAND, 2, 0x0007), 0);
	assert_int_equal(phys(PCI_COMMAND, 2), 0x0007);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_init_quiets, setup),
		cmocka_unit_test_setup(test_init_refused, setup),
		cmocka_unit_test_setup(test_reads_pass, setup),
		cmocka_unit_test_setup(test_bar_sizing, setup),
		cmocka_unit_test_setup(test_bar_probe_with_decode_on, setup),
		cmocka_unit_test_setup(test_bar_move, setup),
		cmocka_unit_test_setup(test_bar_move_refused, setup),
		cmocka_unit_test_setup(test_bar_move_refused_at_decode_on, setup),
		cmocka_unit_test_setup(test_bar_io, setup),
		cmocka_unit_test_setup(test_bar_sub_page, setup),
		cmocka_unit_test_setup(test_rom_and_read_only, setup),
		cmocka_unit_test_setup(test_bus_master, setup),
		cmocka_unit_test_setup(test_status_rw1c, setup),
		cmocka_unit_test_setup(test_decode_on_restores_bars, setup),
		cmocka_unit_test_setup(test_msi, setup),
		cmocka_unit_test_setup(test_msi_rewrite_order, setup),
		cmocka_unit_test_setup(test_msi_hostile, setup),
		cmocka_unit_test_setup(test_msi_multiple, setup),
		cmocka_unit_test_setup(test_msix, setup),
		cmocka_unit_test_setup(test_msix_rewrite_masked, setup),
		cmocka_unit_test_setup(test_msix_hostile, setup),
		cmocka_unit_test_setup(test_msix_decode_off, setup),
		cmocka_unit_test_setup(test_remap_hook, setup),
		cmocka_unit_test_setup(test_pm_and_exp, setup),
		cmocka_unit_test_setup(test_quiesce, setup),
		cmocka_unit_test_setup(test_reset, setup),
		cmocka_unit_test_setup(test_names, setup),
		cmocka_unit_test_setup(test_dma_confinement, setup),
		cmocka_unit_test_setup(test_bus_master_follows_confinement, setup),
		cmocka_unit_test_setup(test_requesters_alone, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
