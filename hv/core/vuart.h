/* SPDX-License-Identifier: MIT */
/*
 * A virtual 16550 at 0x3F8 for each partition. Transmitted bytes go into a
 * per-partition ring buffer, never to the physical UART directly: a guest's
 * write costs one exit and never waits on the wire (a byte at 115200 baud
 * takes about 87 us). A core that runs no real-time guest drains the rings
 * line by line, each line prefixed with the partition's name. The receiver is
 * always empty and no interrupt is ever raised (polled use only, documented).
 * Pure: host-testable.
 */
#ifndef TEMPO_HV_VUART_H
#define TEMPO_HV_VUART_H

#include <stdbool.h>
#include <stdint.h>

#define VUART_BASE	0x3f8
#define VUART_PORTS	8
#define VUART_RING_SIZE	8192	/* power of two */
#define VUART_LINE_MAX	400	/* longer lines are split; a result line (RTBENCH ...) fits */

struct vuart {
	/* register file as the guest sees it */
	uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
	/* transmit ring: written by the vCPU's core, read by the draining core */
	volatile uint32_t head;	/* next byte to write (producer) */
	volatile uint32_t tail;	/* next byte to read (consumer) */
	uint64_t dropped;	/* bytes lost because the ring was full */
	uint8_t ring[VUART_RING_SIZE];
	/* the drainer's partial line */
	uint32_t line_len;
	char line[VUART_LINE_MAX + 1];
};

void vuart_init(struct vuart *u);
static inline bool vuart_owns_port(uint16_t port)
{
	return port >= VUART_BASE && port < VUART_BASE + VUART_PORTS;
}
/* A guest OUT to @port (one of ours). */
void vuart_write(struct vuart *u, uint16_t port, uint8_t value);
/* A guest IN from @port (one of ours). */
uint8_t vuart_read(struct vuart *u, uint16_t port);
/* Queue bytes as if transmitted (the console hypercall uses it). */
void vuart_put(struct vuart *u, const char *s, uint32_t n);

/*
 * Drain: hands each complete line (without its newline; split at
 * VUART_LINE_MAX) to @emit. With @flush, a trailing partial line is emitted
 * too. Returns the number of lines emitted.
 */
uint32_t vuart_drain(struct vuart *u, bool flush, void (*emit)(void *ctx, const char *line),
		     void *ctx);

#endif
