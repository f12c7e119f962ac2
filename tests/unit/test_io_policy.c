// SPDX-License-Identifier: MIT
/* The I/O port table: sorted, and the devices at their ports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

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
	assert_int_equal(io_rule_find(0xcf8)->device, IO_NONE);	/* PCI */
	assert_int_equal(io_rule_find(0xffff)->device, IO_NONE);
	assert_int_equal(io_float(), 0xffffffffu);
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
	assert_int_equal(io_rule_find(0xcf8)->device, IO_NONE);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
