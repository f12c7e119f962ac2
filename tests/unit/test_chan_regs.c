// SPDX-License-Identifier: MIT
/* A channel function's BAR0 registers (hv/core/chan_regs.c). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/chan_regs.h"

static struct chan_regs regs;

/* Peer 1 of three on a 5 GiB + 16 KiB channel "link", read/write. */
static const struct chan_regs_desc desc = {
	.self = 1,
	.peer_count = 3,
	.access = TEMPO_CHANNEL_RW,
	.doorbell_limit = 1000,
	.size = 0x140004000ull,
	.name = "link",
	.peer_names = { "rt0", "linux", "logger-with-a-long-name-0123456" },
};

static int setup(void **state)
{
	(void)state;
	assert_true(chan_regs_init(&regs, &desc));
	return 0;
}

static uint32_t rd32(uint32_t off)
{
	uint64_t v = chan_regs_read(&regs, off, 4);

	assert_true(v <= 0xffffffffu);
	return (uint32_t)v;
}

static struct chan_ring wr32(uint32_t off, uint32_t v)
{
	return chan_regs_write(&regs, off, 4, v);
}

static void test_registers(void **state)
{
	(void)state;
	assert_int_equal(rd32(TEMPO_CHAN_INTR_MASK), 0);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_STATUS), 0);
	assert_int_equal(rd32(TEMPO_CHAN_IV_POSITION), 1);
	assert_int_equal(rd32(TEMPO_CHAN_DOORBELL), 0);		/* write-only */
	assert_int_equal(rd32(TEMPO_CHAN_MAGIC), 0x4f504d54u);
	assert_memory_equal(&(uint32_t){ rd32(TEMPO_CHAN_MAGIC) }, "TMPO", 4);
	assert_int_equal(rd32(TEMPO_CHAN_VERSION), 1);
	assert_int_equal(rd32(TEMPO_CHAN_PEER_COUNT), 3);
	assert_int_equal(rd32(TEMPO_CHAN_ACCESS), 1);
	assert_int_equal(rd32(TEMPO_CHAN_SIZE_LO), 0x40004000u);
	assert_int_equal(rd32(TEMPO_CHAN_SIZE_HI), 1);
	assert_int_equal(rd32(TEMPO_CHAN_DOORBELL_LIMIT), 1000);
	assert_int_equal(rd32(TEMPO_CHAN_RING_RESULT), 0);
	assert_int_equal(rd32(TEMPO_CHAN_RECEIVED), 0);
	/* the gaps: 0x34-0x3C, 0x60-0xFC, past the peer names */
	for (uint32_t off = 0x34; off < TEMPO_CHAN_NAME; off += 4)
		assert_int_equal(rd32(off), 0);
	for (uint32_t off = 0x60; off < TEMPO_CHAN_PEER_NAMES; off += 4)
		assert_int_equal(rd32(off), 0);
	for (uint32_t off = 0x200; off < TEMPO_PCI_BAR0_SIZE; off += 4)
		assert_int_equal(rd32(off), 0);
	/* past BAR0 */
	assert_int_equal(chan_regs_read(&regs, 0x1000, 4), 0);
	assert_int_equal(chan_regs_read(&regs, 0xfffffffcu, 4), 0);
	assert_int_equal(chan_regs_read(&regs, 0xfffffffcu, 8), 0);

	/* a read-only peer */
	{
		struct chan_regs_desc d = desc;

		d.access = TEMPO_CHANNEL_RO;
		d.self = 0;
		assert_true(chan_regs_init(&regs, &d));
		assert_int_equal(rd32(TEMPO_CHAN_ACCESS), 0);
		assert_int_equal(rd32(TEMPO_CHAN_IV_POSITION), 0);
	}
}

/* Registers are 32-bit and aligned: other reads give 0, other writes nothing. */
static void test_widths(void **state)
{
	(void)state;
	wr32(TEMPO_CHAN_INTR_MASK, 0xffffffffu);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_MASK), 0xffffffffu);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_INTR_MASK, 1), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_INTR_MASK, 2), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_INTR_MASK, 8), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_INTR_MASK + 1, 4), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_SIZE_LO, 8), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_MAGIC, 3), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_MAGIC, 0), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_MAGIC, 16), 0);
	/* narrow, wide and misaligned writes are ignored */
	chan_regs_write(&regs, TEMPO_CHAN_INTR_MASK, 1, 0);
	chan_regs_write(&regs, TEMPO_CHAN_INTR_MASK, 2, 0);
	chan_regs_write(&regs, TEMPO_CHAN_INTR_MASK, 8, 0);
	chan_regs_write(&regs, TEMPO_CHAN_INTR_MASK + 2, 4, 0);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_MASK), 0xffffffffu);
	wr32(TEMPO_CHAN_INTR_MASK, 0x5);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_MASK), 0x5);
	/* writes to read-only registers change nothing and ring nothing */
	for (uint32_t off = 0; off < TEMPO_PCI_BAR0_SIZE; off += 4) {
		struct chan_ring r;

		if (off == TEMPO_CHAN_INTR_MASK || off == TEMPO_CHAN_DOORBELL)
			continue;
		r = wr32(off, 0xffffffffu);
		assert_false(r.ring);
	}
	assert_int_equal(rd32(TEMPO_CHAN_IV_POSITION), 1);
	assert_int_equal(rd32(TEMPO_CHAN_MAGIC), 0x4f504d54u);
	assert_int_equal(rd32(TEMPO_CHAN_PEER_COUNT), 3);
	assert_int_equal(rd32(TEMPO_CHAN_RING_RESULT), 0);
	assert_int_equal(rd32(TEMPO_CHAN_RECEIVED), 0);
	assert_int_equal(rd32(TEMPO_CHAN_NAME), 0x6b6e696c);	/* "link" */
}

static void test_doorbell(void **state)
{
	struct chan_ring r;

	(void)state;
	r = wr32(TEMPO_CHAN_DOORBELL, TEMPO_CHAN_DOORBELL_PEER(2));
	assert_true(r.ring);
	assert_int_equal(r.peer, 2);
	r = wr32(TEMPO_CHAN_DOORBELL, TEMPO_CHAN_DOORBELL_PEER(0));
	assert_true(r.ring);
	assert_int_equal(r.peer, 0);
	/* 0xffff: every other peer, as the hypercall spells it */
	r = wr32(TEMPO_CHAN_DOORBELL, TEMPO_CHAN_DOORBELL_PEER(TEMPO_CHAN_DOORBELL_ALL));
	assert_true(r.ring);
	assert_int_equal(r.peer, TEMPO_CHANNEL_ALL_PEERS);
	/* bits 15:0 (ivshmem's vector) are ignored */
	r = wr32(TEMPO_CHAN_DOORBELL, TEMPO_CHAN_DOORBELL_PEER(1) | 0xffff);
	assert_true(r.ring);
	assert_int_equal(r.peer, 1);
	/* a peer out of range is passed on for the ring to refuse, as the hypercall does */
	r = wr32(TEMPO_CHAN_DOORBELL, TEMPO_CHAN_DOORBELL_PEER(0x1234));
	assert_true(r.ring);
	assert_int_equal(r.peer, 0x1234);
	r = wr32(TEMPO_CHAN_DOORBELL, TEMPO_CHAN_DOORBELL_PEER(0xfffe));
	assert_int_equal(r.peer, 0xfffe);
	/* only a 32-bit aligned write rings */
	assert_false(chan_regs_write(&regs, TEMPO_CHAN_DOORBELL, 2, 0x20000).ring);
	assert_false(chan_regs_write(&regs, TEMPO_CHAN_DOORBELL + 2, 2, 2).ring);
	assert_false(chan_regs_write(&regs, TEMPO_CHAN_DOORBELL, 1, 0).ring);
	assert_false(chan_regs_write(&regs, TEMPO_CHAN_DOORBELL, 8, 0x20000).ring);
	assert_false(chan_regs_write(&regs, TEMPO_CHAN_DOORBELL + 1, 4, 0x200).ring);
	assert_false(chan_regs_write(&regs, TEMPO_CHAN_DOORBELL + 0x1000, 4, 0x20000).ring);
	/* the hypervisor's answer is RING_RESULT, as an int32 */
	assert_int_equal(rd32(TEMPO_CHAN_RING_RESULT), 0);
	chan_regs_ring_done(&regs, 2);
	assert_int_equal(rd32(TEMPO_CHAN_RING_RESULT), 2);
	chan_regs_ring_done(&regs, TEMPO_HC_EAGAIN);
	assert_int_equal(rd32(TEMPO_CHAN_RING_RESULT), 0xfffffff5u);
	chan_regs_ring_done(&regs, TEMPO_HC_EINVAL);
	assert_int_equal((int32_t)rd32(TEMPO_CHAN_RING_RESULT), -22);
	/* reading it changes nothing */
	assert_int_equal((int32_t)rd32(TEMPO_CHAN_RING_RESULT), -22);
}

static void test_intr_status(void **state)
{
	(void)state;
	assert_int_equal(rd32(TEMPO_CHAN_INTR_STATUS), 0);
	chan_regs_doorbell(&regs);
	chan_regs_doorbell(&regs);
	assert_int_equal(rd32(TEMPO_CHAN_RECEIVED), 2);
	/* narrow or misaligned reads neither see nor clear it */
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_INTR_STATUS, 1), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_INTR_STATUS, 2), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_INTR_STATUS, 8), 0);
	assert_int_equal(chan_regs_read(&regs, TEMPO_CHAN_INTR_STATUS - 2, 4), 0);
	/* nor does a write */
	wr32(TEMPO_CHAN_INTR_STATUS, 0);
	/* the read returns 1 once, then clears it */
	assert_int_equal(rd32(TEMPO_CHAN_INTR_STATUS), 1);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_STATUS), 0);
	assert_int_equal(rd32(TEMPO_CHAN_RECEIVED), 2);		/* the count stays */
	chan_regs_doorbell(&regs);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_STATUS), 1);
	assert_int_equal(rd32(TEMPO_CHAN_RECEIVED), 3);
	/* RECEIVED wraps */
	regs.received = 0xffffffffu;
	chan_regs_doorbell(&regs);
	assert_int_equal(rd32(TEMPO_CHAN_RECEIVED), 0);
	/* INTR_MASK has no effect on it */
	wr32(TEMPO_CHAN_INTR_MASK, 0);
	chan_regs_doorbell(&regs);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_STATUS), 1);
}

/* Doorbells from two cores while the guest reads INTR_STATUS: none is lost. */
#define RINGS 100000

static void *ringer(void *arg)
{
	(void)arg;
	for (int i = 0; i < RINGS; i++)
		chan_regs_doorbell(&regs);
	return NULL;
}

static void test_intr_status_concurrent(void **state)
{
	pthread_t a, b;
	uint32_t seen = 0;
	int done = 0;

	(void)state;
	assert_int_equal(pthread_create(&a, NULL, ringer, NULL), 0);
	assert_int_equal(pthread_create(&b, NULL, ringer, NULL), 0);
	while (done < 2) {
		uint32_t received = rd32(TEMPO_CHAN_RECEIVED);

		seen += rd32(TEMPO_CHAN_INTR_STATUS);
		/* a status read after the last doorbell has the last 1 */
		if (received == 2 * RINGS)
			done++;
	}
	assert_int_equal(pthread_join(a, NULL), 0);
	assert_int_equal(pthread_join(b, NULL), 0);
	seen += rd32(TEMPO_CHAN_INTR_STATUS);
	assert_int_equal(rd32(TEMPO_CHAN_RECEIVED), 2 * RINGS);
	assert_true(seen >= 1 && seen <= 2 * RINGS);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_STATUS), 0);
}

static uint64_t rdn(uint32_t off, uint8_t size)
{
	return chan_regs_read(&regs, off, size);
}

static void test_names(void **state)
{
	char buf[32];

	(void)state;
	/* NAME, as 4-byte loads */
	for (uint32_t i = 0; i < 32; i += 4) {
		uint32_t v = rd32(TEMPO_CHAN_NAME + i);

		memcpy(buf + i, &v, 4);
	}
	assert_memory_equal(buf, "link\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32);
	/* 1, 2 and 8 bytes, at any alignment inside the area */
	assert_int_equal(rdn(TEMPO_CHAN_NAME, 1), 'l');
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 3, 1), 'k');
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 1, 2), 'i' | 'n' << 8);
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 1, 4), 'i' | 'n' << 8 | 'k' << 16);
	assert_int_equal(rdn(TEMPO_CHAN_NAME, 8), 0x6b6e696cull);
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 0x18, 8), 0);
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 0x1f, 1), 0);
	/* crossing the area's edge: 0 */
	assert_int_equal(rdn(TEMPO_CHAN_NAME - 1, 2), 0);
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 0x1c, 8), 0);
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 0x1f, 2), 0);
	/* other sizes: 0 */
	assert_int_equal(rdn(TEMPO_CHAN_NAME, 3), 0);
	assert_int_equal(rdn(TEMPO_CHAN_NAME, 16), 0);

	/* PEER_NAMES: peer k at 0x100 + 32 k */
	assert_int_equal(rdn(0x100, 8), 0x307472ull);			/* "rt0" */
	assert_int_equal(rdn(0x120, 8), 0x78756e696cull);		/* "linux" */
	assert_int_equal(rdn(0x120 + 4, 1), 'x');
	for (uint32_t i = 0; i < 32; i += 8) {
		uint64_t v = rdn(0x140 + i, 8);

		memcpy(buf + i, &v, 8);
	}
	assert_memory_equal(buf, "logger-with-a-long-name-0123456", 32);	/* 31 and the NUL */
	/* an 8-byte load across two names: the bytes as laid out */
	assert_int_equal(rdn(0x11c, 8), 0x756e696c00000000ull);	/* rt0's padding, "linu" */
	/* peers past the count: 0 */
	for (uint32_t off = 0x160; off < 0x200; off += 4)
		assert_int_equal(rd32(off), 0);
	assert_int_equal(rdn(0x1f8, 8), 0);
	assert_int_equal(rdn(0x1fc, 8), 0);	/* crosses the end */
	assert_int_equal(rdn(0x1ff, 1), 0);
}

/* Names are cut to 31 characters and always end in a NUL; NULL is empty. */
static void test_name_limits(void **state)
{
	struct chan_regs_desc d = desc;

	(void)state;
	d.name = "a-channel-name-of-forty-characters-long!";
	d.peer_names[0] = NULL;
	d.peer_count = 8;
	d.self = 7;
	for (uint32_t i = 1; i < 8; i++)
		d.peer_names[i] = "p";
	assert_true(chan_regs_init(&regs, &d));
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 0x18, 8), 0x0074636172616863ull);	/* "charact" NUL */
	assert_int_equal(rdn(TEMPO_CHAN_NAME + 0x1f, 1), 0);
	assert_int_equal(rdn(0x100, 8), 0);
	assert_int_equal(rdn(0x1e0, 2), 'p');
	assert_int_equal(rd32(TEMPO_CHAN_PEER_COUNT), 8);
	assert_int_equal(rd32(TEMPO_CHAN_IV_POSITION), 7);
	d.name = NULL;
	assert_true(chan_regs_init(&regs, &d));
	assert_int_equal(rdn(TEMPO_CHAN_NAME, 8), 0);
}

static void test_init_invalid(void **state)
{
	struct chan_regs_desc d = desc;

	(void)state;
	d.peer_count = 0;
	d.self = 0;
	assert_false(chan_regs_init(&regs, &d));
	d.peer_count = 9;
	assert_false(chan_regs_init(&regs, &d));
	d.peer_count = 3;
	d.self = 3;
	assert_false(chan_regs_init(&regs, &d));
	assert_int_equal(rd32(TEMPO_CHAN_PEER_COUNT), 0);
	assert_int_equal(rdn(TEMPO_CHAN_NAME, 8), 0);
	d.peer_count = 1;
	d.self = 0;
	assert_true(chan_regs_init(&regs, &d));
}

static void test_reset(void **state)
{
	(void)state;
	wr32(TEMPO_CHAN_INTR_MASK, 7);
	chan_regs_ring_done(&regs, 1);
	chan_regs_doorbell(&regs);
	chan_regs_reset(&regs);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_MASK), 0);
	assert_int_equal(rd32(TEMPO_CHAN_RING_RESULT), 0);
	assert_int_equal(rd32(TEMPO_CHAN_INTR_STATUS), 0);
	assert_int_equal(rd32(TEMPO_CHAN_RECEIVED), 0);
	/* what the channel is stays */
	assert_int_equal(rd32(TEMPO_CHAN_IV_POSITION), 1);
	assert_int_equal(rd32(TEMPO_CHAN_SIZE_HI), 1);
	assert_int_equal(rdn(TEMPO_CHAN_NAME, 4), 0x6b6e696c);
	assert_int_equal(rdn(0x120, 4), 0x756e696c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_registers, setup),
		cmocka_unit_test_setup(test_widths, setup),
		cmocka_unit_test_setup(test_doorbell, setup),
		cmocka_unit_test_setup(test_intr_status, setup),
		cmocka_unit_test_setup(test_intr_status_concurrent, setup),
		cmocka_unit_test_setup(test_names, setup),
		cmocka_unit_test_setup(test_name_limits, setup),
		cmocka_unit_test_setup(test_init_invalid, setup),
		cmocka_unit_test_setup(test_reset, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
