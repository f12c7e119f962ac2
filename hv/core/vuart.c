// SPDX-License-Identifier: MIT
/* The virtual 16550: its registers, the transmit ring and the receive FIFO. */
#include "hv/core/vuart.h"

#include "hv/lib/lib.h"
#include "hv/lib/spin.h"

#define REG_THR_RBR_DLL	0
#define REG_IER_DLM	1
#define REG_IIR_FCR	2
#define REG_LCR		3
#define REG_MCR		4
#define REG_LSR		5
#define REG_MSR		6
#define REG_SCR		7

#define IER_ERBFI	0x01	/* interrupt on received data */
#define IER_ETBEI	0x02	/* interrupt on THR empty */
#define FCR_FIFO_ON	0x01
#define FCR_CLEAR_RX	0x02
#define FCR_CLEAR_TX	0x04
#define LCR_DLAB	0x80
#define MCR_OUT2	0x08	/* gates the interrupt line on a PC */
#define MCR_LOOP	0x10
#define LSR_DR		0x01	/* data ready */
#define LSR_THRE	VUART_LSR_THRE
#define LSR_TEMT	VUART_LSR_TEMT
#define IIR_NO_INT	0x01
#define IIR_THRE	0x02
#define IIR_RDA		0x04	/* received data available */
#define IIR_FIFO_ON	0xc0
#define MSR_DCD_DSR_CTS	0xb0

void vuart_init(struct vuart *u)
{
	memset(u, 0, sizeof(*u));
	u->lcr = 0x03;
	u->dll = 1;	/* 115200 baud */
}

/*
 * The guest's side of the device (its port I/O, the console hypercall) runs
 * on the core of whichever vCPU of the partition exited, several at once:
 * one at a time, or two producers of the transmit ring could each store a
 * head of their own, one behind the tail the drainer already took (helper
 * review: the drainer then walked 4 GiB). Held for one register access or
 * one copy of at most a page; the drainer and the receive FIFO's producer
 * (the console core) stay lock-free against it.
 */
static void guest_lock(struct vuart *u)
{
	spin_lock(&u->guest_lock);
}

static void guest_unlock(struct vuart *u)
{
	spin_unlock(&u->guest_lock);
}

/* The transmit ring's one producer at a time: the guest lock is held. */
static bool put_locked(struct vuart *u, const char *s, uint32_t n)
{
	uint32_t head = u->head;
	uint32_t used = head - __atomic_load_n(&u->tail, __ATOMIC_ACQUIRE);

	if (n > VUART_RING_SIZE - used) {
		/* under the guest lock: a plain sum, stored whole for the drainer */
		__atomic_store_n(&u->dropped, u->dropped + n, __ATOMIC_RELAXED);
		return false;
	}
	for (uint32_t i = 0; i < n; i++, head++)
		u->ring[head & (VUART_RING_SIZE - 1)] = (uint8_t)s[i];
	__atomic_store_n(&u->head, head, __ATOMIC_RELEASE);
	return true;
}

bool vuart_put(struct vuart *u, const char *s, uint32_t n)
{
	bool ok;

	guest_lock(u);
	ok = put_locked(u, s, n);
	guest_unlock(u);
	return ok;
}

uint64_t vuart_dropped_since(struct vuart *u)
{
	uint64_t d = __atomic_load_n(&u->dropped, __ATOMIC_RELAXED), n = d - u->dropped_shown;

	u->dropped_shown = d;
	return n;
}

uint32_t vuart_rx_push(struct vuart *u, const uint8_t *bytes, uint32_t n)
{
	uint32_t head = u->rx_head;	/* ours: we are the only writer */
	uint32_t tail = __atomic_load_n(&u->rx_tail, __ATOMIC_ACQUIRE);
	uint32_t take = MIN(n, VUART_RX_SIZE - (head - tail));

	for (uint32_t i = 0; i < take; i++)
		u->rx[(head + i) & (VUART_RX_SIZE - 1)] = bytes[i];
	/* the bytes are in place before the consumer can see the new head */
	__atomic_store_n(&u->rx_head, head + take, __ATOMIC_RELEASE);
	u->rx_dropped += n - take;
	return take;
}

/* The consumer's side, the vCPU's core only from here on. */

static bool rx_ready(const struct vuart *u)
{
	if (u->mcr & MCR_LOOP)
		return u->loop_head != u->loop_tail;
	return __atomic_load_n(&u->rx_head, __ATOMIC_ACQUIRE) != u->rx_tail;
}

/* RBR: the next byte, 0 when there is none (what an empty 16550 gives). */
static uint8_t rx_pop(struct vuart *u)
{
	uint32_t tail = u->rx_tail;
	uint8_t b;

	if (u->mcr & MCR_LOOP) {
		if (u->loop_head == u->loop_tail)
			return 0;
		return u->loop[u->loop_tail++ & (VUART_LOOP_SIZE - 1)];
	}
	if (__atomic_load_n(&u->rx_head, __ATOMIC_ACQUIRE) == tail)
		return 0;
	b = u->rx[tail & (VUART_RX_SIZE - 1)];
	/* the byte is read before the producer may reuse its slot */
	__atomic_store_n(&u->rx_tail, tail + 1, __ATOMIC_RELEASE);
	return b;
}

/*
 * FCR bit 1. Only the consumer moves the tail, so setting it to a head the
 * producer has published is safe against a push running at the same time:
 * whatever that push adds after the head we read stays queued.
 */
static void rx_clear(struct vuart *u)
{
	__atomic_store_n(&u->rx_tail, __atomic_load_n(&u->rx_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	u->loop_tail = u->loop_head;
}

/* A byte sent in loopback mode: a 16550 receives it itself. */
static void loop_put(struct vuart *u, uint8_t b)
{
	/* full: dropped, as a 16550 overruns (only a probe loops bytes back) */
	if ((uint8_t)(u->loop_head - u->loop_tail) >= VUART_LOOP_SIZE)
		return;
	u->loop[u->loop_head++ & (VUART_LOOP_SIZE - 1)] = b;
}

uint8_t vuart_lsr_tx(uint32_t head, uint32_t tail)
{
	/*
	 * A head more than a ring ahead of the tail is none the producer
	 * stores (vuart_drain skips it): no room is the answer that never
	 * lets a write through on a count that is not the ring's.
	 */
	if (head - tail >= VUART_RING_SIZE)
		return 0;
	return LSR_THRE | LSR_TEMT;
}

/*
 * LSR's transmitter bits as the guest sees them: in loopback the byte goes
 * to the receiver, never to the ring, so the transmitter is always free.
 */
static uint8_t lsr_tx(const struct vuart *u)
{
	if (u->mcr & MCR_LOOP)
		return LSR_THRE | LSR_TEMT;
	return vuart_lsr_tx(u->head, __atomic_load_n(&u->tail, __ATOMIC_ACQUIRE));
}

/*
 * LSR whole, on the polling guest's every byte: MCR looked at once, as
 * lsr_tx and rx_ready would each look at it again.
 */
static uint8_t lsr_read(const struct vuart *u)
{
	if (u->mcr & MCR_LOOP)
		return LSR_THRE | LSR_TEMT | (u->loop_head != u->loop_tail ? LSR_DR : 0);
	return vuart_lsr_tx(u->head, __atomic_load_n(&u->tail, __ATOMIC_ACQUIRE)) |
	       (__atomic_load_n(&u->rx_head, __ATOMIC_ACQUIRE) != u->rx_tail ? LSR_DR : 0);
}

/*
 * The interrupt IIR reports: received data above THR empty above none. THR
 * empty is reported only while LSR says so too: a byte written into a full
 * ring has not left THR yet, and the interrupt comes once the drainer
 * makes room.
 */
static uint8_t iir_id(const struct vuart *u)
{
	if ((u->ier & IER_ERBFI) && rx_ready(u))
		return IIR_RDA;
	if ((u->ier & IER_ETBEI) && u->thre_pending && (lsr_tx(u) & LSR_THRE))
		return IIR_THRE;
	return IIR_NO_INT;
}

bool vuart_irq_pending(const struct vuart *u)
{
	return (u->mcr & MCR_OUT2) && iir_id(u) != IIR_NO_INT;
}

static void write_locked(struct vuart *u, uint16_t port, uint8_t value)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (port - VUART_BASE) {
	case REG_THR_RBR_DLL:
		if (dlab) {
			u->dll = value;
			break;
		}
		if (u->mcr & MCR_LOOP) {
			loop_put(u, value);
		} else {
			char c = (char)value;

			put_locked(u, &c, 1);
		}
		/*
		 * Into the ring at once: THR is empty again, an interrupt
		 * (held back by iir_id while the ring is full). A byte
		 * written while LSR said busy was dropped and counted above.
		 */
		u->thre_pending = true;
		break;
	case REG_IER_DLM:
		if (dlab) {
			u->dlm = value;
			break;
		}
		/* enabling it raises THRE, at once or once the ring has room */
		if ((value & IER_ETBEI) && !(u->ier & IER_ETBEI))
			u->thre_pending = true;
		u->ier = value & 0x0f;
		break;
	case REG_IIR_FCR:
		if (value & FCR_CLEAR_RX)
			rx_clear(u);
		/*
		 * The clear bits act once and are not kept. Bit 2 clears
		 * nothing: the transmit ring holds bytes already "sent".
		 */
		u->fcr = (uint8_t)(value & ~(FCR_CLEAR_RX | FCR_CLEAR_TX));
		break;
	case REG_LCR:
		u->lcr = value;
		break;
	case REG_MCR:
		/* leaving loopback: what was looped back is not the wire's */
		if ((u->mcr & MCR_LOOP) && !(value & MCR_LOOP))
			u->loop_tail = u->loop_head;
		u->mcr = value & 0x1f;
		break;
	case REG_SCR:
		u->scr = value;
		break;
	default:	/* LSR and MSR are read-only */
		break;
	}
}

static uint8_t read_locked(struct vuart *u, uint16_t port)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (port - VUART_BASE) {
	case REG_THR_RBR_DLL:
		return dlab ? u->dll : rx_pop(u);
	case REG_IER_DLM:
		return dlab ? u->dlm : u->ier;
	case REG_IIR_FCR: {
		uint8_t id = iir_id(u);

		/* reading IIR acknowledges THR empty when that is what it says */
		if (id == IIR_THRE)
			u->thre_pending = false;
		return id | (u->fcr & FCR_FIFO_ON ? IIR_FIFO_ON : 0);
	}
	case REG_LCR:
		return u->lcr;
	case REG_MCR:
		return u->mcr;
	case REG_LSR:
		return lsr_read(u);
	case REG_MSR:
		/* loopback mode reflects MCR like a real 16550 (Linux probes it) */
		if (u->mcr & MCR_LOOP)
			return ((u->mcr & 0x0c) << 4) | ((u->mcr & 0x01) << 5) |
			       ((u->mcr & 0x02) << 3);
		return MSR_DCD_DSR_CTS;
	case REG_SCR:
		return u->scr;
	}
	return 0xff;
}

void vuart_write(struct vuart *u, uint16_t port, uint8_t value)
{
	guest_lock(u);
	write_locked(u, port, value);
	guest_unlock(u);
}

uint8_t vuart_read(struct vuart *u, uint16_t port)
{
	uint8_t value;

	guest_lock(u);
	value = read_locked(u, port);
	guest_unlock(u);
	return value;
}

/* @n chars onto the partial line; a full one is emitted first (counted in *@lines). */
static void line_append(struct vuart *u, const char *s, uint32_t n,
			void (*emit)(void *ctx, const char *line), void *ctx, uint32_t *lines)
{
	if (u->line_len + n > VUART_LINE_MAX) {
		u->line[u->line_len] = 0;
		emit(ctx, u->line);
		(*lines)++;
		u->line_len = 0;
	}
	memcpy(u->line + u->line_len, s, n);
	u->line_len += n;
}

uint32_t vuart_drain(struct vuart *u, bool flush, void (*emit)(void *ctx, const char *line),
		     void *ctx)
{
	uint32_t head = __atomic_load_n(&u->head, __ATOMIC_ACQUIRE);
	uint32_t tail = u->tail, lines = 0;
	char out[CONS_ESCAPE_OUT_MAX];

	/*
	 * A head no producer could have stored (behind the tail, or more than
	 * a ring ahead) is not walked: what lies between is not the guest's
	 * output, and the walk would be up to 4 GiB long.
	 */
	if (head - tail > VUART_RING_SIZE)
		tail = head;
	while (tail != head) {
		uint8_t c = u->ring[tail & (VUART_RING_SIZE - 1)];

		tail++;
		/* dropped: mid-line it would return to the "[name] " prefix and overwrite it */
		if (c == '\r')
			continue;
		if (c == '\n') {
			line_append(u, out, cons_escape_end(&u->esc, out), emit, ctx, &lines);
			u->line[u->line_len] = 0;
			emit(ctx, u->line);
			lines++;
			u->line_len = 0;
			continue;
		}
		line_append(u, out, cons_escape_byte(&u->esc, c, out), emit, ctx, &lines);
	}
	__atomic_store_n(&u->tail, tail, __ATOMIC_RELEASE);
	if (flush)
		lines += vuart_flush_line(u, emit, ctx);
	return lines;
}

uint32_t vuart_flush_line(struct vuart *u, void (*emit)(void *ctx, const char *line), void *ctx)
{
	/* a UTF-8 sequence still held waits for its rest: a prompt may be cut mid-character */
	if (!u->line_len)
		return 0;
	u->line[u->line_len] = 0;
	emit(ctx, u->line);
	u->line_len = 0;
	return 1;
}

bool vuart_line_idle(const struct vuart *u, struct vuart_idle *w, uint64_t now, uint64_t idle)
{
	/*
	 * The consumer's byte count, not the line's length: a line the
	 * previous look saw may have come out whole since, and the one held
	 * now be as long and brand new.
	 */
	uint32_t head = __atomic_load_n(&u->head, __ATOMIC_ACQUIRE);

	if (!u->line_len) {
		w->armed = false;
		return false;
	}
	/* bytes written since the drain: the line is still being written */
	if (!w->armed || w->seen != u->tail || head != u->tail) {
		w->armed = true;
		w->seen = u->tail;
		w->since = now;
		return false;
	}
	if (now - w->since < idle)
		return false;
	w->armed = false;
	return true;
}
