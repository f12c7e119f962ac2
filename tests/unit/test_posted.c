// SPDX-License-Identifier: MIT
/*
 * Posted interrupts (hv/core/posted.h): the descriptor's layout against the
 * SDM's bit positions, the post/take protocol (one notification per batch,
 * nothing lost, also with posters and a taker racing on threads), the
 * VM-entry checks and who uses them.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/trap.h"
#include "arch/x86/vmx_defs.h"
#include "hv/core/posted.h"

static void test_layout(void **state)
{
	struct pi_desc d;
	const uint8_t *b = (const uint8_t *)&d;

	(void)state;
	assert_int_equal(sizeof(d), 64);
	assert_int_equal(_Alignof(struct pi_desc), 64);
	memset(&d, 0xa5, sizeof(d));
	pi_init(&d, 0xec, 0x12345);
	/* PIR: bits 255:0 */
	for (int i = 0; i < 32; i++)
		assert_int_equal(b[i], 0);
	/* ON (256) and SN (257) clear, NV in bits 279:272, NDST in 319:288, the rest 0 */
	assert_int_equal(b[32], 0);
	assert_int_equal(b[33], 0);
	assert_int_equal(b[34], 0xec);
	assert_int_equal(b[35], 0);
	assert_int_equal(b[36] | b[37] << 8 | b[38] << 16 | b[39] << 24, 0x12345);
	for (int i = 40; i < 64; i++)
		assert_int_equal(b[i], 0);
	/* vector 0x41 is bit 0x41 of the PIR: byte 8, bit 1 */
	assert_true(pi_post(&d, 0x41));
	assert_int_equal(b[8], 0x02);
	assert_int_equal(b[32] & 1, 1);
	/* the notification vector is one of Tempo's own, outside what a guest's IPI takes straight */
	assert_true(TRAP_POSTED_VECTOR >= TRAP_HV_VECTOR_FIRST &&
		    TRAP_POSTED_VECTOR <= TRAP_HV_VECTOR_LAST);
	assert_int_equal(VMCS_POSTED_INTR_NV, 0x0002);
	assert_int_equal(VMCS_POSTED_INTR_DESC, 0x2016);
}

static void test_post_take(void **state)
{
	struct pi_desc d;
	uint32_t irr[8] = { 0 };

	(void)state;
	pi_init(&d, 0xec, 0);
	assert_false(pi_pending(&d));
	assert_int_equal(pi_take(&d, irr), -1);
	for (int i = 0; i < 8; i++)
		assert_int_equal(irr[i], 0);
	/* the first post of a batch notifies, the next ones ride on it */
	assert_true(pi_post(&d, 0x30));
	assert_false(pi_post(&d, 0xfe));
	assert_false(pi_post(&d, 0x30));
	assert_false(pi_post(&d, 0));
	assert_true(pi_pending(&d));
	irr[1] = 0x4;		/* bits already there stay */
	assert_int_equal(pi_take(&d, irr), 0xfe);
	assert_int_equal(irr[0], 1);
	assert_int_equal(irr[1], 0x4 | 1u << 16);
	assert_int_equal(irr[7], 1u << 30);
	assert_false(pi_pending(&d));
	assert_int_equal(d.control & PI_ON, 0);
	assert_int_equal(d.control >> PI_NV_SHIFT, 0xec);	/* NV kept */
	/* taken: the next post notifies again */
	assert_true(pi_post(&d, 0xff));
	memset(irr, 0, sizeof(irr));
	assert_int_equal(pi_take(&d, irr), 0xff);
	assert_int_equal(irr[7], 1u << 31);
	/* a bit left without ON (ON cleared, the bit set after the PIR was read) is still pending */
	__atomic_fetch_or(&d.pir[2], 1u << 5, __ATOMIC_SEQ_CST);
	assert_true(pi_pending(&d));
	memset(irr, 0, sizeof(irr));
	assert_int_equal(pi_take(&d, irr), 0x45);
}

static void test_suppressed(void **state)
{
	struct pi_desc d;
	uint32_t irr[8] = { 0 };

	(void)state;
	pi_init(&d, 0xec, 0);
	__atomic_fetch_or(&d.control, PI_SN, __ATOMIC_SEQ_CST);
	/* SN: no notification, ON stays clear, the vector waits */
	assert_false(pi_post(&d, 0x80));
	assert_int_equal(d.control & PI_ON, 0);
	assert_true(pi_pending(&d));
	assert_int_equal(pi_take(&d, irr), 0x80);
	assert_int_equal(d.control & PI_SN, PI_SN);	/* pi_take leaves SN */
	__atomic_fetch_and(&d.control, ~PI_SN, __ATOMIC_SEQ_CST);
	assert_true(pi_post(&d, 0x81));
}

/*
 * Four posters against one taker, driven the way the hardware drives it:
 * each post that returns true sends one notification, and the taker takes
 * only on a notification (as the CPU's posted-interrupt processing, or
 * deliver_virtual after one). Over many trials of 4 x 48 posts: every
 * vector posted is taken, none that was not, and at the end nothing is
 * stranded in the PIR with no notification on its way. The last needs
 * both orders of the SDM: the PIR bit before ON in pi_post, ON cleared
 * before the PIR is read in pi_take (either swapped strands a bit in a
 * few trials in a thousand).
 */
#define POSTERS	4
#define TRIALS	20000

static struct pi_desc race_desc;
static pthread_barrier_t race_start, race_end;
static uint32_t race_notes;		/* notifications sent and not yet taken */

static void *poster(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int trial = 0; trial < TRIALS; trial++) {
		pthread_barrier_wait(&race_start);
		for (int k = 0; k < 48; k++)
			if (pi_post(&race_desc, (uint8_t)(0x20 + id * 48 + (k * 7 + trial) % 48)))
				__atomic_fetch_add(&race_notes, 1, __ATOMIC_SEQ_CST);
		pthread_barrier_wait(&race_end);
	}
	return NULL;
}

static void test_race(void **state)
{
	pthread_t t[POSTERS];
	int stranded = 0, wrong = 0;

	(void)state;
	pthread_barrier_init(&race_start, NULL, POSTERS + 1);
	pthread_barrier_init(&race_end, NULL, POSTERS + 1);
	for (int i = 0; i < POSTERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, poster, (void *)(intptr_t)i), 0);
	for (int trial = 0; trial < TRIALS; trial++) {
		uint32_t seen[8] = { 0 }, left[8] = { 0 };
		uint32_t n;

		pi_init(&race_desc, 0xec, 0);
		__atomic_store_n(&race_notes, 0, __ATOMIC_SEQ_CST);
		pthread_barrier_wait(&race_start);
		/* take on each notification while the posters run */
		for (int spins = 0; spins < 4096; spins++) {
			n = __atomic_load_n(&race_notes, __ATOMIC_SEQ_CST);
			if (n && __atomic_compare_exchange_n(&race_notes, &n, n - 1, false,
							     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				pi_take(&race_desc, seen);
		}
		pthread_barrier_wait(&race_end);
		/* the notifications still on their way */
		while (__atomic_load_n(&race_notes, __ATOMIC_SEQ_CST)) {
			__atomic_fetch_sub(&race_notes, 1, __ATOMIC_SEQ_CST);
			pi_take(&race_desc, seen);
		}
		/* nothing may be left with no notification coming for it */
		if (pi_take(&race_desc, left) >= 0)
			stranded++;
		for (int v = 0; v < 256; v++) {
			int posted = v >= 0x20 && v < 0x20 + POSTERS * 48;

			if (!!(seen[v / 32] & (1u << (v % 32))) != posted)
				wrong++;
		}
	}
	for (int i = 0; i < POSTERS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&race_start);
	pthread_barrier_destroy(&race_end);
	assert_int_equal(stranded, 0);
	assert_int_equal(wrong, 0);
}

static void test_controls(void **state)
{
	const uint32_t pin = PIN_EXTINT_EXITING | PIN_NMI_EXITING | PIN_POSTED_INTR;
	const uint32_t exit = EXIT_ACK_INTR_ON_EXIT;
	const uint32_t proc2 = PROC2_VIRT_INTR_DELIVERY;

	(void)state;
	assert_true(pi_controls_ok(pin, exit, proc2, 0xec, 0x1000040, 39));
	/* without posted interrupts nothing is asked */
	assert_true(pi_controls_ok(PIN_NMI_EXITING, 0, 0, 0xffff, 1, 0));
	assert_false(pi_controls_ok(pin & ~PIN_EXTINT_EXITING, exit, proc2, 0xec, 0x1000, 39));
	assert_false(pi_controls_ok(pin, 0, proc2, 0xec, 0x1000, 39));
	assert_false(pi_controls_ok(pin, exit, 0, 0xec, 0x1000, 39));
	assert_false(pi_controls_ok(pin, exit, proc2, 0x1ec, 0x1000, 39));
	assert_true(pi_controls_ok(pin, exit, proc2, 0xff, 0x1000, 39));
	for (uint64_t a = 1; a < 64; a++)
		assert_false(pi_controls_ok(pin, exit, proc2, 0xec, 0x1000 + a, 39));
	assert_true(pi_controls_ok(pin, exit, proc2, 0xec, (1ull << 39) - 64, 39));
	assert_false(pi_controls_ok(pin, exit, proc2, 0xec, 1ull << 39, 39));
	assert_true(pi_controls_ok(pin, exit, proc2, 0xec, 1ull << 45, 46));
	assert_false(pi_controls_ok(pin, exit, proc2, 0xec, 1ull << 46, 46));
}

static void test_usable(void **state)
{
	(void)state;
	assert_true(pi_usable(true, true, false, false));
	assert_false(pi_usable(false, true, false, false));	/* not asked for, or no CPU support */
	assert_false(pi_usable(true, false, false, false));	/* direct now: no VID */
	assert_false(pi_usable(true, true, true, false));	/* a shared core */
	assert_false(pi_usable(true, true, false, true));	/* configured direct: it may go back */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_post_take),
		cmocka_unit_test(test_suppressed),
		cmocka_unit_test(test_race),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_usable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
