// SPDX-License-Identifier: MIT
/* Hypercall decoding and argument checks (hv/core/hypercall.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/config.h"
#include "hv/core/guest_ram.h"
#include "hv/core/hypercall.h"
#include "hv/core/hypercall_abi.h"

#define MEM	(16ull << 20)

static uint64_t hc_rdx;	/* the third argument of the next decode */

static struct hc_decision decode(uint64_t rax, uint64_t rdi, uint64_t rsi, bool lm, uint32_t cpl,
				 uint32_t mode, bool shared)
{
	struct hc_regs r = { .rax = rax, .rdi = rdi, .rsi = rsi, .rdx = hc_rdx, .long_mode = lm,
			     .cpl = cpl };
	struct hc_context c = { .mem_size = MEM, .timer_mode = mode, .shared_core = shared,
				.vcpu_count = 2, .channel_count = 3 };
	struct hc_decision d;

	memset(&d, 0xa5, sizeof(d));
	hypercall_decode(&r, &c, &d);
	return d;
}

/* A 64-bit kernel on a dedicated core in direct mode. */
static struct hc_decision dec(uint64_t rax, uint64_t rdi, uint64_t rsi)
{
	return decode(rax, rdi, rsi, true, 0, TIMER_DIRECT, false);
}

static void assert_error(struct hc_decision d, int64_t err)
{
	assert_int_equal(d.action, HC_ACT_RETURN);
	assert_int_equal(d.ret, err);
}

static void test_range(void **state)
{
	(void)state;
	assert_true(hc_range_ok(MEM, 0, MEM));
	assert_true(hc_range_ok(MEM, MEM - 1, 1));
	assert_true(hc_range_ok(MEM, 0, 0));
	assert_false(hc_range_ok(MEM, MEM, 0));
	assert_false(hc_range_ok(MEM, MEM - 1, 2));
	assert_false(hc_range_ok(MEM, 1, MEM));
	assert_false(hc_range_ok(MEM, ~0ull, 2));	/* wraps */
	assert_false(hc_range_ok(MEM, 8, ~0ull - 4));	/* wraps */
	assert_false(hc_range_ok(0, 0, 0));
}

/*
 * A partition of 6 GiB: RAM [0, 0xFEA00000) below its MMIO window and
 * [4 GiB, 4 GiB + 6 GiB - 0xFEA00000) above it (hv/core/guest_ram.h). A range
 * lies in one piece; the gap, the window and anything past the end are not RAM.
 */
static void test_range_above_4g(void **state)
{
	const uint64_t big = 6ull << 30, low = 0xfea00000ull, g4 = 1ull << 32;
	const uint64_t end = g4 + big - low;
	uint64_t off = 0;

	(void)state;
	assert_true(hc_range_ok(big, 0, low));
	assert_true(hc_range_ok(big, low - 16, 16));
	assert_false(hc_range_ok(big, low - 16, 17));	/* into the gap */
	assert_false(hc_range_ok(big, low, 1));
	assert_false(hc_range_ok(big, 0xfeb00000ull, 8));	/* the MMIO window */
	assert_false(hc_range_ok(big, g4 - 8, 16));		/* across 4 GiB */
	assert_true(hc_range_ok(big, g4, 4096));
	assert_true(hc_range_ok(big, end - 1, 1));
	assert_false(hc_range_ok(big, end - 1, 2));
	assert_false(hc_range_ok(big, end, 0));
	assert_false(hc_range_ok(big, low - 4096, g4));	/* from low RAM over the gap */
	assert_false(hc_range_ok(big, ~0ull, 2));
	/* Where each piece is in the one host range. */
	assert_true(guest_ram_offset(big, low - 1, 1, &off));
	assert_int_equal(off, low - 1);
	assert_true(guest_ram_offset(big, g4, 1, &off));
	assert_int_equal(off, low);
	assert_true(guest_ram_offset(big, end - 1, 1, &off));
	assert_int_equal(off, big - 1);
	assert_int_equal(guest_ram_end(big), end);
	assert_int_equal(guest_ram_end(low), low);
	assert_int_equal(guest_ram_high(low), 0);
	/* Overlap with any of the RAM, for channel placement. */
	assert_true(guest_ram_overlaps(big, low - 4096, 8192));
	assert_false(guest_ram_overlaps(big, low, 1 << 20));
	assert_false(guest_ram_overlaps(big, end, 1 << 20));
	assert_true(guest_ram_overlaps(big, g4 - (1 << 20), 2 << 20));
	assert_true(guest_ram_overlaps(big, end - 1, 1));
	assert_false(guest_ram_overlaps(low, g4, 1 << 20));	/* no high piece */
}

static void test_console_write(void **state)
{
	struct hc_decision d;

	(void)state;
	d = dec(TEMPO_HC_CONSOLE_WRITE, 0x1000, 12);
	assert_int_equal(d.action, HC_ACT_CONSOLE_WRITE);
	assert_int_equal(d.gpa, 0x1000);
	assert_int_equal(d.len, 12);
	d = dec(TEMPO_HC_CONSOLE_WRITE, MEM - 4096, 4096);
	assert_int_equal(d.action, HC_ACT_CONSOLE_WRITE);
	assert_error(dec(TEMPO_HC_CONSOLE_WRITE, 0x1000, 4097), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_CONSOLE_WRITE, MEM - 4095, 4096), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_CONSOLE_WRITE, ~0ull - 1, 16), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_CONSOLE_WRITE, 0xfee00000, 1), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_CONSOLE_WRITE, MEM, 0), TEMPO_HC_EINVAL);
	assert_int_equal(dec(TEMPO_HC_CONSOLE_WRITE, 0, 0).action, HC_ACT_CONSOLE_WRITE);
}

static void test_partition_info(void **state)
{
	const uint64_t sz = sizeof(struct tempo_partition_info);
	struct hc_decision d;

	(void)state;
	d = dec(TEMPO_HC_PARTITION_INFO, MEM - sz, 0);
	assert_int_equal(d.action, HC_ACT_PARTITION_INFO);
	assert_int_equal(d.gpa, MEM - sz);
	assert_int_equal(d.len, sz);
	assert_error(dec(TEMPO_HC_PARTITION_INFO, MEM - sz + 1, 0), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_PARTITION_INFO, ~0ull, 0), TEMPO_HC_EINVAL);
}

static void test_cpl_and_unknown(void **state)
{
	(void)state;
	for (uint32_t cpl = 1; cpl <= 3; cpl++) {
		assert_int_equal(decode(TEMPO_HC_SHUTDOWN, 0, 0, true, cpl, 0, false).action, HC_ACT_UD);
		assert_int_equal(decode(TEMPO_HC_CONSOLE_WRITE, 0, 1, false, cpl, 0, false).action,
				 HC_ACT_UD);
	}
	assert_error(dec(TEMPO_HC_CHANNEL_RING + 1, 0, 0), TEMPO_HC_ENOSYS);
	assert_error(dec(~0ull, 0, 0), TEMPO_HC_ENOSYS);
	assert_error(dec(1ull << 32, 0, 0), TEMPO_HC_ENOSYS);	/* not 0 in long mode */
}

static void test_32bit_truncation(void **state)
{
	struct hc_decision d;

	(void)state;
	/* outside long mode only the low halves count */
	d = decode((1ull << 32) | TEMPO_HC_CONSOLE_WRITE, 0xdead00001000ull, 0x500000010ull, false, 0,
		   TIMER_DIRECT, false);
	assert_int_equal(d.action, HC_ACT_CONSOLE_WRITE);
	assert_int_equal(d.gpa, 0x1000);
	assert_int_equal(d.len, 0x10);
	d = decode(TEMPO_HC_SHUTDOWN, 0xffffffff00000003ull, 0, false, 0, TIMER_DIRECT, false);
	assert_int_equal(d.action, HC_ACT_SHUTDOWN);
	assert_int_equal(d.exit_code, 3);
	d = dec(TEMPO_HC_SHUTDOWN, (uint64_t)-5, 0);
	assert_int_equal(d.exit_code, -5);
}

static void test_timer_mode(void **state)
{
	struct hc_decision d;

	(void)state;
	for (uint32_t m = TIMER_DIRECT; m <= TIMER_PV_LAZY; m++) {
		d = dec(TEMPO_HC_TIMER_MODE_SET, m, 0);
		assert_int_equal(d.action, HC_ACT_TIMER_MODE_SET);
		assert_int_equal(d.mode, m);
	}
	assert_error(dec(TEMPO_HC_TIMER_MODE_SET, 4, 0), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_TIMER_MODE_SET, 1ull << 32, 0), TEMPO_HC_EINVAL);
	/* 32-bit: 1 << 32 is 0, direct */
	d = decode(TEMPO_HC_TIMER_MODE_SET, 1ull << 32, 0, false, 0, TIMER_INJECT, false);
	assert_int_equal(d.action, HC_ACT_TIMER_MODE_SET);
	assert_int_equal(d.mode, TIMER_DIRECT);
	/* direct needs a dedicated core */
	assert_error(decode(TEMPO_HC_TIMER_MODE_SET, TIMER_DIRECT, 0, true, 0, TIMER_INJECT, true),
		     TEMPO_HC_EINVAL);
	assert_int_equal(decode(TEMPO_HC_TIMER_MODE_SET, TIMER_EMULATED, 0, true, 0, TIMER_INJECT,
				true).action, HC_ACT_TIMER_MODE_SET);
	/*
	 * A vCPU that takes posted interrupts never enters a mode that owns
	 * the LAPIC (hv/core/posted.h: a late notification would reach its
	 * IDT); the other modes stay open to it
	 */
	{
		struct hc_regs r = { .rax = TEMPO_HC_TIMER_MODE_SET, .rdx = hc_rdx,
				     .long_mode = true };
		struct hc_context c = { .mem_size = MEM, .timer_mode = TIMER_INJECT,
					.vcpu_count = 2, .posted = true };

		for (uint32_t m = TIMER_DIRECT; m <= TIMER_PV_LAZY; m++) {
			r.rdi = m;
			hypercall_decode(&r, &c, &d);
			if (timer_modes[m].owns_lapic) {
				assert_int_equal(d.action, HC_ACT_RETURN);
				assert_int_equal(d.ret, TEMPO_HC_EINVAL);
			} else {
				assert_int_equal(d.action, HC_ACT_TIMER_MODE_SET);
				assert_int_equal(d.mode, m);
			}
		}
	}
	assert_int_equal(dec(TEMPO_HC_TIMER_MODE_GET, 99, 99).action, HC_ACT_TIMER_MODE_GET);
	assert_int_equal(dec(TEMPO_HC_STATS, 99, 99).action, HC_ACT_STATS);
}

/* The partition decoded against has 2 vCPUs and 3 channels. */
static void test_channels(void **state)
{
	const uint64_t sz = sizeof(struct tempo_channel_info);
	struct hc_decision d;

	(void)state;
	d = dec(TEMPO_HC_CHANNEL_INFO, 2, MEM - sz);
	assert_int_equal(d.action, HC_ACT_CHANNEL_INFO);
	assert_int_equal(d.channel, 2);
	assert_int_equal(d.gpa, MEM - sz);
	assert_int_equal(d.len, sz);
	assert_error(dec(TEMPO_HC_CHANNEL_INFO, 3, 0x1000), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_CHANNEL_INFO, 1ull << 32, 0x1000), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_CHANNEL_INFO, 0, MEM - sz + 1), TEMPO_HC_EINVAL);
	/* a channel's own memory is not RAM: the info must go to RAM */
	assert_error(dec(TEMPO_HC_CHANNEL_INFO, 0, MEM), TEMPO_HC_EINVAL);

	hc_rdx = 1;
	d = dec(TEMPO_HC_CHANNEL_BIND, 1, TEMPO_CHANNEL_VECTOR_MAX);
	assert_int_equal(d.action, HC_ACT_CHANNEL_BIND);
	assert_int_equal(d.channel, 1);
	assert_int_equal(d.vector, TEMPO_CHANNEL_VECTOR_MAX);
	assert_int_equal(d.vcpu, 1);
	assert_int_equal(dec(TEMPO_HC_CHANNEL_BIND, 0, 0).action, HC_ACT_CHANNEL_BIND);
	assert_int_equal(dec(TEMPO_HC_CHANNEL_BIND, 0, TEMPO_CHANNEL_VECTOR_MIN).vector,
			 TEMPO_CHANNEL_VECTOR_MIN);
	assert_error(dec(TEMPO_HC_CHANNEL_BIND, 0, TEMPO_CHANNEL_VECTOR_MIN - 1), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_CHANNEL_BIND, 0, 0xed), TEMPO_HC_EINVAL);	/* Tempo's */
	assert_error(dec(TEMPO_HC_CHANNEL_BIND, 0, 0x100 + 0x40), TEMPO_HC_EINVAL);
	assert_error(dec(TEMPO_HC_CHANNEL_BIND, 3, 0x40), TEMPO_HC_EINVAL);
	hc_rdx = 2;	/* no third vCPU */
	assert_error(dec(TEMPO_HC_CHANNEL_BIND, 0, 0x40), TEMPO_HC_EINVAL);
	/* 32-bit code: the high halves do not count */
	hc_rdx = (7ull << 32) | 1;
	d = decode(TEMPO_HC_CHANNEL_BIND, (1ull << 32) | 2, (5ull << 32) | 0x40, false, 0,
		   TIMER_DIRECT, false);
	assert_int_equal(d.action, HC_ACT_CHANNEL_BIND);
	assert_int_equal(d.channel, 2);
	assert_int_equal(d.vector, 0x40);
	assert_int_equal(d.vcpu, 1);
	hc_rdx = 0;

	d = dec(TEMPO_HC_CHANNEL_RING, 0, TEMPO_CHANNEL_ALL_PEERS);
	assert_int_equal(d.action, HC_ACT_CHANNEL_RING);
	assert_int_equal(d.peer, TEMPO_CHANNEL_ALL_PEERS);
	assert_int_equal(dec(TEMPO_HC_CHANNEL_RING, 2, 1ull << 40).peer, 1ull << 40);
	assert_error(dec(TEMPO_HC_CHANNEL_RING, 3, 0), TEMPO_HC_EINVAL);
	/* user space may not ring */
	assert_int_equal(decode(TEMPO_HC_CHANNEL_RING, 0, 1, true, 3, TIMER_DIRECT, false).action,
			 HC_ACT_UD);
}

static void test_pv_timer(void **state)
{
	struct hc_decision d;

	(void)state;
	d = decode(TEMPO_HC_PV_TIMER, 0x2000, 0, true, 0, TIMER_PV_LAZY, false);
	assert_int_equal(d.action, HC_ACT_PV_TIMER);
	assert_int_equal(d.gpa, 0x2000);
	d = decode(TEMPO_HC_PV_TIMER, MEM - 16, 0, true, 0, TIMER_PV_LAZY, false);
	assert_int_equal(d.action, HC_ACT_PV_TIMER);
	assert_error(decode(TEMPO_HC_PV_TIMER, MEM - 8, 0, true, 0, TIMER_PV_LAZY, false),
		     TEMPO_HC_EINVAL);
	assert_error(decode(TEMPO_HC_PV_TIMER, 0x2004, 0, true, 0, TIMER_PV_LAZY, false),
		     TEMPO_HC_EINVAL);
	for (uint32_t m = TIMER_DIRECT; m < TIMER_PV_LAZY; m++)
		assert_error(decode(TEMPO_HC_PV_TIMER, 0x2000, 0, true, 0, m, false),
			     TEMPO_HC_EINVAL);
	assert_error(decode(TEMPO_HC_PV_TIMER, ~7ull, 0, true, 0, TIMER_PV_LAZY, false),
		     TEMPO_HC_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_range_above_4g),
		cmocka_unit_test(test_console_write),
		cmocka_unit_test(test_partition_info),
		cmocka_unit_test(test_cpl_and_unknown),
		cmocka_unit_test(test_32bit_truncation),
		cmocka_unit_test(test_timer_mode),
		cmocka_unit_test(test_pv_timer),
		cmocka_unit_test(test_channels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
