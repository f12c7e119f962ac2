// SPDX-License-Identifier: MIT
/*
 * The virtual PCI bus (hv/core/vpci.c), driven through the ports as Linux's
 * arch/x86/pci/direct.c drives them: CONFIG_ADDRESS then CONFIG_DATA, byte
 * accesses at 0xCFC + (reg & 3), words at 0xCFC + (reg & 2). The sequences
 * (the type-1 probe, BAR sizing, MSI set-up) follow what Linux 6.1 does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/vpci.h"

#define CF8 0xcf8
#define CFC 0xcfc
#define KIB 1024ull
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

static struct vpci_bus bus;

/* Every event a sequence produced, in order. */
static struct vpci_event evlog[32];
static unsigned int evcount;

static void log_clear(void)
{
	evcount = 0;
	memset(evlog, 0, sizeof(evlog));
}

static void outl(uint16_t port, uint32_t v)
{
	struct vpci_event ev;
	uint32_t changed = vpci_io_write(&bus, port, 4, v, &ev);

	assert_int_equal(changed, ev.changed);
	if (ev.changed) {
		assert_true(evcount < 32);
		evlog[evcount++] = ev;
	}
}

static void outw(uint16_t port, uint16_t v)
{
	struct vpci_event ev;

	vpci_io_write(&bus, port, 2, v, &ev);
	if (ev.changed)
		evlog[evcount++] = ev;
}

static void outb(uint16_t port, uint8_t v)
{
	struct vpci_event ev;

	vpci_io_write(&bus, port, 1, v, &ev);
	if (ev.changed)
		evlog[evcount++] = ev;
}

static uint32_t inl(uint16_t port)
{
	return vpci_io_read(&bus, port, 4);
}

static uint16_t inw(uint16_t port)
{
	uint32_t v = vpci_io_read(&bus, port, 2);

	assert_true(v <= 0xffff);
	return (uint16_t)v;
}

static uint8_t inb(uint16_t port)
{
	uint32_t v = vpci_io_read(&bus, port, 1);

	assert_true(v <= 0xff);
	return (uint8_t)v;
}

/* Linux's pci_conf1_read / pci_conf1_write (arch/x86/pci/direct.c), bus 0. */
static uint32_t addr(unsigned int bus_nr, unsigned int dev, unsigned int fn, unsigned int reg)
{
	return 0x80000000u | bus_nr << 16 | dev << 11 | fn << 8 | (reg & 0xfc);
}

static uint32_t cfg_read_bdf(unsigned int b, unsigned int dev, unsigned int fn, unsigned int reg,
			     int len)
{
	outl(CF8, addr(b, dev, fn, reg));
	switch (len) {
	case 1:
		return inb(CFC + (reg & 3));
	case 2:
		return inw(CFC + (reg & 2));
	}
	return inl(CFC);
}

static void cfg_write_bdf(unsigned int b, unsigned int dev, unsigned int fn, unsigned int reg,
			  int len, uint32_t v)
{
	outl(CF8, addr(b, dev, fn, reg));
	switch (len) {
	case 1:
		outb(CFC + (reg & 3), (uint8_t)v);
		break;
	case 2:
		outw(CFC + (reg & 2), (uint16_t)v);
		break;
	default:
		outl(CFC, v);
	}
}

static uint32_t rd(unsigned int dev, unsigned int reg, int len)
{
	return cfg_read_bdf(0, dev, 0, reg, len);
}

static void wr(unsigned int dev, unsigned int reg, int len, uint32_t v)
{
	cfg_write_bdf(0, dev, 0, reg, len, v);
}

/* Two channels: 64 KiB at 1 GiB, 12 KiB (BAR2 16 KiB) at 0x8_0000_0000. */
static const struct vpci_chan_desc two[] = {
	{ .size = 64 * KIB, .bar2_gpa = 1 * GIB },
	{ .size = 12 * KIB, .bar2_gpa = 0x800000000ull },
};

static int setup_two(void **state)
{
	(void)state;
	assert_true(vpci_init(&bus, two, 2));
	log_clear();
	return 0;
}

/* ---- headers ---- */

static void test_host_bridge_header(void **state)
{
	(void)state;
	assert_int_equal(rd(0, PCI_VENDOR_ID, 2), 0x1b36);
	assert_int_equal(rd(0, PCI_DEVICE_ID, 2), 0x0008);
	assert_int_equal(rd(0, PCI_VENDOR_ID, 4), 0x00081b36);
	assert_int_equal(rd(0, PCI_COMMAND, 2), 0);
	assert_int_equal(rd(0, PCI_STATUS, 2), 0);
	assert_int_equal(rd(0, PCI_REVISION_ID, 1), 0);
	assert_int_equal(rd(0, PCI_CLASS_PROG, 1), 0);
	assert_int_equal(rd(0, PCI_CLASS_DEVICE, 2), 0x0600);	/* host bridge */
	assert_int_equal(rd(0, PCI_REVISION_ID, 4) >> 8, PCI_CLASS_BRIDGE_HOST);
	assert_int_equal(rd(0, PCI_HEADER_TYPE, 1), 0);
	/* Everything from the cache line size to the end reads 0. */
	for (unsigned int reg = PCI_CACHE_LINE_SIZE; reg < 0x100; reg += 4)
		assert_int_equal(rd(0, reg, 4), 0);
	/* Nothing is writable: every dword reads back the same, no event. */
	for (unsigned int reg = 0; reg < 0x100; reg += 4) {
		uint32_t before = rd(0, reg, 4);

		wr(0, reg, 4, 0xffffffffu);
		assert_int_equal(rd(0, reg, 4), before);
		wr(0, reg, 4, 0);
		assert_int_equal(rd(0, reg, 4), before);
	}
	assert_int_equal(evcount, 0);
}

static void check_chan_header(unsigned int dev, uint32_t bar0, uint64_t bar2)
{
	assert_int_equal(rd(dev, PCI_VENDOR_ID, 2), 0x1af4);
	assert_int_equal(rd(dev, PCI_DEVICE_ID, 2), 0x1110);
	assert_int_equal(rd(dev, PCI_VENDOR_ID, 4), 0x11101af4);
	assert_int_equal(rd(dev, PCI_COMMAND, 2), PCI_COMMAND_MEMORY);	/* as firmware left it */
	assert_int_equal(rd(dev, PCI_STATUS, 2), PCI_STATUS_CAP_LIST);
	assert_int_equal(rd(dev, PCI_COMMAND, 4), 0x00100002);
	assert_int_equal(rd(dev, PCI_REVISION_ID, 1), 1);
	assert_int_equal(rd(dev, PCI_CLASS_PROG, 1), 0);
	assert_int_equal(rd(dev, PCI_CLASS_DEVICE, 2), 0x0500);		/* memory controller, RAM */
	assert_int_equal(rd(dev, PCI_REVISION_ID, 4), 0x05000001);
	assert_int_equal(rd(dev, PCI_CACHE_LINE_SIZE, 1), 0);
	assert_int_equal(rd(dev, PCI_CACHE_LINE_SIZE + 1, 1), 0);	/* latency timer */
	assert_int_equal(rd(dev, PCI_HEADER_TYPE, 1), 0);		/* type 0, one function */
	assert_int_equal(rd(dev, PCI_HEADER_TYPE + 1, 1), 0);		/* BIST */
	assert_int_equal(rd(dev, PCI_BAR0, 4), bar0);			/* 32-bit, not prefetchable */
	assert_int_equal(rd(dev, PCI_BAR1, 4), 0);
	assert_int_equal(rd(dev, PCI_BAR2, 4), (uint32_t)bar2 | 0xc);	/* 64-bit, prefetchable */
	assert_int_equal(rd(dev, PCI_BAR3, 4), (uint32_t)(bar2 >> 32));
	assert_int_equal(rd(dev, PCI_BAR4, 4), 0);
	assert_int_equal(rd(dev, PCI_BAR5, 4), 0);
	assert_int_equal(rd(dev, 0x28, 4), 0);				/* CardBus CIS */
	assert_int_equal(rd(dev, PCI_SUBSYSTEM_VENDOR_ID, 2), 0x1af4);
	assert_int_equal(rd(dev, PCI_SUBSYSTEM_ID, 2), 0x1100);
	assert_int_equal(rd(dev, PCI_ROM_ADDRESS, 4), 0);
	assert_int_equal(rd(dev, PCI_CAPABILITY_LIST, 1), 0x40);
	assert_int_equal(rd(dev, PCI_CAPABILITY_LIST, 4), 0x40);
	assert_int_equal(rd(dev, 0x38, 4), 0);
	assert_int_equal(rd(dev, PCI_INTERRUPT_LINE, 1), 0);
	assert_int_equal(rd(dev, PCI_INTERRUPT_PIN, 1), 0);		/* no INTx */
	assert_int_equal(rd(dev, PCI_INTERRUPT_LINE, 4), 0);		/* MIN_GNT, MAX_LAT 0 */
	/* The MSI capability: 64-bit, one vector, off. */
	assert_int_equal(rd(dev, 0x40, 1), PCI_CAP_ID_MSI);
	assert_int_equal(rd(dev, 0x41, 1), 0);				/* the list's end */
	assert_int_equal(rd(dev, 0x42, 2), PCI_MSI_FLAGS_64BIT);
	assert_int_equal(rd(dev, 0x44, 4), 0);
	assert_int_equal(rd(dev, 0x48, 4), 0);
	assert_int_equal(rd(dev, 0x4c, 4), 0);
	for (unsigned int reg = 0x50; reg < 0x100; reg += 4)
		assert_int_equal(rd(dev, reg, 4), 0);
}

static void test_chan_header(void **state)
{
	(void)state;
	check_chan_header(1, 0xfeb00000u, 1 * GIB);
	check_chan_header(2, 0xfeb01000u, 0x800000000ull);
}

/* Linux's pci_find_capability walk: status bit, pointer, IDs. */
static void test_capability_walk(void **state)
{
	unsigned int pos, found = 0, ttl = 48;

	(void)state;
	assert_true(rd(1, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST);
	pos = rd(1, PCI_CAPABILITY_LIST, 1);
	while (ttl-- && pos >= 0x40) {
		pos &= ~3u;
		if (rd(1, pos, 1) == PCI_CAP_ID_MSI)
			found = pos;
		pos = rd(1, pos + 1, 1);
	}
	assert_int_equal(found, TEMPO_PCI_CHAN_MSI_CAP);
	assert_int_equal(pos, 0);
}

/* ---- the type-1 probe (arch/x86/pci/direct.c) ---- */

static void test_type1_probe(void **state)
{
	uint32_t tmp;
	bool sane = false;

	(void)state;
	/* pci_check_type1: a byte to 0xCFB is not CONFIG_ADDRESS, the dword readback works */
	assert_false(vpci_claims(0xcfb, 1));
	outb(0xcfb, 0x01);
	tmp = inl(CF8);
	assert_int_equal(tmp, 0);
	outl(CF8, 0x80000000u);
	assert_int_equal(inl(CF8), 0x80000000u);
	/* pci_sanity_check: the class of every devfn on bus 0; the host bridge passes */
	for (unsigned int devfn = 0; devfn < 0x100 && !sane; devfn++) {
		uint32_t x = cfg_read_bdf(0, devfn >> 3, devfn & 7, PCI_CLASS_DEVICE, 2);

		sane = x == 0x0600 || x == 0x0300;
	}
	assert_true(sane);
	outl(CF8, tmp);
	assert_int_equal(inl(CF8), tmp);

	/* pci_check_type2 must fail: bytes at 0xCF8 and 0xCFA are not the bus's */
	outb(0xcfb, 0x00);
	outb(0xcf8, 0x00);
	outb(0xcfa, 0x00);
	assert_false(inb(0xcf8) == 0x00 && inb(0xcfa) == 0x00);
	assert_int_equal(inb(0xcf8), 0xff);
	assert_int_equal(inl(CF8), tmp);	/* none of that touched the latch */
	assert_int_equal(evcount, 0);
}

/* The latch keeps enable, bus, device, function and register only. */
static void test_config_address_latch(void **state)
{
	(void)state;
	outl(CF8, 0xffffffffu);
	assert_int_equal(inl(CF8), 0x80fffffcu);
	outl(CF8, 0x7f000003u);
	assert_int_equal(inl(CF8), 0);
	/* Narrow accesses to 0xCF8-0xCFB are other devices' (0xCF9 is reset control) */
	outl(CF8, 0x80000800u);
	outw(0xcf8, 0x1234);
	outb(0xcf9, 0x06);
	outw(0xcfa, 0x1234);
	assert_int_equal(inl(CF8), 0x80000800u);
	assert_int_equal(vpci_io_read(&bus, 0xcf8, 2), 0xffff);
	assert_int_equal(vpci_io_read(&bus, 0xcf9, 1), 0xff);
	assert_int_equal(vpci_io_read(&bus, 0xcfa, 2), 0xffff);
	assert_true(vpci_claims(0xcf8, 4));
	assert_false(vpci_claims(0xcf8, 1));
	assert_false(vpci_claims(0xcf8, 2));
	assert_false(vpci_claims(0xcf9, 1));
	assert_false(vpci_claims(0xcf9, 4));
	for (uint16_t p = 0xcfc; p <= 0xcff; p++)
		assert_true(vpci_claims(p, 1));
	assert_false(vpci_claims(0xcf7, 4));
	assert_false(vpci_claims(0xd00, 1));
	/* A dword at 0xCFC with the latched device 1, register 0 */
	assert_int_equal(inl(CFC), 0x11101af4);
}

/* ---- BAR sizing (drivers/pci/probe.c, __pci_read_base, Linux 6.1) ---- */

/*
 * One BAR as __pci_read_base sizes it: memory decode off around it (if it
 * was on), read, write all ones (l | mask with mask ~0), read the size,
 * write back. Returns what the all-ones write read back.
 */
static uint32_t linux_size_bar(unsigned int dev, unsigned int pos, uint32_t *orig)
{
	uint16_t cmd = (uint16_t)rd(dev, PCI_COMMAND, 2);
	uint32_t l, sz;

	if (cmd & (PCI_COMMAND_MEMORY | PCI_COMMAND_IO))
		wr(dev, PCI_COMMAND, 2, cmd & ~(PCI_COMMAND_MEMORY | PCI_COMMAND_IO));
	l = rd(dev, pos, 4);
	wr(dev, pos, 4, l | ~0u);
	sz = rd(dev, pos, 4);
	wr(dev, pos, 4, l);
	if (cmd & (PCI_COMMAND_MEMORY | PCI_COMMAND_IO))
		wr(dev, PCI_COMMAND, 2, cmd);
	*orig = l;
	return sz;
}

/* Linux's pci_size(): the lowest writable address bit. */
static uint64_t size_of(uint64_t maxbase, uint64_t mask)
{
	uint64_t size = mask & maxbase;

	if (!size)
		return 0;
	return size & ~(size - 1);
}

static void check_windows(const struct vpci_event *e, bool bar0_on, uint64_t bar0,
			  bool bar2_on, uint64_t bar2)
{
	assert_int_equal(e->bar0.decodes, bar0_on);
	assert_int_equal(e->bar2.decodes, bar2_on);
	if (bar0_on)
		assert_int_equal(e->bar0.gpa, bar0);
	if (bar2_on)
		assert_int_equal(e->bar2.gpa, bar2);
	assert_int_equal(e->bar0.size, 0x1000);
}

static void test_bar0_sizing(void **state)
{
	uint32_t l, sz;

	(void)state;
	sz = linux_size_bar(1, PCI_BAR0, &l);
	assert_int_equal(l, 0xfeb00000u);
	assert_int_equal(sz, 0xfffff000u);		/* type bits 0: memory, 32-bit */
	assert_int_equal(size_of(sz & ~0xfu, ~0xfull), 0x1000);
	assert_int_equal(rd(1, PCI_BAR0, 4), 0xfeb00000u);
	assert_int_equal(rd(1, PCI_COMMAND, 2), PCI_COMMAND_MEMORY);

	/* Two events: decode off (both BARs), decode back on, nothing for the probe. */
	assert_int_equal(evcount, 2);
	assert_int_equal(evlog[0].changed, VPCI_EV_BAR0 | VPCI_EV_BAR2);
	assert_int_equal(evlog[0].chan, 0);
	assert_true(evlog[0].bar0_was.decodes);
	assert_int_equal(evlog[0].bar0_was.gpa, 0xfeb00000u);
	assert_true(evlog[0].bar2_was.decodes);
	assert_int_equal(evlog[0].bar2_was.gpa, 1 * GIB);
	check_windows(&evlog[0], false, 0, false, 0);
	assert_int_equal(evlog[1].changed, VPCI_EV_BAR0 | VPCI_EV_BAR2);
	check_windows(&evlog[1], true, 0xfeb00000u, true, 1 * GIB);
	assert_int_equal(evlog[1].bar2.size, 64 * KIB);

	/* BAR1, BAR4, BAR5 and the ROM are absent: all ones read back 0. */
	log_clear();
	assert_int_equal(linux_size_bar(1, PCI_BAR1, &l), 0);
	assert_int_equal(linux_size_bar(1, PCI_BAR4, &l), 0);
	assert_int_equal(linux_size_bar(1, PCI_BAR5, &l), 0);
	wr(1, PCI_ROM_ADDRESS, 4, 0xfffff800u);	/* PCI_ROM_ADDRESS_MASK */
	assert_int_equal(rd(1, PCI_ROM_ADDRESS, 4), 0);
	assert_int_equal(evcount, 6);	/* off/on around each of the three */
}

static void test_bar2_sizing_64(void **state)
{
	uint16_t cmd;
	uint32_t l, sz, l3, sz3;
	uint64_t size;

	(void)state;
	/* __pci_read_base on BAR2 of the 12 KiB channel (BAR 16 KiB at 32 GiB) */
	cmd = (uint16_t)rd(2, PCI_COMMAND, 2);
	wr(2, PCI_COMMAND, 2, cmd & ~(PCI_COMMAND_MEMORY | PCI_COMMAND_IO));
	l = rd(2, PCI_BAR2, 4);
	wr(2, PCI_BAR2, 4, l | ~0u);
	sz = rd(2, PCI_BAR2, 4);
	wr(2, PCI_BAR2, 4, l);
	/* the 64-bit half: pos++ */
	l3 = rd(2, PCI_BAR3, 4);
	wr(2, PCI_BAR3, 4, ~0u);
	sz3 = rd(2, PCI_BAR3, 4);
	wr(2, PCI_BAR3, 4, l3);
	wr(2, PCI_COMMAND, 2, cmd);

	assert_int_equal(l, 0x0000000cu);		/* 32 GiB's low half, 64-bit prefetchable */
	assert_int_equal(sz, 0xffffc00cu);
	assert_int_equal(l3, 8);
	assert_int_equal(sz3, 0xffffffffu);
	size = size_of((uint64_t)sz3 << 32 | (sz & ~0xfu), ~0xfull);
	assert_int_equal(size, 16 * KIB);
	assert_int_equal(rd(2, PCI_BAR2, 4), 0xc);
	assert_int_equal(rd(2, PCI_BAR3, 4), 8);

	assert_int_equal(evcount, 2);
	assert_int_equal(evlog[0].chan, 1);
	assert_int_equal(evlog[0].changed, VPCI_EV_BAR0 | VPCI_EV_BAR2);
	check_windows(&evlog[0], false, 0, false, 0);
	assert_int_equal(evlog[1].changed, VPCI_EV_BAR0 | VPCI_EV_BAR2);
	check_windows(&evlog[1], true, 0xfeb01000u, true, 0x800000000ull);
	assert_int_equal(evlog[1].bar2.size, 16 * KIB);
}

/*
 * A guest that sizes with decode left on (Linux does for a device marked
 * mmio_always_on; a bare guest may): the all-ones value is a probe, not an
 * address, so the BAR stops decoding and comes back on the write-back.
 */
static void test_bar_sizing_decode_on(void **state)
{
	(void)state;
	wr(1, PCI_BAR2, 4, ~0u);
	assert_int_equal(rd(1, PCI_BAR2, 4), 0xffff000cu);	/* 64 KiB */
	assert_false(vpci_bar2(&bus.fn[0]).decodes);
	wr(1, PCI_BAR2, 4, 1 * GIB);
	assert_true(vpci_bar2(&bus.fn[0]).decodes);
	wr(1, PCI_BAR3, 4, ~0u);
	assert_false(vpci_bar2(&bus.fn[0]).decodes);
	wr(1, PCI_BAR3, 4, 0);
	assert_int_equal(evcount, 4);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(evlog[i].changed, VPCI_EV_BAR2);
		assert_int_equal(evlog[i].bar2.decodes, i % 2);
		assert_int_equal(evlog[i].bar2_was.decodes, !(i % 2));
	}
	assert_int_equal(evlog[3].bar2.gpa, 1 * GIB);

	log_clear();
	wr(1, PCI_BAR0, 4, ~0u);
	assert_int_equal(rd(1, PCI_BAR0, 4), 0xfffff000u);
	assert_false(vpci_bar0(&bus.fn[0]).decodes);
	wr(1, PCI_BAR0, 4, 0xfeb00000u);
	assert_true(vpci_bar0(&bus.fn[0]).decodes);
	assert_int_equal(evcount, 2);
	assert_int_equal(evlog[0].changed, VPCI_EV_BAR0);
	assert_int_equal(evlog[1].changed, VPCI_EV_BAR0);
}

/* Moving the BARs, with decode on and off; a BAR at 0 does not decode. */
static void test_bar_moves(void **state)
{
	struct vpci_window w;

	(void)state;
	wr(1, PCI_BAR0, 4, 0xfeb07000u);
	assert_int_equal(evcount, 1);
	assert_int_equal(evlog[0].changed, VPCI_EV_BAR0);
	assert_int_equal(evlog[0].bar0_was.gpa, 0xfeb00000u);
	assert_int_equal(evlog[0].bar0.gpa, 0xfeb07000u);
	assert_true(evlog[0].bar0.decodes);

	/* Low bits of the address below the size are read-only */
	log_clear();
	wr(1, PCI_BAR0, 4, 0xfeb08fffu);
	assert_int_equal(rd(1, PCI_BAR0, 4), 0xfeb08000u);
	wr(1, PCI_BAR2, 4, 0x40012345u);
	assert_int_equal(rd(1, PCI_BAR2, 4), 0x4001000cu);
	wr(1, PCI_BAR3, 4, 0x1);
	w = vpci_bar2(&bus.fn[0]);
	assert_int_equal(w.gpa, 0x140010000ull);
	assert_true(w.decodes);
	assert_int_equal(w.size, 64 * KIB);
	assert_int_equal(evcount, 3);
	assert_int_equal(evlog[2].bar2_was.gpa, 0x40010000ull);
	assert_int_equal(evlog[2].bar2.gpa, 0x140010000ull);

	/* With decode off nothing moves for the hypervisor until it comes on again. */
	log_clear();
	wr(1, PCI_COMMAND, 2, 0);
	wr(1, PCI_BAR0, 4, 0xfeb03000u);
	wr(1, PCI_BAR2, 4, 0);
	wr(1, PCI_BAR3, 4, 2);
	assert_int_equal(evcount, 1);
	wr(1, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	assert_int_equal(evcount, 2);
	assert_int_equal(evlog[1].bar0.gpa, 0xfeb03000u);
	assert_int_equal(evlog[1].bar2.gpa, 0x200000000ull);
	assert_true(evlog[1].bar2.decodes);

	/* 0 is no address */
	log_clear();
	wr(1, PCI_BAR0, 4, 0);
	assert_false(vpci_bar0(&bus.fn[0]).decodes);
	wr(1, PCI_BAR2, 4, 0);
	wr(1, PCI_BAR3, 4, 0);
	assert_false(vpci_bar2(&bus.fn[0]).decodes);
	assert_int_equal(evcount, 2);	/* BAR0 off; BAR2 off at the second write */

	/* Bus master is kept and moves nothing */
	log_clear();
	wr(1, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	assert_int_equal(rd(1, PCI_COMMAND, 2), PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	assert_int_equal(evcount, 0);
}

/* A BAR2 larger than 4 GiB: the low dword has no writable address bit. */
static void test_bar2_over_4g(void **state)
{
	const struct vpci_chan_desc big = { .size = 8 * GIB, .bar2_gpa = 8 * GIB };

	(void)state;
	assert_true(vpci_init(&bus, &big, 1));
	assert_int_equal(rd(1, PCI_BAR2, 4), 0xc);
	assert_int_equal(rd(1, PCI_BAR3, 4), 2);
	wr(1, PCI_BAR2, 4, ~0u);
	assert_int_equal(rd(1, PCI_BAR2, 4), 0xc);
	assert_true(vpci_bar2(&bus.fn[0]).decodes);	/* nothing there to probe */
	wr(1, PCI_BAR3, 4, ~0u);
	assert_int_equal(rd(1, PCI_BAR3, 4), 0xfffffffeu);
	assert_false(vpci_bar2(&bus.fn[0]).decodes);
	wr(1, PCI_BAR3, 4, 2);
	assert_true(vpci_bar2(&bus.fn[0]).decodes);
	assert_int_equal(vpci_bar2(&bus.fn[0]).gpa, 8 * GIB);
}

/* ---- partial writes and read-only fields ---- */

static void test_partial_writes(void **state)
{
	(void)state;
	/* command's low byte, through 0xCFC */
	wr(1, PCI_COMMAND, 1, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_IO);
	assert_int_equal(rd(1, PCI_COMMAND, 4), 0x00100006);
	/* command's high byte (interrupt disable, SERR) and status: read-only */
	wr(1, PCI_COMMAND + 1, 1, 0xff);
	wr(1, PCI_STATUS, 2, 0xffff);
	assert_int_equal(rd(1, PCI_COMMAND, 4), 0x00100006);

	/* BAR0 byte by byte: byte 0 is all read-only, byte 1 has address bits 15:12 */
	wr(1, PCI_BAR0, 1, 0xff);
	assert_int_equal(rd(1, PCI_BAR0, 4), 0xfeb00000u);
	wr(1, PCI_BAR0 + 1, 1, 0xff);
	assert_int_equal(rd(1, PCI_BAR0, 4), 0xfeb0f000u);
	wr(1, PCI_BAR0 + 2, 2, 0xfeb1);
	assert_int_equal(rd(1, PCI_BAR0, 4), 0xfeb1f000u);
	wr(1, PCI_BAR0 + 3, 1, 0x12);
	assert_int_equal(rd(1, PCI_BAR0, 4), 0x12b1f000u);
	/* a word into BAR2's upper half */
	wr(1, PCI_BAR2 + 2, 2, 0x1234);
	assert_int_equal(rd(1, PCI_BAR2, 4), 0x1234000cu);
	wr(1, PCI_BAR3 + 1, 1, 0x56);
	assert_int_equal(rd(1, PCI_BAR3, 4), 0x5600);

	/* interrupt line is read/write; pin, MIN_GNT, MAX_LAT are not */
	wr(1, PCI_INTERRUPT_LINE, 2, 0xff0b);
	assert_int_equal(rd(1, PCI_INTERRUPT_LINE, 4), 0x0b);
	wr(1, PCI_INTERRUPT_PIN, 1, 1);
	wr(1, PCI_INTERRUPT_LINE + 2, 2, 0xffff);
	assert_int_equal(rd(1, PCI_INTERRUPT_LINE, 4), 0x0b);
	wr(1, PCI_INTERRUPT_LINE, 4, 0xffffff0a);
	assert_int_equal(rd(1, PCI_INTERRUPT_LINE, 4), 0x0a);

	/* MSI: a byte at message control's low byte enables; the ID and next do not move */
	wr(1, 0x42, 1, 0x01);
	assert_int_equal(rd(1, 0x40, 4), 0x00810005);
	wr(1, 0x40, 2, 0xffff);
	wr(1, 0x43, 1, 0xff);
	assert_int_equal(rd(1, 0x40, 4), 0x00810005);
	wr(1, 0x44, 2, 0x1004);
	wr(1, 0x46, 2, 0xfee0);
	assert_int_equal(rd(1, 0x44, 4), 0xfee01004u);
	wr(1, 0x4c, 1, 0x41);
	wr(1, 0x4d, 1, 0x00);
	assert_int_equal(rd(1, 0x4c, 4), 0x41);
	wr(1, 0x4e, 2, 0xffff);		/* past the 16-bit data: reserved */
	assert_int_equal(rd(1, 0x4c, 4), 0x41);

	/* the other function is untouched */
	check_chan_header(2, 0xfeb01000u, 0x800000000ull);
}

/* Every dword: write all ones, then zeroes; only the writable bits follow. */
static void test_read_only(void **state)
{
	(void)state;
	for (unsigned int reg = 0; reg < 0x100; reg += 4) {
		uint32_t before = rd(1, reg, 4), ones, zeroes;

		wr(1, reg, 4, 0xffffffffu);
		ones = rd(1, reg, 4);
		wr(1, reg, 4, 0);
		zeroes = rd(1, reg, 4);
		wr(1, reg, 4, before);
		assert_int_equal(rd(1, reg, 4), before);
		switch (reg) {
		case PCI_COMMAND:
			assert_int_equal(ones, 0x00100006);
			assert_int_equal(zeroes, 0x00100000);
			break;
		case PCI_BAR0:
			assert_int_equal(ones, 0xfffff000u);
			assert_int_equal(zeroes, 0);
			break;
		case PCI_BAR2:
			assert_int_equal(ones, 0xffff000cu);
			assert_int_equal(zeroes, 0xc);
			break;
		case PCI_BAR3:
			assert_int_equal(ones, 0xffffffffu);
			assert_int_equal(zeroes, 0);
			break;
		case PCI_INTERRUPT_LINE:
			assert_int_equal(ones, 0xff);
			assert_int_equal(zeroes, 0);
			break;
		case 0x40:	/* MSI: only the enable bit; MME reads 0 */
			assert_int_equal(ones, 0x00810005);
			assert_int_equal(zeroes, 0x00800005);
			break;
		case 0x44:
			assert_int_equal(ones, 0xfffffffcu);
			assert_int_equal(zeroes, 0);
			break;
		case 0x48:
			assert_int_equal(ones, 0xffffffffu);
			assert_int_equal(zeroes, 0);
			break;
		case 0x4c:
			assert_int_equal(ones, 0xffff);
			assert_int_equal(zeroes, 0);
			break;
		default:
			if (ones != before || zeroes != before)
				fail_msg("dword 0x%02x: 0x%08x became 0x%08x / 0x%08x", reg, before,
					 ones, zeroes);
		}
	}
	check_chan_header(1, 0xfeb00000u, 1 * GIB);
}

/* ---- MSI ---- */

static void test_msi_linux(void **state)
{
	uint8_t vector = 0, dest = 0;
	bool logical = false;
	uint16_t ctl;

	(void)state;
	/* msi_capability_init: read the flags, disable, write the message, enable */
	ctl = (uint16_t)rd(1, 0x42, 2);
	assert_int_equal(ctl, PCI_MSI_FLAGS_64BIT);
	assert_int_equal((ctl & PCI_MSI_FLAGS_QMASK) >> 1, 0);	/* one vector */
	assert_false(ctl & PCI_MSI_FLAGS_MASKBIT);
	wr(1, 0x42, 2, ctl & ~PCI_MSI_FLAGS_ENABLE);
	assert_false(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	/* __pci_write_msi_msg: MME = 0, address low, high, data */
	ctl = (uint16_t)rd(1, 0x42, 2);
	wr(1, 0x42, 2, ctl & ~PCI_MSI_FLAGS_QSIZE);
	wr(1, 0x44, 4, 0xfee01004u);
	wr(1, 0x48, 4, 0);
	wr(1, 0x4c, 2, 0x0041);
	assert_false(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));	/* still off */
	/* pci_intx_for_msi(dev, 0): interrupt disable, a read-only 0 here */
	wr(1, PCI_COMMAND, 2, rd(1, PCI_COMMAND, 2) | 0x400);
	assert_int_equal(rd(1, PCI_COMMAND, 2), PCI_COMMAND_MEMORY);
	/* pci_msi_set_enable(dev, 1) */
	wr(1, 0x42, 2, rd(1, 0x42, 2) | PCI_MSI_FLAGS_ENABLE);
	assert_int_equal(rd(1, 0x42, 2), PCI_MSI_FLAGS_64BIT | PCI_MSI_FLAGS_ENABLE);
	/* no bus master yet: the function may send no MSI */
	assert_false(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	/* events: address low, data, enable; the rewrites of equal values are none */
	assert_int_equal(evcount, 3);
	for (unsigned int i = 0; i < evcount; i++) {
		assert_int_equal(evlog[i].changed, VPCI_EV_MSI);
		assert_int_equal(evlog[i].chan, 0);
	}

	/* pci_set_master: the route comes on, an MSI event and no BAR one */
	log_clear();
	wr(1, PCI_COMMAND, 2, rd(1, PCI_COMMAND, 2) | PCI_COMMAND_MASTER);
	assert_int_equal(evcount, 1);
	assert_int_equal(evlog[0].changed, VPCI_EV_MSI);
	assert_true(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	assert_int_equal(vector, 0x41);
	assert_int_equal(dest, 1);
	assert_true(logical);
	/* the other function's MSI is untouched */
	assert_false(vpci_msi_target(&bus.fn[1], &vector, &dest, &logical));
	/* bus master off and on again: the route follows */
	wr(1, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	assert_false(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	wr(1, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	assert_true(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	assert_int_equal(evcount, 3);
	/* memory decode does not gate MSI */
	wr(1, PCI_COMMAND, 2, PCI_COMMAND_MASTER);
	assert_true(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	assert_int_equal(evlog[3].changed, VPCI_EV_BAR0 | VPCI_EV_BAR2);
	wr(1, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);

	/* physical destination 3, vector 0x30; a new message while enabled */
	log_clear();
	wr(1, 0x44, 4, 0xfee03000u);
	wr(1, 0x4c, 2, 0x0030);
	assert_int_equal(evcount, 2);
	assert_true(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	assert_int_equal(vector, 0x30);
	assert_int_equal(dest, 3);
	assert_false(logical);
	/* the redirection hint (bit 3) is ignored, bits 1:0 read 0 */
	wr(1, 0x44, 4, 0xfee0f00bu);
	assert_int_equal(rd(1, 0x44, 4), 0xfee0f008u);
	assert_true(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	assert_int_equal(dest, 0x0f);
	assert_false(logical);
	/* disable */
	wr(1, 0x42, 2, PCI_MSI_FLAGS_64BIT);
	assert_false(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
}

/* Set the message and enable it; is it a route? */
static bool msi_valid(uint32_t lo, uint32_t hi, uint16_t data)
{
	uint8_t vector, dest;
	bool logical;

	wr(2, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	wr(2, 0x44, 4, lo);
	wr(2, 0x48, 4, hi);
	wr(2, 0x4c, 2, data);
	wr(2, 0x42, 2, PCI_MSI_FLAGS_ENABLE);
	return vpci_msi_target(&bus.fn[1], &vector, &dest, &logical);
}

static void test_msi_invalid(void **state)
{
	(void)state;
	assert_true(msi_valid(0xfee00000u, 0, 0x0041));
	assert_false(msi_valid(0xfee00000u, 1, 0x0041));	/* above 4 GiB: a memory write */
	assert_false(msi_valid(0xfed00000u, 0, 0x0041));	/* not the interrupt range */
	assert_false(msi_valid(0x00000000u, 0, 0x0041));
	assert_false(msi_valid(0xfee00010u, 0, 0x0041));	/* extended destination ID bits */
	assert_false(msi_valid(0xfee00800u, 0, 0x0041));
	/* delivery modes: fixed and lowest priority only */
	assert_true(msi_valid(0xfee00000u, 0, 0x0141));		/* lowest priority */
	for (uint16_t mode = 2; mode < 8; mode++)		/* SMI, NMI, INIT, ExtINT, ... */
		assert_false(msi_valid(0xfee00000u, 0, (uint16_t)(mode << 8 | 0x41)));
	/* trigger mode and level bits are ignored: an edge */
	assert_true(msi_valid(0xfee00000u, 0, 0xc041));
	/* vectors: what a channel may bind, 0x20-0xEC */
	assert_false(msi_valid(0xfee00000u, 0, 0x0000));
	assert_false(msi_valid(0xfee00000u, 0, 0x000f));
	assert_false(msi_valid(0xfee00000u, 0, 0x0010));
	assert_false(msi_valid(0xfee00000u, 0, 0x001f));
	assert_true(msi_valid(0xfee00000u, 0, 0x0020));
	assert_true(msi_valid(0xfee00000u, 0, 0x00ec));
	assert_false(msi_valid(0xfee00000u, 0, 0x00ed));	/* Tempo's own */
	assert_false(msi_valid(0xfee00000u, 0, 0x00ff));
	/* destination 0xff, logical: a broadcast, delivered as the hypervisor decides */
	assert_true(msi_valid(0xfeeff004u, 0, 0x0041));
}

/* ---- what is not there ---- */

static void test_nonexistent(void **state)
{
	(void)state;
	/* enable bit off */
	outl(CF8, 0x00000800u);	/* device 1, register 0, no enable */
	assert_int_equal(inl(CFC), 0xffffffffu);
	assert_int_equal(inw(CFC + 2), 0xffff);
	assert_int_equal(inb(CFC + 3), 0xff);
	outl(CFC, 0);
	outl(CF8, 0x00000804u);
	outw(CFC, 0);	/* would clear memory decode */
	assert_int_equal(rd(1, PCI_COMMAND, 2), PCI_COMMAND_MEMORY);
	/* other buses, devices, functions */
	assert_int_equal(cfg_read_bdf(1, 0, 0, 0, 4), 0xffffffffu);
	assert_int_equal(cfg_read_bdf(1, 1, 0, 0, 4), 0xffffffffu);
	assert_int_equal(cfg_read_bdf(255, 1, 0, 0, 2), 0xffff);
	assert_int_equal(cfg_read_bdf(0, 3, 0, 0, 4), 0xffffffffu);	/* two channels only */
	assert_int_equal(cfg_read_bdf(0, 31, 0, 0, 4), 0xffffffffu);
	for (unsigned int fn = 1; fn < 8; fn++) {
		assert_int_equal(cfg_read_bdf(0, 0, fn, 0, 4), 0xffffffffu);
		assert_int_equal(cfg_read_bdf(0, 1, fn, PCI_BAR0, 4), 0xffffffffu);
		assert_int_equal(cfg_read_bdf(0, 2, fn, PCI_CLASS_DEVICE, 2), 0xffff);
		assert_int_equal(cfg_read_bdf(0, 1, fn, PCI_HEADER_TYPE, 1), 0xff);
	}
	/* writes there change nothing */
	cfg_write_bdf(1, 1, 0, PCI_COMMAND, 2, 0);
	cfg_write_bdf(0, 1, 1, PCI_COMMAND, 2, 0);
	cfg_write_bdf(0, 1, 1, PCI_BAR0, 4, 0x12345000u);
	cfg_write_bdf(0, 3, 0, PCI_COMMAND, 2, 0);
	cfg_write_bdf(0, 9, 0, PCI_COMMAND, 2, 0);
	check_chan_header(1, 0xfeb00000u, 1 * GIB);
	check_chan_header(2, 0xfeb01000u, 0x800000000ull);
	assert_int_equal(evcount, 0);

	/* a bus with no channel: the host bridge alone */
	assert_true(vpci_init(&bus, NULL, 0));
	assert_int_equal(rd(0, PCI_VENDOR_ID, 4), 0x00081b36);
	assert_int_equal(rd(1, PCI_VENDOR_ID, 4), 0xffffffffu);
}

/* Where CONFIG_DATA goes now, for a caller with functions of its own on the bus. */
static void test_data_target(void **state)
{
	uint32_t bdf = 0xdead, offset = 0xdead;

	(void)state;
	outl(CF8, 0x80001844u);	/* 00:03.0, register 0x44 */
	assert_true(vpci_data_target(&bus, CFC, 4, &bdf, &offset));
	assert_int_equal(bdf, VPCI_BDF(0, 3, 0));
	assert_int_equal(offset, 0x44);
	assert_true(vpci_data_target(&bus, CFC + 2, 2, &bdf, &offset));
	assert_int_equal(offset, 0x46);
	assert_true(vpci_data_target(&bus, CFC + 3, 1, &bdf, &offset));
	assert_int_equal(offset, 0x47);
	outl(CF8, 0x80ff0f00u);	/* ff:01.7 */
	assert_true(vpci_data_target(&bus, CFC, 4, &bdf, &offset));
	assert_int_equal(bdf, VPCI_BDF(0xff, 1, 7));
	/* CONFIG_ADDRESS itself, narrower accesses to 0xCF8-0xCFB, the enable bit off */
	bdf = offset = 0xdead;
	assert_false(vpci_data_target(&bus, CF8, 4, &bdf, &offset));
	assert_false(vpci_data_target(&bus, CF8 + 1, 1, &bdf, &offset));
	assert_false(vpci_data_target(&bus, CFC + 4, 1, &bdf, &offset));
	outl(CF8, 0x00001844u);
	assert_false(vpci_data_target(&bus, CFC, 4, &bdf, &offset));
	assert_int_equal(bdf, 0xdead);
	assert_int_equal(offset, 0xdead);
}

static void test_malformed(void **state)
{
	struct vpci_event ev;

	(void)state;
	/* offsets past the 256-byte header, through the by-address entry */
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 0x100, 4), 0xffffffffu);
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 0xfff, 1), 0xff);
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 0xffffffffu, 2), 0xffff);
	assert_int_equal(vpci_config_write(&bus, VPCI_BDF(0, 1, 0), 0x104, 4, 0, &ev), 0);
	assert_int_equal(ev.changed, 0);
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 0xfc, 4), 0);
	/* a bdf wider than 16 bits is no bus 0 device */
	assert_int_equal(vpci_config_read(&bus, 0x10008, 0, 4), 0xffffffffu);
	/* sizes other than 1, 2, 4 */
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 0, 3), 0xffffffu);
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 0, 0), 0);
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 0, 8), 0xffffffffu);
	assert_int_equal(vpci_config_write(&bus, VPCI_BDF(0, 1, 0), PCI_COMMAND, 3, 0, &ev), 0);
	/* accesses that leave the dword */
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 2, 4), 0xffffffffu);
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 3, 2), 0xffff);
	assert_int_equal(vpci_config_write(&bus, VPCI_BDF(0, 1, 0), PCI_COMMAND + 3, 2, 0, &ev),
			 0);
	assert_int_equal(vpci_config_read(&bus, VPCI_BDF(0, 1, 0), 1, 2), 0x101a);	/* inside */
	outl(CF8, addr(0, 1, 0, PCI_COMMAND));
	assert_int_equal(vpci_io_read(&bus, 0xcfe, 4), 0xffffffffu);
	assert_int_equal(vpci_io_read(&bus, 0xcff, 2), 0xffff);
	assert_int_equal(vpci_io_read(&bus, 0xcfd, 2), 0x1000);	/* command high, status low */
	assert_int_equal(vpci_io_write(&bus, 0xcfd, 4, 0, &ev), 0);
	assert_int_equal(vpci_io_write(&bus, 0xcfc, 3, 0, &ev), 0);
	assert_int_equal(vpci_io_read(&bus, 0xcfc, 3), 0xffffffu);
	/* ports that are not the bus's */
	assert_int_equal(vpci_io_read(&bus, 0xcf7, 4), 0xffffffffu);
	assert_int_equal(vpci_io_write(&bus, 0xd00, 4, 0, &ev), 0);
	assert_int_equal(rd(1, PCI_COMMAND, 2), PCI_COMMAND_MEMORY);
	assert_int_equal(evcount, 0);
}

/* ---- BAR0 lookup, init and reset ---- */

static void test_find_bar0(void **state)
{
	uint32_t off = 0xdead;

	(void)state;
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb00000u, &off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb00ffcu, &off), 0);
	assert_int_equal(off, 0xffc);
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb01010u, &off), 1);
	assert_int_equal(off, 0x10);
	off = 0xdead;
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb02000u, &off), -1);
	assert_int_equal(vpci_find_bar0(&bus, 0xfeafffffu, &off), -1);
	assert_int_equal(vpci_find_bar0(&bus, 0x1feb00000ull, &off), -1);
	assert_int_equal(vpci_find_bar0(&bus, 1 * GIB, &off), -1);	/* BAR2 is not registers */
	assert_int_equal(off, 0xdead);
	/* decode off: gone */
	wr(1, PCI_COMMAND, 2, 0);
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb00000u, &off), -1);
	wr(1, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	/* moved: found at the new place only */
	wr(2, PCI_BAR0, 4, 0xfeb80000u);
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb01000u, &off), -1);
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb80004u, &off), 1);
	assert_int_equal(off, 4);
	/* on top of each other: the lower index */
	wr(2, PCI_BAR0, 4, 0xfeb00000u);
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb00008u, &off), 0);
	/* mid-probe: nowhere */
	wr(1, PCI_BAR0, 4, ~0u);
	assert_int_equal(vpci_find_bar0(&bus, 0xfffff000u, &off), -1);
	assert_int_equal(vpci_find_bar0(&bus, 0xfeb00008u, &off), 1);
}

static void test_bar2_size(void **state)
{
	(void)state;
	assert_int_equal(vpci_bar2_size(4 * KIB), 4 * KIB);
	assert_int_equal(vpci_bar2_size(4 * KIB + 1), 8 * KIB);
	assert_int_equal(vpci_bar2_size(12 * KIB), 16 * KIB);
	assert_int_equal(vpci_bar2_size(64 * KIB), 64 * KIB);
	assert_int_equal(vpci_bar2_size(3 * MIB), 4 * MIB);
	assert_int_equal(vpci_bar2_size(1 * GIB), 1 * GIB);
	assert_int_equal(vpci_bar2_size(1ull << 63), 1ull << 63);
	assert_int_equal(vpci_bar2_size((1ull << 63) + 1), 0);
	assert_int_equal(vpci_bar2_size(1), 4 * KIB);
}

static void test_init_invalid(void **state)
{
	struct vpci_chan_desc d[VPCI_MAX_CHANNELS + 1];

	(void)state;
	for (unsigned int i = 0; i <= VPCI_MAX_CHANNELS; i++)
		d[i] = (struct vpci_chan_desc){ .size = 64 * KIB, .bar2_gpa = (i + 1) * GIB };
	assert_true(vpci_init(&bus, d, VPCI_MAX_CHANNELS));
	assert_int_equal(rd(8, PCI_BAR0, 4), 0xfeb07000u);
	assert_int_equal(rd(9, PCI_BAR0, 4), 0xffffffffu);
	assert_false(vpci_init(&bus, d, VPCI_MAX_CHANNELS + 1));
	assert_int_equal(bus.chan_count, 0);
	assert_int_equal(rd(1, PCI_VENDOR_ID, 4), 0xffffffffu);	/* left empty */
	assert_int_equal(rd(0, PCI_VENDOR_ID, 4), 0x00081b36);
	assert_false(vpci_init(&bus, NULL, 1));

	d[1] = (struct vpci_chan_desc){ .size = 2 * KIB, .bar2_gpa = 1 * GIB };
	assert_false(vpci_init(&bus, d, 2));				/* under 4 KiB */
	d[1] = (struct vpci_chan_desc){ .size = 64 * KIB, .bar2_gpa = 0 };
	assert_false(vpci_init(&bus, d, 2));				/* no address */
	d[1] = (struct vpci_chan_desc){ .size = 12 * KIB, .bar2_gpa = 1 * GIB + 4 * KIB };
	assert_false(vpci_init(&bus, d, 2));				/* BAR 16 KiB: misaligned */
	d[1] = (struct vpci_chan_desc){ .size = 3 * MIB, .bar2_gpa = 1 * GIB + 2 * MIB };
	assert_false(vpci_init(&bus, d, 2));				/* BAR 4 MiB: misaligned */
	d[1] = (struct vpci_chan_desc){ .size = 64 * KIB, .bar2_gpa = 0xffffffffffff0000ull };
	assert_false(vpci_init(&bus, d, 2));				/* ends at 2^64: a probe */
	d[1] = (struct vpci_chan_desc){ .size = (1ull << 63) + 1, .bar2_gpa = 1ull << 63 };
	assert_false(vpci_init(&bus, d, 2));				/* no such BAR */
	d[1] = (struct vpci_chan_desc){ .size = 3 * MIB, .bar2_gpa = 1 * GIB + 4 * MIB };
	assert_true(vpci_init(&bus, d, 2));
	assert_int_equal(rd(2, PCI_BAR2, 4), 0x4040000cu);
}

/*
 * An address where a dword of BAR2 holds all of its writable bits reads as a
 * sizing probe, and such a BAR never decodes (vpci_bar2()): vpci_init takes
 * none, or the hypervisor would map the channel where the bus says nothing
 * is and never unmap it when the guest moves the BAR (found by fuzz_vpci).
 */
static void test_init_probe_address(void **state)
{
	static const struct vpci_chan_desc refused[] = {
		{ .size = 1 * GIB, .bar2_gpa = 7 * GIB },	/* low dword 0xc0000000 */
		{ .size = 2 * GIB, .bar2_gpa = 6 * GIB },	/* low dword 0x80000000 */
		{ .size = 4 * KIB, .bar2_gpa = 0x1fffff000ull },
		{ .size = 3 * MIB, .bar2_gpa = 0x2ffc00000ull },	/* BAR 4 MiB */
		{ .size = 1 * GIB, .bar2_gpa = 0xffffffff00000000ull },	/* high dword */
		{ .size = 8 * GIB, .bar2_gpa = 0xfffffffe00000000ull },	/* high dword, 64-bit size */
	};
	static const struct vpci_chan_desc taken[] = {
		{ .size = 1 * GIB, .bar2_gpa = 5 * GIB },
		{ .size = 2 * GIB, .bar2_gpa = 4 * GIB },
		{ .size = 4 * KIB, .bar2_gpa = 0x1ffffe000ull },
		{ .size = 8 * GIB, .bar2_gpa = 0xfffffffc00000000ull },
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_false(vpci_init(&bus, &refused[i], 1));
	for (unsigned int i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		assert_true(vpci_init(&bus, &taken[i], 1));
		assert_true(vpci_bar2(&bus.fn[0]).decodes);
		assert_int_equal(vpci_bar2(&bus.fn[0]).gpa, taken[i].bar2_gpa);
	}
}

static void test_reset(void **state)
{
	uint8_t vector, dest;
	bool logical;

	(void)state;
	outl(CF8, addr(0, 2, 0, 0));
	wr(1, PCI_COMMAND, 2, PCI_COMMAND_MASTER);
	wr(1, PCI_BAR0, 4, 0xfeb40000u);
	wr(1, PCI_BAR2, 4, 0x80000000u);
	wr(1, PCI_INTERRUPT_LINE, 1, 9);
	wr(1, 0x44, 4, 0xfee00000u);
	wr(1, 0x4c, 2, 0x41);
	wr(1, 0x42, 2, 1);
	assert_true(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	vpci_reset(&bus);
	assert_int_equal(inl(CF8), 0);
	assert_false(vpci_msi_target(&bus.fn[0], &vector, &dest, &logical));
	check_chan_header(1, 0xfeb00000u, 1 * GIB);
	check_chan_header(2, 0xfeb01000u, 0x800000000ull);
	assert_true(vpci_bar0(&bus.fn[0]).decodes);
	assert_true(vpci_bar2(&bus.fn[1]).decodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_host_bridge_header, setup_two),
		cmocka_unit_test_setup(test_chan_header, setup_two),
		cmocka_unit_test_setup(test_capability_walk, setup_two),
		cmocka_unit_test_setup(test_type1_probe, setup_two),
		cmocka_unit_test_setup(test_config_address_latch, setup_two),
		cmocka_unit_test_setup(test_bar0_sizing, setup_two),
		cmocka_unit_test_setup(test_bar2_sizing_64, setup_two),
		cmocka_unit_test_setup(test_bar_sizing_decode_on, setup_two),
		cmocka_unit_test_setup(test_bar_moves, setup_two),
		cmocka_unit_test_setup(test_bar2_over_4g, setup_two),
		cmocka_unit_test_setup(test_partial_writes, setup_two),
		cmocka_unit_test_setup(test_read_only, setup_two),
		cmocka_unit_test_setup(test_msi_linux, setup_two),
		cmocka_unit_test_setup(test_msi_invalid, setup_two),
		cmocka_unit_test_setup(test_nonexistent, setup_two),
		cmocka_unit_test_setup(test_malformed, setup_two),
		cmocka_unit_test_setup(test_data_target, setup_two),
		cmocka_unit_test_setup(test_find_bar0, setup_two),
		cmocka_unit_test(test_bar2_size),
		cmocka_unit_test(test_init_invalid),
		cmocka_unit_test(test_init_probe_address),
		cmocka_unit_test_setup(test_reset, setup_two),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
