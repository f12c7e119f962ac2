// SPDX-License-Identifier: MIT
#include "hv/core/vuart.h"

#include "hv/lib/lib.h"

#define REG_THR_RBR_DLL	0
#define REG_IER_DLM	1
#define REG_IIR_FCR	2
#define REG_LCR		3
#define REG_MCR		4
#define REG_LSR		5
#define REG_MSR		6
#define REG_SCR		7

#define LCR_DLAB	0x80
#define LSR_THRE	0x20	/* transmit holding register empty */
#define LSR_TEMT	0x40	/* transmitter empty */
#define IIR_NO_INT	0x01
#define IIR_FIFO_ON	0xc0
#define MSR_DCD_DSR_CTS	0xb0

void vuart_init(struct vuart *u)
{
	memset(u, 0, sizeof(*u));
	u->lcr = 0x03;
	u->dll = 1;	/* 115200 baud */
}

void vuart_put(struct vuart *u, const char *s, uint32_t n)
{
	uint32_t head = u->head;

	for (uint32_t i = 0; i < n; i++) {
		if (head - u->tail >= VUART_RING_SIZE) {
			u->dropped += n - i;
			break;
		}
		u->ring[head & (VUART_RING_SIZE - 1)] = (uint8_t)s[i];
		head++;
	}
	__atomic_store_n(&u->head, head, __ATOMIC_RELEASE);
}

void vuart_write(struct vuart *u, uint16_t port, uint8_t value)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (port - VUART_BASE) {
	case REG_THR_RBR_DLL:
		if (dlab) {
			u->dll = value;
		} else {
			char c = (char)value;

			vuart_put(u, &c, 1);
		}
		break;
	case REG_IER_DLM:
		if (dlab)
			u->dlm = value;
		else
			u->ier = value & 0x0f;
		break;
	case REG_IIR_FCR:
		u->fcr = value;
		break;
	case REG_LCR:
		u->lcr = value;
		break;
	case REG_MCR:
		u->mcr = value & 0x1f;
		break;
	case REG_SCR:
		u->scr = value;
		break;
	default:	/* LSR and MSR are read-only */
		break;
	}
}

uint8_t vuart_read(struct vuart *u, uint16_t port)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (port - VUART_BASE) {
	case REG_THR_RBR_DLL:
		return dlab ? u->dll : 0;	/* nothing is ever received */
	case REG_IER_DLM:
		return dlab ? u->dlm : u->ier;
	case REG_IIR_FCR:
		return IIR_NO_INT | (u->fcr & 1 ? IIR_FIFO_ON : 0);
	case REG_LCR:
		return u->lcr;
	case REG_MCR:
		return u->mcr;
	case REG_LSR:
		return LSR_THRE | LSR_TEMT;	/* always ready: the ring absorbs it */
	case REG_MSR:
		/* loopback mode reflects MCR like a real 16550 (Linux probes it) */
		if (u->mcr & 0x10)
			return ((u->mcr & 0x0c) << 4) | ((u->mcr & 0x01) << 5) |
			       ((u->mcr & 0x02) << 3);
		return MSR_DCD_DSR_CTS;
	case REG_SCR:
		return u->scr;
	}
	return 0xff;
}

uint32_t vuart_drain(struct vuart *u, bool flush, void (*emit)(void *ctx, const char *line),
		     void *ctx)
{
	uint32_t head = __atomic_load_n(&u->head, __ATOMIC_ACQUIRE);
	uint32_t tail = u->tail, lines = 0;

	while (tail != head) {
		char c = (char)u->ring[tail & (VUART_RING_SIZE - 1)];

		tail++;
		if (c == '\r')
			continue;
		if (c == '\n' || u->line_len == VUART_LINE_MAX) {
			u->line[u->line_len] = 0;
			emit(ctx, u->line);
			lines++;
			u->line_len = 0;
			if (c == '\n')
				continue;
		}
		u->line[u->line_len++] = c;
	}
	__atomic_store_n(&u->tail, tail, __ATOMIC_RELEASE);
	if (flush && u->line_len) {
		u->line[u->line_len] = 0;
		emit(ctx, u->line);
		lines++;
		u->line_len = 0;
	}
	return lines;
}
