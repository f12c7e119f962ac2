// SPDX-License-Identifier: MIT
/* The I/O port table: sorted, and the devices at their ports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/chan_pci_abi.h"
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

/* the owner table of an access: each byte's range id (-1: no device), none refusing */
static void owners(struct io_byte_owner *o, int a, int b, int c, int d)
{
	const int r[4] = { a, b, c, d };

	for (int i = 0; i < 4; i++)
		o[i] = (struct io_byte_owner){ .range = r[i] };
}

static void assert_piece(const struct io_piece *p, uint16_t port, uint8_t size, uint8_t shift,
			 int range)
{
	assert_int_equal(p->port, port);
	assert_int_equal(p->size, size);
	assert_int_equal(p->shift, shift);
	assert_int_equal(p->range, range);
}

/* Inside one range: one access of the whole width, as before. */
static void test_split_one_range(void **state)
{
	struct io_byte_owner o[4];
	struct io_split s;

	(void)state;
	owners(o, 7, 7, 7, 7);
	assert_true(io_split(TEMPO_PCI_CFC, 4, o, &s));
	assert_int_equal(s.count, 1);
	assert_int_equal(s.refused, -1);
	assert_piece(&s.piece[0], TEMPO_PCI_CFC, 4, 0, 7);
	owners(o, 3, -1, -1, -1);
	assert_true(io_split(0x3f8, 1, o, &s));
	assert_int_equal(s.count, 1);
	assert_piece(&s.piece[0], 0x3f8, 1, 0, 3);
}

/* A 16-bit OUT at 0xCF8: CONFIG_ADDRESS gets its byte, 0xCF9 (reset control) its own. */
static void test_split_cf8_word(void **state)
{
	struct io_byte_owner o[4];
	struct io_split s;

	(void)state;
	owners(o, 1, 2, -1, -1);
	assert_true(io_split(TEMPO_PCI_CF8, 2, o, &s));
	assert_int_equal(s.count, 2);
	assert_piece(&s.piece[0], TEMPO_PCI_CF8, 1, 0, 1);
	assert_piece(&s.piece[1], TEMPO_PCI_CF8 + 1, 1, 1, 2);
	/* with no device at 0xCF9 only CONFIG_ADDRESS's byte is an access */
	owners(o, 1, -1, -1, -1);
	assert_true(io_split(TEMPO_PCI_CF8, 2, o, &s));
	assert_int_equal(s.count, 1);
	assert_piece(&s.piece[0], TEMPO_PCI_CF8, 1, 0, 1);
}

/*
 * CONFIG_ADDRESS decodes a dword at 0xCF8 whole, though 0xCF9 is another
 * device's: the caller marks byte 0 whole for that access only.
 */
static void test_split_whole(void **state)
{
	struct io_byte_owner o[4];
	struct io_split s;

	(void)state;
	owners(o, 1, 2, -1, -1);
	o[0].whole = true;
	assert_true(io_split(TEMPO_PCI_CF8, 4, o, &s));
	assert_int_equal(s.count, 1);
	assert_int_equal(s.refused, -1);
	assert_piece(&s.piece[0], TEMPO_PCI_CF8, 4, 0, 1);
	/* a refusing byte still wins */
	o[2] = (struct io_byte_owner){ .range = 9, .refuses = true };
	assert_true(io_split(TEMPO_PCI_CF8, 4, o, &s));
	assert_int_equal(s.refused, 2);
	assert_int_equal(s.count, 0);
	/* "whole" on a byte with no range is no device */
	owners(o, -1, 2, -1, -1);
	o[0].whole = true;
	assert_true(io_split(TEMPO_PCI_CF8, 2, o, &s));
	assert_int_equal(s.count, 1);
	assert_piece(&s.piece[0], TEMPO_PCI_CF8 + 1, 1, 1, 2);
	/*
	 * No bus at 0xCF8: a dword there is still CONFIG_ADDRESS, no device's;
	 * 0xCF9 must not get its byte (Linux's probe writes back 0xFFFFFFFF,
	 * which would be a hard reset).
	 */
	owners(o, -1, 2, -1, -1);
	assert_true(io_split(TEMPO_PCI_CF8, 4, o, &s));
	assert_int_equal(s.count, 0);
	assert_int_equal(s.refused, -1);
}

/* A 32-bit IN at 0x3FE: COM1's last two ports, then no device. */
static void test_split_uart_tail(void **state)
{
	struct io_byte_owner o[4];
	struct io_split s;

	(void)state;
	owners(o, 4, 4, -1, -1);
	assert_true(io_split(VUART_BASE + 6, 4, o, &s));
	assert_int_equal(s.count, 1);
	assert_piece(&s.piece[0], VUART_BASE + 6, 2, 0, 4);
	/* three bytes of one range: a pair on the even port, then one */
	owners(o, -1, 4, 4, 4);
	assert_true(io_split(VUART_BASE + 4, 4, o, &s));
	assert_int_equal(s.count, 2);
	assert_piece(&s.piece[0], VUART_BASE + 5, 1, 1, 4);
	assert_piece(&s.piece[1], VUART_BASE + 6, 2, 2, 4);
	owners(o, 4, 4, 4, -1);
	assert_true(io_split(VUART_BASE + 4, 4, o, &s));
	assert_int_equal(s.count, 2);
	assert_piece(&s.piece[0], VUART_BASE + 4, 2, 0, 4);
	assert_piece(&s.piece[1], VUART_BASE + 6, 1, 2, 4);
	/* a range, none, the same range again: two accesses, the gap floats */
	owners(o, 5, -1, 5, 6);
	assert_true(io_split(0x100, 4, o, &s));
	assert_int_equal(s.count, 3);
	assert_piece(&s.piece[0], 0x100, 1, 0, 5);
	assert_piece(&s.piece[1], 0x102, 1, 2, 5);
	assert_piece(&s.piece[2], 0x103, 1, 3, 6);
}

/* One byte on another partition's port: the whole access is that port's, nothing split. */
static void test_split_refused(void **state)
{
	struct io_byte_owner o[4];
	struct io_split s;

	(void)state;
	owners(o, 4, 4, 9, -1);
	o[2].refuses = true;
	assert_true(io_split(VUART_BASE + 6, 4, o, &s));
	assert_int_equal(s.refused, 2);
	assert_int_equal(s.count, 0);
	/* a refusal flag on no range is no device */
	owners(o, 4, -1, -1, -1);
	o[1].refuses = true;
	assert_true(io_split(VUART_BASE + 7, 2, o, &s));
	assert_int_equal(s.refused, -1);
	assert_int_equal(s.count, 1);
}

/*
 * Hostile widths and the top of the port space: only 1, 2 and 4 bytes;
 * bytes past 0xFFFF reach nothing, whatever the owner table claims (a
 * refusal there included).
 */
static void test_split_hostile(void **state)
{
	struct io_byte_owner o[4];
	struct io_split s = { .count = 99 };

	(void)state;
	owners(o, 1, 1, 1, 1);
	assert_false(io_split(0x80, 0, o, &s));
	assert_false(io_split(0x80, 3, o, &s));
	assert_false(io_split(0x80, 8, o, &s));
	assert_false(io_split(0x80, 255, o, &s));
	assert_int_equal(s.count, 99);
	o[1].refuses = o[2].refuses = o[3].refuses = true;
	assert_true(io_split(0xffff, 4, o, &s));
	assert_int_equal(s.refused, -1);
	assert_int_equal(s.count, 1);
	assert_piece(&s.piece[0], 0xffff, 1, 0, 1);
	owners(o, 1, 1, 1, 1);
	assert_true(io_split(0xfffe, 4, o, &s));
	assert_int_equal(s.count, 1);
	assert_piece(&s.piece[0], 0xfffe, 2, 0, 1);
	assert_true(io_split(0xffff, 2, o, &s));
	assert_int_equal(s.count, 1);
	assert_piece(&s.piece[0], 0xffff, 1, 0, 1);
	owners(o, -1, -1, -1, -1);
	assert_true(io_split(0xfffd, 4, o, &s));
	assert_int_equal(s.count, 0);
	assert_int_equal(io_bytes_in_space(0xffff, 4), 1);
	assert_int_equal(io_bytes_in_space(0xfffc, 4), 4);
	assert_int_equal(io_bytes_in_space(0, 4), 4);
	/* every port and width: pieces in order, inside the access and the space */
	for (uint32_t port = 0; port <= 0xffff; port += 0x3f1) {
		for (uint8_t size = 1; size <= 4; size *= 2) {
			uint8_t covered = 0;

			owners(o, (int)(port & 1), (int)((port >> 1) & 1) - 1, 2, 2);
			assert_true(io_split((uint16_t)port, size, o, &s));
			for (uint8_t i = 0; i < s.count; i++) {
				const struct io_piece *p = &s.piece[i];

				assert_true(p->size == 1 || p->size == 2 || p->size == 4);
				assert_int_equal(p->port, port + p->shift);
				assert_true(p->shift >= covered);
				assert_true(port + p->shift + p->size - 1 <= 0xffff);
				assert_true(p->shift + p->size <= size);
				covered = (uint8_t)(p->shift + p->size);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_disjoint),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_reset_writes),
		cmocka_unit_test(test_fw_cfg),
		cmocka_unit_test(test_split_one_range),
		cmocka_unit_test(test_split_cf8_word),
		cmocka_unit_test(test_split_whole),
		cmocka_unit_test(test_split_uart_tail),
		cmocka_unit_test(test_split_refused),
		cmocka_unit_test(test_split_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
