// SPDX-License-Identifier: MIT
/* The virtual 16550 and its console ring. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/vuart.h"

struct lines {
	int n;
	char text[64][VUART_LINE_MAX + 1];
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;

	if (l->n < 64)
		strcpy(l->text[l->n++], line);
}

static void out_str(struct vuart *u, const char *s)
{
	for (; *s; s++)
		vuart_write(u, VUART_BASE, (uint8_t)*s);
}

static void test_lines_and_cr(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	out_str(&u, "hello\r\nwor");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[0], "hello");
	out_str(&u, "ld\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[1], "world");
	out_str(&u, "partial");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 0);
	assert_int_equal(vuart_drain(&u, true, collect, &l), 1);
	assert_string_equal(l.text[2], "partial");
}

/*
 * A result line a script parses comes out as one line: this RTBENCH line
 * (a bench row's label) was cut after "lat_max_" at 200 characters, and
 * the bench table lost its worst case.
 */
static void test_result_line_whole(void **state)
{
	static const char line[] =
		"RTBENCH label=shared2-emulated-rewrite-later env=tempo workload=rewrite-later "
		"wait=hlt events=1000 lost=0 early=0 dup=981 stray=0 lat_min_ticks=735 "
		"lat_avg_ticks=5307 lat_p99_ticks=16300 lat_max_ticks=16630 tsc_khz=50000 "
		"interval_ticks=10000 seed=1 spurious=0 cpu_model=corei7_ivy_bridge_3770k";
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	out_str(&u, line);
	out_str(&u, "\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[0], line);
}

static void test_long_line_split(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };
	char big[VUART_LINE_MAX + 11];

	(void)state;
	vuart_init(&u);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	out_str(&u, big);
	out_str(&u, "\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 2);
	assert_int_equal(strlen(l.text[0]), VUART_LINE_MAX);
	assert_int_equal(strlen(l.text[1]), 10);
}

static void test_ring_full_drops_and_counts(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	for (int i = 0; i < VUART_RING_SIZE + 100; i++)
		vuart_write(&u, VUART_BASE, 'a');
	assert_int_equal(u.dropped, 100);
	vuart_drain(&u, true, collect, &l);
	/* all that fitted came out, in pieces of VUART_LINE_MAX */
	assert_int_equal(l.n, (VUART_RING_SIZE + VUART_LINE_MAX - 1) / VUART_LINE_MAX);
	assert_int_equal(vuart_dropped_since(&u), 100);
	assert_int_equal(vuart_dropped_since(&u), 0);	/* reported once */
}

/* The hypercall's text: all of it or none, so a line is never cut. */
static void test_put_whole_or_none(void **state)
{
	static struct vuart u;
	static char chunk[1000];
	struct lines l = { 0 };
	uint32_t kept = 0;

	(void)state;
	vuart_init(&u);
	memset(chunk, 'y', sizeof(chunk) - 1);
	chunk[sizeof(chunk) - 1] = '\n';
	for (int i = 0; i < 10; i++)
		kept += vuart_put(&u, chunk, sizeof(chunk));
	assert_int_equal(kept, VUART_RING_SIZE / sizeof(chunk));	/* 8 of 10 */
	assert_int_equal(u.head, kept * sizeof(chunk));
	assert_int_equal(vuart_dropped_since(&u), (10 - kept) * sizeof(chunk));
	/* the room left (192 bytes) takes a short one, not a long one */
	assert_true(vuart_put(&u, "short\n", 6));
	assert_false(vuart_put(&u, chunk, 187));
	assert_true(vuart_put(&u, chunk, 186));
	assert_false(vuart_put(&u, "z", 1));			/* exactly full */
	assert_int_equal(vuart_dropped_since(&u), 188);
	/* every line drained is whole: 999 bytes split as the drainer splits lines */
	vuart_drain(&u, false, collect, &l);
	assert_int_equal(u.tail, u.head);
	assert_true(vuart_put(&u, chunk, sizeof(chunk)));	/* room again */
	assert_int_equal(vuart_dropped_since(&u), 0);
	assert_int_equal(u.dropped, 2 * sizeof(chunk) + 188);	/* the total stays */
}

static void test_registers(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	/* always ready to transmit, nothing received yet, no interrupt */
	assert_int_equal(vuart_read(&u, VUART_BASE + 5) & 0x60, 0x60);
	assert_int_equal(vuart_read(&u, VUART_BASE + 0), 0);
	assert_int_equal(vuart_read(&u, VUART_BASE + 2) & 1, 1);
	/* scratch register holds its value (Linux's probe) */
	vuart_write(&u, VUART_BASE + 7, 0x5a);
	assert_int_equal(vuart_read(&u, VUART_BASE + 7), 0x5a);
	/* DLAB switches offsets 0/1 to the divisor latch; no byte is sent */
	vuart_write(&u, VUART_BASE + 3, 0x83);
	vuart_write(&u, VUART_BASE + 0, 0x01);
	vuart_write(&u, VUART_BASE + 1, 0x00);
	assert_int_equal(vuart_read(&u, VUART_BASE + 0), 0x01);
	assert_int_equal(u.head, 0);
	vuart_write(&u, VUART_BASE + 3, 0x03);
	vuart_write(&u, VUART_BASE + 1, 0xff);
	assert_int_equal(vuart_read(&u, VUART_BASE + 1), 0x0f);	/* IER keeps 4 bits */
	/* loopback mode mirrors MCR into MSR */
	vuart_write(&u, VUART_BASE + 4, 0x10 | 0x0a);
	assert_int_equal(vuart_read(&u, VUART_BASE + 6), 0x90);
	assert_true(vuart_owns_port(0x3f8) && vuart_owns_port(0x3ff));
	assert_false(vuart_owns_port(0x3f7) || vuart_owns_port(0x400));
}

#define RBR	(VUART_BASE + 0)
#define IER	(VUART_BASE + 1)
#define IIR	(VUART_BASE + 2)
#define FCR	(VUART_BASE + 2)
#define LCR	(VUART_BASE + 3)
#define MCR	(VUART_BASE + 4)
#define LSR	(VUART_BASE + 5)

static void push_str(struct vuart *u, const char *s)
{
	assert_int_equal(vuart_rx_push(u, (const uint8_t *)s, strlen(s)), strlen(s));
}

/* DR is set exactly while a byte waits; RBR gives them in order. */
static void test_rx_order_and_dr(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	assert_int_equal(vuart_read(&u, LSR) & 1, 0);
	push_str(&u, "ab");
	assert_int_equal(vuart_read(&u, LSR), 0x61);
	assert_int_equal(vuart_read(&u, RBR), 'a');
	assert_int_equal(vuart_read(&u, LSR) & 1, 1);
	assert_int_equal(vuart_read(&u, RBR), 'b');
	assert_int_equal(vuart_read(&u, LSR), 0x60);
	/* empty: 0, and reading again changes nothing */
	assert_int_equal(vuart_read(&u, RBR), 0);
	assert_int_equal(vuart_read(&u, RBR), 0);
	assert_int_equal(vuart_read(&u, LSR), 0x60);
	/* indices wrap past the FIFO size many times over */
	for (int i = 0; i < 3 * VUART_RX_SIZE + 7; i++) {
		uint8_t b = (uint8_t)(i * 7 + 1);

		assert_int_equal(vuart_rx_push(&u, &b, 1), 1);
		assert_int_equal(vuart_read(&u, RBR), b);
	}
	assert_int_equal(u.rx_dropped, 0);
	/* nothing received ever reaches the transmit ring */
	assert_int_equal(u.head, 0);
}

/* A flood only drops: what fits is queued, the rest counted, in any chunking. */
static void test_rx_overflow_drops(void **state)
{
	static struct vuart u;
	uint8_t buf[100];
	uint32_t queued = 0;

	(void)state;
	vuart_init(&u);
	for (int i = 0; i < 100; i++)
		buf[i] = (uint8_t)i;
	for (int i = 0; i < 5; i++)	/* 500 bytes into 256 places */
		queued += vuart_rx_push(&u, buf, sizeof(buf));
	assert_int_equal(queued, VUART_RX_SIZE);
	assert_int_equal(u.rx_dropped, 500 - VUART_RX_SIZE);
	/* full: a push queues nothing and returns at once */
	assert_int_equal(vuart_rx_push(&u, buf, 1), 0);
	assert_int_equal(u.rx_dropped, 501 - VUART_RX_SIZE);
	assert_int_equal(vuart_rx_push(&u, buf, 0), 0);
	/* the oldest bytes are the ones kept */
	for (int i = 0; i < VUART_RX_SIZE; i++)
		assert_int_equal(vuart_read(&u, RBR), (uint8_t)(i % 100));
	assert_int_equal(vuart_read(&u, LSR) & 1, 0);
	/* room again once read */
	assert_int_equal(vuart_rx_push(&u, buf, 3), 3);
	assert_int_equal(vuart_read(&u, RBR), 0);
	assert_int_equal(vuart_read(&u, RBR), 1);
}

static void test_fcr_clears_rx(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	push_str(&u, "stale");
	vuart_write(&u, FCR, 0x07);	/* FIFO on, clear both */
	assert_int_equal(vuart_read(&u, LSR) & 1, 0);
	assert_int_equal(vuart_read(&u, RBR), 0);
	/* the FIFO bits stay, the clear bits do not: a later FCR write keeps data */
	assert_int_equal(vuart_read(&u, IIR), 0xc1);
	push_str(&u, "x");
	vuart_write(&u, FCR, 0x01);
	assert_int_equal(vuart_read(&u, RBR), 'x');
	/* after a clear the FIFO takes its full size again */
	for (int i = 0; i < VUART_RX_SIZE; i++)
		push_str(&u, "y");
	vuart_write(&u, FCR, 0x03);
	for (int i = 0; i < VUART_RX_SIZE; i++)
		push_str(&u, "z");
	assert_int_equal(u.rx_dropped, 0);
	assert_int_equal(vuart_read(&u, RBR), 'z');
}

static void test_iir_priorities(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	/* nothing enabled: no interrupt, whatever waits */
	push_str(&u, "q");
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	/* received data, reported in FIFO mode with the FIFO bits */
	vuart_write(&u, IER, 0x01);
	assert_int_equal(vuart_read(&u, IIR), 0x04);
	vuart_write(&u, FCR, 0x01);
	assert_int_equal(vuart_read(&u, IIR), 0xc4);
	/* reading IIR does not clear received data: only reading RBR does */
	assert_int_equal(vuart_read(&u, IIR), 0xc4);
	/* received data outranks THR empty, which stays pending under it */
	vuart_write(&u, IER, 0x03);
	assert_int_equal(vuart_read(&u, IIR), 0xc4);
	assert_int_equal(vuart_read(&u, RBR), 'q');
	assert_int_equal(vuart_read(&u, IIR), 0xc2);
	assert_int_equal(vuart_read(&u, IIR), 0xc1);
	/* the other IER bits (line and modem status) raise nothing */
	vuart_write(&u, IER, 0x0c);
	push_str(&u, "r");
	assert_int_equal(vuart_read(&u, IIR), 0xc1);
	assert_int_equal(vuart_read(&u, IER), 0x0c);
}

/*
 * THR empty is an event: ETBEI 0->1 and each THR write raise it, an IIR
 * read reporting it clears it. Linux's 8250 startup checks the first two
 * (UART_BUG_THRE): IER=THRI, IIR, IER=0, IER=THRI, IIR must say THRE.
 */
static void test_thre_model(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	vuart_write(&u, IER, 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x01);	/* acknowledged */
	/* rewriting IER with ETBEI already set is no new edge */
	vuart_write(&u, IER, 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	vuart_write(&u, IER, 0x00);
	vuart_write(&u, IER, 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x02);
	/* a THR write empties at once: pending again, one IIR read clears it */
	vuart_write(&u, RBR, 'a');
	vuart_write(&u, RBR, 'b');
	assert_int_equal(vuart_read(&u, IIR), 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	assert_int_equal(u.head, 2);
	/* a THR write with ETBEI clear is remembered as THR empty (it is) */
	vuart_write(&u, IER, 0x00);
	vuart_write(&u, RBR, 'c');
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	vuart_write(&u, IER, 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x02);
	/* a divisor latch write is not a THR write */
	vuart_write(&u, LCR, 0x83);
	vuart_write(&u, RBR, 0x01);
	vuart_write(&u, LCR, 0x03);
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	/* the hypercall's bytes are not the guest's THR writes either */
	vuart_put(&u, "x", 1);
	assert_int_equal(vuart_read(&u, IIR), 0x01);
}

/* The pure rule: room for a byte in the ring is THRE and TEMT, nothing else. */
static void test_lsr_tx_rule(void **state)
{
	(void)state;
	assert_int_equal(vuart_lsr_tx(0, 0), 0x60);
	assert_int_equal(vuart_lsr_tx(VUART_RING_SIZE - 1, 0), 0x60);
	assert_int_equal(vuart_lsr_tx(VUART_RING_SIZE, 0), 0);
	/* the counts wrap at 2^32: the distance is what counts */
	assert_int_equal(vuart_lsr_tx(3, 0xfffffffeu), 0x60);
	assert_int_equal(vuart_lsr_tx(VUART_RING_SIZE - 3, 0xfffffffeu), 0x60);
	assert_int_equal(vuart_lsr_tx(VUART_RING_SIZE - 2, 0xfffffffeu), 0);
	/* counts no producer stores: more than a ring ahead, or behind the tail */
	assert_int_equal(vuart_lsr_tx(VUART_RING_SIZE + 1, 0), 0);
	assert_int_equal(vuart_lsr_tx(0, 1), 0);
	assert_int_equal(vuart_lsr_tx(0x80000000u, 0), 0);
}

/*
 * A full ring is a busy transmitter: LSR's THRE and TEMT read 0 (DR is
 * the receiver's, untouched), a byte written anyway is dropped and
 * counted, loopback is not held back, and a drain frees it again.
 */
static void test_lsr_pushback(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	for (uint32_t i = 0; i < VUART_RING_SIZE - 1; i++)
		vuart_write(&u, RBR, i % 64 == 63 ? '\n' : 'x');
	assert_int_equal(vuart_read(&u, LSR), 0x60);	/* one byte of room left */
	vuart_write(&u, RBR, 'y');
	assert_int_equal(vuart_read(&u, LSR), 0x00);
	push_str(&u, "r");
	assert_int_equal(vuart_read(&u, LSR), 0x01);
	assert_int_equal(vuart_dropped_since(&u), 0);
	vuart_write(&u, RBR, 'z');			/* the guest ignored THRE */
	assert_int_equal(vuart_dropped_since(&u), 1);
	assert_int_equal(u.head - u.tail, VUART_RING_SIZE);
	/* in loopback the byte goes to the receiver: the ring does not matter */
	vuart_write(&u, MCR, 0x10);
	assert_int_equal(vuart_read(&u, LSR) & 0x60, 0x60);
	vuart_write(&u, MCR, 0x00);
	assert_int_equal(vuart_read(&u, LSR) & 0x60, 0x00);
	vuart_drain(&u, false, collect, &l);
	assert_int_equal(vuart_read(&u, LSR), 0x61);
}

/* THR empty is held back while the ring is full and raised once it has room. */
static void test_thre_irq_waits_for_room(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	vuart_write(&u, MCR, 0x0b);			/* OUT2: the line is gated on */
	vuart_write(&u, IER, 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x02);
	for (uint32_t i = 0; i < VUART_RING_SIZE; i++)
		vuart_write(&u, RBR, i % 64 == 63 ? '\n' : 'x');
	assert_false(vuart_irq_pending(&u));
	assert_int_equal(vuart_read(&u, IIR), 0x01);	/* no interrupt yet ... */
	assert_false(vuart_irq_pending(&u));
	vuart_drain(&u, false, collect, &l);
	assert_true(vuart_irq_pending(&u));		/* ... not lost: raised with room */
	assert_int_equal(vuart_read(&u, IIR), 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	/* ETBEI 0->1 on a full ring: pending, reported once there is room */
	vuart_write(&u, IER, 0x00);
	for (uint32_t i = 0; i < VUART_RING_SIZE; i++)
		vuart_write(&u, RBR, 'x');
	vuart_write(&u, IER, 0x02);
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	vuart_drain(&u, false, collect, &l);
	assert_int_equal(vuart_read(&u, IIR), 0x02);
}

/* The drained lines of test_polling_guest_loses_nothing, checked in order. */
struct seq_lines {
	uint32_t next;
	uint32_t bad;
};

static void check_seq(void *ctx, const char *line)
{
	struct seq_lines *q = ctx;
	char want[64];

	snprintf(want, sizeof(want), "line %06u of the polling guest", q->next++);
	if (strcmp(line, want))
		q->bad++;
}

/*
 * A guest that writes several rings' worth faster than the console drains,
 * polling THRE before each byte as kvm-unit-tests' serial_putc and Linux's
 * 8250 do: every line arrives, none is dropped. The drainer runs only when
 * the guest finds the transmitter busy, so with an LSR that always says
 * THRE (no push back) the ring overruns and this fails.
 */
static void test_polling_guest_loses_nothing(void **state)
{
	static struct vuart u;
	struct seq_lines q = { 0, 0 };
	uint32_t waits = 0, n_lines = 3 * VUART_RING_SIZE / 32 + 17;
	char text[64];

	(void)state;
	vuart_init(&u);
	for (uint32_t i = 0; i < n_lines; i++) {
		snprintf(text, sizeof(text), "line %06u of the polling guest\r\n", i);
		for (const char *c = text; *c; c++) {
			while (!(vuart_read(&u, LSR) & 0x20)) {
				vuart_drain(&u, false, check_seq, &q);
				waits++;
			}
			vuart_write(&u, RBR, (uint8_t)*c);
		}
	}
	vuart_drain(&u, false, check_seq, &q);
	assert_int_equal(vuart_dropped_since(&u), 0);
	assert_int_equal(u.dropped, 0);
	assert_int_equal(q.next, n_lines);
	assert_int_equal(q.bad, 0);
	assert_true(waits > 0);	/* the ring did fill: the guest was held back */
}

/* The interrupt line: IIR's answer gated by MCR.OUT2, asked without clearing. */
static void test_irq_pending(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	vuart_write(&u, IER, 0x03);
	assert_false(vuart_irq_pending(&u));	/* THRE pending, OUT2 clear */
	vuart_write(&u, MCR, 0x0b);		/* DTR RTS OUT2 */
	assert_true(vuart_irq_pending(&u));
	assert_true(vuart_irq_pending(&u));	/* asking acknowledges nothing */
	assert_int_equal(vuart_read(&u, IIR), 0x02);
	assert_false(vuart_irq_pending(&u));
	push_str(&u, "k");
	assert_true(vuart_irq_pending(&u));
	vuart_write(&u, MCR, 0x03);
	assert_false(vuart_irq_pending(&u));
	vuart_write(&u, MCR, 0x0b);
	assert_int_equal(vuart_read(&u, RBR), 'k');
	assert_false(vuart_irq_pending(&u));
	vuart_write(&u, IER, 0x00);
	push_str(&u, "k");
	assert_false(vuart_irq_pending(&u));
}

/* Loopback: THR writes come back in RBR, not out on the console. */
static void test_loopback(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	push_str(&u, "W");	/* from the wire before loopback */
	vuart_write(&u, MCR, 0x10);
	/* the wire's byte is not seen while looped */
	assert_int_equal(vuart_read(&u, LSR) & 1, 0);
	vuart_write(&u, RBR, 0x55);
	vuart_write(&u, RBR, 0xaa);
	assert_int_equal(u.head, 0);	/* nothing transmitted */
	assert_int_equal(vuart_read(&u, LSR) & 1, 1);
	vuart_write(&u, IER, 0x01);
	assert_int_equal(vuart_read(&u, IIR), 0x04);
	assert_int_equal(vuart_read(&u, RBR), 0x55);
	assert_int_equal(vuart_read(&u, RBR), 0xaa);
	assert_int_equal(vuart_read(&u, RBR), 0);
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	/* the loop FIFO overruns by dropping, and FCR clears it */
	for (int i = 0; i < 3 * VUART_LOOP_SIZE; i++)
		vuart_write(&u, RBR, (uint8_t)i);
	for (int i = 0; i < VUART_LOOP_SIZE; i++)
		assert_int_equal(vuart_read(&u, RBR), i);
	assert_int_equal(vuart_read(&u, LSR) & 1, 0);
	/* FCR clears both: the wire's byte too */
	vuart_write(&u, RBR, 1);
	vuart_write(&u, FCR, 0x02);
	assert_int_equal(vuart_read(&u, LSR) & 1, 0);
	/* looped bytes left over are gone when loopback ends; the wire's remain */
	push_str(&u, "W");
	vuart_write(&u, RBR, 2);
	vuart_write(&u, MCR, 0x03);
	assert_int_equal(vuart_read(&u, RBR), 'W');
	assert_int_equal(vuart_read(&u, LSR) & 1, 0);
	/* and the transmitter is the console's again */
	vuart_write(&u, RBR, 'o');
	assert_int_equal(u.head, 1);
	assert_int_equal(u.rx_dropped, 0);
}

/* DLAB still selects the divisor latch with data waiting; RBR is kept. */
static void test_dlab_with_rx(void **state)
{
	static struct vuart u;

	(void)state;
	vuart_init(&u);
	push_str(&u, "d");
	vuart_write(&u, IER, 0x05);
	vuart_write(&u, LCR, 0x83);
	assert_int_equal(vuart_read(&u, RBR), 0x01);	/* DLL: 115200 */
	assert_int_equal(vuart_read(&u, IER), 0x00);	/* DLM */
	vuart_write(&u, RBR, 0x0c);
	vuart_write(&u, IER, 0x02);
	assert_int_equal(vuart_read(&u, RBR), 0x0c);
	assert_int_equal(vuart_read(&u, IER), 0x02);
	assert_int_equal(vuart_read(&u, LSR) & 1, 1);	/* nothing was popped */
	vuart_write(&u, LCR, 0x03);
	assert_int_equal(vuart_read(&u, IER), 0x05);	/* IER untouched */
	assert_int_equal(vuart_read(&u, RBR), 'd');
	assert_int_equal(u.dll, 0x0c);
	assert_int_equal(u.dlm, 0x02);
}

/* vuart_init forgets everything received and every pending interrupt. */
static void test_init_resets_rx(void **state)
{
	static struct vuart u;
	uint8_t b = 'z';

	(void)state;
	vuart_init(&u);
	for (int i = 0; i < VUART_RX_SIZE + 2; i++)
		vuart_rx_push(&u, &b, 1);
	vuart_write(&u, IER, 0x03);
	vuart_write(&u, MCR, 0x1b);
	vuart_write(&u, RBR, 'l');
	vuart_init(&u);
	assert_int_equal(u.rx_head, 0);
	assert_int_equal(u.rx_tail, 0);
	assert_int_equal(u.rx_dropped, 0);
	assert_false(u.thre_pending);
	assert_int_equal(vuart_read(&u, LSR), 0x60);
	assert_int_equal(vuart_read(&u, IIR), 0x01);
	assert_int_equal(vuart_read(&u, MCR), 0);
	assert_false(vuart_irq_pending(&u));
}

/*
 * Two vCPUs of one partition write the console at once, each on its own
 * core (the hypercall and the THR port both reach the ring). Without the
 * guest lock each could store a head of its own, one behind the tail the
 * drainer had already taken, and the next drain would walk 4 GiB. Here
 * every line must come out whole, and each one queued exactly once,
 * whatever the interleaving.
 */
#define RACE_LINES	10000

struct producer {
	struct vuart *u;
	char letter;
	uint32_t len;	/* with its '\n' */
	unsigned queued;
	int done;
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	char line[VUART_LINE_MAX];

	memset(line, p->letter, p->len - 1);
	line[p->len - 1] = '\n';
	/* a full ring drops a line whole: write it again until it is queued */
	while (p->queued < RACE_LINES)
		p->queued += vuart_put(p->u, line, p->len);
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct tally {
	unsigned a, b, bad;
	unsigned bad_ring;
};

static void count_line(void *ctx, const char *line)
{
	struct tally *t = ctx;
	size_t n = strlen(line);

	if (n == 299 && strspn(line, "A") == n)
		t->a++;
	else if (n == 149 && strspn(line, "B") == n)
		t->b++;
	else
		t->bad++;
}

static void test_two_vcpus_transmit(void **state)
{
	static struct vuart u;
	struct producer pa = { &u, 'A', 300, 0, 0 }, pb = { &u, 'B', 150, 0, 0 };
	struct tally t = { 0 };
	pthread_t ta, tb;

	(void)state;
	vuart_init(&u);
	assert_int_equal(pthread_create(&ta, NULL, produce, &pa), 0);
	assert_int_equal(pthread_create(&tb, NULL, produce, &pb), 0);
	/* drained to the end whatever it sees: the producers wait for room */
	while (!(__atomic_load_n(&pa.done, __ATOMIC_ACQUIRE) &&
		 __atomic_load_n(&pb.done, __ATOMIC_ACQUIRE))) {
		vuart_drain(&u, false, count_line, &t);
		if (__atomic_load_n(&u.head, __ATOMIC_ACQUIRE) - u.tail > VUART_RING_SIZE)
			t.bad_ring++;
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	vuart_drain(&u, true, count_line, &t);
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.bad_ring, 0);
	assert_int_equal(t.a, RACE_LINES);
	assert_int_equal(t.b, RACE_LINES);
}

/* A head behind the tail (or a ring ahead of it) is skipped, never walked. */
static void test_drain_bad_head(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	out_str(&u, "abc\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	u.head = 2;	/* behind the tail (4) */
	assert_int_equal(vuart_drain(&u, true, collect, &l), 0);
	assert_int_equal(u.tail, u.head);
	u.head += VUART_RING_SIZE + 1;	/* more than a ring ahead */
	assert_int_equal(vuart_drain(&u, true, collect, &l), 0);
	assert_int_equal(u.tail, u.head);
	out_str(&u, "ok\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[1], "ok");
}

/* ---- what reaches the operator's terminal: escaped (hv/core/cons_escape.h) ---- */

static void out_bytes(struct vuart *u, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vuart_write(u, VUART_BASE, (uint8_t)s[i]);
}

/* @n bytes then a newline through a fresh UART: its one line in @l->text[0] */
static void one_line(struct lines *l, const char *s, size_t n)
{
	static struct vuart u;

	memset(l, 0, sizeof(*l));
	vuart_init(&u);
	out_bytes(&u, s, n);
	out_bytes(&u, "\n", 1);
	assert_int_equal(vuart_drain(&u, false, collect, l), 1);
}

#define ONE_LINE(l, lit) one_line(l, lit, sizeof(lit) - 1)

/* Control bytes and escape sequences: caret notation, the text around them kept. */
static void test_escape_controls(void **state)
{
	struct lines l;

	(void)state;
	ONE_LINE(&l, "a\x1b[2J\x1b[Hb");
	assert_string_equal(l.text[0], "a^[[2J^[[Hb");
	ONE_LINE(&l, "\x1b]0;title\x07 bell\x7f");
	assert_string_equal(l.text[0], "^[]0;title^G bell^?");
	/* NUL no longer ends the line early; TAB is text; backspace shown */
	ONE_LINE(&l, "x\0y\tz\bq");
	assert_string_equal(l.text[0], "x^@y\tz^Hq");
	/* a result line is untouched, and parses as before */
	ONE_LINE(&l, "BENCH mode=inject lat_max_ticks=757 seed=5 label=a-b_c/d:e,f(g)=h~i");
	assert_string_equal(l.text[0],
			    "BENCH mode=inject lat_max_ticks=757 seed=5 label=a-b_c/d:e,f(g)=h~i");
}

/* UTF-8: well-formed text passes; the C1 controls and malformed bytes are escaped. */
static void test_escape_utf8(void **state)
{
	struct lines l;

	(void)state;
	ONE_LINE(&l, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf");
	assert_string_equal(l.text[0], "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf");
	ONE_LINE(&l, "\xc2\x9b" "2J \xc2\x85 \xc2\xa0");		/* CSI, NEL: C1; NBSP is text */
	assert_string_equal(l.text[0], "\\xc2\\x9b2J \\xc2\\x85 \xc2\xa0");
	ONE_LINE(&l, "\x80 \xbf \xff \xf5\x80 \xc0\xaf \xc1\xbf");	/* stray, never-valid, overlong */
	assert_string_equal(l.text[0], "\\x80 \\xbf \\xff \\xf5\\x80 \\xc0\\xaf \\xc1\\xbf");
	ONE_LINE(&l, "\xe0\x80\xaf|\xed\xa0\x80|\xf0\x80\x80\x80|\xf4\x90\x80\x80");
	assert_string_equal(l.text[0], "\\xe0\\x80\\xaf|\\xed\\xa0\\x80|\\xf0\\x80\\x80\\x80|"
			    "\\xf4\\x90\\x80\\x80");
}

/* A sequence cut short: by another lead byte, by ASCII, by an escape, by the line's end. */
static void test_escape_truncated(void **state)
{
	struct lines l;

	(void)state;
	ONE_LINE(&l, "\xe2\x82" "A");
	assert_string_equal(l.text[0], "\\xe2\\x82A");
	ONE_LINE(&l, "\xf0\x9f\x98\xc3\xa9");
	assert_string_equal(l.text[0], "\\xf0\\x9f\\x98\xc3\xa9");
	ONE_LINE(&l, "\xe2\x1b[m");
	assert_string_equal(l.text[0], "\\xe2^[[m");
	ONE_LINE(&l, "end\xf0\x9f");
	assert_string_equal(l.text[0], "end\\xf0\\x9f");
}

/* Split across writes and drains: an escape sequence and a character both arrive whole. */
static void test_escape_split_writes(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	out_str(&u, "x\xe2");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 0);
	out_str(&u, "\x82");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 0);
	out_str(&u, "\xac\x1b");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 0);
	out_str(&u, "[31mred\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[0], "x\xe2\x82\xac^[[31mred");
	/* a prompt flushed mid-character: the character comes whole with what follows */
	out_str(&u, "$ \xc3");
	assert_int_equal(vuart_drain(&u, true, collect, &l), 1);
	assert_string_equal(l.text[1], "$ ");
	out_str(&u, "\xa9\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 1);
	assert_string_equal(l.text[2], "\xc3\xa9");
}

/* The line's length counts what is printed: an escape or a character is never cut in two. */
static void test_escape_line_cut(void **state)
{
	static struct vuart u;
	static char buf[VUART_LINE_MAX + 8];
	struct lines l = { 0 };

	(void)state;
	vuart_init(&u);
	memset(buf, 'a', VUART_LINE_MAX - 1);
	buf[VUART_LINE_MAX - 1] = 0;
	out_str(&u, buf);
	out_str(&u, "\x1b\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 2);
	assert_int_equal(strlen(l.text[0]), VUART_LINE_MAX - 1);
	assert_string_equal(l.text[1], "^[");
	out_str(&u, buf);
	out_str(&u, "\xe2\x82\xac\n");
	assert_int_equal(vuart_drain(&u, false, collect, &l), 2);
	assert_int_equal(strlen(l.text[2]), VUART_LINE_MAX - 1);
	assert_string_equal(l.text[3], "\xe2\x82\xac");
}

/* Every byte value, alone and after each lead byte: nothing a terminal acts on gets through. */
static void test_escape_every_byte(void **state)
{
	struct lines l;
	char in[3];

	(void)state;
	for (uint32_t lead = 0; lead < 256; lead++) {
		for (uint32_t c = 0; c < 256; c++) {
			const uint8_t *p;

			if (c == '\n' || lead == '\n')
				continue;
			in[0] = (char)lead;
			in[1] = (char)c;
			one_line(&l, in, 2);
			for (p = (const uint8_t *)l.text[0]; *p; p++) {
				assert_true(*p == '\t' || *p >= 0x20);
				assert_true(*p != 0x7f);
				/* C1 controls never appear raw: no 0xc2 followed by 0x80-0x9f */
				assert_false(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
			}
		}
	}
}

/*
 * The prompt wait: a partial line is due once it has held still, and only
 * then. The stale case: a drain saw "h" (1 byte) of one line, that line
 * then came out whole, and much later the next line's "h" is drained: a
 * fresh byte, not a prompt that stood still (a partition's "hello: got
 * ..." came out as "[echo] h" and "[echo] ello: got ..." under the
 * checking build, where the drains fall at other points of the line).
 */
static void test_prompt_waits_for_stillness(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };
	struct vuart_idle w = { 0 };

	(void)state;
	vuart_init(&u);
	/* nothing held: never due */
	assert_false(vuart_line_idle(&u, &w, 0, 100));
	assert_false(vuart_line_idle(&u, &w, 1000, 100));
	/* a prompt: due after 100, once */
	out_str(&u, "$ ");
	vuart_drain(&u, false, collect, &l);
	assert_false(vuart_line_idle(&u, &w, 1000, 100));
	assert_false(vuart_line_idle(&u, &w, 1099, 100));
	assert_true(vuart_line_idle(&u, &w, 1100, 100));
	vuart_drain(&u, true, collect, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.text[0], "$ ");
	assert_false(vuart_line_idle(&u, &w, 5000, 100));
	/* one byte of a line seen, the line done between two looks */
	out_str(&u, "h");
	vuart_drain(&u, false, collect, &l);
	assert_false(vuart_line_idle(&u, &w, 6000, 100));
	out_str(&u, "ello\n");
	vuart_drain(&u, false, collect, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.text[1], "hello");
	/* long after, the next line's first byte: fresh, not still */
	out_str(&u, "h");
	vuart_drain(&u, false, collect, &l);
	assert_false(vuart_line_idle(&u, &w, 90000, 100));
	assert_false(vuart_line_idle(&u, &w, 90099, 100));
	/* a byte added to a held line starts the wait again */
	out_str(&u, "i");
	vuart_drain(&u, false, collect, &l);
	assert_false(vuart_line_idle(&u, &w, 90150, 100));
	assert_false(vuart_line_idle(&u, &w, 90249, 100));
	assert_true(vuart_line_idle(&u, &w, 90250, 100));
	/* two whole lines and a new partial line of the same length as the held one */
	vuart_drain(&u, true, collect, &l);
	out_str(&u, "ab");
	vuart_drain(&u, false, collect, &l);
	assert_false(vuart_line_idle(&u, &w, 100000, 100));
	out_str(&u, "\nxy\nab");
	vuart_drain(&u, false, collect, &l);
	assert_false(vuart_line_idle(&u, &w, 200000, 100));
	assert_true(vuart_line_idle(&u, &w, 200100, 100));
	vuart_flush_line(&u, collect, &l);
	assert_string_equal(l.text[l.n - 1], "ab");
}

/*
 * Bytes the guest wrote after the drain that looked: the held line is not
 * still, and the flush of a still one emits the held line only, never the
 * ring's newer bytes ("hello: " held; "got x\nh" written meanwhile must not
 * come out as "hello: got x" and a lone "h").
 */
static void test_prompt_ignores_unread_bytes(void **state)
{
	static struct vuart u;
	struct lines l = { 0 };
	struct vuart_idle w = { 0 };

	(void)state;
	vuart_init(&u);
	out_str(&u, "hello: ");
	vuart_drain(&u, false, collect, &l);
	assert_false(vuart_line_idle(&u, &w, 0, 100));
	out_str(&u, "got x\nh");
	assert_false(vuart_line_idle(&u, &w, 500, 100));	/* written, not drained */
	vuart_drain(&u, false, collect, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.text[0], "hello: got x");
	assert_false(vuart_line_idle(&u, &w, 600, 100));	/* "h": a new wait */
	out_str(&u, "ello\n");
	/* still in the tail's eyes, but a flush now must not cut "hello" */
	assert_false(vuart_line_idle(&u, &w, 700, 100));
	vuart_drain(&u, false, collect, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.text[1], "hello");
	/* the flush emits the held line and leaves the ring's bytes for the drain */
	out_str(&u, "$ ");
	vuart_drain(&u, false, collect, &l);
	out_str(&u, "x\n");
	assert_int_equal(vuart_flush_line(&u, collect, &l), 1);
	assert_string_equal(l.text[2], "$ ");
	assert_int_equal(vuart_flush_line(&u, collect, &l), 0);
	vuart_drain(&u, false, collect, &l);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.text[3], "x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_and_cr),
		cmocka_unit_test(test_result_line_whole),
		cmocka_unit_test(test_long_line_split),
		cmocka_unit_test(test_ring_full_drops_and_counts),
		cmocka_unit_test(test_put_whole_or_none),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_rx_order_and_dr),
		cmocka_unit_test(test_rx_overflow_drops),
		cmocka_unit_test(test_fcr_clears_rx),
		cmocka_unit_test(test_iir_priorities),
		cmocka_unit_test(test_thre_model),
		cmocka_unit_test(test_irq_pending),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_dlab_with_rx),
		cmocka_unit_test(test_init_resets_rx),
		cmocka_unit_test(test_two_vcpus_transmit),
		cmocka_unit_test(test_drain_bad_head),
		cmocka_unit_test(test_escape_controls),
		cmocka_unit_test(test_escape_utf8),
		cmocka_unit_test(test_escape_truncated),
		cmocka_unit_test(test_escape_split_writes),
		cmocka_unit_test(test_escape_line_cut),
		cmocka_unit_test(test_escape_every_byte),
		cmocka_unit_test(test_lsr_tx_rule),
		cmocka_unit_test(test_lsr_pushback),
		cmocka_unit_test(test_thre_irq_waits_for_room),
		cmocka_unit_test(test_polling_guest_loses_nothing),
		cmocka_unit_test(test_prompt_waits_for_stillness),
		cmocka_unit_test(test_prompt_ignores_unread_bytes),
	};

	return cmocka_run_group_tests_name("vuart", tests, NULL, NULL);
}
