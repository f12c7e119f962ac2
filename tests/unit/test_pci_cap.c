// SPDX-License-Identifier: MIT
/*
 * The capability-list walk (hv/lib/pci_cap.c) over fake functions: a
 * good list, and lists a broken or hostile function could present (a loop,
 * a pointer into the header, reserved pointer bits, a function that reads
 * all ones).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fake_pci.h"
#include "hv/lib/pci_cap.h"

#define BDF	PCI_BDF(0, 2, 0)

static struct fake_fn *dev;
static struct pci_cap_list caps;

static int setup(void **state)
{
	(void)state;
	fake_reset(PCI_CONFIG_SIZE);
	dev = fake_add(BDF, 0x8086, 0x1234, 0x020000, 0);
	return 0;
}

static void test_none(void **state)
{
	(void)state;
	/* a pointer without the status bit is not a list */
	fake_set(dev, PCI_CAPABILITY_LIST, 1, 0x40, 0);
	fake_set(dev, 0x40, 2, 0x0005, 0);
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, 0);
	assert_false(caps.malformed);
	assert_int_equal(pci_cap_find(&caps, PCI_CAP_ID_MSI), 0);
}

static void test_list(void **state)
{
	(void)state;
	fake_cap(dev, 0x50, PCI_CAP_ID_PM);
	fake_cap(dev, 0x60, PCI_CAP_ID_MSI);
	fake_cap(dev, 0xfc, PCI_CAP_ID_MSIX);
	fake_cap(dev, 0x40, PCI_CAP_ID_EXP);
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, 4);
	assert_false(caps.malformed);
	assert_int_equal(caps.cap[0].offset, 0x50);
	assert_int_equal(caps.cap[3].id, PCI_CAP_ID_EXP);
	assert_int_equal(pci_cap_find(&caps, PCI_CAP_ID_MSI), 0x60);
	assert_int_equal(pci_cap_find(&caps, PCI_CAP_ID_MSIX), 0xfc);
	assert_int_equal(pci_cap_find(&caps, PCI_CAP_ID_VNDR), 0);
}

static void test_reserved_pointer_bits(void **state)
{
	(void)state;
	fake_cap(dev, 0x50, PCI_CAP_ID_PM);
	fake_set(dev, PCI_CAPABILITY_LIST, 1, 0x53, 0);
	fake_set(dev, 0x50, 2, 0x6301, 0);	/* next 0x63: 0x60 */
	fake_set(dev, 0x60, 2, 0x0005, 0);
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, 2);
	assert_int_equal(caps.cap[1].offset, 0x60);
	assert_false(caps.malformed);
}

static void test_loop(void **state)
{
	(void)state;
	fake_cap(dev, 0x50, PCI_CAP_ID_PM);
	fake_cap(dev, 0x60, PCI_CAP_ID_MSI);
	fake_set(dev, 0x61, 1, 0x50, 0);	/* back to the first */
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, 2);
	assert_true(caps.malformed);
	/* onto itself */
	fake_set(dev, 0x51, 1, 0x50, 0);
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, 1);
	assert_true(caps.malformed);
}

static void test_into_header(void **state)
{
	(void)state;
	fake_cap(dev, 0x50, PCI_CAP_ID_PM);
	fake_set(dev, 0x51, 1, 0x10, 0);
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, 1);
	assert_true(caps.malformed);
	fake_set(dev, PCI_CAPABILITY_LIST, 1, 0x3c, 0);
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, 0);
	assert_true(caps.malformed);
}

/* Every dword a capability: the longest list there can be, then the loop. */
static void test_longest(void **state)
{
	(void)state;
	for (uint32_t off = 0x40; off < 0x100; off += 4)
		fake_cap(dev, (uint8_t)off, PCI_CAP_ID_VNDR);
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, PCI_CAP_MAX_COUNT);
	assert_false(caps.malformed);
	fake_set(dev, 0xfd, 1, 0x40, 0);
	pci_cap_walk(&fake_ops, BDF, 0, &caps);
	assert_int_equal(caps.count, PCI_CAP_MAX_COUNT);
	assert_true(caps.malformed);
}

/* A function that is gone reads all ones: status says "list", every pointer 0xFC. */
static void test_all_ones(void **state)
{
	(void)state;
	pci_cap_walk(&fake_ops, PCI_BDF(0, 31, 7), 0, &caps);
	assert_int_equal(caps.count, 1);
	assert_int_equal(caps.cap[0].offset, 0xfc);
	assert_true(caps.malformed);
}

/* CardBus bridges keep their pointer at 0x14. */
static void test_cardbus(void **state)
{
	(void)state;
	fake_set(dev, PCI_STATUS, 2, PCI_STATUS_CAP_LIST, 0);
	fake_set(dev, 0x14, 1, 0x80, 0);
	fake_set(dev, 0x80, 2, 0x0001, 0);
	pci_cap_walk(&fake_ops, BDF, PCI_HEADER_TYPE_CARDBUS | PCI_HEADER_TYPE_MFD, &caps);
	assert_int_equal(caps.count, 1);
	assert_int_equal(caps.cap[0].offset, 0x80);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_none, setup),
		cmocka_unit_test_setup(test_list, setup),
		cmocka_unit_test_setup(test_reserved_pointer_bits, setup),
		cmocka_unit_test_setup(test_loop, setup),
		cmocka_unit_test_setup(test_into_header, setup),
		cmocka_unit_test_setup(test_longest, setup),
		cmocka_unit_test_setup(test_all_ones, setup),
		cmocka_unit_test_setup(test_cardbus, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
