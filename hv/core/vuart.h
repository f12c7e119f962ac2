/* SPDX-License-Identifier: MIT */
/*
 * A virtual 16550 at 0x3F8 for each partition. Transmitted bytes go into a
 * per-partition ring buffer, never to the physical UART directly: a guest's
 * write costs one exit and waits on the wire (a byte at 115200 baud takes
 * about 87 us) only once a ring's worth is queued (below). A core that
 * runs no real-time guest drains the rings line by line, each line
 * prefixed with the partition's name.
 *
 * Received bytes come from the physical COM1 through the console core
 * (vuart_rx_push) into a FIFO the guest empties by reading RBR. The FIFO has
 * one producer (the console core) and one consumer (a vCPU's core, in an
 * I/O exit), on different CPUs at once, so head and tail are handed over with
 * acquire/release like the transmit ring; a flood never blocks the producer,
 * it only drops and counts.
 *
 * The transmitter pushes back as a 16550's does: LSR's THRE and TEMT read 0
 * while the ring has no room for a byte (vuart_lsr_tx), so a driver that
 * polls THRE before each byte (kvm-unit-tests, Linux's 8250, GRUB) waits
 * for the drainer instead of losing its output. A byte written anyway is
 * dropped and counted, as before. TEMT follows THRE rather than waiting
 * for the ring to empty: Linux's console waits for both at the end of each
 * message, and would then wait for the operator's serial line.
 *
 * Interrupt identification follows a 16550 for the two sources modelled,
 * received data (IIR 0x04, above) and THR empty (IIR 0x02). A byte leaves
 * THR for the ring at once when there is room, so the THRE interrupt is an
 * event, not a level: it becomes pending when IER.ETBEI goes 0->1 and after
 * every THR write, is reported only while LSR shows THRE (a full ring holds
 * it back until the drainer makes room), and is cleared by an IIR read
 * that reports it. The FIFO trigger
 * level is taken as one byte, so there is no character-timeout (0x0C) id.
 * Line status and modem status interrupts are never raised. Whether an
 * interrupt would reach the guest is vuart_irq_pending(); the caller
 * delivers it.
 *
 * MCR loopback (bit 4) sends THR writes to the receiver, as a 16550 does. So
 * as to keep the receive FIFO single-producer, the looped bytes go into a
 * small FIFO of their own that only the vCPU's core touches; while loopback
 * is on the receiver reads that one, and bytes from COM1 wait in the receive
 * FIFO (a real 16550 would not see its input pin at all then).
 * Pure: host-testable.
 */
#ifndef TEMPO_HV_VUART_H
#define TEMPO_HV_VUART_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/cons_escape.h"

#define VUART_BASE	0x3f8
#define VUART_PORTS	8
#define VUART_RING_SIZE	8192	/* power of two */
#define VUART_LINE_MAX	400	/* longer lines are split; a result line (RTBENCH ...) fits */
#define VUART_RX_SIZE	256	/* power of two */
#define VUART_LOOP_SIZE	16	/* power of two: the 16550's own FIFO depth */
#define VUART_LSR_THRE	0x20	/* LSR: transmit holding register empty */
#define VUART_LSR_TEMT	0x40	/* LSR: transmitter empty */

struct vuart {
	/* register file as the guest sees it */
	uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
	/* the guest's side (any vCPU of the partition) one at a time: vuart.c */
	volatile uint32_t guest_lock;
	/* transmit ring: written under guest_lock, read by the draining core */
	volatile uint32_t head;	/* next byte to write (producer) */
	volatile uint32_t tail;	/* next byte to read (consumer) */
	volatile uint64_t dropped;	/* bytes lost because the ring was full (producer's) */
	uint64_t dropped_shown;	/* the drainer's: how many of those it has reported */
	uint8_t ring[VUART_RING_SIZE];
	/* the drainer's partial line, escaped (hv/core/cons_escape.h) */
	uint32_t line_len;
	char line[VUART_LINE_MAX + 1];
	struct cons_escape esc;	/* the drainer's: a UTF-8 sequence's first bytes */
	/* receive FIFO: written by the console core, read by the vCPU's core */
	volatile uint32_t rx_head;	/* next byte to write (producer) */
	volatile uint32_t rx_tail;	/* next byte to read (consumer) */
	uint64_t rx_dropped;	/* bytes lost because the FIFO was full (producer's) */
	uint8_t rx[VUART_RX_SIZE];
	/* the vCPU's core only: a THR empty interrupt is pending (see above) */
	bool thre_pending;
	/* the vCPU's core only: bytes sent in loopback mode, waiting in RBR */
	uint8_t loop_head, loop_tail;
	uint8_t loop[VUART_LOOP_SIZE];
};

void vuart_init(struct vuart *u);
static inline bool vuart_owns_port(uint16_t port)
{
	return port >= VUART_BASE && port < VUART_BASE + VUART_PORTS;
}
/*
 * LSR's THRE and TEMT for a transmit ring at @head and @tail (the
 * producer's and the drainer's counts): both set while it has room for a
 * byte, neither when it is full or the counts are more than a ring apart.
 */
uint8_t vuart_lsr_tx(uint32_t head, uint32_t tail);
/* A guest OUT to @port (one of ours). */
void vuart_write(struct vuart *u, uint16_t port, uint8_t value);
/* A guest IN from @port (one of ours). */
uint8_t vuart_read(struct vuart *u, uint16_t port);
/*
 * Queue bytes as if transmitted (the console hypercall uses it): all @n of
 * them, or none when the ring has no room for them all (counted in
 * dropped), so a line written at once comes out whole or not at all.
 * Returns whether they were queued.
 */
bool vuart_put(struct vuart *u, const char *s, uint32_t n);
/*
 * The drainer's: bytes dropped since it last asked (0 when none), so the
 * console can say so in the log where it happened.
 */
uint64_t vuart_dropped_since(struct vuart *u);

/*
 * Queue @n received bytes for the guest (the console core: the producer).
 * What does not fit is counted in rx_dropped; never waits. Returns how many
 * were queued.
 */
uint32_t vuart_rx_push(struct vuart *u, const uint8_t *bytes, uint32_t n);

/*
 * True when IIR would report an interrupt and MCR.OUT2, the gate a PC puts
 * between the UART and its interrupt line, is set. Changes nothing (an IIR
 * read would clear a THRE interrupt; this does not), so the vCPU's core may
 * ask on any exit.
 */
bool vuart_irq_pending(const struct vuart *u);

/*
 * Drain: hands each complete line (without its newline; split at
 * VUART_LINE_MAX chars) to @emit, its bytes escaped for the operator's
 * terminal (hv/core/cons_escape.h) and its CRs dropped. With @flush, a
 * trailing partial line is emitted too (a UTF-8 character cut at its end
 * waits for its rest). Returns the number of lines emitted.
 */
uint32_t vuart_drain(struct vuart *u, bool flush, void (*emit)(void *ctx, const char *line),
		     void *ctx);

/* The partial line alone, whatever the ring holds: 1 if there was one. */
uint32_t vuart_flush_line(struct vuart *u, void (*emit)(void *ctx, const char *line), void *ctx);

/*
 * A prompt: the drainer's partial line once it has stood still (a shell's
 * prompt has no newline). The drainer keeps one per vuart and asks after
 * each vuart_drain; @now and @idle in any one unit (TSC ticks).
 */
struct vuart_idle {
	bool armed;	/* a partial line was seen at @since... */
	uint32_t seen;	/* ...with the consumer at this byte */
	uint64_t since;
};

/*
 * True once the partial line has held still for @idle: no byte drained
 * since the look that started the wait (any byte drained, a whole line's
 * or the partial line's, starts it again), none written and not yet
 * drained now, and the line not emitted meanwhile. True once a wait: the
 * caller flushes the line with vuart_flush_line, which reads no more of
 * the ring (a byte the guest writes meanwhile starts a line of its own
 * only once the prompt is out).
 */
bool vuart_line_idle(const struct vuart *u, struct vuart_idle *w, uint64_t now, uint64_t idle);

#endif
