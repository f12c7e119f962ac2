// SPDX-License-Identifier: MIT
/* The I/O port table: sorted, and the devices at their ports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/fw_cfg.h"
#include "hv/core/guest_boot.h"
#include "hv/core/io_policy.h"
#include "hv/core/vuart.h"

static void test_sorted_disjoint(void **state)
{
	unsigned int n;
	const struct io_rule *r = io_rules(&n);

	(void)state;
	assert_true(n > 0);
	for (unsigned int i = 0; i < n; i++) {
		assert_true(r[i].first <= r[i].last);
		assert_non_null(r[i].what);
		if (i)
			assert_true(r[i - 1].last < r[i].first);
		for (uint32_t p = r[i].first; p <= r[i].last; p++)
			assert_ptr_equal(io_rule_find((uint16_t)p), &r[i]);
	}
}

static void test_devices(void **state)
{
	(void)state;
	/* the UART owns exactly the ports vuart_owns_port says */
	for (uint32_t p = 0; p <= 0xffff; p++)
		assert_int_equal(io_rule_find((uint16_t)p)->device == IO_UART,
				 vuart_owns_port((uint16_t)p));
	assert_int_equal(io_rule_find(GUEST_ACPI_PM_PORT)->device, IO_ACPI_PM);
	assert_int_equal(io_rule_find(GUEST_ACPI_PM_PORT + 1)->device, IO_NONE);
	/* the legacy PC devices and anything else: none, reads float high */
	assert_int_equal(io_rule_find(0x40)->device, IO_NONE);	/* PIT */
	assert_int_equal(io_rule_find(0x20)->device, IO_NONE);	/* PIC */
	assert_int_equal(io_rule_find(0x70)->device, IO_NONE);	/* CMOS */
	/* PCI: a bus only in partitions with channels (hv/exit/io.c asks vpci_claims) */
	assert_int_equal(io_rule_find(0xcf8)->device, IO_PCI);
	for (uint32_t p = 0xcfc; p <= 0xcff; p++)
		assert_int_equal(io_rule_find((uint16_t)p)->device, IO_PCI);
	assert_int_equal(io_rule_find(0xd00)->device, IO_NONE);
	assert_int_equal(io_rule_find(0xffff)->device, IO_NONE);
	assert_int_equal(io_float(), 0xffffffffu);
	/* the test devices (each on only where the partition's config says) */
	for (uint32_t p = 0xf4; p <= 0xf7; p++)
		assert_int_equal(io_rule_find((uint16_t)p)->device, IO_DEBUG_EXIT);
	assert_int_equal(io_rule_find(0xf8)->device, IO_NONE);
	assert_int_equal(io_rule_find(0x510)->device, IO_FW_CFG);
	assert_int_equal(io_rule_find(0x511)->device, IO_FW_CFG);
	assert_int_equal(io_rule_find(0x514)->device, IO_NONE);	/* no DMA interface */
	assert_int_equal(io_debug_exit_code(0), 1);
	assert_int_equal(io_debug_exit_code(3), 7);
	assert_int_equal(io_debug_exit_code(0xffffffffu), 0x1ffffffffll);
}

static uint64_t fw_cfg_item(struct fw_cfg *f, uint16_t key, uint32_t bytes)
{
	uint64_t v = 0;

	fw_cfg_select(f, key);
	for (uint32_t i = 0; i < bytes; i++)
		v |= (uint64_t)fw_cfg_read(f) << (8 * i);
	return v;
}

/* What kvm-unit-tests reads: the signature, the CPU count, the RAM size. */
static void test_fw_cfg(void **state)
{
	struct fw_cfg f;

	(void)state;
	fw_cfg_init(&f, 6ull << 30, 3);
	assert_int_equal(fw_cfg_item(&f, FW_CFG_SIGNATURE, 4), 0x554d4551);	/* "QEMU" */
	assert_int_equal(fw_cfg_read(&f), 0);	/* past the end */
	assert_int_equal(fw_cfg_item(&f, FW_CFG_ID, 4), 1);	/* no DMA */
	assert_int_equal(fw_cfg_item(&f, FW_CFG_NB_CPUS, 2), 3);
	assert_int_equal(fw_cfg_item(&f, FW_CFG_MAX_CPUS, 2), 3);
	assert_int_equal(fw_cfg_item(&f, FW_CFG_RAM_SIZE, 8), 6ull << 30);
	assert_int_equal(fw_cfg_item(&f, 0x19, 8), 0);		/* an item not offered */
	assert_int_equal(fw_cfg_item(&f, 0xffff, 8), 0);
	/* a new selection starts over; a long read stays at 0 */
	fw_cfg_select(&f, FW_CFG_SIGNATURE);
	assert_int_equal(fw_cfg_read(&f), 'Q');
	fw_cfg_select(&f, FW_CFG_SIGNATURE);
	assert_int_equal(fw_cfg_read(&f), 'Q');
	assert_int_equal(fw_cfg_read(&f), 'E');
	for (uint32_t i = 0; i < 100000; i++)
		fw_cfg_read(&f);
	assert_int_equal(fw_cfg_read(&f), 0);
}

/* The writes that reset a PC, and the ones beside them that do not. */
static void test_reset_writes(void **state)
{
	uint8_t p92 = IO_PORT92_RESET;

	(void)state;
	assert_int_equal(io_rule_find(0x64)->device, IO_RESET);
	assert_int_equal(io_rule_find(0x92)->device, IO_RESET);
	assert_int_equal(io_rule_find(0xcf9)->device, IO_RESET);
	assert_int_equal(io_rule_find(0x60)->device, IO_NONE);
	assert_int_equal(io_rule_find(0xcf8)->device, IO_PCI);
	assert_int_equal(io_rule_find(0xcfa)->device, IO_NONE);
	assert_non_null(io_reset_write(0xcf9, 0x06, &p92));	/* Linux: hard reset */
	assert_non_null(io_reset_write(0xcf9, 0x0e, &p92));	/* full reset */
	assert_non_null(io_reset_write(0xcf9, 0x04, &p92));
	assert_null(io_reset_write(0xcf9, 0x02, &p92));	/* SYS_RST alone only arms it */
	assert_null(io_reset_write(0xcf9, 0x00, &p92));
	assert_non_null(io_reset_write(0x64, 0xfe, &p92));	/* pulse the reset line */
	assert_non_null(io_reset_write(0x64, 0xf0, &p92));
	assert_null(io_reset_write(0x64, 0xff, &p92));	/* pulse nothing */
	assert_null(io_reset_write(0x64, 0xd1, &p92));	/* write output port: a command */
	assert_null(io_reset_write(0x64, 0xad, &p92));
	/* port 0x92: only a 0 -> 1 change of bit 0 resets; the value reads back */
	assert_null(io_reset_write(0x92, 0x02, &p92));	/* A20 only */
	assert_int_equal(p92, 0x02);
	assert_non_null(io_reset_write(0x92, 0x03, &p92));
	assert_null(io_reset_write(0x92, 0x03, &p92));	/* already 1: no edge */
	assert_null(io_reset_write(0x92, 0x02, &p92));
	assert_non_null(io_reset_write(0x92, 0x01, &p92));
	p92 = IO_PORT92_RESET;
	/* the fast-A20 idiom on the reset value: read, OR 2, write back */
	assert_null(io_reset_write(0x92, (uint8_t)(p92 | 2), &p92));
	assert_null(io_reset_write(0x80, 0xfe, &p92));	/* POST code: no device */
	assert_int_equal(IO_RESET_PORT, 0xcf9);
	assert_non_null(io_reset_write(IO_RESET_PORT, IO_RESET_VALUE, &p92));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_disjoint),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_reset_writes),
		cmocka_unit_test(test_fw_cfg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
