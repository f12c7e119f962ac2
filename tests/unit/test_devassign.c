// SPDX-License-Identifier: MIT
/*
 * Device assignment (hv/core/devassign.c): the four keys' values as an
 * operator writes them and as a broken or hostile config does, and the
 * checks of an assignment against the other partitions and a machine
 * shaped like a small server (a host bridge, an LPC bridge, a root port,
 * two NICs and a serial card, one IOAPIC).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/devassign.h"

#define BDF(b, d, f)	((uint16_t)((b) << 8 | (d) << 3 | (f)))

static struct dev_assignment a, b;
static char err[DEV_MSG_LEN];

static int zero(void **state)
{
	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(err, 0, sizeof(err));
	return 0;
}

static int parse(struct dev_assignment *x, enum dev_key k, const char *v)
{
	return devassign_parse(x, k, v, strlen(v), 7, err, sizeof(err));
}

/* @v refused, with @needle in the message, and the list left empty. */
static void refused(enum dev_key k, const char *v, const char *needle)
{
	struct dev_assignment x;

	memset(&x, 0, sizeof(x));
	if (parse(&x, k, v) == 0)
		fail_msg("'%s' accepted", v);
	if (!strstr(err, needle))
		fail_msg("'%s': message \"%s\" lacks \"%s\"", v, err, needle);
	assert_int_equal(strncmp(err, devassign_key_name(k), strlen(devassign_key_name(k))), 0);
	assert_null(strchr(err, '\n'));
	assert_int_equal(x.pci_count + x.port_count + x.mmio_count + x.irq_count, 0);
	assert_int_equal(x.given, 0);
}

static void test_keys(void **state)
{
	(void)state;
	assert_int_equal(devassign_key("pci", 3), DEV_KEY_PCI);
	assert_int_equal(devassign_key("ports", 5), DEV_KEY_PORTS);
	assert_int_equal(devassign_key("mmio", 4), DEV_KEY_MMIO);
	assert_int_equal(devassign_key("irqs", 4), DEV_KEY_IRQS);
	assert_int_equal(devassign_key("irq", 3), -1);
	assert_int_equal(devassign_key("pcie", 4), -1);
	assert_int_equal(devassign_key("pci", 2), -1);
	assert_int_equal(devassign_key("", 0), -1);
	assert_string_equal(devassign_key_name(DEV_KEY_COUNT), "?");
	assert_int_equal(devassign_parse(&a, DEV_KEY_COUNT, "1", 1, 1, err, sizeof(err)), -1);
}

/* ---- pci = ---- */

static void test_pci(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_PCI, "00:19.0, 01:00.0,0000:00:1f.3 , 0a:1F.7"), 0);
	assert_int_equal(a.pci_count, 4);
	assert_int_equal(a.pci[0], BDF(0, 0x19, 0));
	assert_int_equal(a.pci[1], BDF(1, 0, 0));
	assert_int_equal(a.pci[2], BDF(0, 0x1f, 3));
	assert_int_equal(a.pci[3], BDF(0x0a, 0x1f, 7));
	assert_int_equal(a.line[DEV_KEY_PCI], 7);
	assert_true(a.given & (1u << DEV_KEY_PCI));
	assert_int_equal(parse(&a, DEV_KEY_PCI, "02:00.0"), -1);
	assert_string_equal(err, "pci: given twice (first on line 7)");
	assert_int_equal(a.pci_count, 4);
	assert_int_equal(parse(&b, DEV_KEY_PCI, "ff:1f.7"), 0);
	assert_int_equal(b.pci[0], 0xffff);
}

static void test_pci_bad(void **state)
{
	char many[16 * 9 + 16];

	(void)state;
	refused(DEV_KEY_PCI, "", "expected a list, found nothing");
	refused(DEV_KEY_PCI, "   ", "expected a list");
	refused(DEV_KEY_PCI, "00:19", "expected BB:DD.F in hex (00:19.0), found '00:19'");
	refused(DEV_KEY_PCI, "00.19.0", "found '00.19.0'");
	refused(DEV_KEY_PCI, "00:19.", "expected BB:DD.F");
	refused(DEV_KEY_PCI, ":19.0", "expected BB:DD.F");
	refused(DEV_KEY_PCI, "100:00.0", "found '100:00.0'");
	refused(DEV_KEY_PCI, "zz:00.0", "found 'zz:00.0'");
	refused(DEV_KEY_PCI, "00:0x1.0", "expected BB:DD.F");
	refused(DEV_KEY_PCI, "00:19.10", "expected BB:DD.F");
	refused(DEV_KEY_PCI, "1:2:3:4.0", "expected BB:DD.F");
	refused(DEV_KEY_PCI, "00000:00:19.0", "expected BB:DD.F");
	refused(DEV_KEY_PCI, "00:19.8", "device 19 and function 8 must be at most 1f and 7");
	refused(DEV_KEY_PCI, "00:20.0", "device 20 and function 0");
	refused(DEV_KEY_PCI, "0001:00:19.0", "segment 1: Tempo uses segment 0 only");
	refused(DEV_KEY_PCI, "00:19.0 00:1a.0", "found '00:19.0 00:1a.0'");
	refused(DEV_KEY_PCI, "00:19.0,", "an empty item in the list");
	refused(DEV_KEY_PCI, ",00:19.0", "an empty item");
	refused(DEV_KEY_PCI, "00:19.0,,00:1a.0", "an empty item");
	refused(DEV_KEY_PCI, "00:19.0, 0:19.0", "00:19.0 listed twice");
	many[0] = 0;
	for (int i = 0; i < 17; i++)
		sprintf(many + strlen(many), "%s01:%02x.0", i ? "," : "", i);
	refused(DEV_KEY_PCI, many, "at most 16 functions");
	/* what a message quotes is printable: it stays one line */
	refused(DEV_KEY_PCI, "00:19\n0", "found '00:19?0'");
	refused(DEV_KEY_PORTS, "0x300-0x2ff\r", "found '0x300-0x2ff?'");
	/* a long bad item is quoted cut, the message stays one line */
	refused(DEV_KEY_PCI, "0123456789012345678901234567890123456789012345678901234567890123",
		"found '0123456789012345678901234567890123456789'");
}

/* ---- ports = ---- */

static void test_ports(void **state)
{
	(void)state;
	assert_int_equal(
	    parse(&a, DEV_KEY_PORTS, "0x2f8-0x2ff, 0x80 , 888-895, 0x3e8 - 0x3ef,0xffff"), 0);
	assert_int_equal(a.port_count, 5);
	assert_int_equal(a.ports[0].first, 0x2f8);
	assert_int_equal(a.ports[0].last, 0x2ff);
	assert_int_equal(a.ports[1].first, 0x80);
	assert_int_equal(a.ports[1].last, 0x80);
	assert_int_equal(a.ports[2].first, 0x378);
	assert_int_equal(a.ports[2].last, 0x37f);
	assert_int_equal(a.ports[3].last, 0x3ef);
	assert_int_equal(a.ports[4].first, 0xffff);
}

static void test_ports_bad(void **state)
{
	char many[17 * 8 + 1] = "";

	(void)state;
	refused(DEV_KEY_PORTS, "0x300-0x2ff", "'0x300-0x2ff': the last port is below the first");
	refused(DEV_KEY_PORTS, "0x10000", "ports end at 0xffff");
	refused(DEV_KEY_PORTS, "0xfff8-0x10007", "ports end at 0xffff");
	refused(DEV_KEY_PORTS, "99999999999999999999999", "expected FIRST-LAST or a port");
	refused(DEV_KEY_PORTS, "0x2f8-",
		"expected FIRST-LAST or a port (0x2f8-0x2ff), found '0x2f8-'");
	refused(DEV_KEY_PORTS, "-1", "expected FIRST-LAST");
	refused(DEV_KEY_PORTS, "0x", "expected FIRST-LAST");
	refused(DEV_KEY_PORTS, "0x2g8", "expected FIRST-LAST");
	refused(DEV_KEY_PORTS, "0x2f8-0x2ff-0x300", "expected FIRST-LAST");
	refused(DEV_KEY_PORTS, "0x2f8-0x2ff, 0x2fc",
		"0x2fc-0x2fc overlaps 0x2f8-0x2ff, listed before");
	refused(DEV_KEY_PORTS, "0x2f8-0x2ff, 0x2f0-0x2f8", "overlaps 0x2f8-0x2ff");
	for (int i = 0; i < 17; i++)
		sprintf(many + strlen(many), "%s0x%x", i ? "," : "", 0x100 + i);
	refused(DEV_KEY_PORTS, many, "at most 16 ranges");
}

/* ---- mmio = ---- */

static void test_mmio(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_MMIO, "0xfed00000+0x1000, 0xfe000000+64K,"
				   "0x100000000 + 1M, 0x140000000+1g, 4096+4k, "
				   "0xfffffffff000+0x1000"), 0);	/* the EPT's last page */
	assert_int_equal(a.mmio_count, 6);
	assert_int_equal(a.mmio[0].base, 0xfed00000);
	assert_int_equal(a.mmio[0].size, 0x1000);
	assert_int_equal(a.mmio[1].size, 0x10000);
	assert_int_equal(a.mmio[2].base, 0x100000000ull);
	assert_int_equal(a.mmio[2].size, 0x100000);
	assert_int_equal(a.mmio[3].size, 0x40000000);
	assert_int_equal(a.mmio[4].base, 0x1000);
	assert_int_equal(a.mmio[5].base, 0xfffffffff000ull);
}

static void test_mmio_bad(void **state)
{
	(void)state;
	refused(DEV_KEY_MMIO, "0xfed00000", "expected BASE+SIZE (0xfed00000+0x1000 or "
		"0xfe000000+64K), found '0xfed00000'");
	refused(DEV_KEY_MMIO, "0xfed00000-0xfed00fff", "expected BASE+SIZE");
	refused(DEV_KEY_MMIO, "0xfed00800+0x1000", "multiples of 4 KiB");
	refused(DEV_KEY_MMIO, "0xfed00000+0x800", "multiples of 4 KiB");
	refused(DEV_KEY_MMIO, "0xfed00000+0", "the size not 0");
	refused(DEV_KEY_MMIO, "0xfed00000+4X", "expected BASE+SIZE");
	refused(DEV_KEY_MMIO, "0xfed00000+K", "expected BASE+SIZE");
	refused(DEV_KEY_MMIO, "+0x1000", "expected BASE+SIZE");
	refused(DEV_KEY_MMIO, "0xfffffffffffff000+0x2000", "runs past 2^48");
	/* the EPT maps 48 bits: a range above would wrap onto a low guest address */
	refused(DEV_KEY_MMIO, "0x1000000000000+0x1000", "runs past 2^48, the top of what the EPT maps");
	refused(DEV_KEY_MMIO, "0xfffffffff000+0x2000", "runs past 2^48");
	refused(DEV_KEY_MMIO, "0x1000+99999999999999999999G", "expected BASE+SIZE");
	refused(DEV_KEY_MMIO, "0x1000+0x4000000000000000G", "expected BASE+SIZE");
	refused(DEV_KEY_MMIO, "0x1000+17179869184G", "expected BASE+SIZE");	/* 2^64 */
	refused(DEV_KEY_MMIO, "0x10000000000000000+0x1000", "expected BASE+SIZE");
	refused(DEV_KEY_MMIO, "0xfed00000+0x2000, 0xfed01000+0x1000",
		"0xfed01000+0x1000 overlaps 0xfed00000+0x2000, listed before");
}

/* ---- irqs = ---- */

static void test_irqs(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_IRQS, "3, 4,16-19, 0x28 , 1023"), 0);
	assert_int_equal(a.irq_count, 8);
	assert_int_equal(a.irqs[0], 3);
	assert_int_equal(a.irqs[2], 16);
	assert_int_equal(a.irqs[5], 19);
	assert_int_equal(a.irqs[6], 40);
	assert_int_equal(a.irqs[7], 1023);
}

static void test_irqs_bad(void **state)
{
	(void)state;
	refused(DEV_KEY_IRQS, "1024", "'1024': GSIs end at 1023");
	refused(DEV_KEY_IRQS, "5-3", "the last GSI is below the first");
	refused(DEV_KEY_IRQS, "4, 3-5", "GSI 4 listed twice");
	refused(DEV_KEY_IRQS, "0-32", "at most 32 GSIs");
	refused(DEV_KEY_IRQS, "0-4294967295", "GSIs end at 1023");
	refused(DEV_KEY_IRQS, "a", "expected a GSI or FIRST-LAST (3, 16-19), found 'a'");
	refused(DEV_KEY_IRQS, "3;4", "expected a GSI");
	assert_int_equal(parse(&a, DEV_KEY_IRQS, "0-31"), 0);
	assert_int_equal(a.irq_count, 32);
}

/* Messages are cut to the buffer, and no buffer is fine. */
static void test_small_buffers(void **state)
{
	char small[8];

	(void)state;
	memset(small, 'x', sizeof(small));
	assert_int_equal(devassign_parse(&a, DEV_KEY_PCI, "junk", 4, 1, small, sizeof(small)),
			 -1);
	assert_string_equal(small, "pci: ex");
	assert_int_equal(devassign_parse(&b, DEV_KEY_PCI, "junk", 4, 1, NULL, 0), -1);
	/* the value need not be terminated: only @len bytes are read */
	assert_int_equal(devassign_parse(&b, DEV_KEY_IRQS, "12345", 1, 1, err, sizeof(err)), 0);
	assert_int_equal(b.irqs[0], 1);
}

/* ---- the machine ---- */

static const struct dev_fn_info fns[] = {
	{ BDF(0, 0, 0), 0, 0x060000, { { 0 } }, 0, 0 },			/* host bridge */
	{ BDF(0, 0x1f, 0), 0x80, 0x060100, { { 0 } }, 0, 0 },		/* LPC bridge */
	{ BDF(0, 0x1c, 0), 0x81, 0x060400, { { 0 } }, 0, 0 },		/* root port */
	{ BDF(0, 0x19, 0), 0, 0x020000, {				/* NIC */
		{ false, 0xf7d00000, 0x20000 }, { true, 0xf080, 0x20 } }, 0, 0 },
	{ BDF(1, 0, 0), 0, 0x020000, { { false, 0xf7c00000, 0x20000 } }, 0, 0 },	/* NIC */
	{ BDF(2, 0, 0), 0, 0x070002, { { true, 0xe000, 8 } }, 0, 0 },		/* serial card */
	{ BDF(0, 0x1f, 3), 0x80, 0x0c0500, { { true, 0xf040, 0x20 } }, 0, 0 },	/* SMBus */
	{ BDF(3, 0, 0), 0, 0x020000, { { true, 0xd000, 0x20 } }, 1, 11 },	/* NE2000, INTA: 11 */
	{ BDF(3, 1, 0), 0, 0x020000, { { true, 0xd100, 0x20 } }, 2, 0xff },	/* INTB, not routed */
	{ BDF(3, 2, 0), 0, 0x020000, { { true, 0xd200, 0x20 } }, 0, 10 },	/* no pin */
};

static const struct dev_gsi_range gsis[] = { { 0, 24 } };
static const struct dev_mmio_range ram[] = {
	{ 0, 0x80000000ull }, { 0x100000000ull, 0x100000000ull },
};
static struct dev_reserved reserved[32];
static struct dev_machine machine;
static struct dev_platform plat;
static struct dev_refusal out[64];

static int setup_machine(void **state)
{
	zero(state);
	memset(&plat, 0, sizeof(plat));
	plat.console_port = 0x3f8;
	plat.debugcon = true;
	plat.lapic_phys = 0xfee00000;
	plat.ioapic_count = 1;
	plat.ioapic_phys[0] = 0xfec00000;
	plat.hpet_in_use = true;
	plat.hpet_phys = 0xfed00000;
	plat.ecam_count = 1;
	plat.ecam[0] = (struct dev_mmio_range){ 0xe0000000, 0x10000000 };
	plat.ram_count = 2;
	plat.ram = ram;
	memset(&machine, 0, sizeof(machine));
	machine.fns = fns;
	machine.fn_count = sizeof(fns) / sizeof(fns[0]);
	machine.gsis = gsis;
	machine.gsi_range_count = 1;
	machine.reserved = reserved;
	machine.reserved_count = devassign_reserved(&plat, reserved, 32);
	assert_true(machine.reserved_count <= 32);
	memset(out, 0, sizeof(out));
	return 0;
}

static uint32_t check2(void)
{
	const struct dev_partition parts[] = { { "net", &a }, { "io", &b } };

	return devassign_check(parts, 2, &machine, out, 32);
}

static void test_reserved(void **state)
{
	struct dev_reserved few[3];

	(void)state;
	/* 9 fixed, the UART, 0xE9, LAPIC, IOAPIC, HPET, ECAM and two RAM ranges */
	assert_int_equal(machine.reserved_count, 17);
	assert_int_equal(reserved[9].first, 0x3f8);
	assert_int_equal(reserved[9].last, 0x3ff);
	assert_int_equal(reserved[16].space, DEV_SPACE_MMIO);
	assert_int_equal(reserved[16].last, 0x1ffffffffull);
	assert_int_equal(devassign_reserved(&plat, few, 3), 17);
	assert_int_equal(few[2].first, 0x60);
	plat.hpet_in_use = false;
	plat.debugcon = false;
	plat.console_port = 0;
	assert_int_equal(devassign_reserved(&plat, reserved, 32), 14);
}

static void test_accepted(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_PCI, "00:19.0"), 0);
	/* its own function's BAR */
	assert_int_equal(parse(&a, DEV_KEY_PORTS, "0x2f8-0x2ff, 0xf080-0xf09f"), 0);
	assert_int_equal(parse(&a, DEV_KEY_IRQS, "3, 16"), 0);
	assert_int_equal(parse(&b, DEV_KEY_PCI, "01:00.0, 02:00.0"), 0);
	assert_int_equal(parse(&b, DEV_KEY_MMIO, "0xfed40000+0x1000"), 0);
	assert_int_equal(parse(&b, DEV_KEY_IRQS, "4, 17-19"), 0);
	assert_int_equal(check2(), 0);
	/* a partition with nothing, and none at all */
	memset(&b, 0, sizeof(b));
	assert_int_equal(check2(), 0);
	assert_int_equal(devassign_check(NULL, 0, &machine, out, 32), 0);
}

static void expect(uint32_t i, uint32_t part, enum dev_key key, enum dev_reason why,
		   const char *msg)
{
	assert_int_equal(out[i].partition, part);
	assert_int_equal(out[i].key, key);
	assert_int_equal(out[i].reason, why);
	assert_int_equal(out[i].line, 7);
	if (strcmp(out[i].msg, msg))
		fail_msg("refusal %u: \"%s\", expected \"%s\"", i, out[i].msg, msg);
}

static void test_functions_refused(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_PCI, "00:19.0"), 0);
	assert_int_equal(parse(&b, DEV_KEY_PCI, "00:19.0, 00:1c.0, 00:00.0, 00:1f.0, 05:00.0, "
				   "00:1f.3"), 0);
	assert_int_equal(check2(), 5);
	expect(0, 1, DEV_KEY_PCI, DEV_REASON_TWICE,
	       "pci: 00:19.0 is also given to partition 'net'");
	expect(1, 1, DEV_KEY_PCI, DEV_REASON_BRIDGE, "pci: 00:1c.0 is a bridge (class 0x060400, "
	       "header type 1): what is behind it, and its windows, are shared");
	expect(2, 1, DEV_KEY_PCI, DEV_REASON_BRIDGE, "pci: 00:00.0 is a bridge (class 0x060000, "
	       "header type 0): what is behind it, and its windows, are shared");
	expect(3, 1, DEV_KEY_PCI, DEV_REASON_BRIDGE, "pci: 00:1f.0 is a bridge (class 0x060100, "
	       "header type 0): what is behind it, and its windows, are shared");
	expect(4, 1, DEV_KEY_PCI, DEV_REASON_NO_FUNCTION,
	       "pci: 05:00.0: no such function on this machine");
}

/* A function's INTx GSI (the line firmware wrote) must be among its partition's irqs. */
static void test_intx_gsi(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_PCI, "03:00.0"), 0);
	assert_int_equal(check2(), 1);
	expect(0, 0, DEV_KEY_PCI, DEV_REASON_INTX_GSI, "pci: 03:00.0: its INTA reaches GSI 11 "
	       "(the interrupt line firmware wrote): give the partition irqs = 11 too");
	/* another partition's input is no help */
	assert_int_equal(parse(&b, DEV_KEY_IRQS, "11"), 0);
	assert_true(check2() >= 1);
	assert_int_equal(out[0].reason, DEV_REASON_INTX_GSI);
	memset(&b, 0, sizeof(b));
	assert_int_equal(parse(&a, DEV_KEY_IRQS, "4, 11"), 0);
	assert_int_equal(check2(), 0);
	/* no pin, or a line firmware left unrouted: no input needed */
	memset(&a, 0, sizeof(a));
	assert_int_equal(parse(&a, DEV_KEY_PCI, "03:01.0, 03:02.0"), 0);
	assert_int_equal(check2(), 0);
}

static void test_intx_gsi_rule(void **state)
{
	struct dev_fn_info f = { 0 };

	(void)state;
	assert_int_equal(devassign_intx_gsi(&f), -1);
	f.interrupt_pin = 1;
	assert_int_equal(devassign_intx_gsi(&f), -1);	/* line 0 */
	f.interrupt_line = 0xff;
	assert_int_equal(devassign_intx_gsi(&f), -1);
	f.interrupt_line = 9;
	assert_int_equal(devassign_intx_gsi(&f), 9);
	f.interrupt_pin = 4;
	assert_int_equal(devassign_intx_gsi(&f), 9);
	f.interrupt_pin = 5;				/* hostile: no INTE */
	assert_int_equal(devassign_intx_gsi(&f), -1);
}

static void test_ports_refused(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_PCI, "00:19.0"), 0);
	assert_int_equal(parse(&a, DEV_KEY_PORTS, "0x2f8-0x2ff"), 0);
	assert_int_equal(parse(&b, DEV_KEY_PORTS, "0x3f8-0x3ff, 0xcf9, 0x70, 0x2fc-0x300, "
				   "0xf090, 0xe000-0xe007, 0xe9, 0x4d0"), 0);
	assert_int_equal(check2(), 8);
	expect(0, 1, DEV_KEY_PORTS, DEV_REASON_RESERVED, "ports: 0x3f8-0x3ff overlaps Tempo's "
	       "console UART (0x3f8-0x3ff): Tempo keeps it");
	expect(1, 1, DEV_KEY_PORTS, DEV_REASON_RESERVED, "ports: 0xcf9-0xcf9 overlaps the PCI "
	       "configuration ports and reset control (0xcf8-0xcff): Tempo keeps it");
	expect(2, 1, DEV_KEY_PORTS, DEV_REASON_RESERVED, "ports: 0x70-0x70 overlaps the RTC "
	       "index and the NMI mask (0x70-0x77): Tempo keeps it");
	expect(3, 1, DEV_KEY_PORTS, DEV_REASON_TWICE,
	       "ports: 0x2fc-0x300 overlaps a range given to partition 'net'");
	expect(4, 1, DEV_KEY_PORTS, DEV_REASON_TWICE,
	       "ports: 0xf090-0xf090 overlaps BAR1 of 00:19.0, given to partition 'net'");
	expect(5, 1, DEV_KEY_PORTS, DEV_REASON_FUNCTION_BAR, "ports: 0xe000-0xe007 overlaps BAR0 "
	       "of 02:00.0: give the function with pci = instead");
	expect(6, 1, DEV_KEY_PORTS, DEV_REASON_RESERVED,
	       "ports: 0xe9-0xe9 overlaps Tempo's debug port (0xe9-0xe9): Tempo keeps it");
	assert_int_equal(out[7].reason, DEV_REASON_RESERVED);
}

/* A range over a BAR of a function a later partition has: found at the range. */
static void test_range_before_function(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_MMIO, "0xf7c00000+0x1000"), 0);
	assert_int_equal(parse(&b, DEV_KEY_PCI, "01:00.0"), 0);
	assert_int_equal(check2(), 1);
	assert_int_equal(out[0].partition, 0);
	assert_string_equal(out[0].msg, "mmio: 0xf7c00000+0x1000 overlaps BAR0 of 01:00.0, given "
			    "to partition 'io'");
}

static void test_mmio_refused(void **state)
{
	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_MMIO, "0xfed40000+0x2000"), 0);
	assert_int_equal(parse(&b, DEV_KEY_MMIO, "0xfee00000+0x1000, 0x1000000+0x1000, "
				   "0xfed00000+0x1000, 0xe0001000+0x1000, 0xfed41000+0x1000, "
				   "0xfec00000+0x1000, 0x180000000+0x1000"), 0);
	assert_int_equal(check2(), 7);
	expect(0, 1, DEV_KEY_MMIO, DEV_REASON_RESERVED, "mmio: 0xfee00000+0x1000 overlaps the "
	       "LAPIC registers (0xfee00000-0xfee00fff): Tempo keeps it");
	expect(1, 1, DEV_KEY_MMIO, DEV_REASON_RESERVED,
	       "mmio: 0x1000000+0x1000 overlaps RAM (0x0-0x7fffffff): Tempo keeps it");
	expect(2, 1, DEV_KEY_MMIO, DEV_REASON_RESERVED, "mmio: 0xfed00000+0x1000 overlaps the "
	       "HPET (Tempo calibrates with it) (0xfed00000-0xfed00fff): Tempo keeps it");
	expect(3, 1, DEV_KEY_MMIO, DEV_REASON_RESERVED, "mmio: 0xe0001000+0x1000 overlaps PCI "
	       "configuration space (ECAM) (0xe0000000-0xefffffff): Tempo keeps it");
	expect(4, 1, DEV_KEY_MMIO, DEV_REASON_TWICE,
	       "mmio: 0xfed41000+0x1000 overlaps a range given to partition 'net'");
	assert_int_equal(out[5].reason, DEV_REASON_RESERVED);
	assert_int_equal(out[6].reason, DEV_REASON_RESERVED);	/* RAM above 4 GiB */
	/* an HPET Tempo no longer uses may be given */
	plat.hpet_in_use = false;
	machine.reserved_count = devassign_reserved(&plat, reserved, 32);
	assert_int_equal(check2(), 6);
}

static void test_irqs_refused(void **state)
{
	static const struct dev_gsi_range two[] = { { 0, 24 }, { 24, 32 } };

	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_IRQS, "16"), 0);
	assert_int_equal(parse(&b, DEV_KEY_IRQS, "16, 24, 200"), 0);
	assert_int_equal(check2(), 3);
	expect(0, 1, DEV_KEY_IRQS, DEV_REASON_TWICE,
	       "irqs: GSI 16 is also given to partition 'net'");
	expect(1, 1, DEV_KEY_IRQS, DEV_REASON_NO_GSI,
	       "irqs: GSI 24: no IOAPIC input has it (this machine has GSIs 0-23)");
	machine.gsis = two;
	machine.gsi_range_count = 2;
	assert_int_equal(check2(), 2);
	assert_string_equal(out[1].msg, "irqs: GSI 200: no IOAPIC input has it (this machine has "
			    "GSIs 0-23, 24-55)");
	machine.gsi_range_count = 0;
	assert_int_equal(check2(), 5);
	assert_string_equal(out[0].msg,
			    "irqs: GSI 16: no IOAPIC input has it (this machine has GSIs none)");
}

/* More refusals than room: all counted, the first ones kept. */
static void test_counted_beyond_room(void **state)
{
	const struct dev_partition parts[] = { { "net", &a }, { NULL, &b }, { "none", NULL } };

	(void)state;
	assert_int_equal(parse(&a, DEV_KEY_IRQS, "100-131"), 0);
	assert_int_equal(parse(&b, DEV_KEY_IRQS, "100-131"), 0);
	assert_int_equal(devassign_check(parts, 3, &machine, out, 5), 96);
	assert_int_equal(out[4].partition, 0);
	assert_int_equal(devassign_check(parts, 3, &machine, NULL, 5), 96);
	assert_int_equal(devassign_check(parts, 3, &machine, out, 0), 96);
	assert_int_equal(devassign_check(parts, 3, &machine, out, 64), 96);
	assert_string_equal(out[62].msg, "irqs: GSI 115 is also given to partition 'net'");
	assert_string_equal(out[63].msg,
			    "irqs: GSI 115: no IOAPIC input has it (this machine has GSIs 0-23)");
	assert_int_equal(out[63].partition, 1);
}

/*
 * Firmware's registers, as a Q35-like FADT, DMAR and TPM2 give them: the
 * SMI command port, PM1a event and control blocks, PM timer, a reset
 * register in memory, one remapping unit, the TPM. Each refused with its
 * line and what it is; a block with length 0 gets the spec's least, and a
 * port block running past 0xFFFF stops there.
 */
static void test_firmware_reserved(void **state)
{
	(void)state;
	plat.smi_cmd_port = 0xb2;
	plat.pm1a_evt_port = 0x600;
	plat.pm1_evt_len = 4;
	plat.pm1a_cnt_port = 0x604;
	plat.pm1_cnt_len = 0;		/* the least: 2 */
	plat.pm_tmr_port = 0x608;
	plat.pm_tmr_len = 4;
	plat.reset_reg_valid = true;
	plat.reset_reg_io = false;
	plat.reset_reg_addr = 0xfed03c00;
	plat.drhd_count = 1;
	plat.drhd[0] = (struct dev_mmio_range){ 0xfed90000, 0x1000 };
	plat.tpm = true;
	machine.reserved_count = devassign_reserved(&plat, reserved, 32);
	assert_int_equal(machine.reserved_count, 17 + 7);
	assert_int_equal(parse(&a, DEV_KEY_PORTS, "0xb2, 0x602-0x603, 0x605, 0x60b-0x60c, 0x606"),
			 0);
	assert_int_equal(parse(&b, DEV_KEY_MMIO, "0xfed03000+0x1000, 0xfed90000+0x1000, "
				   "0xfed44000+0x1000, 0xfed45000+0x1000"), 0);
	assert_int_equal(check2(), 7);
	expect(0, 0, DEV_KEY_PORTS, DEV_REASON_RESERVED, "ports: 0xb2-0xb2 overlaps the FADT's "
	       "SMI command port (it enters SMM) (0xb2-0xb2): Tempo keeps it");
	expect(1, 0, DEV_KEY_PORTS, DEV_REASON_RESERVED, "ports: 0x602-0x603 overlaps the FADT's "
	       "PM1a event block (0x600-0x603): Tempo keeps it");
	expect(2, 0, DEV_KEY_PORTS, DEV_REASON_RESERVED, "ports: 0x605-0x605 overlaps the FADT's "
	       "PM1a control block (SLP_EN powers the machine off) (0x604-0x605): Tempo keeps it");
	expect(3, 0, DEV_KEY_PORTS, DEV_REASON_RESERVED, "ports: 0x60b-0x60c overlaps the ACPI PM "
	       "timer (0x608-0x60b): Tempo keeps it");
	expect(4, 1, DEV_KEY_MMIO, DEV_REASON_RESERVED, "mmio: 0xfed03000+0x1000 overlaps the "
	       "FADT's reset register (0xfed03000-0xfed03fff): Tempo keeps it");
	expect(5, 1, DEV_KEY_MMIO, DEV_REASON_RESERVED, "mmio: 0xfed90000+0x1000 overlaps a VT-d "
	       "remapping unit's registers (DMAR) (0xfed90000-0xfed90fff): Tempo keeps it");
	expect(6, 1, DEV_KEY_MMIO, DEV_REASON_RESERVED, "mmio: 0xfed44000+0x1000 overlaps the "
	       "TPM's locality pages (0xfed40000-0xfed44fff): Tempo keeps it");
	/* 0x606 (past the control block's 2) and 0xfed45000 (past the TPM's 5 pages) pass */

	/* a reset register at 0xCF9 is in the fixed list already; elsewhere in ports, its own */
	plat.reset_reg_io = true;
	plat.reset_reg_addr = 0xcf9;
	assert_int_equal(devassign_reserved(&plat, reserved, 32), 17 + 6);
	plat.reset_reg_addr = 0x64;
	assert_int_equal(devassign_reserved(&plat, reserved, 32), 17 + 7);
	assert_int_equal(reserved[17 + 4].first, 0x64);
	/* hostile FADT values: ports past 0xFFFF dropped, a block at its top cut there */
	plat.reset_reg_addr = 0x10000;
	plat.smi_cmd_port = 0x12345;
	plat.pm1a_evt_port = 0xfffe;
	plat.pm1_evt_len = 255;
	plat.pm1b_cnt_port = 0xffffffff;
	plat.drhd[0] = (struct dev_mmio_range){ 0xfffffffffffff000ull, 0x2000 };	/* wraps */
	machine.reserved_count = devassign_reserved(&plat, reserved, 32);
	assert_int_equal(machine.reserved_count, 17 + 4);
	assert_int_equal(reserved[17].first, 0xfffe);
	assert_int_equal(reserved[17].last, 0xffff);
	/* and none of it without the tables */
	memset(&plat.smi_cmd_port, 0, sizeof(plat) - offsetof(struct dev_platform, smi_cmd_port));
	assert_int_equal(devassign_reserved(&plat, reserved, 32), 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_keys, zero),
		cmocka_unit_test_setup(test_pci, zero),
		cmocka_unit_test_setup(test_pci_bad, zero),
		cmocka_unit_test_setup(test_ports, zero),
		cmocka_unit_test_setup(test_ports_bad, zero),
		cmocka_unit_test_setup(test_mmio, zero),
		cmocka_unit_test_setup(test_mmio_bad, zero),
		cmocka_unit_test_setup(test_irqs, zero),
		cmocka_unit_test_setup(test_irqs_bad, zero),
		cmocka_unit_test_setup(test_small_buffers, zero),
		cmocka_unit_test_setup(test_reserved, setup_machine),
		cmocka_unit_test_setup(test_accepted, setup_machine),
		cmocka_unit_test_setup(test_functions_refused, setup_machine),
		cmocka_unit_test_setup(test_intx_gsi, setup_machine),
		cmocka_unit_test(test_intx_gsi_rule),
		cmocka_unit_test_setup(test_ports_refused, setup_machine),
		cmocka_unit_test_setup(test_range_before_function, setup_machine),
		cmocka_unit_test_setup(test_mmio_refused, setup_machine),
		cmocka_unit_test_setup(test_irqs_refused, setup_machine),
		cmocka_unit_test_setup(test_counted_beyond_room, setup_machine),
		cmocka_unit_test_setup(test_firmware_reserved, setup_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
