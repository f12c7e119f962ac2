// SPDX-License-Identifier: MIT
/*
 * The boot's PCI enumeration (drivers/pci.c) over a fake segment
 * (tests/unit/fake_pci.c) shaped like a PC: a host bridge, a
 * multi-function southbridge, a NIC with MSI and MSI-X, a PCI-to-PCI
 * bridge with devices behind it; and over segments no machine has (every
 * function answering, garbage header types) to show the walk is bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "drivers/pci.h"
#include "fake_pci.h"

static struct pci_enum en;
static struct fake_fn *host, *isa, *ide, *nic, *bridge, *behind, *far, *loop;

static int setup(void **state)
{
	(void)state;
	fake_reset(PCI_CONFIG_SIZE);
	host = fake_add(PCI_BDF(0, 0, 0), 0x8086, 0x1237, 0x060000, 0);
	fake_set(host, PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY, 0x0007);
	fake_bar_mem(host, 0, 0xe0000000, 0x10000000, false, false); /* a window it decodes */
	isa = fake_add(PCI_BDF(0, 1, 0), 0x8086, 0x7000, 0x060100, PCI_HEADER_TYPE_MFD);
	ide = fake_add(PCI_BDF(0, 1, 1), 0x8086, 0x7010, 0x010180, 0);
	fake_bar_io(ide, 4, 0xc000, 16);
	fake_set(ide, PCI_COMMAND, 2, PCI_COMMAND_IO, 0x0007);
	nic = fake_add(PCI_BDF(0, 2, 0), 0x8086, 0x100e, 0x020000, 0);
	fake_set(nic, PCI_COMMAND, 2, PCI_COMMAND_IO | PCI_COMMAND_MEMORY, 0x0007);
	fake_bar_mem(nic, 0, 0xfebc0000, 0x20000, false, false);
	fake_bar_io(nic, 1, 0xc040, 0x40);
	fake_bar_mem(nic, 2, 0x800000000ull, 0x4000, true, true);
	fake_set(nic, PCI_INTERRUPT_LINE, 2, 0x010b, 0x00ff);
	fake_cap(nic, 0x50, PCI_CAP_ID_MSI);
	fake_set(nic, 0x52, 2, PCI_MSI_FLAGS_64BIT | 2 << PCI_MSI_FLAGS_QMASK_SHIFT, 0);
	fake_cap(nic, 0x70, PCI_CAP_ID_MSIX);
	fake_set(nic, 0x72, 2, 4, 0);
	fake_set(nic, 0x74, 4, 0x2000 | 2, 0);
	fake_cap(nic, 0x40, PCI_CAP_ID_PM);
	fake_cap(nic, 0x90, PCI_CAP_ID_EXP);
	bridge = fake_add(PCI_BDF(0, 3, 0), 0x8086, 0x244e, 0x060400, PCI_HEADER_TYPE_BRIDGE);
	fake_bar_mem(bridge, 0, 0xfeb00000, 0x1000, false, false);
	fake_set(bridge, PCI_SECONDARY_BUS, 2, 0x0201, 0);
	behind = fake_add(PCI_BDF(1, 0, 0), 0x10ec, 0x8029, 0x020000, 0);
	fake_bar_io(behind, 0, 0xd000, 0x20);
	fake_set(behind, PCI_INTERRUPT_PIN, 1, 1, 0);
	far = fake_add(PCI_BDF(2, 5, 0), 0x1234, 0x11e8, 0x00ff00, 0);
	/* function 1 of a single-function device: a phantom, never looked for */
	fake_add(PCI_BDF(0, 4, 1), 0xdead, 0xbeef, 0x020000, 0);
	/* vendor 0: nothing there (some chipsets answer so) */
	fake_add(PCI_BDF(0, 5, 0), 0x0000, 0x0000, 0, 0);
	loop = fake_add(PCI_BDF(0, 6, 0), 0x1af4, 0x1000, 0x020000, 0);
	fake_cap(loop, 0x40, PCI_CAP_ID_MSI);
	fake_set(loop, 0x41, 1, 0x40, 0);
	pci_enumerate(&fake_ops, 0, 255, &en);
	return 0;
}

static void test_found(void **state)
{
	static const uint16_t order[] = {
		PCI_BDF(0, 0, 0), PCI_BDF(0, 1, 0), PCI_BDF(0, 1, 1), PCI_BDF(0, 2, 0),
		PCI_BDF(0, 3, 0), PCI_BDF(0, 6, 0), PCI_BDF(1, 0, 0), PCI_BDF(2, 5, 0),
	};

	(void)state;
	assert_int_equal(en.count, 8);
	assert_int_equal(en.found, 8);
	assert_int_equal(en.bus_first, 0);
	assert_int_equal(en.bus_last, 255);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		assert_int_equal(en.fn[i].bdf, order[i]);
	assert_null(pci_find(&en, PCI_BDF(0, 4, 1)));
	assert_null(pci_find(&en, PCI_BDF(0, 5, 0)));
	assert_non_null(pci_find(&en, PCI_BDF(2, 5, 0)));
}

static void test_nic(void **state)
{
	const struct pci_function *f = pci_find(&en, PCI_BDF(0, 2, 0));

	(void)state;
	assert_non_null(f);
	assert_int_equal(f->vendor, 0x8086);
	assert_int_equal(f->device, 0x100e);
	assert_int_equal(f->class_code, 0x020000);
	assert_int_equal(f->revision, 1);
	assert_int_equal(f->header_type, 0);
	assert_false(f->bridge);
	assert_int_equal(f->bar[0].kind, PCI_BAR_MEM32);
	assert_int_equal(f->bar[0].addr, 0xfebc0000);
	assert_int_equal(f->bar[0].size, 0x20000);
	assert_int_equal(f->bar[1].kind, PCI_BAR_IO);
	assert_int_equal(f->bar[1].addr, 0xc040);
	assert_int_equal(f->bar[1].size, 0x40);
	assert_int_equal(f->bar[2].kind, PCI_BAR_MEM64);
	assert_true(f->bar[2].prefetch);
	assert_int_equal(f->bar[2].addr, 0x800000000ull);
	assert_int_equal(f->bar[2].size, 0x4000);
	assert_int_equal(f->bar[3].kind, PCI_BAR_NONE);
	assert_int_equal(f->bar[4].kind, PCI_BAR_NONE);
	assert_int_equal(f->interrupt_pin, 1);
	assert_int_equal(f->interrupt_line, 11);
	assert_int_equal(f->msi_cap, 0x50);
	assert_true(f->msi_64bit);
	assert_int_equal(f->msi_vectors, 4);
	assert_int_equal(f->msix_cap, 0x70);
	assert_int_equal(f->msix_entries, 5);
	assert_int_equal(f->msix_bar, 2);
	assert_int_equal(f->msix_offset, 0x2000);
	assert_int_equal(f->pm_cap, 0x40);
	assert_int_equal(f->exp_cap, 0x90);
	assert_false(f->caps_malformed);
}

/* Sizing leaves every BAR and command register as firmware left it. */
static void test_sizing_restores(void **state)
{
	(void)state;
	assert_int_equal(fake_get(nic, PCI_BAR0, 4), 0xfebc0000);
	assert_int_equal(fake_get(nic, PCI_BAR1, 4), 0xc041);
	assert_int_equal(fake_get(nic, PCI_BAR2, 4), 0x0000000c);
	assert_int_equal(fake_get(nic, PCI_BAR3, 4), 0x8);
	assert_int_equal(fake_get(nic, PCI_COMMAND, 2), PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	assert_int_equal(fake_get(host, PCI_BAR0, 4), 0xe0000000);
	/* the NIC's decoding was off while its BARs were probed */
	for (uint32_t i = 0, off = 0; i < fake.log_count; i++) {
		const struct fake_write *w = &fake.log[i];

		if (w->bdf != nic->bdf)
			continue;
		if (w->offset == PCI_COMMAND)
			off = !(w->value & (PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
		else if (w->value == 0xffffffff)
			assert_true(off);
	}
	/* the host bridge's never was: it may be decoding these very accesses */
	assert_int_equal(fake_writes_at(host->bdf, PCI_COMMAND), 0);
	assert_int_equal(fake_writes_at(host->bdf, PCI_BAR0), 2);
	/* a function that decoded nothing keeps its command register untouched */
	assert_int_equal(fake_writes_at(far->bdf, PCI_COMMAND), 0);
	/* nothing writes the expansion ROM, IDs or anything past the BARs */
	for (uint32_t i = 0; i < fake.log_count; i++)
		assert_true(fake.log[i].offset == PCI_COMMAND ||
			    (fake.log[i].offset >= PCI_BAR0 && fake.log[i].offset <= PCI_BAR5));
}

static void test_bridges(void **state)
{
	const struct pci_function *b = pci_find(&en, PCI_BDF(0, 3, 0));

	(void)state;
	assert_true(b->bridge);
	assert_int_equal(b->header_type, 1);
	assert_int_equal(b->secondary_bus, 1);
	assert_int_equal(b->subordinate_bus, 2);
	assert_int_equal(b->bar_count, 2);
	assert_int_equal(b->bar[0].size, 0x1000);
	/* type 1: registers 0x18 on are bus numbers and windows, never sized */
	assert_int_equal(fake_writes_at(b->bdf, PCI_PRIMARY_BUS), 0);
	assert_int_equal(fake_get(bridge, PCI_SECONDARY_BUS, 2), 0x0201);
	/* host and ISA bridges are bridges by class */
	assert_true(pci_find(&en, PCI_BDF(0, 0, 0))->bridge);
	assert_true(pci_find(&en, PCI_BDF(0, 1, 0))->bridge);
	assert_true(pci_find(&en, PCI_BDF(0, 1, 0))->multifunction);
	assert_false(pci_find(&en, PCI_BDF(0, 1, 1))->bridge);
	assert_false(pci_find(&en, PCI_BDF(1, 0, 0))->bridge);
}

static void test_describe(void **state)
{
	char line[256];

	(void)state;
	assert_string_equal(pci_describe(pci_find(&en, PCI_BDF(0, 2, 0)), line, sizeof(line)),
			    "00:02.0 8086:100e class 0x020000 type 0 pin A line 11 "
			    "bar0=mem32:0xfebc0000+0x20000 bar1=io:0xc040+0x40 "
			    "bar2=mem64pf:0x800000000+0x4000 "
			    "caps=msi64x4,msix5@bar2+0x2000,pm,pcie");
	assert_string_equal(pci_describe(pci_find(&en, PCI_BDF(0, 3, 0)), line, sizeof(line)),
			    "00:03.0 8086:244e class 0x060400 type 1 bridge buses 01-02 "
			    "bar0=mem32:0xfeb00000+0x1000");
	assert_string_equal(pci_describe(pci_find(&en, PCI_BDF(1, 0, 0)), line, sizeof(line)),
			    "01:00.0 10ec:8029 class 0x020000 type 0 pin A line 0 "
			    "bar0=io:0xd000+0x20");
	assert_string_equal(pci_describe(pci_find(&en, PCI_BDF(0, 6, 0)), line, sizeof(line)),
			    "00:06.0 1af4:1000 class 0x020000 type 0 caps=msi32x1 caps-malformed");
	/* cut, but terminated */
	assert_string_equal(pci_describe(pci_find(&en, PCI_BDF(0, 2, 0)), line, 12),
			    "00:02.0 808");
	line[0] = 'x';
	pci_describe(pci_find(&en, PCI_BDF(0, 2, 0)), line, 1);
	assert_int_equal(line[0], 0);
}

/* I/O decoders of 16 bits, unimplemented BARs, a 64-bit type in the last slot. */
static void test_odd_bars(void **state)
{
	struct fake_fn *f;
	const struct pci_function *p;

	(void)state;
	fake_reset(PCI_CONFIG_SIZE);
	f = fake_add(PCI_BDF(0, 7, 0), 0x1111, 0x2222, 0x020000, 0);
	fake_set(f, PCI_BAR0, 4, 0x3f9, 0x0000fff8);	/* upper 16 bits hardwired 0 */
	fake_set(f, PCI_BAR1, 4, 0, 0);			/* not implemented */
	fake_set(f, PCI_BAR5, 4, 0xfe000004, 0xfffff000);	/* "64-bit" in the last slot */
	fake_set(f, PCI_BAR2, 4, PCI_BAR_SPACE_IO, 0xfffc);	/* 4 ports, not placed */
	pci_enumerate(&fake_ops, 0, 0, &en);
	p = pci_find(&en, PCI_BDF(0, 7, 0));
	assert_int_equal(p->bar[0].kind, PCI_BAR_IO);
	assert_int_equal(p->bar[0].addr, 0x3f8);
	assert_int_equal(p->bar[0].size, 8);
	assert_int_equal(p->bar[1].kind, PCI_BAR_NONE);
	assert_int_equal(p->bar[2].kind, PCI_BAR_IO);
	assert_int_equal(p->bar[2].addr, 0);
	assert_int_equal(p->bar[2].size, 4);
	assert_int_equal(p->bar[5].kind, PCI_BAR_MEM32);
	assert_int_equal(p->bar[5].size, 0x1000);
	assert_int_equal(en.bus_last, 0);
}

/* A header type no specification defines: its registers are not touched. */
static void test_unknown_header(void **state)
{
	struct fake_fn *f;

	(void)state;
	fake_reset(PCI_CONFIG_SIZE);
	f = fake_add(PCI_BDF(0, 1, 0), 0x1111, 0x2222, 0xff0000, 0x7f);
	fake_set(f, PCI_BAR0, 4, 0, 0xffffffff);
	pci_enumerate(&fake_ops, 0, 0, &en);
	assert_int_equal(en.count, 1);
	assert_int_equal(en.fn[0].header_type, 0x7f);
	assert_int_equal(en.fn[0].bar_count, 0);
	assert_int_equal(fake.log_count, 0);
}

/* ---- a segment where every function answers ---- */

static uint32_t all_reads;

static uint32_t all_read(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size)
{
	(void)ctx;
	(void)bdf;
	all_reads++;
	if (offset == PCI_VENDOR_ID && size == 4)
		return 0x12348086;
	if (offset == PCI_HEADER_TYPE)
		return PCI_HEADER_TYPE_MFD;
	if (offset == PCI_STATUS)
		return PCI_STATUS_CAP_LIST;
	if (offset == PCI_CAPABILITY_LIST)
		return 0x40;
	if (offset == 0x40)
		return 0x4005;	/* an MSI capability pointing at itself */
	return 0;
}

static void all_write(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size, uint32_t value)
{
	(void)ctx;
	(void)bdf;
	(void)offset;
	(void)size;
	(void)value;
}

static void test_every_function_answers(void **state)
{
	static const struct pci_cfg_ops all = { .read = all_read, .write = all_write };
	struct pci_enum *big = malloc(sizeof(*big));

	(void)state;
	assert_non_null(big);
	all_reads = 0;
	pci_enumerate(&all, 0, 255, big);
	assert_int_equal(big->found, 256 * 32 * 8);
	assert_int_equal(big->count, PCI_MAX_FUNCTIONS);
	assert_int_equal(big->fn[PCI_MAX_FUNCTIONS - 1].bdf, PCI_MAX_FUNCTIONS - 1);
	assert_true(big->fn[0].caps_malformed);
	assert_int_equal(big->fn[0].msi_cap, 0x40);
	/* bounded: a few reads per function answering, a few dozen per one recorded */
	assert_true(all_reads < 256u * 32 * 8 * 3 + PCI_MAX_FUNCTIONS * 64u);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_found, setup),
		cmocka_unit_test_setup(test_nic, setup),
		cmocka_unit_test_setup(test_sizing_restores, setup),
		cmocka_unit_test_setup(test_bridges, setup),
		cmocka_unit_test_setup(test_describe, setup),
		cmocka_unit_test(test_odd_bars),
		cmocka_unit_test(test_unknown_header),
		cmocka_unit_test(test_every_function_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
